// The energy proxy model against NVML on kernels the fit did not see
// (issue 15; docs/energy.md "Validation").
//
//   energy_model_validation measure --out FILE TASK_DIR...     (on the GPU)
//     samples every candidate in TASK_DIR/candidates/*.cu and, for each
//     TASK_DIR/tunable/*.cu, its default configuration and the middle one of its enumeration
//     (measured energy: NVML windows >= 1 s, idle subtracted; counts: ncu),
//     written as kopt.energy_samples/1.
//   energy_model_validation report --fit FIT.samples.json --held-out HELD.samples.json [--markdown FILE]
//     fits the coefficients on FIT (as kopt calibrate --energy does), predicts
//     every held-out kernel, and prints per kernel the measured and predicted
//     dynamic energy per launch beside the baseline (time x the fit set's mean
//     dynamic power), then MAPE of both and the rank correlation (Spearman)
//     among the candidates of each task with at least three.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "analysis/energy_model.h"
#include "core/file_io.h"
#include "core/subprocess.h"
#include "harness/task_spec.h"
#include "harness/tunable_declarations.h"
#include "harness/tuning_space.h"
#include "hw/gpu_spec.h"
#include "measure/energy_calibration.h"
#include "report/text_table.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;

// The held-out subjects of one task: its candidates and three configurations per tunable file.
Result<std::vector<EnergySubject>> SubjectsOf(const std::string& task_directory) {
  KOPT_ASSIGN_OR_RETURN(TaskSpec task, LoadTask(task_directory));
  std::vector<EnergySubject> subjects;
  std::string name = fs::path(task_directory).filename().string();
  std::error_code error;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(fs::path(task_directory) / "candidates", error))
    if (entry.path().extension() == ".cu") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files)
    subjects.push_back({name + "/" + file.stem().string(), task_directory, file.string(), ""});
  files.clear();
  for (const auto& entry : fs::directory_iterator(fs::path(task_directory) / "tunable", error))
    if (entry.path().extension() == ".cu") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    KOPT_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(file.string()));
    auto space = TuningSpace::FromSource(text, file.string(), TaskScalarValues(task));
    if (!space.ok()) continue;
    std::vector<Configuration> all = space->Enumerate(4096);
    std::vector<Configuration> chosen = {space->Default()};
    if (all.size() > 1 && all[all.size() / 2] != chosen[0]) chosen.push_back(all[all.size() / 2]);
    for (const Configuration& configuration : chosen) {
      std::string key = space->Key(configuration);
      for (char& c : key) c = c == ',' ? '_' : c;
      subjects.push_back({fmt::format("{}/{}@{}", name, file.stem().string(), key), task_directory, "",
                          space->Materialize(configuration)});
    }
  }
  return subjects;
}

// Samples task by task, rewriting `out` after each, so a run cut short keeps what it measured.
int Measure(const std::string& out, const std::vector<std::string>& tasks) {
  auto runner = MakeSystemCommandRunner();
  EnergyCalibrationSettings settings;
  settings.work_directory = (fs::absolute(out).parent_path() / "energy-validation-work").string();
  fs::create_directories(settings.work_directory);
  EnergyCalibrationEnvironment environment;
  environment.command_runner = runner.get();
  environment.query_gpus = [] { return QueryLiveGpus(); };
  environment.progress = [](std::string_view line) { std::cerr << line << "\n"; };
  auto gpus = QueryLiveGpus();
  std::string gpu = gpus.ok() && !gpus->empty() ? (*gpus)[0].name : "";
  std::vector<EnergySample> all;
  size_t subjects_total = 0;
  for (const std::string& task : tasks) {
    auto subjects = SubjectsOf(fs::absolute(task).string());
    if (!subjects.ok()) {
      std::cerr << subjects.status().message() << "\n";
      return 2;
    }
    subjects_total += subjects->size();
    std::vector<std::string> notes;
    auto samples = MeasureEnergySamples(*subjects, settings, environment, notes);
    for (const std::string& note : notes) std::cerr << "note: " << note << "\n";
    if (!samples.ok()) {
      std::cerr << samples.status().message() << "\n";
      return 1;
    }
    all.insert(all.end(), samples->begin(), samples->end());
    if (Status status = WriteFileAtomically(out, EnergySamplesToJson(all, gpu).dump(1) + "\n");
        !status.ok()) {
      std::cerr << status.message() << "\n";
      return 1;
    }
  }
  std::cout << fmt::format("{} of {} held-out kernels sampled into {}\n", all.size(), subjects_total, out);
  return 0;
}

