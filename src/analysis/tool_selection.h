// Stage 1 chooses the micro-profiling tools (KernelPro's proactive
// orchestration): a tool runs for a kernel only when the kernel's stage-1
// class (roofline.h) is one its declaration names in
// ToolDefinition::relevant_classes. Every tool declares its classes
// (CheckToolDefinition); `kopt rules` lists them.
//
// The usual declarations, by the side of the roofline the tool's cause is on
// (ToolDefinition::side). kUnknown (stage 1 could not classify the kernel) is
// in each: without a class nothing is ruled out.
//  - EveryBottleneckClass: causes on no side or on both (parallelism and
//    overlap, launches, the shared-memory pipe, spills, the healthy verdict).
//  - UnlessComputeBound: a memory-side cause (traffic, its latency, atomics)
//    cannot be what limits a compute-bound kernel; its fix is capped by the
//    compute floor such a kernel already sits at.
//  - UnlessMemoryBound: a compute-side cause (FP64, MUFU, index arithmetic,
//    divergence) cannot be what limits a memory-bound kernel.
// A tool whose fix rebuilds the kernel runs for every class whatever its side:
// a naive FP32 GEMM is memory-bound because of the structure that tensor
// cores and their tiling replace (fp32_gemm_no_tensor_cores, hmma_on_hopper;
// gating them by side cost 36 of the labelled sets' top-1 answers:
// bench/results/diagnosis_accuracy_tool_selection.md).
#pragma once

#include <vector>

#include "analysis/roofline.h"
#include "analysis/tool.h"

namespace kopt {

std::vector<BottleneckClass> EveryBottleneckClass();
std::vector<BottleneckClass> UnlessComputeBound();
std::vector<BottleneckClass> UnlessMemoryBound();

// Whether stage 1 selects `tool` for a kernel of class `bottleneck`. A tool
// that declares no class applies to none (CheckToolDefinition rejects it).
bool AppliesTo(const ToolDefinition& tool, BottleneckClass bottleneck);

// The tools of `tools` that stage 1 selects for `bottleneck`, in their order.
std::vector<const ToolDefinition*> SelectTools(const std::vector<ToolDefinition>& tools,
                                               BottleneckClass bottleneck);

}  // namespace kopt
