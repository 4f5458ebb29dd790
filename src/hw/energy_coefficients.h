// Per-GPU coefficients of the energy proxy model (analysis/energy_model.h):
// what one unit of each counted activity costs in dynamic energy, fitted by
// `kopt calibrate --energy` on that GPU (docs/energy.md).
//
// Dynamic energy is the energy above the idle power of the GPU (NVML counter
// minus idle watts x time, as `kopt bench --energy` reports it). The model is
// linear: E_dynamic = sum over terms of coefficient x count. Each term is one
// activity read from one ncu profile (--set full):
//
//   dram_bytes        byte    dram__bytes_read.sum + dram__bytes_write.sum
//   l2_bytes          byte    lts__t_sectors.sum x 32
//   l1_bytes          byte    global sectors through L1 (ld, st, atom, red) x 32: excess sectors included
//   local_bytes       byte    local-memory sectors through L1 (ld + st) x 32: spills
//   shared_wavefronts wavefront  l1tex__data_pipe_lsu_wavefronts_mem_shared.sum (bank conflicts included)
//   fma_pipe          issue   sm__inst_executed_pipe_fma %-of-peak x sm__cycles_active.sum / 100
//   alu_pipe          issue   the same for the ALU pipe (integer, logic, compare)
//   fp64_pipe         issue   the same for the FP64 pipe
//   xu_pipe           issue   the same for the XU pipe (MUFU: transcendentals, reciprocals, conversions)
//   lsu_pipe          issue   the same for the LSU pipe (load/store instructions)
//   tensor_16bit_ops  op      sm__ops_path_tensor_src_{fp16,bf16_dst_fp32}.sum
//   tensor_tf32_ops   op      sm__ops_path_tensor_src_tf32_dst_fp32.sum
//   tensor_8bit_ops   op      sm__ops_path_tensor_src_{int8,fp8_sparsity_off}.sum
//   tensor_fp64_ops   op      sm__ops_path_tensor_src_fp64.sum
//   active_seconds    second  gpu__time_duration.sum: the static power of a busy GPU above idle
//   launches          launch  kernel launches of the call (1 per profiled launch): the fixed cost of
//                             starting and draining a grid, which a few-microsecond kernel cannot hide
//
// "issue" is one peak issue slot of the pipe on one SM: a pipe at 50 % of its
// peak for 1000 active SM cycles counts 500.
//
// File format (TOML, docs/energy.md): format = "kopt.energy_model", version =
// 1, gpu (as the driver and ncu name it), measured_at, tool, fit (a table:
// kernels, mape_percent), and one [[coefficient]] per term: term (a name
// above), joules_per_unit (>= 0), source (how it was obtained: "fit over 18
// calibration kernels (probe_dram_copy dominant)", "not excited by the
// calibration set: 0").
//
// Thread safety: values and pure functions; the file functions read only the
// paths they are given.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace kopt {

enum class EnergyTerm {
  kDramBytes,
  kL2Bytes,
  kL1Bytes,
  kLocalBytes,
  kSharedWavefronts,
  kFmaPipe,
  kAluPipe,
  kFp64Pipe,
  kXuPipe,
  kLsuPipe,
  kTensor16BitOps,
  kTensorTf32Ops,
  kTensor8BitOps,
  kTensorFp64Ops,
  kActiveSeconds,
  kLaunches,
};
inline constexpr int kEnergyTermCount = 16;

// Every term, in the order above (tables, files and fits use it).
const std::array<EnergyTerm, kEnergyTermCount>& AllEnergyTerms();
std::string_view EnergyTermName(EnergyTerm term);  // "dram_bytes"
std::optional<EnergyTerm> ParseEnergyTerm(std::string_view name);
std::string_view EnergyTermUnit(EnergyTerm term);   // "byte", "wavefront", "issue", "op", "s", "launch"
std::string_view EnergyTermTitle(EnergyTerm term);  // "DRAM traffic", "FP64 pipe", ...

struct EnergyCoefficient {
  EnergyTerm term = EnergyTerm::kDramBytes;
  double joules_per_unit = 0;  // >= 0
  std::string source;          // how it was obtained
};

struct EnergyFitSummary {
  int kernels = 0;          // calibration kernels the fit used
  double mape_percent = 0;  // mean absolute percentage error over them
  double max_error_percent = 0;
};

struct EnergyCoefficients {
  static constexpr int kVersion = 1;
  std::string gpu_name;  // "NVIDIA H200"
  std::string measured_at;
  std::string tool;
  EnergyFitSummary fit;
  std::vector<EnergyCoefficient> coefficients;  // one per term, AllEnergyTerms() order
  std::string path;  // the file it was read from ("built-in: ..." for the shipped table); not serialized

  // The coefficient of `term`, 0 when the table lacks it.
  double JoulesPerUnit(EnergyTerm term) const;
  const EnergyCoefficient* Find(EnergyTerm term) const;
};

// TOML text of the table, and back. Parse errors name `file_name`, the
// coefficient and the field; a term listed twice or unknown is an error; a
// term missing from the file gets 0 with source "absent from <file>".
std::string FormatEnergyCoefficients(const EnergyCoefficients& coefficients);
Result<EnergyCoefficients> ParseEnergyCoefficients(std::string_view text, std::string_view file_name);

// The file name calibrate gives the table of `gpu_name`: "nvidia-h200.energy.toml".
std::string EnergyCoefficientsFileName(std::string_view gpu_name);

// The table for `gpu_name`: from `path` when given (a file, whose gpu must
// match, or a directory searched for a matching *.energy.toml; errors as
// FindCeilingsTable), else from DefaultCeilingsDirectory() when it holds one,
// else the table shipped with kopt (data/energy/, embedded at build time).
// NotFound when none matches.
Result<EnergyCoefficients> FindEnergyCoefficients(const std::string& path, std::string_view gpu_name,
                                                  std::vector<std::string>& notes);

// The tables shipped with kopt (data/energy/*.energy.toml, embedded).
const std::vector<EnergyCoefficients>& BuiltinEnergyCoefficients();

}  // namespace kopt
