#include "analysis/profile_comparison.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <regex>
#include <set>

#include "analysis/launch_timeline.h"

namespace kopt {
namespace {

bool SameConfiguration(const KernelLaunch& a, const KernelLaunch& b) {
  return a.grid.x == b.grid.x && a.grid.y == b.grid.y && a.grid.z == b.grid.z && a.block.x == b.block.x &&
         a.block.y == b.block.y && a.block.z == b.block.z;
}

std::string Dims(const LaunchDimensions& d) {
  return fmt::format("({}, {}, {})", d.x, d.y, d.z);
}

// The launch a pair side names, among those not yet paired.
Result<size_t> Resolve(const std::string& side, const Profile& profile, const std::vector<bool>& used,
                       const char* which) {
  if (side.starts_with("#")) {
    char* end = nullptr;
    long index = std::strtol(side.c_str() + 1, &end, 10);
    if (side.size() < 2 || *end != '\0' || index < 0)
      return InvalidInput(fmt::format("--pair: \"{}\" is not #N (a launch index from 0)", side));
    if (static_cast<size_t>(index) >= profile.launches.size())
      return InvalidInput(fmt::format("--pair: {} has {} launches; #{} is not one of them", which,
                                      profile.launches.size(), index));
    if (used[index]) return InvalidInput(fmt::format("--pair: {} launch #{} is paired twice", which, index));
    return static_cast<size_t>(index);
  }
  std::regex pattern;
  try {
    pattern = std::regex(side, std::regex::ECMAScript);
  } catch (const std::regex_error& error) {
    return InvalidInput(fmt::format("--pair: \"{}\" is not a valid regex ({})", side, error.what()));
  }
  for (size_t i = 0; i < profile.launches.size(); ++i) {
    if (!used[i] && std::regex_search(profile.launches[i].kernel_name, pattern)) return i;
  }
  std::vector<std::string> names;
  for (const KernelLaunch& launch : profile.launches) names.push_back(launch.FunctionName());
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return InvalidInput(fmt::format("--pair: no unpaired {} launch matches \"{}\" (kernels: {})", which, side,
                                  fmt::join(names, ", ")));
}

int Rank(FindingChangeKind kind) {
  switch (kind) {
    case FindingChangeKind::kResolved: return 0;
    case FindingChangeKind::kNew: return 1;
    case FindingChangeKind::kWorse: return 2;
    case FindingChangeKind::kBetter: return 3;
    case FindingChangeKind::kSame: return 4;
  }
  return 5;
}

// The words that name what a kernel does: lower-case runs of letters and digits of three or more
// characters, without the generic ones any kernel's name may carry.
std::set<std::string> KernelNameWords(std::string_view name) {
  static const std::set<std::string> kGeneric = {"kernel", "kernels", "void", "cuda", "global",  "device",
                                                 "impl",   "launch",  "func", "main", "template"};
  std::set<std::string> words;
  std::string word;
  for (size_t i = 0; i <= name.size(); ++i) {
    unsigned char c = i < name.size() ? static_cast<unsigned char>(name[i]) : ' ';
    if (std::isalnum(c)) {
      word += static_cast<char>(std::tolower(c));
      continue;
    }
    if (word.size() >= 3 && !kGeneric.count(word)) words.insert(word);
    word.clear();
  }
  return words;
}

// True when two kernels' names are the same or share a word (gelu_reference_kernel and
// gelu_tunable_kernel): versions of one kernel, whose time change is a speed-up.
bool RelatedKernelNames(const std::string& a, const std::string& b) {
  if (a == b) return true;
  std::set<std::string> words = KernelNameWords(a);
  for (const std::string& word : KernelNameWords(b))
    if (words.count(word)) return true;
  return false;
}

}  // namespace

std::string_view FindingChangeKindName(FindingChangeKind kind) {
  switch (kind) {
    case FindingChangeKind::kResolved: return "resolved";
    case FindingChangeKind::kNew: return "new";
    case FindingChangeKind::kWorse: return "worse";
    case FindingChangeKind::kBetter: return "better";
    case FindingChangeKind::kSame: return "same";
  }
  return "same";
}

Result<KernelPairSpec> ParseKernelPairSpec(std::string_view text) {
  size_t equals = text.find('=');
  if (equals == std::string_view::npos || equals == 0 || equals + 1 == text.size() ||
      text.find('=', equals + 1) != std::string_view::npos) {
    return InvalidInput(fmt::format(
        "--pair \"{}\": expected BEFORE=AFTER, each a kernel name regex or #N (a launch index from 0)",
        text));
  }
  return KernelPairSpec{std::string(text.substr(0, equals)), std::string(text.substr(equals + 1))};
}

std::vector<FindingChange> CompareFindings(const KernelDiagnosis& before, const KernelDiagnosis& after) {
  std::vector<FindingChange> changes;
  auto find = [](const KernelDiagnosis& kernel, const std::string& tool) -> const Finding* {
    for (const Finding& finding : kernel.findings)
      if (finding.tool == tool) return &finding;
    return nullptr;
  };
  for (const Finding& old_finding : before.findings) {
    FindingChange change;
    change.tool = old_finding.tool;
    change.title = old_finding.title;
    change.before = old_finding.severity;
    change.gain_before = old_finding.estimated_gain;
    if (const Finding* now = find(after, old_finding.tool)) {
      change.after = now->severity;
      change.gain_after = now->estimated_gain;
      change.kind = now->severity > old_finding.severity   ? FindingChangeKind::kWorse
                    : now->severity < old_finding.severity ? FindingChangeKind::kBetter
                                                           : FindingChangeKind::kSame;
    } else {
      change.kind = FindingChangeKind::kResolved;
    }
    changes.push_back(change);
  }
  for (const Finding& new_finding : after.findings) {
    if (find(before, new_finding.tool)) continue;
    FindingChange change;
    change.tool = new_finding.tool;
    change.title = new_finding.title;
    change.kind = FindingChangeKind::kNew;
    change.after = new_finding.severity;
    change.gain_after = new_finding.estimated_gain;
    changes.push_back(change);
  }
  std::stable_sort(changes.begin(), changes.end(), [](const FindingChange& a, const FindingChange& b) {
    return Rank(a.kind) < Rank(b.kind);
  });
  return changes;
}

KernelComparison CompareKernels(const KernelLaunch& before, const KernelDiagnosis& before_diagnosis,
                                const KernelLaunch& after, const KernelDiagnosis& after_diagnosis,
                                size_t moved_metric_limit, const AttributionRepeats& repeats) {
  KernelComparison comparison;
  comparison.attribution =
      AttributeTimeChange(before, after, before_diagnosis.roofline, after_diagnosis.roofline, repeats);
  comparison.moved = MovedMetrics(before, after, moved_metric_limit);
  comparison.launch_changes = LaunchConfigurationChanges(before, after);
  comparison.metric_sets = CompareMetricSets(before, after);
  comparison.findings = CompareFindings(before_diagnosis, after_diagnosis);
  const MetricSetDifference& sets = comparison.metric_sets;
  if (!sets.only_before.empty() || !sets.only_after.empty()) {
    comparison.notes.push_back(fmt::format(
        "different metric sets: {} metrics in both, {} only before, {} only after; metrics are compared "
        "where both have them",
        sets.common, sets.only_before.size(), sets.only_after.size()));
  }
  const double before_ns = before_diagnosis.roofline.duration_ns;
  const double noise = NoiseOf("gpu__time_duration.sum", "ns").relative;
  if (before_ns > 0 && std::fabs(after_diagnosis.roofline.duration_ns - before_ns) < noise * before_ns) {
    comparison.notes.push_back(
        fmt::format("the time changed by {:+.1f}%, less than the launch-to-launch noise of durations "
                    "({:.0f}%, docs/diff.md): "
                    "the terms describe noise as much as the change",
                    100 * (after_diagnosis.roofline.duration_ns - before_ns) / before_ns, 100 * noise));
  }
  const TimeAttribution& attribution = comparison.attribution;
  if (attribution.available && attribution.delta_ns != 0 &&
      attribution.pass_mismatch_ns > kPassMismatchNoteFraction * std::fabs(attribution.delta_ns)) {
    comparison.notes.push_back(fmt::format(
        "the stall counters disagree with the active-warp total by ρ {:.3f} → {:.3f} ({:.0f}% of the "
        "change): "
        "ncu collects them in different replay passes of the kernel, whose runs differ; the stall "
        "reasons split the active warp-cycles by their shares, so the terms still sum to the change, "
        "but a share is only as certain as its ± (docs/diff.md)",
        attribution.rho_before, attribution.rho_after,
        100 * attribution.pass_mismatch_ns / std::fabs(attribution.delta_ns)));
  }
  if (attribution.available && attribution.delta_ns != 0 &&
      std::fabs(attribution.delta_ns) <= 2 * attribution.change_uncertainty_ns) {
    comparison.notes.push_back(fmt::format(
        "the change ({:+.0f} ns) is within twice its estimated launch-to-launch noise (±{:.0f} ns, from {}): "
        "the net change is not resolved; a term beyond twice its own ± still is",
        attribution.delta_ns, attribution.change_uncertainty_ns,
        UncertaintySourceName(attribution.uncertainty_source)));
  }
  if (!comparison.attribution.available) {
    comparison.notes.push_back(fmt::format(
        "no time attribution: {} missing ({}); collect with ncu --set full (or the WarpStateStats, "
        "SchedulerStats, LaunchStats and SpeedOfLight sections) on both sides",
        comparison.attribution.missing.size() == 1 ? "a metric is" : "metrics are",
        fmt::join(comparison.attribution.missing, ", ")));
  }
  return comparison;
}

namespace {

// Every launch counts in the totals: a kernel's group total where it has one.
double TotalDuration(const Diagnosis& diagnosis) {
  double sum = 0;
  for (const KernelDiagnosis& kernel : diagnosis.kernels)
    sum += kernel.launches.count > 1 && kernel.launches.total_duration_ns ? *kernel.launches.total_duration_ns
                                                                          : kernel.roofline.duration_ns;
  return sum;
}

// The profile's kernels as Diagnose diagnoses them: each group of launches with the same kernel
// name and configuration once (analysis/launch_timeline.h GroupLaunches, its kernels in the groups'
// order), on the group's median-duration launch; the group's launches are repeats.
struct KernelGroups {
  const Profile& profile;
  std::vector<LaunchGroup> groups;
  explicit KernelGroups(const Profile& given) : profile(given), groups(GroupLaunches(given.launches)) {}
  const KernelLaunch& Representative(size_t group) const {
    return profile.launches[groups[group].representative];
  }
  size_t GroupOf(size_t launch) const {
    for (size_t g = 0; g < groups.size(); ++g)
      if (std::find(groups[g].members.begin(), groups[g].members.end(), launch) != groups[g].members.end())
        return g;
    return groups.size();
  }
  // Per launch: whether its kernel is `used`.
  std::vector<bool> UsedLaunches(const std::vector<bool>& used) const {
    std::vector<bool> result(profile.launches.size());
    for (size_t g = 0; g < groups.size(); ++g)
      for (size_t member : groups[g].members) result[member] = used[g];
    return result;
  }
};

// Kernels (groups) paired: by hand, by name and configuration, by name, the one left on each side.
struct KernelPairing {
  std::vector<std::pair<size_t, size_t>> pairs;  // kernel (group) indices
  std::vector<std::string> how;
  std::vector<bool> used_before, used_after;
  void Add(size_t b, size_t a, std::string match) {
    used_before[b] = used_after[a] = true;
    pairs.emplace_back(b, a);
    how.push_back(std::move(match));
  }
};

Result<KernelPairing> PairKernels(const KernelGroups& before, const KernelGroups& after,
                                  const std::vector<KernelPairSpec>& by_hand) {
  KernelPairing pairing;
  pairing.used_before.resize(before.groups.size());
  pairing.used_after.resize(after.groups.size());
  // A hand-made pair resolves among launches of kernels not yet paired.
  for (const KernelPairSpec& spec : by_hand) {
    KOPT_ASSIGN_OR_RETURN(
        size_t b, Resolve(spec.before, before.profile, before.UsedLaunches(pairing.used_before), "BEFORE"));
    KOPT_ASSIGN_OR_RETURN(
        size_t a, Resolve(spec.after, after.profile, after.UsedLaunches(pairing.used_after), "AFTER"));
    pairing.Add(before.GroupOf(b), after.GroupOf(a),
                fmt::format("by hand (--pair {}={})", spec.before, spec.after));
  }
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t b = 0; b < before.groups.size(); ++b) {
      if (pairing.used_before[b]) continue;
      const KernelLaunch& old_launch = before.Representative(b);
      for (size_t a = 0; a < after.groups.size(); ++a) {
        if (pairing.used_after[a]) continue;
        const KernelLaunch& new_launch = after.Representative(a);
        if (old_launch.FunctionName() != new_launch.FunctionName()) continue;
        if (pass == 0 && !SameConfiguration(old_launch, new_launch)) continue;
        pairing.Add(b, a, pass == 0 ? "same kernel name and launch configuration" : "same kernel name");
        break;
      }
    }
  }
  const auto left = [](const std::vector<bool>& used) { return std::count(used.begin(), used.end(), false); };
  if (left(pairing.used_before) == 1 && left(pairing.used_after) == 1) {
    size_t b = std::find(pairing.used_before.begin(), pairing.used_before.end(), false) -
               pairing.used_before.begin();
    size_t a =
        std::find(pairing.used_after.begin(), pairing.used_after.end(), false) - pairing.used_after.begin();
    pairing.Add(b, a, "the one kernel left on each side (different names)");
  }
  return pairing;
}

