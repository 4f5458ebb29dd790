#include "analysis/mcq_benchmark.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <random>
#include <set>

#include "analysis/metric_glossary.h"
#include "core/text.h"

namespace kopt {
namespace {

std::string OptionOf(const std::string& label) {
  return label == "healthy" ? "healthy: no dominant bottleneck" : label;
}

const KernelDiagnosis* KernelOf(const LabelledProfile& profile) {
  if (profile.diagnosis == nullptr || profile.diagnosis->kernels.empty()) return nullptr;
  return &profile.diagnosis->kernels.front();
}

const Finding* FindingOf(const LabelledProfile& profile, const std::string& id) {
  const KernelDiagnosis* kernel = KernelOf(profile);
  if (kernel == nullptr) return nullptr;
  for (const Finding& finding : kernel->findings) {
    if (finding.tool == id) return &finding;
  }
  return nullptr;
}

// The right option and three distinct wrong ones, shuffled.
bool Finish(std::string right, const std::vector<std::string>& candidates, std::mt19937_64& random,
            McqQuestion& question) {
  std::vector<std::string> options = {right};
  for (const std::string& candidate : candidates) {
    if (options.size() == 4) break;
    if (std::find(options.begin(), options.end(), candidate) == options.end()) options.push_back(candidate);
  }
  if (options.size() < 4) return false;
  std::shuffle(options.begin(), options.end(), random);
  question.options = options;
  question.correct = static_cast<size_t>(std::find(options.begin(), options.end(), right) - options.begin());
  return true;
}

// Every label of the set, ordered for the seed: the distractors of last resort.
std::vector<std::string> ShuffledLabels(const std::vector<LabelledProfile>& profiles,
                                        std::mt19937_64& random) {
  std::set<std::string> unique;
  for (const LabelledProfile& profile : profiles) unique.insert(profile.label);
  std::vector<std::string> labels(unique.begin(), unique.end());
  std::shuffle(labels.begin(), labels.end(), random);
  return labels;
}

std::string KernelName(const LabelledProfile& profile) {
  const KernelDiagnosis* kernel = KernelOf(profile);
  return kernel ? kernel->function_name : profile.path;
}

void AddPrimaryLimiter(const std::vector<LabelledProfile>& profiles, size_t index, std::mt19937_64& random,
                       std::vector<McqQuestion>& questions) {
  const LabelledProfile& profile = profiles[index];
  const KernelDiagnosis* kernel = KernelOf(profile);
  if (kernel == nullptr) return;
  std::vector<std::string> candidates;
  for (const Finding& finding : kernel->findings) candidates.push_back(OptionOf(finding.tool));
  for (const std::string& label : ShuffledLabels(profiles, random)) candidates.push_back(OptionOf(label));
  McqQuestion question;
  question.id = fmt::format("{}/{}/primary_limiter", profile.set, KernelName(profile));
  question.kind = McqKind::kPrimaryLimiter;
  question.profiles = {index};
  question.stem = fmt::format("What limits the kernel {} most (its primary bottleneck)?", KernelAlias(index));
  if (Finish(OptionOf(profile.label), candidates, random, question)) questions.push_back(std::move(question));
}

void AddChangeEffectAndEvidenceProblem(const std::vector<LabelledProfile>& profiles, size_t index,
                                       std::mt19937_64& random, std::vector<McqQuestion>& questions) {
  const LabelledProfile& profile = profiles[index];
  const Finding* finding = FindingOf(profile, profile.label);
  if (finding == nullptr) return;
  std::vector<std::string> effects, titles;
  for (const LabelledProfile& other : profiles) {
    if (other.label == profile.label) continue;
    if (const Finding* other_finding = FindingOf(other, other.label)) {
      if (!other_finding->recommendations.empty()) {
        effects.push_back(other_finding->recommendations.front().expected_effect);
      }
      titles.push_back(other_finding->title);
    }
  }
  std::shuffle(effects.begin(), effects.end(), random);
  std::shuffle(titles.begin(), titles.end(), random);
  if (!finding->recommendations.empty() && !finding->recommendations.front().expected_effect.empty()) {
    McqQuestion question;
    question.id = fmt::format("{}/{}/change_effect", profile.set, KernelName(profile));
    question.kind = McqKind::kChangeEffect;
    question.profiles = {index};
    question.stem = fmt::format("On the kernel {}, you apply this change: {}. What should it do?",
                                KernelAlias(index), finding->recommendations.front().change);
    if (Finish(finding->recommendations.front().expected_effect, effects, random, question)) {
      questions.push_back(std::move(question));
    }
  }
  if (!finding->evidence.empty()) {
    const Evidence& evidence = finding->evidence.front();
    McqQuestion question;
    question.id = fmt::format("{}/{}/evidence_problem", profile.set, KernelName(profile));
    question.kind = McqKind::kEvidenceProblem;
    question.profiles = {index};
    question.stem = fmt::format("On the kernel {}, the measurement {} is the evidence of which problem?",
                                KernelAlias(index), evidence.metric);
    if (Finish(finding->title, titles, random, question)) questions.push_back(std::move(question));
  }
}

// The counters cited as evidence on the kernel, the label's finding first, in order.
std::vector<std::string> CitedMetrics(const LabelledProfile& profile) {
  std::vector<std::string> cited;
  const KernelDiagnosis* kernel = KernelOf(profile);
  if (kernel == nullptr) return cited;
  auto add = [&](const Finding& finding) {
    for (const Evidence& evidence : finding.evidence) {
      if (std::find(cited.begin(), cited.end(), evidence.metric) == cited.end())
        cited.push_back(evidence.metric);
    }
  };
  if (const Finding* label = FindingOf(profile, profile.label)) add(*label);
  for (const Finding& finding : kernel->findings) add(finding);
  return cited;
}

std::string UnitPrefix(const std::string& base) {
  size_t separator = base.find("__");
  return separator == std::string::npos ? base : base.substr(0, separator + 2);
}

// Descriptions of other counters under `metric`'s suffix: those of the same unit (sm__, lts__, ...)
// first, the ones cited on the kernel before the rest of the glossary in the seed's order; then other
// units' (not gpu__'s, whose single unit reads differently).
std::vector<std::string> OtherMeanings(const std::string& metric, const std::vector<std::string>& cited,
                                       std::mt19937_64& random) {
  MetricNameParts parts = SplitMetricName(metric);
  std::vector<std::string> bases;
  for (const std::string& other : cited) bases.push_back(SplitMetricName(other).base);
  std::vector<std::string> rest;
  for (const MetricCounter& counter : MetricCounters()) rest.emplace_back(counter.name);
  std::shuffle(rest.begin(), rest.end(), random);
  bases.insert(bases.end(), rest.begin(), rest.end());
  std::string prefix = UnitPrefix(parts.base);
  std::vector<std::string> same_unit, other_unit;
  for (const std::string& base : bases) {
    if (base == parts.base) continue;
    std::optional<std::string> meaning = DescribeMetric(base + parts.suffix);
    if (!meaning) continue;
    if (UnitPrefix(base) == prefix) {
      same_unit.push_back(*meaning);
    } else if (UnitPrefix(base) != "gpu__") {
      other_unit.push_back(*meaning);
    }
  }
  same_unit.insert(same_unit.end(), other_unit.begin(), other_unit.end());
  return same_unit;
}

void AddMetricMeaning(const std::vector<LabelledProfile>& profiles, size_t index, std::mt19937_64& random,
                      std::set<std::string>& asked, std::vector<McqQuestion>& questions) {
  const LabelledProfile& profile = profiles[index];
  std::vector<std::string> cited = CitedMetrics(profile);
  for (const std::string& metric : cited) {
    std::optional<std::string> meaning = DescribeMetric(metric);
    if (!meaning || !asked.insert(profile.set + "|" + metric).second) continue;
    McqQuestion question;
    question.id = fmt::format("{}/{}/metric_meaning", profile.set, KernelName(profile));
    question.kind = McqKind::kMetricMeaning;
    question.profiles = {index};
    question.stem =
        fmt::format("The kernel {} was profiled with Nsight Compute. What does its metric {} measure?",
                    KernelAlias(index), metric);
    if (Finish(*meaning, OtherMeanings(metric, cited, random), random, question)) {
      questions.push_back(std::move(question));
    }
    return;
  }
}

void AddFasterVersions(const std::vector<LabelledProfile>& profiles, const McqGenerationOptions& options,
                       std::mt19937_64& random, std::vector<McqQuestion>& questions) {
  std::map<std::string, std::vector<size_t>> by_set;
  for (size_t i = 0; i < profiles.size(); ++i) {
    if (profiles[i].event_median_us && KernelOf(profiles[i])) by_set[profiles[i].set].push_back(i);
  }
  for (const auto& [set, members] : by_set) {
    size_t added = 0;
    for (size_t a = 0; a + 1 < members.size() && added < options.max_pairs_per_set; a += 2) {
      const LabelledProfile& first = profiles[members[a]];
      const LabelledProfile& second = profiles[members[a + 1]];
      double t1 = *first.event_median_us, t2 = *second.event_median_us;
      if (std::max(t1, t2) <= (1 + options.faster_margin) * std::min(t1, t2)) continue;
      if (first.label == second.label) continue;
      bool first_slower = t1 > t2;
      const LabelledProfile& slower = first_slower ? first : second;
      const LabelledProfile& faster = first_slower ? second : first;
      std::string slower_name = first_slower ? "A" : "B", faster_name = first_slower ? "B" : "A";
      std::string wrong_limiter = OptionOf(faster.label);
      for (const Finding& finding : KernelOf(slower)->findings) {
        if (finding.tool != slower.label && finding.tool != faster.label) {
          wrong_limiter = OptionOf(finding.tool);
          break;
        }
      }
      McqQuestion question;
      question.id = fmt::format("{}/{}-vs-{}/faster_version", set, KernelName(first), KernelName(second));
      question.kind = McqKind::kFasterVersion;
      question.profiles = {members[a], members[a + 1]};
      question.stem = fmt::format(
          "Two kernels were measured on the same GPU: A = {} and B = {}. Which one takes longer per launch, "
          "and "
          "what limits it?",
          KernelAlias(members[a]), KernelAlias(members[a + 1]));
      std::string right = fmt::format("{}, limited by {}", slower_name, OptionOf(slower.label));
      std::vector<std::string> wrong = {
          fmt::format("{}, limited by {}", slower_name, wrong_limiter),
          fmt::format("{}, limited by {}", faster_name, OptionOf(faster.label)),
          fmt::format("{}, limited by {}", faster_name, OptionOf(slower.label))};
      if (Finish(right, wrong, random, question)) {
        questions.push_back(std::move(question));
        ++added;
      }
    }
  }
}

}  // namespace

std::string KernelAlias(size_t index) {
  return fmt::format("kernel_{:03}", index + 1);
}

std::string PseudonymiseKernelName(std::string text, const LabelledProfile& profile, size_t index) {
  const KernelDiagnosis* kernel = KernelOf(profile);
  if (kernel == nullptr || kernel->function_name.empty()) return text;
  const std::string& name = kernel->function_name;
  const std::string alias = KernelAlias(index);
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at)) {
    size_t end = at + name.size();
    bool whole =
        (at == 0 || !IsIdentifierChar(text[at - 1])) && (end == text.size() || !IsIdentifierChar(text[end]));
    if (!whole) {
      at = end;
      continue;
    }
    text.replace(at, name.size(), alias);
    at += alias.size();
  }
  return text;
}

