// Building a .cu file for live collection and asking which GPU it is for:
// nvcc (-O3 -lineinfo, the local GPU's architecture, the ptxas resource
// report), the ptxas report attached, and the GPU query through nvidia-smi.
// Internal to the collector (namespace kopt::collector); AttachSassListing,
// ArchitectureForComputeCapability, GencodeFlagFor and
// DetectLocalArchitecture (ncu_collector.h) are defined in cuda_build.cc.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/subprocess.h"
#include "profile/ncu_collector.h"
#include "profile/profile.h"

namespace kopt::collector {

// "no NVIDIA GPU found: <detail>. …" with the advice to explain a profile
// captured elsewhere; `tool_output` (optional) is nvidia-smi's own words.
std::string NoGpuMessage(std::string_view detail, std::string_view tool_output = "");

// OK when options.nvcc is on PATH; Unavailable with where to get it otherwise.
Status RequireNvcc(CommandRunner& runner, const CollectionOptions& options);

// options.architecture, or the local GPU's (DetectLocalArchitecture, timed
// as the phase "GPU query (nvidia-smi)").
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

}  // namespace kopt::collector
