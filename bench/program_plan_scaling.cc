// Benchmark (`kopt plan`): time to build a program's plan from an ncu raw-page
// export of K kernels (default 100, 1,000 and 2,000), each launched 3 times:
// read, parse, select, diagnose every kernel, build the plan
// (analysis/program_plan.h) and render it in every format. The export is
// synthetic but made of real rows (bench/synthetic_export.h). Prints one row
// per K; the claims checked: 1,000 kernels in under 1 s for the plan itself,
// and every stage linear in the kernels (time per kernel flat across K).
// Usage: program_plan_scaling [FIXTURE_CSV] [KERNELS ...]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "analysis/diagnose.h"
#include "analysis/program_plan.h"
#include "core/file_io.h"
#include "core/subprocess.h"
#include "profile/profile_loader.h"
#include "report/program_plan_renderer.h"
#include "synthetic_export.h"

namespace {

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int Measure(const std::string& fixture, int kernels) {
  constexpr int kLaunchesPerKernel = 3;
  std::string path = "/tmp/kopt_program_plan_scaling.csv";
  std::ofstream(path, std::ios::binary) << kopt::bench::BuildSyntheticExport(
      fixture, kernels, static_cast<long long>(kernels) * kLaunchesPerKernel);
  auto runner = kopt::MakeSystemCommandRunner();
  auto start = std::chrono::steady_clock::now();
  kopt::ProfileSources sources;
  sources.target = path;
  std::vector<std::string> notes;
  auto profile = kopt::LoadProfile(sources, *runner, notes);
  if (!profile.ok() || !kopt::SelectLaunches(sources, *profile).ok()) {
    std::fprintf(stderr, "load failed\n");
    return 1;
  }
  double load_s = Seconds(start);
  auto diagnose_start = std::chrono::steady_clock::now();
  kopt::Diagnosis diagnosis = kopt::Diagnose(*profile, {});
  double diagnose_s = Seconds(diagnose_start);
  auto plan_start = std::chrono::steady_clock::now();
  kopt::ProgramPlan plan = kopt::BuildProgramPlan({&diagnosis}, kopt::PlanOptions{});
  double plan_s = Seconds(plan_start);
  auto render_start = std::chrono::steady_clock::now();
  size_t bytes = 0;
  for (kopt::ReportFormat format : {kopt::ReportFormat::kTerminal, kopt::ReportFormat::kMarkdown,
                                    kopt::ReportFormat::kJson, kopt::ReportFormat::kHtml}) {
    bytes += kopt::RenderProgramPlan(plan, format).size();
  }
  double render_s = Seconds(render_start);
  double total_s = Seconds(start);
  std::remove(path.c_str());
  std::printf("%7d %8zu %8.3f %8.3f %9.5f %8.3f %8.3f %10.1f %9zu\n", kernels, plan.kernels.size(), load_s,
              diagnose_s, plan_s, render_s, total_s, 1e6 * total_s / kernels, bytes);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string fixture_path =
      argc > 1 ? argv[1] : KOPT_FIXTURE_DIR "/exports/raw_44_launches_of_one_kernel.csv";
  std::vector<int> counts;
  for (int i = 2; i < argc; ++i) counts.push_back(std::atoi(argv[i]));
  if (counts.empty()) counts = {100, 1000, 2000};
  kopt::Result<std::string> fixture = kopt::ReadWholeFile(fixture_path);
  if (!fixture.ok()) {
    std::fprintf(stderr, "cannot read %s\n", fixture_path.c_str());
    return 1;
  }
  std::printf("program_plan_scaling: %s, 3 launches per kernel; plan = BuildProgramPlan alone\n",
              fixture_path.c_str());
  std::printf("%7s %8s %8s %8s %9s %8s %8s %10s %9s\n", "kernels", "planned", "load_s", "diag_s", "plan_s",
              "render_s", "total_s", "us/kernel", "out_bytes");
  for (int kernels : counts) {
    if (Measure(*fixture, kernels) != 0) return 1;
  }
  return 0;
}
