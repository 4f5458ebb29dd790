// Test support for the tool tests (analysis/tools/*_test.cc and the
// cross-tool tests beside this file): the H200 fixtures of
// tests/fixtures/h200/ (one planted bottleneck each) read into a Profile,
// diagnosed, and findings looked up; synthetic launches for edge cases the
// fixtures do not cover. Test-only: header-only, linked into kopt_tests.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "analysis/diagnose.h"
#include "analysis/orchestrator.h"
#include "analysis/tool.h"
#include "hw/ceilings_table.h"
#include "profile/ncu_csv.h"
#include "profile/ncu_source_page.h"
#include "profile/ptxas_report.h"
#include "profile/sass.h"

namespace kopt {

// Which files beside a fixture's raw.csv are read.
struct FixtureParts {
  bool static_facts = true;  // sass.txt and ptxas.txt
  bool source_page = true;   // source.csv
};
inline constexpr FixtureParts kWithoutSourcePage{true, false};
inline constexpr FixtureParts kRawPageOnly{false, false};

// A file of a fixture folder of `set` ("h200": the first example set, "h200_blind": the blind set).
inline std::string FixturePathIn(const std::string& set, const std::string& kernel, const std::string& file) {
  return std::string(KOPT_FIXTURE_DIR) + "/" + set + "/" + kernel + "/" + file;
}
inline std::string FixturePath(const std::string& kernel, const std::string& file) {
  return FixturePathIn("h200", kernel, file);
}

inline std::optional<std::string> ReadFixtureText(const std::string& path) {
  std::ifstream stream(path, std::ios::binary);
  if (!stream) return std::nullopt;
  std::stringstream buffer;
  buffer << stream.rdbuf();
  return buffer.str();
}

// raw.csv with the parts beside it that `parts` asks for, when present.
inline Profile LoadFixtureFrom(const std::string& set, const std::string& kernel, FixtureParts parts = {}) {
  auto FixturePath = [&set](const std::string& name, const std::string& file) {
    return FixturePathIn(set, name, file);
  };
  Profile profile;
  profile.source = FixturePath(kernel, "raw.csv");
  auto raw = ReadFixtureText(profile.source);
  EXPECT_TRUE(raw.has_value()) << profile.source;
  if (!raw) return profile;
  auto launches = ParseNcuRawCsv(*raw, kernel + "/raw.csv");
  EXPECT_TRUE(launches.ok()) << launches.status().message();
  if (launches.ok()) profile.launches = std::move(launches).value();
  if (parts.static_facts) {
    if (auto sass = ReadFixtureText(FixturePath(kernel, "sass.txt"))) {
      auto listing = ParseSass(*sass, kernel + "/sass.txt");
      EXPECT_TRUE(listing.ok()) << listing.status().message();
      if (listing.ok()) profile.sass = std::move(listing).value();
    }
    if (auto ptxas = ReadFixtureText(FixturePath(kernel, "ptxas.txt"))) {
      auto report = ParsePtxasReport(*ptxas, kernel + "/ptxas.txt");
      EXPECT_TRUE(report.ok()) << report.status().message();
      if (report.ok()) profile.ptxas = std::move(report).value();
    }
  }
  if (parts.source_page) {
    if (auto source = ReadFixtureText(FixturePath(kernel, "source.csv"))) {
      if (auto pages = ParseNcuSourcePage(*source, "source.csv"); pages.ok())
        profile.source_pages = std::move(pages).value();
    }
  }
  return profile;
}

inline Profile LoadFixture(const std::string& kernel, FixtureParts parts = {}) {
  return LoadFixtureFrom("h200", kernel, parts);
}

// The H200 ceilings table kopt calibrate measured (tests/fixtures/ceilings/nvidia-h200.toml).
inline const CeilingsTable& H200Ceilings() {
  static const CeilingsTable table = [] {
    std::string path = std::string(KOPT_FIXTURE_DIR) + "/ceilings/nvidia-h200.toml";
    auto text = ReadFixtureText(path);
    EXPECT_TRUE(text.has_value()) << path;
    auto parsed = ParseCeilingsTable(text.value_or(""), path);
    EXPECT_TRUE(parsed.ok()) << parsed.status().message();
    return parsed.ok() ? *parsed : CeilingsTable{};
  }();
  return table;
}

// The diagnosis of the launch of `function` (its first launch when empty) in
// the fixture `kernel` of `set` ("h200_blind", "h200_blind2"), the whole
// profile as its timeline, with the H200 ceilings table unless
// `with_ceilings` is false.
inline KernelDiagnosis DiagnoseFixtureIn(const std::string& set, const std::string& kernel,
                                         const std::string& function = "", FixtureParts parts = {},
                                         bool with_ceilings = true) {
  DiagnoseOptions options;
  if (with_ceilings) options.ceilings = &H200Ceilings();
  Diagnosis diagnosis = Diagnose(LoadFixtureFrom(set, kernel, parts), options);
  EXPECT_FALSE(diagnosis.kernels.empty()) << kernel;
  for (const KernelDiagnosis& launch : diagnosis.kernels) {
    if (function.empty() || launch.function_name == function) return launch;
  }
  ADD_FAILURE() << kernel << ": no launch of " << function;
  return KernelDiagnosis{};
}

// DiagnoseFixtureIn on the first blind set (tests/fixtures/h200_blind).
inline KernelDiagnosis DiagnoseBlindFixture(const std::string& kernel, const std::string& function = "",
                                            FixtureParts parts = {}, bool with_ceilings = true) {
  return DiagnoseFixtureIn("h200_blind", kernel, function, parts, with_ceilings);
}

// The diagnosis of the fixture's first launch.
inline KernelDiagnosis DiagnoseFixture(const std::string& kernel, const DiagnoseOptions& options = {},
                                       FixtureParts parts = {}) {
  Diagnosis diagnosis = Diagnose(LoadFixture(kernel, parts), options);
  EXPECT_FALSE(diagnosis.kernels.empty()) << kernel;
  return diagnosis.kernels.empty() ? KernelDiagnosis{} : diagnosis.kernels.front();
}

inline const Finding* FindFinding(const KernelDiagnosis& kernel, const std::string& id) {
  for (const Finding& finding : kernel.findings) {
    if (finding.tool == id) return &finding;
  }
  return nullptr;
}

inline const SkippedTool* FindSkipped(const KernelDiagnosis& kernel, const std::string& id) {
  for (const SkippedTool& skipped : kernel.skipped_tools) {
    if (skipped.tool == id) return &skipped;
  }
  return nullptr;
}

// "tool gain severity (method)" per finding, for failure messages.
inline std::string DescribeFindings(const KernelDiagnosis& kernel) {
  std::string text;
  for (const Finding& finding : kernel.findings) {
    text += finding.tool + " " + std::to_string(finding.estimated_gain) + " " +
            std::string(SeverityName(finding.severity)) + " (" + finding.gain_method + ")\n";
  }
  return text;
}

// True when the tool producing finding `id` is of `family`.
inline bool IsFindingOfFamily(const std::string& id, ToolFamily family) {
  const ToolDefinition* tool = FindToolProducing(id);
  return tool && tool->family == family;
}

// A launch holding just `metrics` (block 256×1×1).
inline KernelLaunch SyntheticLaunch(std::vector<std::pair<std::string, double>> metrics) {
  auto schema = std::make_shared<MetricSchema>();
  KernelLaunch launch;
  for (auto& [name, value] : metrics) {
    schema->Add(name, "");
    launch.values.push_back(value);
  }
  launch.schema = schema;
  launch.kernel_name = "k()";
  launch.block = {256, 1, 1};
  return launch;
}

// Tool `id` alone on `launch`, its default thresholds, a roofline at `speed_of_light` percent.
inline std::optional<Finding> RunTool(const std::string& id, const KernelLaunch& launch,
                                      double speed_of_light) {
  const ToolDefinition* tool = FindTool(id);
  EXPECT_NE(tool, nullptr) << id;
  if (!tool) return std::nullopt;
  RooflineAnalysis roofline;
  roofline.speed_of_light_percent = speed_of_light;
  roofline.speed_of_light_known = true;
  std::vector<StallReason> stalls;
  std::map<std::string, double> thresholds = ResolveThresholds(*tool, OrchestrationOptions{});
  ToolContext context{launch, roofline, stalls, nullptr, nullptr, nullptr, nullptr, nullptr, &thresholds};
  return tool->analyze(context);
}

}  // namespace kopt
