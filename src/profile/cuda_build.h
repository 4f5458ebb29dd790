// Building a .cu file for live collection and asking which GPU it is for:
// nvcc (-O3 -lineinfo, the local GPU's architecture, the ptxas resource
// report), the ptxas report attached, and the GPU query (nvidia-smi, the CUDA
// driver as the fallback).
// AttachSassListing, ArchitectureForComputeCapability and
// DetectLocalArchitecture are for any caller (GencodeFlagFor, the flag that
// CompileSource builds with, is core/nvcc.h's); the rest (namespace
// kopt::collector) is the collector's own.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/nvcc.h"  // GencodeFlagFor, RunNvcc, CheckNvccBuild
#include "core/status.h"
#include "core/subprocess.h"
#include "hw/gpu_spec.h"
#include "profile/collection_options.h"
#include "profile/profile.h"

namespace kopt {

// Disassembles `binary_path` (cuobjdump -sass) into work_directory/sass.txt
// and attaches the parsed listing to `profile`; any failure is a note (no
// cuobjdump, a failing disassembly, an unreadable listing).
void AttachSassListing(const std::filesystem::path& binary_path, const std::filesystem::path& work_directory,
                       const CollectionOptions& options, CommandRunner& runner, Profile& profile,
                       std::vector<std::string>& notes);

// The nvcc architecture for a compute capability as nvidia-smi prints it:
// "9.0" → "sm_90a" (Hopper's wgmma/TMA features need the 'a' target), "8.6" →
// "sm_86", "10.0" → "sm_100". An unrecognised text is InvalidInput.
Result<std::string> ArchitectureForComputeCapability(std::string_view compute_capability);

// The architecture to build a .cu for on this machine: the one GPU query of live collection, asked
// two ways behind this function.
//  - Primary: nvidia-smi, its first GPU (`nvidia-smi --query-gpu=compute_cap --format=csv,noheader`
//    with LC_ALL=C, `timeout_seconds`): a separate process, about 25 ms, nothing loaded into kopt.
//  - Fallback, when nvidia-smi cannot answer (not on PATH, as in a container given the driver's
//    compute libraries only; failing; no GPU listed; an unreadable answer): `driver_query`
//    (QueryLiveGpus: the CUDA driver, its device 0, which honours CUDA_VISIBLE_DEVICES and
//    KOPT_NO_GPU_QUERY=1), the compute capability of the first GPU it returns.
// Neither answering: nvidia-smi's failure, Unavailable "no NVIDIA GPU found: …" (the driver's
// reason is not added: with KOPT_NO_GPU_QUERY=1 it is always "skipped"). nvidia-smi numbers
// GPUs by PCI bus and ignores CUDA_VISIBLE_DEVICES: on a machine of mixed GPUs, pass --arch.
Result<std::string> DetectLocalArchitecture(
    CommandRunner& runner, double timeout_seconds,
    const std::function<Result<std::vector<GpuSpec>>()>& driver_query);

namespace collector {

// "no NVIDIA GPU found: <detail>. …" with the advice to explain a profile
// captured elsewhere; `tool_output` (optional) is nvidia-smi's own words.
std::string NoGpuMessage(std::string_view detail, std::string_view tool_output = "");

// OK when options.nvcc is on PATH; Unavailable with where to get it otherwise.
Status RequireNvcc(CommandRunner& runner, const CollectionOptions& options);

// options.architecture, or the local GPU's (DetectLocalArchitecture with
// options.query_gpus, else QueryLiveGpus, as the fallback; timed as the phase
// "GPU query (nvidia-smi)").
Result<std::string> ChooseArchitecture(const CollectionOptions& options, CommandRunner& runner);

// Compiles `source_path` to `binary_path`; returns nvcc's stderr, which holds
// the ptxas report. `output_flags` (SharedObjectFlags() or none) come before
// the user's extra flags. A source that does not compile, a timeout, or no
// output written: WorkFailed with the command line and nvcc's words.
Result<std::string> CompileSource(const std::string& source_path, const std::filesystem::path& binary_path,
                                  const std::string& architecture, const CollectionOptions& options,
                                  CommandRunner& runner, const std::vector<std::string>& output_flags = {});

// Parses the ptxas report kept at `ptxas_path` into `profile`; a report that
// does not parse is a note.
void AttachPtxasReport(std::string_view ptxas_text, const std::filesystem::path& ptxas_path, Profile& profile,
                       std::vector<std::string>& notes);

}  // namespace collector
}  // namespace kopt