std::string_view McqKindName(McqKind kind) {
  switch (kind) {
    case McqKind::kPrimaryLimiter: return "primary_limiter";
    case McqKind::kFasterVersion: return "faster_version";
    case McqKind::kChangeEffect: return "change_effect";
    case McqKind::kEvidenceProblem: return "evidence_problem";
    case McqKind::kMetricMeaning: return "metric_meaning";
  }
  return "unknown";
}

std::vector<McqQuestion> GenerateMcqQuestions(const std::vector<LabelledProfile>& profiles,
                                              const McqGenerationOptions& options) {
  std::mt19937_64 random(options.seed);
  std::vector<McqQuestion> questions;
  std::set<std::string> asked_metrics;  // "set|metric"
  for (size_t i = 0; i < profiles.size(); ++i) {
    AddPrimaryLimiter(profiles, i, random, questions);
    AddChangeEffectAndEvidenceProblem(profiles, i, random, questions);
    AddMetricMeaning(profiles, i, random, asked_metrics, questions);
  }
  AddFasterVersions(profiles, options, random, questions);
  return questions;
}

Interval WilsonInterval(size_t successes, size_t trials, double z) {
  if (trials == 0) return {};
  double n = static_cast<double>(trials);
  double p = static_cast<double>(successes) / n;
  double denominator = 1 + z * z / n;
  double center = (p + z * z / (2 * n)) / denominator;
  double half = z * std::sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator;
  return {std::max(0.0, center - half), std::min(1.0, center + half)};
}

std::optional<size_t> ParseOptionLetter(std::string_view answer) {
  for (size_t i = 0; i < answer.size(); ++i) {
    char letter = answer[i];
    if (letter < 'A' || letter > 'D') continue;
    bool before = i == 0 || !std::isalnum(static_cast<unsigned char>(answer[i - 1]));
    bool after = i + 1 == answer.size() || !std::isalnum(static_cast<unsigned char>(answer[i + 1]));
    if (before && after) return static_cast<size_t>(letter - 'A');
  }
  return std::nullopt;
}

}  // namespace kopt
