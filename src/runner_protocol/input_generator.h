// Deterministic host-side contents of the task's tensors: the same (tensor
// name, init, dtype, element count, seed) always gives the same bytes, on any
// machine (own generators: SplitMix64, Box-Muller, Marsaglia-Tsang gamma; no
// std:: distributions, whose output is implementation-defined).
//
// Values are drawn in double, then converted to the tensor's dtype (f16/bf16
// round to nearest even, see float16.h; integers are drawn as integers).
// Output tensors (init none) are filled with the poison: every byte 0xFF,
// which is a NaN in every floating dtype and -1 / 255 in the integer ones.
//
// Thread safety: pure functions (FillTensor starts and joins its own threads).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "runner_protocol/runner_request.h"

namespace kopt::runner {

inline constexpr std::byte kPoisonByte{0xFF};

// The generator state for one tensor: mixes the round's seed with the
// tensor's name, so tensors of one round differ and rounds differ.
uint64_t TensorSeed(uint64_t round_seed, const std::string& tensor_name);

// Elements are drawn in chunks of this many, each chunk from its own
// generator (ChunkSeed), so chunks fill in parallel and the result does not
// depend on the number of threads.
inline constexpr size_t kChunkElements = size_t{1} << 16;

// The generator seed of chunk `chunk` of a tensor whose seed is `tensor_seed`.
uint64_t ChunkSeed(uint64_t tensor_seed, size_t chunk);

// Fills `bytes` (element_count * DtypeBytes(dtype) bytes) with values drawn
// from `init` for `dtype` with generator seed `seed`, on up to
// hardware_concurrency threads. InitKind::kNone fills the poison.
void FillTensor(const TensorInit& init, Dtype dtype, uint64_t seed, std::span<std::byte> bytes);

// The contents of `tensor` for round `round_seed` (poison for outputs).
std::vector<std::byte> GenerateTensor(const TensorDecl& tensor, uint64_t round_seed);
// The same into `bytes`, resized to the tensor's byte count (its memory is
// reused when large enough: no new allocation, no zero-fill).
void GenerateTensorInto(const TensorDecl& tensor, uint64_t round_seed, std::vector<std::byte>& bytes);

// Sets every byte to the poison.
void FillPoison(std::span<std::byte> bytes);

}  // namespace kopt::runner
