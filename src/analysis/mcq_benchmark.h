// The multiple-choice benchmark of `kopt eval mcq` (docs/eval.md): questions
// generated from labelled profiles (the fixtures' and blind sets'
// expected.toml: primary_bottleneck, event_median_us), each with four options
// of which one is right, and the statistics of the scores.
//
// Kinds of question:
//  - primary limiter: "What limits kernel K most?" — the label against three
//    distractors: the other findings kopt's tools raised on that kernel
//    first (plausible, measured), then other labels of the set;
//  - faster version: two kernels of the same set whose measured times differ
//    by more than 20 %: which runs longer and why — the right option names the
//    slower one and its label; distractors swap the kernel or the limiter;
//  - change effect: "If you apply <the label's recommended change>, what should
//    happen?" — the finding's own expected effect against three other
//    findings' expected effects;
//  - evidence problem: which problem a metric the label's finding cites as
//    evidence points to — the finding's title against three other findings'
//    titles;
//  - metric meaning: what an Nsight Compute counter cited as evidence on the
//    kernel measures (analysis/metric_glossary.h) — its description against
//    those of three other counters of the same shape with the same roll-up and
//    sub-metric (so the suffix gives nothing away), counters cited on the same
//    kernel first; each counter once per set.
// Option order is shuffled by a seeded generator: the same labelled set and
// seed give the same questions. A stem never names a kernel by its function
// name (fixtures are often named after their bottleneck, which would give the
// answer away): profile i is KernelAlias(i), and every context shown with a
// question passes through PseudonymiseKernelName. Question ids keep the real
// names, for the reader of the results.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/diagnosis.h"

namespace kopt {

struct LabelledProfile {
  std::string path;                       // the profile (bundle directory)
  std::string set;                        // the fixture set it belongs to ("h200_blind3")
  std::string label;                      // expected primary_bottleneck: a finding id, or "healthy"
  std::optional<double> event_median_us;  // measured time per launch without ncu, µs
  const Diagnosis* diagnosis = nullptr;   // borrowed
};

enum class McqKind { kPrimaryLimiter, kFasterVersion, kChangeEffect, kEvidenceProblem, kMetricMeaning };
// "primary_limiter", "faster_version", "change_effect", "evidence_problem", "metric_meaning"
std::string_view McqKindName(McqKind kind);

struct McqQuestion {
  std::string id;  // "<set>/<kernel>/<kind>"
  McqKind kind = McqKind::kPrimaryLimiter;
  std::vector<size_t> profiles;      // indexes into the labelled profiles the question is about
  std::string stem;                  // the question
  std::vector<std::string> options;  // four, shown as A-D
  size_t correct = 0;                // index into options
};

struct McqGenerationOptions {
  uint64_t seed = 1;
  double faster_margin = 0.2;  // faster-version pairs differ by more than this fraction
  size_t max_pairs_per_set = 8;
};

std::vector<McqQuestion> GenerateMcqQuestions(const std::vector<LabelledProfile>& profiles,
                                              const McqGenerationOptions& options);

// "kernel_001" for profile 0: how stems name the kernel of profiles[index].
std::string KernelAlias(size_t index);

// `text` with every whole-identifier occurrence of the profile's kernel
// function name replaced by KernelAlias(index).
std::string PseudonymiseKernelName(std::string text, const LabelledProfile& profile, size_t index);

// The Wilson score interval of `successes` of `trials` at z (1.96: 95 %);
// {0, 1} when trials is 0.
struct Interval {
  double low = 0;
  double high = 1;
};
Interval WilsonInterval(size_t successes, size_t trials, double z = 1.96);

// The option letter an answer chose: the first standalone A-D (or "(B)",
// "B)", "Answer: C"); nullopt when none.
std::optional<size_t> ParseOptionLetter(std::string_view answer);

}  // namespace kopt