// Kernel b before against kernel a after, on their representatives, with their repeats for the ±.
KernelComparison ComparePair(const KernelGroups& before, const KernelGroups& after,
                             const ProfileComparison& result, size_t b, size_t a, const std::string& match,
                             const ComparisonOptions& options) {
  AttributionRepeats repeats;
  for (size_t member : before.groups[b].members) repeats.before.push_back(&before.profile.launches[member]);
  for (size_t member : after.groups[a].members) repeats.after.push_back(&after.profile.launches[member]);
  const KernelLaunch& x = before.Representative(b);
  const KernelLaunch& y = after.Representative(a);
  KernelComparison comparison = CompareKernels(x, result.before.kernels[b], y, result.after.kernels[a],
                                               options.moved_metric_limit, repeats);
  comparison.before_index = b;
  comparison.after_index = a;
  comparison.match = match;
  if (!SameConfiguration(x, y)) {
    comparison.notes.insert(comparison.notes.begin(),
                            fmt::format("launch configuration changed: grid {} → {}, block {} → {}",
                                        Dims(x.grid), Dims(y.grid), Dims(x.block), Dims(y.block)));
  }
  if (x.FunctionName() != y.FunctionName()) {
    comparison.notes.insert(comparison.notes.begin(),
                            fmt::format("different kernels: {} → {}", x.FunctionName(), y.FunctionName()));
  }
  if (repeats.before.size() > 1 || repeats.after.size() > 1) {
    comparison.notes.push_back(fmt::format(
        "{} launches before, {} after of the same kernel and configuration: compared on each side's "
        "median-duration launch; all of them give the terms' ±",
        repeats.before.size(), repeats.after.size()));
  }
  return comparison;
}

