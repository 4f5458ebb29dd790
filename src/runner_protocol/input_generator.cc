#include "runner_protocol/input_generator.h"

#include <algorithm>

namespace kopt::runner {
namespace {

// One step of SplitMix64 (Steele, Lea, Flood 2014) from `state`.
uint64_t SplitMix64(uint64_t state) {
  uint64_t z = state + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

uint64_t TensorSeed(uint64_t round_seed, const std::string& tensor_name) {
  uint64_t hash = 0xCBF29CE484222325ull;  // FNV-1a over the name
  for (unsigned char character : tensor_name) hash = (hash ^ character) * 0x100000001B3ull;
  return SplitMix64(round_seed ^ hash);
}

void FillPoison(std::span<std::byte> bytes) {
  std::fill(bytes.begin(), bytes.end(), kPoisonByte);
}

}  // namespace kopt::runner