Result<std::vector<EnergySample>> ReadSamples(const std::string& path) {
  KOPT_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path));
  nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
  if (json.is_discarded()) return InvalidInput(path + ": not JSON");
  return EnergySamplesFromJson(json, path);
}

std::string TaskOf(const std::string& name) {
  return name.substr(0, name.find('/'));
}

int Report(const std::string& fit_path, const std::string& held_path, const std::string& markdown_path) {
  auto fit_samples = ReadSamples(fit_path);
  auto held = ReadSamples(held_path);
  for (const auto* result : {&fit_samples, &held}) {
    if (!result->ok()) {
      std::cerr << result->status().message() << "\n";
      return 2;
    }
  }
  auto coefficients = FitEnergyCoefficients(*fit_samples, {"", ""});
  auto watts = AverageDynamicWatts(*fit_samples);
  if (!coefficients.ok() || !watts.ok()) {
    std::cerr << (coefficients.ok() ? watts.status() : coefficients.status()).message() << "\n";
    return 1;
  }
  TextTable table;
  table.rows.push_back({"kernel", "time (µs)", "measured (mJ)", "window stdev", "model (mJ)", "error",
                        "baseline (mJ)", "error"});
  table.right_aligned = {false, true, true, true, true, true, true, true};
  std::vector<double> measured, model, baseline;
  std::map<std::string, std::vector<size_t>> by_task;
  for (const EnergySample& sample : *held) {
    double predicted = PredictEnergy(sample.counts, *coefficients).dynamic_joules;
    double simple = sample.seconds_per_launch * *watts;
    by_task[TaskOf(sample.name)].push_back(measured.size());
    measured.push_back(sample.measured_dynamic_joules);
    model.push_back(predicted);
    baseline.push_back(simple);
    auto error = [&](double value) {
      return fmt::format("{:+.1f} %",
                         (value - sample.measured_dynamic_joules) / sample.measured_dynamic_joules * 100);
    };
    table.rows.push_back({sample.name, fmt::format("{:.1f}", sample.seconds_per_launch * 1e6),
                          fmt::format("{:.4f}", sample.measured_dynamic_joules * 1e3),
                          sample.measured_dynamic_joules_stdev > 0
                              ? fmt::format("{:.2f} %", sample.measured_dynamic_joules_stdev /
                                                            sample.measured_dynamic_joules * 100)
                              : std::string("-"),
                          fmt::format("{:.4f}", predicted * 1e3), error(predicted),
                          fmt::format("{:.4f}", simple * 1e3), error(simple)});
  }
  PredictionAccuracy model_accuracy = CompareWithMeasured(model, measured);
  PredictionAccuracy baseline_accuracy = CompareWithMeasured(baseline, measured);
  std::vector<std::string> lines;
  lines.push_back(
      fmt::format("Energy model: fit on {} kernels ({}; fit MAPE {:.1f} %), held out {} kernels ({})",
                  fit_samples->size(), fit_path, coefficients->fit.mape_percent, held->size(), held_path));
  lines.push_back(fmt::format("Baseline: time x {:.1f} W (the fit set's mean dynamic power)", *watts));
  lines.push_back("");
  for (const std::string& line : AlignedTableLines(table, {2, 0, false})) lines.push_back(line);
  lines.push_back("");
  // Pairs of one task whose measured energies differ by more than kDistinct: is the model's order right?
  constexpr double kDistinct = 0.02;
  auto agreement = [&](const std::vector<size_t>& indices, const std::vector<double>& predicted, int& pairs) {
    int agree = 0;
    pairs = 0;
    for (size_t a = 0; a < indices.size(); ++a) {
      for (size_t b = a + 1; b < indices.size(); ++b) {
        double ma = measured[indices[a]], mb = measured[indices[b]];
        if (std::abs(ma - mb) <= kDistinct * std::max(ma, mb)) continue;
        ++pairs;
        if ((ma < mb) == (predicted[indices[a]] < predicted[indices[b]])) ++agree;
      }
    }
    return agree;
  };
  TextTable ranks;
  ranks.rows.push_back({"task", "kernels", "Spearman (model)", "Spearman (baseline)", "pairs > 2 % apart",
                        "ordered right (model)", "ordered right (baseline)"});
  ranks.right_aligned = {false, true, true, true, true, true, true};
  int all_pairs = 0, model_right = 0, baseline_right = 0;
  double rho_sum = 0;
  int rho_count = 0;
  auto rho_text = [](std::optional<double> rho) {
    return rho ? fmt::format("{:.3f}", *rho) : std::string("-");
  };
  for (const auto& [task, indices] : by_task) {
    if (indices.size() < 3) continue;
    std::vector<double> m, p, b;
    for (size_t i : indices) {
      m.push_back(measured[i]);
      p.push_back(model[i]);
      b.push_back(baseline[i]);
    }
    auto rho = SpearmanRankCorrelation(p, m);
    if (rho) {
      rho_sum += *rho;
      ++rho_count;
    }
    int pairs = 0;
    int model_agree = agreement(indices, model, pairs);
    int baseline_agree = agreement(indices, baseline, pairs);
    all_pairs += pairs;
    model_right += model_agree;
    baseline_right += baseline_agree;
    ranks.rows.push_back({task, std::to_string(indices.size()), rho_text(rho),
                          rho_text(SpearmanRankCorrelation(b, m)), std::to_string(pairs),
                          std::to_string(model_agree), std::to_string(baseline_agree)});
  }
  for (const std::string& line : AlignedTableLines(ranks, {2, 0, false})) lines.push_back(line);
  lines.push_back("");
  lines.push_back(
      fmt::format("Model:    MAPE {:.1f} % (max {:.1f} %), mean within-task Spearman {}",
                  model_accuracy.mape_percent, model_accuracy.max_error_percent,
                  rho_count ? fmt::format("{:.3f} over {} tasks", rho_sum / rho_count, rho_count) : "-"));
  lines.push_back(fmt::format("Baseline: MAPE {:.1f} % (max {:.1f} %)", baseline_accuracy.mape_percent,
                              baseline_accuracy.max_error_percent));
  lines.push_back(
      fmt::format("Pairs of one task more than {:.0f} % apart in measured energy: {}; ordered right by the "
                  "model {} ({:.0f} %), by the baseline {} ({:.0f} %)",
                  kDistinct * 100, all_pairs, model_right, all_pairs ? 100.0 * model_right / all_pairs : 0.0,
                  baseline_right, all_pairs ? 100.0 * baseline_right / all_pairs : 0.0));
  for (const std::string& line : lines) std::cout << line << "\n";
  if (!markdown_path.empty()) {
    std::string text = "```\n";
    for (const std::string& line : lines) text += line + "\n";
    text += "```\n";
    if (Status status = WriteFileAtomically(markdown_path, text); !status.ok()) {
      std::cerr << status.message() << "\n";
      return 1;
    }
  }
  return 0;
}

int Usage() {
  std::cerr << "usage: energy_model_validation measure --out FILE TASK_DIR...\n"
               "       energy_model_validation report --fit FIT.samples.json --held-out HELD.samples.json "
               "[--markdown FILE]\n";
  return 2;
}

}  // namespace
}  // namespace kopt

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) return kopt::Usage();
  std::map<std::string, std::string> options;
  std::vector<std::string> positional;
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i].rfind("--", 0) == 0 && i + 1 < args.size()) {
      options[args[i]] = args[i + 1];
      ++i;
    } else {
      positional.push_back(args[i]);
    }
  }
  if (args[0] == "measure" && options.contains("--out") && !positional.empty())
    return kopt::Measure(options["--out"], positional);
  if (args[0] == "report" && options.contains("--fit") && options.contains("--held-out"))
    return kopt::Report(options["--fit"], options["--held-out"], options["--markdown"]);
  return kopt::Usage();
}
