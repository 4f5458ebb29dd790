// Benchmark: parse an ncu raw-page export of N launches and run stage 1
// (roofline, class, stalls: the whole Diagnose) over every launch.
//
// Builds the export from the real H200 probe fixture by repeating its launch
// rows with fresh IDs (each row is a full `--set full` row, ~2,200 metrics),
// so the input has the size and shape of a real 1,000-kernel export.
// Usage: parse_and_stage1 [FIXTURE_CSV] [LAUNCHES] [REPETITIONS]
// Prints a table; the claim checked is "under 1 s for 1,000 launches".
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/diagnose.h"
#include "analysis/roofline.h"
#include "hw/gpu_spec.h"
#include "profile/ncu_csv.h"

namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream stream(path, std::ios::binary);
  std::stringstream buffer;
  buffer << stream.rdbuf();
  return buffer.str();
}

// Header and units rows of the fixture, then `launches` data rows cycled from
// the fixture's rows with their ID field rewritten.
std::string BuildExport(const std::string& fixture, int launches) {
  std::vector<std::string> lines;
  std::istringstream stream(fixture);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  std::string text = lines.at(0) + "\n" + lines.at(1) + "\n";
  for (int i = 0; i < launches; ++i) {
    const std::string& row = lines.at(2 + i % (lines.size() - 2));
    size_t first_field_end = row.find(',');
    text += "\"" + std::to_string(i) + "\"" + row.substr(first_field_end) + "\n";
  }
  return text;
}

// The peer: the same export read with Python's csv module (how ncu exports
// are commonly read), values converted to float where they parse. Returns the
// median seconds, or a negative number when python3 is not available.
double PythonCsvSeconds(const std::string& text, int repetitions) {
  std::string path = "/tmp/kopt_bench_export.csv";
  std::ofstream(path, std::ios::binary) << text;
  std::string command =
      "python3 -c \"import csv,sys,time\n"
      "def num(v):\n try: return float(v.replace(',', ''))\n except ValueError: return None\n"
      "times=[]\n"
      "for _ in range(" +
      std::to_string(repetitions) +
      "):\n"
      " t=time.perf_counter(); rows=list(csv.reader(open('" +
      path +
      "', newline='')));"
      " values=[[num(v) for v in r[11:]] for r in rows[2:]]; times.append(time.perf_counter()-t)\n"
      "times.sort(); print(times[len(times)//2])\" 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return -1;
  char buffer[64] = {0};
  bool read = std::fgets(buffer, sizeof buffer, pipe) != nullptr;
  int status = pclose(pipe);
  std::remove(path.c_str());
  return read && status == 0 ? std::atof(buffer) : -1;
}

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::string fixture_path = argc > 1 ? argv[1] : KOPT_FIXTURE_DIR "/probe/raw_base.csv";
  int launches = argc > 2 ? std::atoi(argv[2]) : 1000;
  int repetitions = argc > 3 ? std::atoi(argv[3]) : 5;
  std::string text = BuildExport(ReadFile(fixture_path), launches);

  std::vector<double> parse_times, stage1_times, diagnosis_times;
  for (int repetition = 0; repetition < repetitions; ++repetition) {
    auto start = std::chrono::steady_clock::now();
    auto parsed = kopt::ParseNcuRawCsv(text, "bench.csv");
    parse_times.push_back(Seconds(start));
    if (!parsed.ok()) {
      std::fprintf(stderr, "parse failed: %s\n", parsed.status().message().c_str());
      return 1;
    }
    kopt::Profile profile;
    profile.launches = std::move(parsed).value();
    start = std::chrono::steady_clock::now();
    const kopt::GpuSpec* h200 = kopt::FindGpu("h200");
    for (const kopt::KernelLaunch& launch : profile.launches) {
      kopt::RooflineAnalysis roofline = kopt::AnalyzeRoofline(launch, h200);
      if (roofline.duration_ns <= 0) return 1;
    }
    stage1_times.push_back(Seconds(start));
    start = std::chrono::steady_clock::now();
    kopt::Diagnosis diagnosis = kopt::Diagnose(profile, {});
    diagnosis_times.push_back(Seconds(start));
    if (diagnosis.kernels.size() != static_cast<size_t>(launches)) return 1;
  }
  std::sort(parse_times.begin(), parse_times.end());
  std::sort(stage1_times.begin(), stage1_times.end());
  std::sort(diagnosis_times.begin(), diagnosis_times.end());
  double parse = parse_times[parse_times.size() / 2];
  double stage1 = stage1_times[stage1_times.size() / 2];
  double diagnosis = diagnosis_times[diagnosis_times.size() / 2];
  std::printf("ncu raw export of %d launches, %.1f MB (median of %d runs)\n\n", launches, text.size() / 1e6,
              repetitions);
  std::printf("| step | time | per launch |\n|---|---:|---:|\n");
  std::printf("| parse | %.3f s | %.1f µs |\n", parse, parse / launches * 1e6);
  std::printf("| stage 1 (roofline, class) | %.3f s | %.1f µs |\n", stage1, stage1 / launches * 1e6);
  std::printf("| **parse + stage 1** | **%.3f s** | %.1f µs |\n", parse + stage1,
              (parse + stage1) / launches * 1e6);
  std::printf("| whole diagnosis (stage 1, stalls, every tool) | %.3f s | %.1f µs |\n", diagnosis,
              diagnosis / launches * 1e6);
  std::printf("| parse + whole diagnosis | %.3f s | %.1f µs |\n\n", parse + diagnosis,
              (parse + diagnosis) / launches * 1e6);
  double python = PythonCsvSeconds(text, repetitions);
  if (python > 0) {
    std::printf("peer, same export: Python csv.reader + float() %.3f s; kopt's parse is %.1fx faster\n",
                python, python / parse);
  }
  std::printf("target: parse + stage 1 under 1 s per 1,000 launches: %s\n",
              parse + stage1 < 1.0 * launches / 1000 ? "met" : "MISSED");
  return 0;
}
