// Live collection and report import through Nsight Compute.
//
//  - CollectFromCudaSource: builds a .cu file with nvcc (-O3 -lineinfo, the
//    architecture of the local GPU, ptxas resource report), runs it under
//    ncu with the sections the analysis needs, exports the raw page, and
//    disassembles the binary (cuobjdump -sass). All files go to
//    options.work_directory (kept: the profile bundle).
//  - CollectFromProgram: profiles any program (argv) under ncu.
//  - ImportNcuReport: reads an .ncu-rep through `ncu --import … --csv --page raw`.
//
// Failures are typed and name what failed: no ncu on PATH (Unavailable),
// ERR_NVGPUCTRPERM (PermissionDenied, with the fix), a .cu that does not
// compile (WorkFailed, with nvcc's output), a program that crashes under ncu
// (WorkFailed, with its exit status and the tail of its output), no kernel
// profiled / filter matched nothing (WorkFailed), no GPU (Unavailable).
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "core/subprocess.h"
#include "profile/profile.h"

namespace kopt {

struct CollectionOptions {
  std::string kernel_regex;        // ncu -k regex:...; empty: every kernel
  long long launch_skip = 0;       // ncu -s: matching launches to skip first
  long long launch_count = 0;      // ncu -c: launches to profile; 0 = all
  std::string section_set = "full";  // ncu --set
  std::string ncu = "ncu";
  std::string nvcc = "nvcc";
  std::string cuobjdump = "cuobjdump";
  std::string architecture;        // "sm_90a"; empty: detect from the local GPU
  std::vector<std::string> extra_nvcc_flags;
  std::string work_directory;      // required: where the bundle's files are written
  double timeout_seconds = 900;    // per external command
};

Result<Profile> CollectFromCudaSource(const std::string& cuda_source_path, const CollectionOptions& options,
                                      CommandRunner& runner);
Result<Profile> CollectFromProgram(const std::vector<std::string>& program_argv, const CollectionOptions& options,
                                   CommandRunner& runner);
Result<Profile> ImportNcuReport(const std::string& report_path, const CollectionOptions& options,
                                CommandRunner& runner);

}  // namespace kopt