// The kernels left unpaired, and a note naming them.
void NoteUnmatched(const KernelGroups& before, const KernelGroups& after, const KernelPairing& pairing,
                   ProfileComparison& result) {
  for (size_t b = 0; b < pairing.used_before.size(); ++b)
    if (!pairing.used_before[b]) result.unmatched_before.push_back(b);
  for (size_t a = 0; a < pairing.used_after.size(); ++a)
    if (!pairing.used_after[a]) result.unmatched_after.push_back(a);
  if (result.unmatched_before.empty() && result.unmatched_after.empty()) return;
  std::vector<std::string> names;
  for (size_t b : result.unmatched_before)
    names.push_back(fmt::format("before #{} {}", before.groups[b].members.front(),
                                before.Representative(b).FunctionName()));
  for (size_t a : result.unmatched_after)
    names.push_back(
        fmt::format("after #{} {}", after.groups[a].members.front(), after.Representative(a).FunctionName()));
  result.notes.push_back(fmt::format(
      "{} kernel launch{} could not be matched by name ({}); pair them by hand with --pair BEFORE=AFTER "
      "(a name regex or #N); the totals compare every launch",
      names.size(), names.size() == 1 ? "" : "es", fmt::join(names, "; ")));
}

// Related: some kernel before and some kernel after share their name or a word of it.
bool AnyRelatedKernels(const KernelGroups& before, const KernelGroups& after) {
  bool related = false;
  for (size_t b = 0; b < before.groups.size(); ++b) {
    for (size_t a = 0; a < after.groups.size(); ++a) {
      related = related || RelatedKernelNames(before.Representative(b).FunctionName(),
                                              after.Representative(a).FunctionName());
    }
  }
  return related;
}

}  // namespace

