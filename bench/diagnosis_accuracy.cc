// Benchmark: diagnosis accuracy over labelled H200 captures, kopt against
// Nsight Compute's own rule ranking on the same reports, for one or more sets
// and two kinds of input, in one run.
//
// A set is a directory of fixture folders; each folder with expected.toml and
// raw.csv is one labelled launch:
//   expected.toml  kernel (the profiled function; or kernel_regex, an ECMAScript
//                  regex, when a library picks the kernel), primary_bottleneck (the
//                  expected top finding id, a tool id or variant, or "healthy"),
//                  optional acceptable = [ids] (true second-order effects);
//   raw.csv        ncu --page raw --csv --print-units base (all launches of the
//                  profile: the labelled one is selected, the others stay as the
//                  program's timeline);
//   sass.txt, ptxas.txt, source.csv  the bundle's companions (optional);
//   details.csv    ncu --page details of the same capture (ncu's rules).
// Inputs: "bundle" loads the folder as `kopt explain DIR` does; "csv" loads a
// copy of raw.csv alone (no SASS, ptxas report or source page); "targeted" is
// the bundle with the raw page cut down to what live explain's targeted
// collection records (analysis/collection_metrics.h), when the library has it.
// Scoring:
//  - kopt top-1: findings[0] carries the expected id; top-3: one of the first
//    three does. For "healthy": right when no finding other than the healthy
//    verdict is above severity minor (top-1 and top-3 alike); the column
//    "healthy > minor" counts the healthy-labelled launches that got one.
//  - ncu: the OPT rules of the launch, ranked by Estimated Speedup; a rule
//    counts for an id when it names that cause (the rules each tool declares as
//    its counterparts, ToolDefinition::ncu_rules: a fixed mapping written before
//    looking at results). For a healthy kernel, ncu is right when no OPT rule
//    claims a speedup of 10% or more.
// Ceilings: the measured tables of --ceilings (default tests/fixtures/ceilings,
// the H200 table kopt calibrate wrote; "none": the peaks alone), as explain
// uses them: the table of the profile's GPU.
// Usage: diagnosis_accuracy [--findings] [--ceilings DIR|FILE|none] [SET_DIR ...]   (default
// sets: tests/fixtures/h200 and, when present, tests/fixtures/h200_blind).
// Prints Markdown tables: one per set and input, then the summary; --findings adds
// a row under each launch listing every finding (id, estimated gain, severity), best first.
#include <toml++/toml.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "analysis/diagnose.h"
#include "analysis/tool.h"
#include "core/csv_reader.h"
#include "core/file_io.h"
#include "core/subprocess.h"
#include "core/text.h"
// Older libkopt (before kopt calibrate) has no ceilings tables: the bench then
// measures with the peaks alone, so that one source measures before and after.
#if __has_include("hw/ceilings_table.h")
#include "hw/ceilings_table.h"
#define KOPT_HAS_CEILINGS 1
#endif
#include "profile/profile_loader.h"
#if __has_include("analysis/collection_metrics.h")
#include "analysis/collection_metrics.h"
#define KOPT_HAS_TARGETED_COLLECTION 1
#endif

