// What the inputs of a round are drawn from, shared by the parent and the
// runner: the per-tensor seed and the poison. The values themselves are drawn
// on the device (runner/device_fill.cu: a counter-based function of the
// tensor seed and the element index, the same in every child of a run), for
// the correctness rounds as for the timed input sets (a host generator
// takes about a second per 16 Mi heavy-tailed values on 2 cores).
//
// Output tensors start as the poison: every byte 0xFF, which is a NaN in
// every floating dtype and -1 / 255 in the integer ones.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace kopt::runner {

inline constexpr std::byte kPoisonByte{0xFF};

// The generator seed of one tensor: mixes the round's (or the input set's)
// seed with the tensor's name, so tensors of one round differ and rounds
// differ.
uint64_t TensorSeed(uint64_t round_seed, const std::string& tensor_name);

// Sets every byte to the poison.
void FillPoison(std::span<std::byte> bytes);

}  // namespace kopt::runner