Result<ProfileComparison> CompareProfiles(const Profile& before, const Profile& after,
                                          const ComparisonOptions& options) {
  ProfileComparison result;
  result.before = Diagnose(before, options.diagnose);
  result.after = Diagnose(after, options.diagnose);
  result.total_before_ns = TotalDuration(result.before);
  result.total_after_ns = TotalDuration(result.after);
  const std::string& device_before = result.before.device_name;
  const std::string& device_after = result.after.device_name;
  result.same_device = device_before == device_after;
  if (!result.same_device) {
    result.notes.push_back(fmt::format(
        "different GPUs: before ran on {}, after on {}; time changes include the hardware's, and percentages "
        "are of each GPU's own ceilings",
        device_before.empty() ? "an unknown device" : device_before,
        device_after.empty() ? "an unknown device" : device_after));
  }
  // Kernels are paired, not launches.
  const KernelGroups groups_before(before), groups_after(after);
  KOPT_ASSIGN_OR_RETURN(KernelPairing pairing, PairKernels(groups_before, groups_after, options.pairs));
  for (size_t k = 0; k < pairing.pairs.size(); ++k) {
    auto [b, a] = pairing.pairs[k];
    result.pairs.push_back(ComparePair(groups_before, groups_after, result, b, a, pairing.how[k], options));
  }
  std::sort(
      result.pairs.begin(), result.pairs.end(),
      [](const KernelComparison& p, const KernelComparison& q) { return p.before_index < q.before_index; });
  NoteUnmatched(groups_before, groups_after, pairing, result);
  if (result.pairs.empty()) {
    result.notes.push_back("no kernel pairs: only the total time and each profile's diagnosis are compared");
  }
  result.unrelated_kernels = options.pairs.empty() && !AnyRelatedKernels(groups_before, groups_after) &&
                             !groups_before.groups.empty() && !groups_after.groups.empty();
  if (result.unrelated_kernels) {
    result.notes.insert(
        result.notes.begin(),
        "before and after share no kernel name nor a word of one: they look like different code, "
        "so the change in total time is no speed-up of one kernel; if one kernel replaced the "
        "other, pair them with --pair BEFORE=AFTER");
  }
  // The same file twice: the same source, device and total time (two profiles that only share a
  // file name differ in one of them).
  if (before.source == after.source && !before.source.empty() && result.same_device &&
      result.total_before_ns == result.total_after_ns) {
    result.notes.insert(result.notes.begin(),
                        fmt::format("before and after are the same profile ({}): every difference below is "
                                    "zero or noise",
                                    before.source));
  }
  return result;
}

}  // namespace kopt
