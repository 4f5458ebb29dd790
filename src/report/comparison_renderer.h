// The renderers of `kopt diff` (a ProfileComparison), of `kopt explain v1 v2 …`
// (a VersionSeries) and of sweeps (`kopt explain … --sweep NAME`, a
// SweepAnalysis); docs/diff.md.
//
// Formats: term (aligned tables; untrusted text sanitized), md, json (schemas
// kDiffSchema, kVersionsSchema, kSweepSchema: every number {"value", "unit"},
// null when unknown) and html (self-contained page: the roofline with an
// arrow from before to after, one line chart per swept metric; everything
// escaped). All four come from the same calls of report/text_document.h.
//
// Thread safety: pure functions.
#pragma once

#include <array>
#include <nlohmann/json.hpp>
#include <string>

#include "analysis/profile_comparison.h"
#include "analysis/sweep_analysis.h"
#include "analysis/version_comparison.h"
#include "core/status.h"
#include "report/report_format.h"

namespace kopt {

inline constexpr const char* kDiffSchema = "kopt.diff/1";
inline constexpr const char* kVersionsSchema = "kopt.versions/1";
inline constexpr const char* kSweepSchema = "kopt.sweep/1";

// The formats these reports are written in: term, md, json, html.
inline constexpr std::array<ReportFormat, 4> kComparisonFormats = {
    ReportFormat::kTerminal, ReportFormat::kMarkdown, ReportFormat::kJson, ReportFormat::kHtml};

std::string RenderComparison(const ProfileComparison& comparison, ReportFormat format);
std::string RenderVersions(const VersionSeries& versions, ReportFormat format);
std::string RenderSweep(const SweepAnalysis& sweep, ReportFormat format);

nlohmann::ordered_json ComparisonToJson(const ProfileComparison& comparison);
nlohmann::ordered_json VersionsToJson(const VersionSeries& versions);
nlohmann::ordered_json SweepToJson(const SweepAnalysis& sweep);

// The compact text of one pair's comparison for a programmer agent's prompt
// and the optimize report: the time change, the largest attribution terms,
// the findings resolved and new (a few lines, no table).
std::string ComparisonDigest(const ProfileComparison& comparison, size_t max_terms);

// Shared pieces: "+12.3 µs" / "−4.5 µs"; "−69.6 %".
std::string SignedDuration(double nanoseconds);
std::string SignedPercent(double fraction);

}  // namespace kopt
