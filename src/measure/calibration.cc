#include "measure/calibration.h"

#include <fmt/format.h>

#include <filesystem>

#include "core/file_io.h"
#include "core/nvcc.h"
#include "core/text.h"
#include "measure/calibrate_bench_source.h"
#include "profile/ncu_csv.h"

namespace kopt {
namespace {

std::vector<std::string_view> SplitFields(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t start = 0;
  while (true) {
    size_t comma = line.find(',', start);
    fields.push_back(
        line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return fields;
}

Status LineError(size_t line, std::string_view what) {
  return InvalidInput(fmt::format("calibrate_bench output: line {}: {}", line, what));
}

Result<CeilingPoint> ParsePointLine(const std::vector<std::string_view>& f, size_t line) {
  if (f.size() != 9)
    return LineError(line,
                     "a point line has 9 fields: point,op,work,unit,blocks_per_sm,threads,cold|hot,median_ns,"
                     "min_ns");
  CeilingPoint point;
  point.op = std::string(f[1]);
  if (point.op != "copy" && point.op != "read" && point.op != "fma" && point.op != "memcpy")
    return LineError(line, "op must be copy, read, fma or memcpy");
  point.unit = std::string(f[3]);
  if (point.unit != "byte" && point.unit != "flop") return LineError(line, "unit must be byte or flop");
  if (f[6] != "cold" && f[6] != "hot") return LineError(line, "the L2 field must be cold or hot");
  point.cold = f[6] == "cold";
  auto work = ParseNumber(f[2]);
  auto blocks = ParseInteger(f[4]);
  auto threads = ParseInteger(f[5]);
  auto median = ParseNumber(f[7]);
  auto minimum = ParseNumber(f[8]);
  if (!work || *work <= 0) return LineError(line, "work must be a positive number");
  if (!blocks || *blocks < 0 || !threads || *threads < 0)
    return LineError(line, "blocks per SM and threads per block must be integers >= 0");
  if (!median || *median <= 0 || !minimum || *minimum < 0)
    return LineError(line, "median_ns must be positive and min_ns >= 0");
  point.work = *work;
  point.blocks_per_sm = static_cast<int>(*blocks);
  point.threads_per_block = static_cast<int>(*threads);
  point.median_ns = *median;
  point.min_ns = *minimum;
  point.timing = "events";
  return point;
}

std::string Excerpt(const CommandResult& result) {
  return Abbreviate(
      std::string(TrimWhitespace(result.stderr_text.empty() ? result.stdout_text : result.stderr_text)), 600);
}

Result<CommandResult> RunChecked(CommandRunner& runner, CommandSpec spec, std::string_view what) {
  auto result = runner.Run(spec);
  if (!result.ok()) return result.status();
  if (!result->Succeeded()) {
    return WorkFailed(fmt::format("{} failed ({}): {}", what,
                                  result->timed_out  ? "timed out"
                                  : result->signaled ? fmt::format("signal {}", result->signal)
                                                     : fmt::format("exit status {}", result->exit_code),
                                  Excerpt(*result)));
  }
  return result;
}

}  // namespace

std::string_view CalibrateBenchSource() {
  return kCalibrateBenchSource;
}

Result<CeilingsTable> ParseCalibrateBenchOutput(std::string_view text) {
  CeilingsTable table;
  bool header = false, device = false;
  std::vector<std::string_view> lines = SplitLines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = TrimWhitespace(lines[i]);
    if (line.empty()) continue;
    std::vector<std::string_view> f = SplitFields(line);
    if (!header) {
      if (f.size() != 2 || f[0] != "kopt-calibrate-bench" || f[1] != "1")
        return LineError(i + 1, "expected the header \"kopt-calibrate-bench,1\"");
      header = true;
    } else if (f[0] == "device") {
      // device,<name (may hold commas)>,<sms>,<cc>,<sm kHz>,<mem kHz>,<bus bits>,<l2 bytes>
      if (f.size() < 8) return LineError(i + 1, "a device line has 8 fields");
      size_t n = f.size();
      std::string name;
      for (size_t k = 1; k + 6 < n; ++k) name += (k > 1 ? "," : "") + std::string(f[k]);
      auto sms = ParseInteger(f[n - 6]);
      if (name.empty() || !sms || *sms <= 0) return LineError(i + 1, "device name and SM count expected");
      table.gpu_name = name;
      table.sm_count = static_cast<int>(*sms);
      table.compute_capability = std::string(f[n - 5]);
      device = true;
    } else if (f[0] == "point") {
      auto point = ParsePointLine(f, i + 1);
      if (!point.ok()) return point.status();
      table.points.push_back(*point);
    } else {
      return LineError(i + 1, "expected a device or point line");
    }
  }
  if (!header) return LineError(1, "empty output (expected \"kopt-calibrate-bench,1\")");
  if (!device) return InvalidInput("calibrate_bench output: no device line");
  if (table.points.empty()) return InvalidInput("calibrate_bench output: no point lines");
  return table;
}

Result<std::vector<CeilingPoint>> ParseCalibrateNcuCopies(std::string_view text, std::string_view file_name) {
  auto launches = ParseNcuRawCsv(text, file_name);
  if (!launches.ok()) return launches.status();
  std::vector<CeilingPoint> points;
  for (const KernelLaunch& launch : *launches) {
    if (launch.FunctionName() != "calibrate_copy") continue;
    auto duration = launch.Metric("gpu__time_duration.sum");
    auto read = launch.Metric("dram__bytes_read.sum");
    auto write = launch.Metric("dram__bytes_write.sum");
    if (!duration || !read || !write || *duration <= 0 || *read + *write <= 0) {
      return InvalidInput(fmt::format(
          "{}: launch {} lacks gpu__time_duration.sum, dram__bytes_read.sum or dram__bytes_write.sum",
          file_name, launch.launch_id));
    }
    CeilingPoint point;
    point.op = "copy";
    point.unit = "byte";
    point.work = *read + *write;
    point.blocks_per_sm = 4;
    point.threads_per_block = 256;
    point.cold = true;  // ncu flushes the caches before each profiled launch (--cache-control all)
    point.median_ns = point.min_ns = *duration;
    point.timing = "ncu";
    points.push_back(point);
  }
  if (points.empty()) return InvalidInput(fmt::format("{}: no calibrate_copy launches", file_name));
  return points;
}

Result<CalibrationResult> RunCalibration(const CalibrationSettings& settings,
                                         const CalibrationEnvironment& env) {
  namespace fs = std::filesystem;
  CalibrationResult out;
  auto gpus = env.query_gpus ? env.query_gpus() : Result<std::vector<GpuSpec>>(std::vector<GpuSpec>{});
  if (!gpus.ok() || gpus->empty()) {
    return Unavailable(fmt::format(
        "kopt calibrate measures the GPU it runs on and needs one: no CUDA device found{}. Run it on the "
        "machine whose ceilings you want (the table is then found by the GPU name in a profile).",
        gpus.ok() ? "" : " (" + gpus.status().message() + ")"));
  }
  CommandRunner& runner = *env.runner;
  std::string nvcc = runner.FindProgram("nvcc");
  if (nvcc.empty())
    return NotFound(
        "nvcc not found on PATH: kopt calibrate builds its microbenchmarks with the CUDA toolkit");
  fs::path dir = settings.work_directory;
  fs::path source = dir / "calibrate_bench.cu", binary = dir / "calibrate_bench";
  if (Status status = WriteFileAtomically(source.string(), std::string(CalibrateBenchSource())); !status.ok())
    return status;
  CommandSpec build;
  build.argv = {nvcc, "-O3", NvccArchitectureFlag("native"), source.string(), "-o", binary.string()};
  build.timeout_seconds = settings.timeout_seconds;
  auto built = RunChecked(runner, build, "nvcc (building the calibration microbenchmarks)");
  if (!built.ok()) return built.status();
  out.build_seconds = built->seconds;
  CommandSpec run;
  run.argv = {binary.string()};
  if (settings.quick) run.argv.push_back("--quick");
  run.timeout_seconds = settings.timeout_seconds;
  auto ran = RunChecked(runner, run, "the calibration microbenchmarks");
  if (!ran.ok()) return ran.status();
  out.run_seconds = ran->seconds;
  auto table = ParseCalibrateBenchOutput(ran->stdout_text);
  if (!table.ok()) return table.status();
  out.table = std::move(*table);
  if (settings.ncu_copies) {
    std::string ncu = runner.FindProgram("ncu");
    if (ncu.empty()) {
      out.notes.push_back(
          "ncu not found on PATH: the DRAM curve is event-timed (a few microseconds longer than "
          "ncu's gpu__time_duration for the same copy)");
    } else {
      CommandSpec profile;
      profile.argv = {ncu,
                      "--clock-control",
                      "none",
                      "--page",
                      "raw",
                      "--csv",
                      "--print-units",
                      "base",
                      "--log-file",
                      (dir / "ncu.log").string(),
                      "-k",
                      "regex:^calibrate_copy$",
                      "--metrics",
                      "gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum",
                      binary.string(),
                      "--ncu"};
      profile.environment = {{"LC_ALL", "C"}};
      profile.timeout_seconds = settings.timeout_seconds;
      auto profiled = RunChecked(runner, profile, "ncu (timing the calibration copies)");
      auto copies = profiled.ok() ? ParseCalibrateNcuCopies(profiled->stdout_text, "ncu output")
                                  : Result<std::vector<CeilingPoint>>(profiled.status());
      if (copies.ok()) {
        out.ncu_seconds = profiled->seconds;
        out.table.points.insert(out.table.points.end(), copies->begin(), copies->end());
      } else {
        out.notes.push_back("the ncu-timed copies failed, the DRAM curve is event-timed: " +
                            copies.status().message());
      }
    }
  }
  out.table.measured_at = env.now_utc ? env.now_utc() : "";
  out.table.tool =
      fmt::format("kopt calibrate {} (calibrate_bench 1{})", KOPT_VERSION, settings.quick ? ", quick" : "");
  return out;
}

}  // namespace kopt
