// Live collection and report import through Nsight Compute.
//
//  - CollectFromCudaSource: builds a .cu file with nvcc (-O3 -lineinfo, the
//    architecture of the local GPU, ptxas resource report), runs it under
//    ncu with the sections the analysis needs, exports the raw page, and
//    disassembles the binary (cuobjdump -sass). With options.launcher and
//    parallel_commands the build is a shared object made while ncu already
//    runs kopt-launcher, which loads it once built (profile/program_launcher.h).
//    All files go to options.work_directory (kept: the profile bundle).
//  - CollectFromProgram: profiles any program (argv) under ncu.
//  - ImportNcuReport: reads an .ncu-rep through `ncu --import … --csv --page raw`.
//
// The bundle in options.work_directory: <stem> (the binary built from
// <stem>.cu; <stem>.so and <stem>.ready with the launcher), ptxas.txt (nvcc's -Xptxas -v report),
// profile.ncu-rep (the Nsight Compute report), raw.csv (its raw-page export: `kopt explain` can read it on a
// machine without ncu), ncu.log (ncu's output), sass.txt (cuobjdump -sass), timeline.<pid>.jsonl (the launch
// timeline, when taken).
//
// Every external command goes through the CommandRunner, with LC_ALL=C (ncu
// prints locale-dependent numbers otherwise) and options.timeout_seconds.
// ncu's -k filter is `regex:<kernel_regex>` matched against the function
// name ("saxpy", not the full signature): ncu's default --kernel-name-base.
//
// Failures are typed and name what failed: no ncu on PATH (Unavailable),
// ERR_NVGPUCTRPERM (PermissionDenied, with the fix), a .cu that does not
// compile (WorkFailed, with nvcc's output), a program that crashes under ncu
// (WorkFailed, with its exit status and the tail of its output), no kernel
// profiled / filter matched nothing (WorkFailed), no GPU (Unavailable).
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/phase_timer.h"
#include "core/status.h"
#include "core/subprocess.h"
#include "profile/collection_options.h"
#include "profile/cuda_build.h"
#include "profile/ncu_report_import.h"
#include "profile/ncu_run.h"
#include "profile/profile.h"

namespace kopt {

Result<Profile> CollectFromCudaSource(const std::string& cuda_source_path, const CollectionOptions& options,
                                      CommandRunner& runner);

// The same, also returning notes: things the user should know that did not
// stop the collection, in order ("cuobjdump not found on PATH: no SASS
// instruction mix", ncu's ==WARNING== lines). Show them with the diagnosis.
// CollectFromProgram (ncu_run.h) and ImportNcuReport (ncu_report_import.h)
// take the same options and return notes the same way.
Result<Profile> CollectFromCudaSource(const std::string& cuda_source_path, const CollectionOptions& options,
                                      CommandRunner& runner, std::vector<std::string>& notes);

}  // namespace kopt
