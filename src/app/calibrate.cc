// `kopt calibrate` (see calibrate.h).
#include "app/calibrate.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <iostream>

#include "core/file_io.h"
#include "core/quantity_format.h"
#include "core/terminal_text.h"
#include "hw/ceilings_table.h"
#include "hw/energy_coefficients.h"
#include "hw/gpu_spec.h"
#include "measure/calibration.h"
#include "measure/energy_calibration.h"
#include "measure/measure.h"
#include "report/text_table.h"

namespace kopt {
namespace {

std::string NowUtc() {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

// Achievable DRAM bandwidth and FP32 rate at a few sizes, as calibrate measured them.
std::vector<std::string> SummaryLines(const CeilingsTable& table) {
  TextTable summary;
  summary.rows.push_back({"DRAM bytes", "achievable", "time", "FP32 work", "achievable", "time"});
  summary.right_aligned = {true, true, true, true, true, true};
  for (double mb : {4.0, 25.0, 134.0, 1000.0}) {
    double flop = mb * 1e9;  // FLOP counts of the same orders (4 GFLOP .. 1 TFLOP)
    auto dram = AchievableDram(table, mb * 1e6);
    auto fp32 = AchievableFp32(table, flop);
    summary.rows.push_back({FormatBytes(mb * 1e6, QuantityStyle::kTrimmed),
                            dram ? FormatBandwidth(dram->per_second, QuantityStyle::kTrimmed) : "-",
                            dram ? FormatDuration(dram->duration_ns, QuantityStyle::kTrimmed) : "-",
                            FormatOperations(flop, QuantityStyle::kTrimmed),
                            fp32 ? FormatRate(fp32->per_second, QuantityStyle::kTrimmed) : "-",
                            fp32 ? FormatDuration(fp32->duration_ns, QuantityStyle::kTrimmed) : "-"});
  }
  return AlignedTableLines(summary, {2, 0, false});
}

// Where a table goes: --output, else `file_name` in the ceilings directory (created).
Result<std::string> TablePath(const CalibrateOptions& options, const std::string& file_name) {
  if (!options.output_path.empty()) return options.output_path;
  std::string directory = DefaultCeilingsDirectory();
  if (directory.empty())
    return InvalidInput("no place for the table: set KOPT_CEILINGS_DIR or HOME, or pass --output FILE");
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  return (std::filesystem::path(directory) / file_name).string();
}

// The energy model's coefficients with their sources, and the fit's error.
std::vector<std::string> EnergySummaryLines(const EnergyCoefficients& coefficients) {
  TextTable summary;
  summary.rows.push_back({"term", "joules per unit", "unit", "source"});
  summary.right_aligned = {false, true, false, false};
  for (const EnergyCoefficient& coefficient : coefficients.coefficients) {
    summary.rows.push_back({std::string(EnergyTermName(coefficient.term)),
                            fmt::format("{:.4g}", coefficient.joules_per_unit),
                            std::string(EnergyTermUnit(coefficient.term)), coefficient.source});
  }
  return AlignedTableLines(summary, {2, 0, false});
}

Status RunEnergyCalibrate(const CalibrateOptions& options, const std::string& work, CommandRunner& runner,
                          std::ostream& out) {
  namespace fs = std::filesystem;
  EnergyCalibrationSettings settings;
  settings.work_directory = work;
  for (const std::string& task : options.energy_tasks)
    settings.task_directories.push_back(fs::absolute(task).string());
  EnergyCalibrationEnvironment environment;
  environment.command_runner = &runner;
  environment.query_gpus = [] { return QueryLiveGpus(); };
  environment.now_utc = NowUtc;
  environment.progress = [](std::string_view line) {
    std::cerr << SanitizeForTerminal(std::string(line)) << "\n";
  };
  auto started = std::chrono::steady_clock::now();
  KOPT_ASSIGN_OR_RETURN(EnergyCalibrationResult result, RunEnergyCalibration(settings, environment));
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  KOPT_ASSIGN_OR_RETURN(std::string path, TablePath(options, EnergyCoefficientsFileName(result.gpu_name)));
  KOPT_RETURN_IF_ERROR(WriteFileAtomically(path, FormatEnergyCoefficients(result.coefficients)));
  std::string samples_path = path + ".samples.json";
  KOPT_RETURN_IF_ERROR(
      WriteFileAtomically(samples_path, EnergySamplesToJson(result.samples, result.gpu_name).dump(1) + "\n"));
  out << SanitizeForTerminal(fmt::format(
             "Energy model of {}: {} kernels in {:.1f} s; fit error {:.1f} % mean, {:.1f} % at most",
             result.gpu_name, result.coefficients.fit.kernels, seconds, result.coefficients.fit.mape_percent,
             result.coefficients.fit.max_error_percent))
      << "\n";
  for (const std::string& line : EnergySummaryLines(result.coefficients))
    out << SanitizeForTerminal(line) << "\n";
  for (const std::string& note : result.notes) out << SanitizeForTerminal("note: " + note) << "\n";
  out << SanitizeForTerminal("Written to " + path + " and " + samples_path +
                             " (kopt explain predicts energy with it for profiles of this GPU)")
      << "\n";
  return Status::Ok();
}

}  // namespace

Status RunCalibrate(const CalibrateOptions& options, CommandRunner& runner, std::ostream& out) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::path work = options.work_directory;
  bool temporary = work.empty();
  if (temporary) work = fs::temp_directory_path(error) / fmt::format("kopt-calibrate-{}", ::getpid());
  fs::create_directories(work, error);
  if (error)
    return InvalidInput(
        fmt::format("cannot create the work directory {}: {}", work.string(), error.message()));
  if (options.energy) {
    Status status = RunEnergyCalibrate(options, work.string(), runner, out);
    if (temporary) fs::remove_all(work, error);
    return status;
  }
  CalibrationSettings settings;
  settings.work_directory = work.string();
  settings.quick = options.quick;
  settings.ncu_copies = options.ncu_copies;
  // QueryLiveGpus honours KOPT_NO_GPU_QUERY=1 (no GPU, as the golden tests want).
  CalibrationEnvironment environment{&runner, [] { return QueryLiveGpus(); }, NowUtc};
  auto started = std::chrono::steady_clock::now();
  auto result = RunCalibration(settings, environment);
  if (temporary) fs::remove_all(work, error);
  if (!result.ok()) return result.status();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  KOPT_ASSIGN_OR_RETURN(std::string path, TablePath(options, CeilingsFileName(result->table.gpu_name)));
  if (Status status = WriteFileAtomically(path, FormatCeilingsTable(result->table)); !status.ok())
    return status;
  out << SanitizeForTerminal(fmt::format("Ceilings of {} ({} SMs): {} points in {:.1f} s (build {:.1f} s, "
                                         "microbenchmarks {:.1f} s, ncu copies {:.1f} s)",
                                         result->table.gpu_name, result->table.sm_count,
                                         result->table.points.size(), seconds, result->build_seconds,
                                         result->run_seconds, result->ncu_seconds))
      << "\n";
  for (const std::string& line : SummaryLines(result->table)) out << SanitizeForTerminal(line) << "\n";
  for (const std::string& note : result->notes) out << SanitizeForTerminal("note: " + note) << "\n";
  out << SanitizeForTerminal(
             "Written to " + path +
             " (kopt explain uses it for profiles of this GPU; --ceilings names another table)")
      << "\n";
  return Status::Ok();
}

}  // namespace kopt
