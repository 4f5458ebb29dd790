// Benchmark: diagnosis accuracy over the H200 example kernels, kopt against
// Nsight Compute's own rule ranking on the same reports.
//
// For every tests/fixtures/h200/<kernel>/ with expected.toml (the planted
// primary bottleneck, a tool id or "healthy"), raw.csv, sass.txt, ptxas.txt
// and details.csv (ncu --page details of the same capture):
//  - kopt: the bundle is loaded as `kopt explain` loads it and diagnosed; top-1
//    means findings[0] carries the planted id, top-3 any of the first three.
//  - ncu: the OPT rules of the launch, ranked by Estimated Speedup; a rule
//    counts for a planted id when it names that cause (kRuleNames below, a
//    fixed mapping written before looking at results). For a healthy kernel,
//    ncu is right when no OPT rule claims a speedup of 10% or more.
// Usage: diagnosis_accuracy [FIXTURE_DIR]. Prints a Markdown table.
#include <toml++/toml.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "analysis/diagnose.h"
#include "app/explain.h"
#include "core/file_io.h"
#include "core/subprocess.h"
#include "core/text.h"
#include "profile/ncu_csv.h"

namespace {

namespace fs = std::filesystem;

// ncu rule → the planted causes it names. CPIStall names different causes by
// the stall reason in its text; see CpiStallCauses.
const std::map<std::string, std::vector<std::string>> kRuleNames = {
    {"UncoalescedGlobalAccess", {"uncoalesced_loads", "uncoalesced_stores"}},
    {"MemoryCacheAccessPattern", {"uncoalesced_loads", "uncoalesced_stores"}},
    {"SharedMemoryConflicts", {"shared_bank_conflicts"}},
    {"UncoalescedSharedAccess", {"shared_bank_conflicts"}},
    {"ThreadDivergence", {"warp_divergence"}},
    {"TheoreticalOccupancy", {"low_occupancy_registers", "low_occupancy_shared_memory"}},
    {"AchievedOccupancy", {"achieved_occupancy_gap"}},
    {"LaunchConfiguration", {"tail_effect"}},
    {"WorkloadImbalance", {"sm_load_imbalance"}},
    {"SOLFPRoofline", {"accidental_fp64"}},
    {"LocalMemoryUsage", {"local_memory_spills"}},
};

std::vector<std::string> CpiStallCauses(const std::string& description) {
  if (description.find("barrier") != std::string::npos) return {"barrier_stalls"};
  if (description.find("L1TEX") != std::string::npos) return {"memory_latency_low_mlp"};
  if (description.find("MIO") != std::string::npos)
    return {"shared_bank_conflicts", "mufu_division_pressure"};
  if (description.find("math pipe") != std::string::npos)
    return {"mufu_division_pressure", "accidental_fp64"};
  return {};
}

struct NcuRule {
  std::string name;
  std::string description;
  double speedup = 0;
  std::vector<std::string> causes;
};

// The OPT rules of the first launch in details.csv, ranked by speedup.
std::vector<NcuRule> NcuRanking(const std::string& details_path) {
  auto text = kopt::ReadWholeFile(details_path);
  std::vector<NcuRule> rules;
  if (!text.ok()) return rules;
  // details.csv has ragged rows; read it with a permissive CSV split.
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false;
  for (char c : *text) {
    if (quoted) {
      if (c == '"')
        quoted = false;
      else
        field.push_back(c);
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.push_back(field), field.clear();
    } else if (c == '\n') {
      row.push_back(field), field.clear(), rows.push_back(row), row.clear();
    } else if (c != '\r') {
      field.push_back(c);
    }
  }
  if (rows.empty()) return rules;
  auto column = [&](const std::string& name) {
    auto it = std::find(rows[0].begin(), rows[0].end(), name);
    return it == rows[0].end() ? -1 : static_cast<int>(it - rows[0].begin());
  };
  int id = column("ID"), rule = column("Rule Name"), type = column("Rule Type"),
      description = column("Rule Description"), speedup = column("Estimated Speedup");
  std::string first_id = rows.size() > 1 ? rows[1][id] : "";
  for (size_t i = 1; i < rows.size(); ++i) {
    const auto& r = rows[i];
    if (static_cast<int>(r.size()) <= speedup || r[id] != first_id || r[rule].empty() || r[type] != "OPT")
      continue;
    NcuRule entry{r[rule], r[description], kopt::ParseNumber(r[speedup]).value_or(0), {}};
    if (auto it = kRuleNames.find(entry.name); it != kRuleNames.end()) entry.causes = it->second;
    if (entry.name == "CPIStall") entry.causes = CpiStallCauses(entry.description);
    rules.push_back(entry);
  }
  std::stable_sort(rules.begin(), rules.end(),
                   [](const NcuRule& a, const NcuRule& b) { return a.speedup > b.speedup; });
  return rules;
}

bool NcuNames(const std::vector<NcuRule>& rules, const std::string& planted, size_t depth) {
  if (planted == "healthy") return rules.empty() || rules[0].speedup < 10;
  for (size_t i = 0; i < rules.size() && i < depth; ++i) {
    if (std::find(rules[i].causes.begin(), rules[i].causes.end(), planted) != rules[i].causes.end())
      return true;
  }
  return false;
}

struct Row {
  std::string kernel, planted, kopt_top, ncu_top;
  bool kopt1 = false, kopt3 = false, ncu1 = false, ncu3 = false;
};

Row Evaluate(const fs::path& directory, kopt::CommandRunner& runner) {
  auto expected = toml::parse_file((directory / "expected.toml").string());
  Row row;
  row.kernel = expected["kernel"].value_or(std::string());
  row.planted = expected["primary_bottleneck"].value_or(std::string());
  kopt::ExplainOptions options;
  options.target = (directory / "raw.csv").string();
  options.kernel_regex = "^(void )?" + row.kernel + "[(<]";
  options.launch_count = 1;
  std::vector<std::string> notes;
  auto profile = kopt::LoadProfile(options, runner, notes);
  if (!profile.ok() || !kopt::SelectLaunches(options, *profile).ok()) {
    row.kopt_top = "(load failed)";
    return row;
  }
  kopt::Diagnosis diagnosis = kopt::Diagnose(*profile, {});
  const auto& findings = diagnosis.kernels.at(0).findings;
  row.kopt_top = findings.empty() ? "(none)" : findings[0].tool;
  row.kopt1 = !findings.empty() && findings[0].tool == row.planted;
  for (size_t i = 0; i < findings.size() && i < 3; ++i)
    row.kopt3 = row.kopt3 || findings[i].tool == row.planted;
  auto rules = NcuRanking((directory / "details.csv").string());
  row.ncu_top = rules.empty() ? "(none)" : rules[0].name;
  row.ncu1 = NcuNames(rules, row.planted, 1);
  row.ncu3 = NcuNames(rules, row.planted, 3);
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  fs::path root = argc > 1 ? argv[1] : KOPT_FIXTURE_DIR "/h200";
  std::vector<fs::path> directories;
  for (const auto& entry : fs::directory_iterator(root)) {
    fs::path directory = entry.path();
    if (fs::exists(directory / "expected.toml") && fs::exists(directory / "sass.txt") &&
        fs::exists(directory / "details.csv")) {
      directories.push_back(directory);
    }
  }
  std::sort(directories.begin(), directories.end());
  auto runner = kopt::MakeSystemCommandRunner();
  int kopt1 = 0, kopt3 = 0, ncu1 = 0, ncu3 = 0;
  std::printf(
      "| kernel | planted bottleneck | kopt top finding | kopt top-1 | kopt top-3 | ncu top rule | ncu top-1 "
      "| ncu top-3 |\n");
  std::printf("|---|---|---|:-:|:-:|---|:-:|:-:|\n");
  for (const fs::path& directory : directories) {
    Row row = Evaluate(directory, *runner);
    kopt1 += row.kopt1, kopt3 += row.kopt3, ncu1 += row.ncu1, ncu3 += row.ncu3;
    auto mark = [](bool ok) { return ok ? "yes" : "no"; };
    std::printf("| %s | %s | %s | %s | %s | %s | %s | %s |\n", row.kernel.c_str(), row.planted.c_str(),
                row.kopt_top.c_str(), mark(row.kopt1), mark(row.kopt3), row.ncu_top.c_str(), mark(row.ncu1),
                mark(row.ncu3));
  }
  double n = directories.empty() ? 1 : static_cast<double>(directories.size());
  std::printf("\n| over %zu kernels | top-1 | top-3 |\n|---|---:|---:|\n", directories.size());
  std::printf("| kopt | %.1f%% (%d) | %.1f%% (%d) |\n", 100 * kopt1 / n, kopt1, 100 * kopt3 / n, kopt3);
  std::printf("| ncu rules (by Estimated Speedup) | %.1f%% (%d) | %.1f%% (%d) |\n", 100 * ncu1 / n, ncu1,
              100 * ncu3 / n, ncu3);
  return 0;
}
