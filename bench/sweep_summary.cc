// Benchmark: a sweep of 1,000 profiles read and summarised (`kopt explain DIR
// --sweep n`, issue 14's must-hold: under 5 s on the CPU machine).
//
//   sweep_summary [POINTS] [REPEATS]     (defaults 1000, 3)
//
// Synthesises POINTS raw-page exports from a real H200 fixture
// (tests/fixtures/h200_diff/sweep_saxpy/n=16777216_block=256.csv: one launch,
// the sweep's targeted section set) into a temporary directory, each named
// "n=<value>_block=<b>.csv" with its duration and DRAM/L2 traffic scaled so the
// points differ, then times RunExplain over the directory (expand, read
// and parse every file, diagnose every point, the sweep analysis, the terminal
// report) REPEATS times and prints the times and their median. Not a timed
// test: results go to bench/results/sweep_summary.txt by hand.
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "app/explain.h"
#include "core/csv_reader.h"
#include "core/file_io.h"
#include "core/subprocess.h"

namespace {

std::string Quote(const std::string& cell) {
  std::string out = "\"";
  for (char c : cell) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string Row(const std::vector<std::string>& cells) {
  std::string line;
  for (size_t i = 0; i < cells.size(); ++i) line += (i ? "," : "") + Quote(cells[i]);
  return line + "\n";
}

}  // namespace

int main(int argc, char** argv) {
  const int points = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 3;
  const std::string fixture =
      std::string(KOPT_FIXTURE_DIR) + "/h200_diff/sweep_saxpy/n=16777216_block=256.csv";
  auto text = kopt::ReadWholeFile(fixture);
  if (!text.ok()) {
    std::fprintf(stderr, "%s\n", text.status().message().c_str());
    return 1;
  }
  kopt::CsvReader reader(*text, fixture);
  std::vector<std::vector<std::string>> rows;
  kopt::CsvRecord record;
  while (true) {
    auto more = reader.Next(record);
    if (!more.ok() || !*more) break;
    if (!record.IsBlank()) rows.push_back(record.fields);
  }
  if (rows.size() < 3) {
    std::fprintf(stderr, "%s: expected a header, units and one launch\n", fixture.c_str());
    return 1;
  }
  const std::vector<std::string>& header = rows[0];
  auto column = [&](const std::string& name) {
    return static_cast<int>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  const int duration = column("gpu__time_duration.sum");
  const std::vector<int> scaled = {duration, column("dram__bytes_read.sum"), column("dram__bytes_write.sum"),
                                   column("lts__t_sectors.sum")};
  auto directory = std::filesystem::temp_directory_path() / ("kopt_sweep_bench_" + std::to_string(getpid()));
  std::filesystem::create_directories(directory);
  for (int i = 0; i < points; ++i) {
    std::vector<std::string> launch = rows[2];
    const double factor = 0.5 + static_cast<double>(i % 97) / 64.0;
    for (int c : scaled) {
      if (c >= static_cast<int>(launch.size()) || launch[c].empty()) continue;
      launch[c] = std::to_string(std::stod(launch[c]) * factor);
    }
    const int block = 128 << (i % 4);
    std::ofstream(directory /
                  ("n=" + std::to_string(4096 + 1024 * i) + "_block=" + std::to_string(block) + ".csv"))
        << Row(rows[0]) << Row(rows[1]) << Row(launch);
  }
  kopt::ExplainOptions options;
  options.settings.profile.target = directory.string();
  options.series.sweep = "n";
  auto runner = kopt::MakeSystemCommandRunner();
  // Wall time, and the process's CPU time (every thread): on a shared machine the
  // wall time includes waiting for a core; the CPU time does not.
  auto cpu_now = [] {
    timespec now{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
  };
  std::vector<double> seconds, cpu_seconds;
  size_t report_bytes = 0;
  for (int r = 0; r < repeats; ++r) {
    std::ostringstream out, log;
    auto start = std::chrono::steady_clock::now();
    const double cpu_start = cpu_now();
    kopt::Status status = kopt::RunExplain(options, *runner, out, log);
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    cpu_seconds.push_back(cpu_now() - cpu_start);
    if (!status.ok()) {
      std::fprintf(stderr, "sweep failed: %s\n", status.message().c_str());
      return 1;
    }
    report_bytes = out.str().size();
  }
  std::filesystem::remove_all(directory);
  std::vector<double> sorted = seconds;
  std::sort(sorted.begin(), sorted.end());
  std::printf("sweep of %d profiles (%zu-byte fixture each), %u hardware threads\n", points, text->size(),
              std::thread::hardware_concurrency());
  double load[3] = {0, 0, 0};
  if (getloadavg(load, 3) < 0) load[0] = -1;
  for (size_t r = 0; r < seconds.size(); ++r)
    std::printf("  run %zu: %.3f s wall, %.3f s CPU (all threads)\n", r + 1, seconds[r], cpu_seconds[r]);
  std::printf("median %.3f s wall (limit 5 s), report %zu bytes; load average %.1f\n",
              sorted[sorted.size() / 2], report_bytes, load[0]);
  return sorted[sorted.size() / 2] < 5.0 ? 0 : 1;
}