namespace {

namespace fs = std::filesystem;

// The planted causes an ncu rule names: the finding ids of the tools that
// declare it as their counterpart (ToolDefinition::ncu_rules; CPIStall by the
// stall reason in its text).
std::vector<std::string> CausesNamedBy(const std::string& rule_name, const std::string& description) {
  std::vector<std::string> causes;
  std::optional<kopt::NcuRule> rule = kopt::NcuRuleOf(rule_name, description);
  if (!rule) return causes;
  for (const kopt::ToolDefinition& tool : kopt::ToolRegistry()) {
    if (std::find(tool.ncu_rules.begin(), tool.ncu_rules.end(), *rule) == tool.ncu_rules.end()) continue;
    for (std::string& id : kopt::FindingIdsOf(tool)) causes.push_back(std::move(id));
  }
  return causes;
}

struct NcuRule {
  std::string name;
  std::string description;
  double speedup = 0;
  std::vector<std::string> causes;
};

// The OPT rules of the first launch of `kernel_regex` in details.csv, ranked by speedup.
std::vector<NcuRule> NcuRanking(const std::string& details_path, const std::string& kernel_regex) {
  auto text = kopt::ReadWholeFile(details_path);
  std::vector<NcuRule> rules;
  if (!text.ok()) return rules;
  std::vector<std::vector<std::string>> rows;  // details.csv has ragged rows: the reader keeps them
  kopt::CsvReader reader(*text, details_path);
  kopt::CsvRecord record;
  for (auto more = reader.Next(record); more.ok() && *more; more = reader.Next(record)) {
    if (!record.IsBlank()) rows.push_back(std::move(record.fields));
  }
  if (rows.empty()) return rules;
  auto column = [&](const std::string& name) {
    auto it = std::find(rows[0].begin(), rows[0].end(), name);
    return it == rows[0].end() ? -1 : static_cast<int>(it - rows[0].begin());
  };
  int id = column("ID"), kernel = column("Kernel Name"), rule = column("Rule Name"),
      type = column("Rule Type"), description = column("Rule Description"),
      speedup = column("Estimated Speedup");
  if (id < 0 || rule < 0 || type < 0 || description < 0 || speedup < 0) return rules;
  std::regex pattern(kernel_regex);
  std::string first_id;
  for (size_t i = 1; i < rows.size(); ++i) {
    const auto& r = rows[i];
    if (static_cast<int>(r.size()) <= speedup) continue;
    if (first_id.empty()) {
      if (kernel >= 0 && !std::regex_search(r[kernel], pattern)) continue;
      first_id = r[id];
    }
    if (r[id] != first_id || r[rule].empty() || r[type] != "OPT") continue;
    NcuRule entry{r[rule], r[description], kopt::ParseNumber(r[speedup]).value_or(0), {}};
    entry.causes = CausesNamedBy(entry.name, entry.description);
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

struct Label {
  fs::path directory;
  std::string name, kernel_regex, planted;
};

std::optional<Label> ReadLabel(const fs::path& directory) {
  if (!fs::exists(directory / "expected.toml") || !fs::exists(directory / "raw.csv")) return std::nullopt;
  toml::table expected;
  try {
    expected = toml::parse_file((directory / "expected.toml").string());
  } catch (const toml::parse_error& error) {
    std::fprintf(stderr, "%s/expected.toml: %s\n", directory.string().c_str(), error.what());
    return std::nullopt;
  }
  Label label;
  label.directory = directory;
  label.name = directory.filename().string();
  label.planted = expected["primary_bottleneck"].value_or(std::string());
  std::string kernel = expected["kernel"].value_or(std::string());
  label.kernel_regex = expected["kernel_regex"].value_or("^(void )?" + kernel + "[(<]");
  return label;
}

enum class Input { kBundle, kCsvOnly, kTargeted };

struct Row {
  std::string kernel, planted, kopt_top, ncu_top;
  std::string ranking;  // every finding as "id gain% severity", best first (--findings)
  bool kopt1 = false, kopt3 = false, ncu1 = false, ncu3 = false, healthy_violated = false;
};

#ifdef KOPT_HAS_CEILINGS
// The measured ceilings table of the profile's GPU from `ceilings` (a file or directory), or nullopt.
std::optional<kopt::CeilingsTable> CeilingsOf(const kopt::Profile& profile, const std::string& ceilings) {
  if (ceilings.empty()) return std::nullopt;
  for (const kopt::KernelLaunch& launch : profile.launches) {
    if (auto device = launch.Text("device__attribute_display_name")) {
      std::vector<std::string> notes;
      auto table = kopt::FindCeilingsTable(ceilings, *device, notes);
      if (table.ok()) return *table;
      return std::nullopt;
    }
  }
  return std::nullopt;
}
#endif

Row Evaluate(const Label& label, Input input, kopt::CommandRunner& runner, const fs::path& scratch,
             const std::string& ceilings) {
  Row row;
  row.kernel = label.name;
  row.planted = label.planted;
  kopt::ProfileSources options;
  options.target = (label.directory / "raw.csv").string();
  if (input == Input::kCsvOnly) {  // a copy with no companions beside it
    fs::path copy = scratch / (label.name + ".csv");
    fs::copy_file(label.directory / "raw.csv", copy, fs::copy_options::overwrite_existing);
    options.target = copy.string();
  }
  options.kernel_regex = label.kernel_regex;
  options.launch_count = 1;
  std::vector<std::string> notes;
  auto profile = kopt::LoadProfile(options, runner, notes);
  if (!profile.ok() || !kopt::SelectLaunches(options, *profile).ok()) {
    row.kopt_top = "(load failed)";
    return row;
  }
#ifdef KOPT_HAS_TARGETED_COLLECTION
  if (input == Input::kTargeted) kopt::KeepOnlyTargetedCollectionMetrics(*profile);
#endif
  kopt::DiagnoseOptions diagnose_options;
#ifdef KOPT_HAS_CEILINGS
  std::optional<kopt::CeilingsTable> table = CeilingsOf(*profile, ceilings);
  if (table) diagnose_options.ceilings = &*table;
#else
  (void)ceilings;
#endif
  kopt::Diagnosis diagnosis = kopt::Diagnose(*profile, diagnose_options);
  const auto& findings = diagnosis.kernels.at(0).findings;
  row.kopt_top = findings.empty() ? "(none)" : findings[0].tool;
  for (const kopt::Finding& finding : findings) {
    char entry[160];
    std::snprintf(entry, sizeof entry, "%s%s %.1f%% %s", row.ranking.empty() ? "" : ", ",
                  finding.tool.c_str(), finding.estimated_gain * 100,
                  std::string(kopt::SeverityName(finding.severity)).c_str());
    row.ranking += entry;
  }
  if (row.planted == "healthy") {
    row.healthy_violated = std::any_of(findings.begin(), findings.end(), [](const kopt::Finding& f) {
      return f.tool != "healthy" && f.severity > kopt::Severity::kMinor;
    });
    row.kopt1 = row.kopt3 = !row.healthy_violated;
  } else {
    row.kopt1 = !findings.empty() && findings[0].tool == row.planted;
    for (size_t i = 0; i < findings.size() && i < 3; ++i)
      row.kopt3 = row.kopt3 || findings[i].tool == row.planted;
  }
  auto rules = NcuRanking((label.directory / "details.csv").string(), label.kernel_regex);
  row.ncu_top = rules.empty() ? "(none)" : rules[0].name;
  row.ncu1 = NcuNames(rules, row.planted, 1);
  row.ncu3 = NcuNames(rules, row.planted, 3);
  return row;
}

struct Summary {
  std::string set, input;
  int kernels = 0, kopt1 = 0, kopt3 = 0, ncu1 = 0, ncu3 = 0, healthy = 0, healthy_violated = 0;
};

Summary RunSet(const fs::path& root, Input input, kopt::CommandRunner& runner, const fs::path& scratch,
               const std::string& ceilings, bool list_findings) {
  std::vector<Label> labels;
  for (const auto& entry : fs::directory_iterator(root)) {
    if (auto label = ReadLabel(entry.path())) labels.push_back(*label);
  }
  std::sort(labels.begin(), labels.end(),
            [](const Label& a, const Label& b) { return a.directory < b.directory; });
  const char* names[] = {"bundle", "csv", "targeted"};
  const char* descriptions[] = {"bundle (raw.csv + sass.txt + ptxas.txt + source.csv)", "raw.csv only",
                                "bundle, raw page cut down to the targeted collection's metrics"};
  Summary summary{root.filename().string(), names[static_cast<int>(input)]};
  std::printf("\n### %s, %s input\n\n", summary.set.c_str(), descriptions[static_cast<int>(input)]);
  std::printf(
      "| kernel | expected | kopt top finding | kopt top-1 | kopt top-3 | ncu top rule | ncu top-1 | ncu "
      "top-3 "
      "|\n|---|---|---|:-:|:-:|---|:-:|:-:|\n");
  for (const Label& label : labels) {
    Row row = Evaluate(label, input, runner, scratch, ceilings);
    ++summary.kernels;
    summary.kopt1 += row.kopt1, summary.kopt3 += row.kopt3, summary.ncu1 += row.ncu1,
        summary.ncu3 += row.ncu3;
    summary.healthy += row.planted == "healthy";
    summary.healthy_violated += row.healthy_violated;
    auto mark = [](bool ok) { return ok ? "yes" : "no"; };
    std::printf("| %s | %s | %s | %s | %s | %s | %s | %s |\n", row.kernel.c_str(), row.planted.c_str(),
                row.kopt_top.c_str(), mark(row.kopt1), mark(row.kopt3), row.ncu_top.c_str(), mark(row.ncu1),
                mark(row.ncu3));
    if (list_findings) std::printf("|  | findings: %s | | | | | | |\n", row.ranking.c_str());
  }
  return summary;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<fs::path> sets;
  std::string ceilings = KOPT_FIXTURE_DIR "/ceilings";
  bool list_findings = false;
  for (int i = 1; i < argc; ++i) {
    std::string argument = argv[i];
    if (argument == "--findings") {
      list_findings = true;
    } else if (argument == "--ceilings" && i + 1 < argc) {
      ceilings = argv[++i];
    } else if (argument.rfind("--", 0) == 0) {
      std::fprintf(stderr,
                   "usage: diagnosis_accuracy [--findings] [--ceilings DIR|FILE|none] [SET_DIR ...]\n");
      return 2;
    } else {
      sets.emplace_back(argument);
    }
  }
  if (ceilings == "none" || !fs::exists(ceilings)) ceilings.clear();
#ifndef KOPT_HAS_CEILINGS
  ceilings.clear();
#endif
  std::printf("Ceilings: %s\n", ceilings.empty() ? "datasheet/profile peaks only"
                                                 : ("measured tables from " + ceilings).c_str());
  if (sets.empty()) {
    sets.emplace_back(KOPT_FIXTURE_DIR "/h200");
    if (fs::exists(KOPT_FIXTURE_DIR "/h200_blind")) sets.emplace_back(KOPT_FIXTURE_DIR "/h200_blind");
  }
  fs::path scratch = fs::temp_directory_path() / ("kopt-diagnosis-accuracy-" + std::to_string(::getpid()));
  fs::create_directories(scratch);
  auto runner = kopt::MakeSystemCommandRunner();
  std::vector<Summary> summaries;
  for (const fs::path& set : sets) {
    std::vector<Input> inputs = {Input::kBundle, Input::kCsvOnly};
#ifdef KOPT_HAS_TARGETED_COLLECTION
    inputs.push_back(Input::kTargeted);
#endif
    for (Input input : inputs)
      summaries.push_back(RunSet(set, input, *runner, scratch, ceilings, list_findings));
  }
  fs::remove_all(scratch);
  std::printf(
      "\n### Summary\n\n| set | input | kernels | kopt top-1 | kopt top-3 | healthy with a finding > minor | "
      "ncu "
      "top-1 | ncu top-3 |\n|---|---|---:|---:|---:|---:|---:|---:|\n");
  for (const Summary& s : summaries) {
    double n = s.kernels ? s.kernels : 1;
    std::printf("| %s | %s | %d | %.1f%% (%d) | %.1f%% (%d) | %d of %d | %.1f%% (%d) | %.1f%% (%d) |\n",
                s.set.c_str(), s.input.c_str(), s.kernels, 100 * s.kopt1 / n, s.kopt1, 100 * s.kopt3 / n,
                s.kopt3, s.healthy_violated, s.healthy, 100 * s.ncu1 / n, s.ncu1, 100 * s.ncu3 / n, s.ncu3);
  }
  return 0;
}
