#include "analysis/program_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace kopt {
namespace {

std::string Dimensions(const LaunchDimensions& dimensions) {
  return fmt::format("({}, {}, {})", dimensions.x, dimensions.y, dimensions.z);
}

std::string FirstSuggestion(const Finding& finding) {
  return finding.recommendations.empty() ? std::string() : finding.recommendations.front().change;
}

// A finding that names a saving: the healthy verdicts and zero-gain notes are not in the plan.
bool Saves(const Finding& finding) {
  return finding.estimated_gain > 0;
}

double Amdahl(double total_ns, double saved_ns) {
  return total_ns > saved_ns && saved_ns > 0 ? total_ns / (total_ns - saved_ns) : 1.0;
}

// One program's kernels and findings appended to the plan.
void AddProgram(const Diagnosis& diagnosis, ProgramPlan& plan, std::vector<PlanFinding>& findings) {
  PlanProgram program;
  program.source = diagnosis.source;
  program.device_name = diagnosis.device_name;
  size_t program_index = plan.programs.size();
  size_t first_kernel = plan.kernels.size();
  size_t first_finding = findings.size();
  for (const KernelDiagnosis& kernel : diagnosis.kernels) {
    if (!kernel.launches.total_duration_ns || *kernel.launches.total_duration_ns <= 0) {
      ++program.kernels_without_duration;
      continue;
    }
    PlanKernel row;
    row.program = program_index;
    row.kernel_name = kernel.function_name.empty() ? kernel.kernel_name : kernel.function_name;
    row.grid = Dimensions(kernel.grid);
    row.block = Dimensions(kernel.block);
    row.launches = kernel.launches.count;
    row.total_ns = *kernel.launches.total_duration_ns;
    row.bottleneck = std::string(BottleneckClassName(kernel.roofline.bottleneck));
    double kept = 1;  // Π(1 − g_i): the share of the kernel's time no finding removes
    double best_gain = 0;
    for (const Finding& finding : kernel.findings) {
      if (!Saves(finding)) continue;
      double gain = std::min(finding.estimated_gain, 1.0);
      kept *= 1 - gain;
      if (gain > best_gain) {
        best_gain = gain;
        row.top_finding = finding.tool;
      }
      PlanFinding planned;
      planned.kernel = plan.kernels.size();
      planned.id = finding.tool;
      planned.title = finding.title;
      planned.severity = finding.severity;
      planned.confidence = finding.confidence;
      planned.kernel_gain = gain;
      planned.saved_ns = gain * row.total_ns;
      planned.suggestion = FirstSuggestion(finding);
      findings.push_back(std::move(planned));
    }
    row.bound_saved_ns = row.total_ns * (1 - kept);
    program.total_ns += row.total_ns;
    program.bound_saved_ns += row.bound_saved_ns;
    program.launch_count += row.launches;
    ++program.kernel_count;
    plan.kernels.push_back(std::move(row));
  }
  for (size_t k = first_kernel; k < plan.kernels.size(); ++k) {
    plan.kernels[k].share = program.total_ns > 0 ? plan.kernels[k].total_ns / program.total_ns : 0;
  }
  for (size_t f = first_finding; f < findings.size(); ++f) {
    findings[f].program_share = program.total_ns > 0 ? findings[f].saved_ns / program.total_ns : 0;
    findings[f].program_speedup = Amdahl(program.total_ns, findings[f].saved_ns);
  }
  if (program.kernels_without_duration > 0) {
    plan.notes.push_back(fmt::format("{}: {} kernel(s) without a launch duration are left out of every share",
                                     program.source, program.kernels_without_duration));
  }
  plan.total_ns += program.total_ns;
  plan.programs.push_back(std::move(program));
}

// Groups by finding id; each group's kernels by saving, the groups by mean program share.
std::vector<RootCauseGroup> GroupByRootCause(const ProgramPlan& plan,
                                             const std::vector<PlanFinding>& findings) {
  std::map<std::string, size_t> index_of;
  std::vector<RootCauseGroup> groups;
  std::vector<std::vector<std::pair<double, size_t>>> members;  // (saved_ns, kernel) per group
  std::vector<double> best_saving;
  for (const PlanFinding& finding : findings) {
    auto [entry, added] = index_of.emplace(finding.id, groups.size());
    if (added) {
      RootCauseGroup group;
      group.id = finding.id;
      group.title = finding.title;
      groups.push_back(std::move(group));
      members.emplace_back();
      best_saving.push_back(-1);
    }
    size_t g = entry->second;
    groups[g].saved_ns += finding.saved_ns;
    groups[g].mean_program_share += finding.program_share;
    members[g].emplace_back(finding.saved_ns, finding.kernel);
    if (finding.saved_ns > best_saving[g]) {
      best_saving[g] = finding.saved_ns;
      groups[g].suggestion = finding.suggestion;
      groups[g].title = finding.title;
    }
  }
  double programs = static_cast<double>(std::max<size_t>(plan.programs.size(), 1));
  for (size_t g = 0; g < groups.size(); ++g) {
    groups[g].mean_program_share /= programs;
    std::sort(members[g].begin(), members[g].end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    for (const auto& [saved, kernel] : members[g]) groups[g].kernels.push_back(kernel);
  }
  std::stable_sort(groups.begin(), groups.end(), [](const RootCauseGroup& a, const RootCauseGroup& b) {
    return a.mean_program_share > b.mean_program_share;
  });
  return groups;
}

}  // namespace

ProgramPlan BuildProgramPlan(const std::vector<const Diagnosis*>& diagnoses, const PlanOptions& options) {
  ProgramPlan plan;
  std::vector<PlanFinding> findings;
  for (const Diagnosis* diagnosis : diagnoses) AddProgram(*diagnosis, plan, findings);
  plan.groups = GroupByRootCause(plan, findings);
  // The kernels by share of their program: indexes in findings and groups follow the permutation.
  std::vector<size_t> order(plan.kernels.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return plan.kernels[a].share > plan.kernels[b].share; });
  std::vector<size_t> new_index(order.size());
  std::vector<PlanKernel> sorted;
  sorted.reserve(order.size());
  for (size_t position = 0; position < order.size(); ++position) {
    new_index[order[position]] = position;
    sorted.push_back(std::move(plan.kernels[order[position]]));
  }
  plan.kernels = std::move(sorted);
  for (PlanFinding& finding : findings) finding.kernel = new_index[finding.kernel];
  for (RootCauseGroup& group : plan.groups) {
    for (size_t& kernel : group.kernels) kernel = new_index[kernel];
  }
  std::stable_sort(findings.begin(), findings.end(), [](const PlanFinding& a, const PlanFinding& b) {
    return a.program_share > b.program_share;
  });
  if (options.max_findings > 0 && findings.size() > options.max_findings) {
    plan.notes.push_back(fmt::format("{} findings; the {} that save the most are listed", findings.size(),
                                     options.max_findings));
    findings.resize(options.max_findings);
  }
  plan.findings = std::move(findings);
  plan.kernels_listed =
      options.max_kernels > 0 ? std::min(options.max_kernels, plan.kernels.size()) : plan.kernels.size();
  plan.notes.push_back(
      "program time is the sum of the kernels' launch durations (GPU kernel time; host gaps and copies are "
      "not in it)");
  return plan;
}

}  // namespace kopt
