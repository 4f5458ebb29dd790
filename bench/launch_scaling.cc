// Benchmark (issue 19): time and peak memory of `kopt explain` on an ncu
// raw-page export of N launches, N up to 100,000: read, parse, select, diagnose
// and render every format, each N in its own child process (its peak RSS is
// that N's alone).
//
// The export is synthetic but made of real rows: the 44 H200 launches of
// tests/fixtures/exports/raw_44_launches_of_one_kernel.csv (ncu's default set,
// 566 columns, base units), cycled with fresh IDs and spread over KERNELS
// kernel names (default 20), as a long training loop produces. Written to a
// temporary file and read back, as kopt explain reads a file.
// Usage: launch_scaling [FIXTURE_CSV] [KERNELS] [LAUNCHES ...]   (default 1000 10000 100000)
// Prints one row per N; the claim checked: 100,000 launches in <= 5 s and <= 2 GB, time linear in N.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/diagnose.h"
#include "core/file_io.h"
#include "core/subprocess.h"
#include "profile/profile_loader.h"
#include "report/renderer.h"
#include "synthetic_export.h"

namespace {

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// In the child: prints "N groups load diagnose render total peak_MB".
int Measure(const std::string& fixture, int kernels, long long launches) {
  std::string path = "/tmp/kopt_launch_scaling_" + std::to_string(getpid()) + ".csv";
  {
    std::string text = kopt::bench::BuildSyntheticExport(fixture, kernels, launches);
    std::ofstream(path, std::ios::binary) << text;
  }
  auto runner = kopt::MakeSystemCommandRunner();
  auto start = std::chrono::steady_clock::now();
  kopt::ProfileSources sources;
  sources.target = path;
  std::vector<std::string> notes;
  auto profile = kopt::LoadProfile(sources, *runner, notes);
  if (!profile.ok()) {
    std::fprintf(stderr, "load failed: %s\n", profile.status().message().c_str());
    return 1;
  }
  if (!kopt::SelectLaunches(sources, *profile).ok()) return 1;
  double load_s = Seconds(start);
  auto diagnose_start = std::chrono::steady_clock::now();
  kopt::Diagnosis diagnosis = kopt::Diagnose(*profile, {});
  double diagnose_s = Seconds(diagnose_start);
  auto render_start = std::chrono::steady_clock::now();
  size_t bytes = 0;
  for (kopt::ReportFormat format : kopt::kExplainFormats) {
    bytes += kopt::MakeRenderer(format, {})->Render(diagnosis).size();
  }
  double render_s = Seconds(render_start);
  double total_s = Seconds(start);
  std::remove(path.c_str());
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("%9lld %6zu %8.2f %8.2f %8.2f %8.2f %9.0f %10zu\n", launches, diagnosis.kernels.size(), load_s,
              diagnose_s, render_s, total_s, usage.ru_maxrss / 1024.0, bytes);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string fixture_path =
      argc > 1 ? argv[1] : KOPT_FIXTURE_DIR "/exports/raw_44_launches_of_one_kernel.csv";
  int kernels = argc > 2 ? std::atoi(argv[2]) : 20;
  std::vector<long long> counts;
  for (int i = 3; i < argc; ++i) counts.push_back(std::atoll(argv[i]));
  if (counts.empty()) counts = {1000, 10000, 100000};
  kopt::Result<std::string> read = kopt::ReadWholeFile(fixture_path);
  std::string fixture = read.ok() ? *read : "";
  if (fixture.empty()) {
    std::fprintf(stderr, "cannot read %s\n", fixture_path.c_str());
    return 1;
  }
  std::printf("launch_scaling: %s, %d kernel names; all five formats rendered; peak RSS of a child per row\n",
              fixture_path.c_str(), kernels);
  std::printf("%9s %6s %8s %8s %8s %8s %9s %10s\n", "launches", "groups", "load_s", "diag_s", "render_s",
              "total_s", "peak_MB", "out_bytes");
  std::fflush(stdout);
  for (long long launches : counts) {
    pid_t child = fork();
    if (child == 0) {
      int code = Measure(fixture, kernels, launches);
      std::fflush(stdout);
      _exit(code);
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) std::printf("%9lld failed\n", launches);
  }
  return 0;
}
