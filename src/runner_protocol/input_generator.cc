#include "runner_protocol/input_generator.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <vector>

#include "core/parallel_chunks.h"
#include "runner_protocol/float16.h"

namespace kopt::runner {
namespace {

// SplitMix64 (Steele, Lea, Flood 2014): fast, well mixed, fully specified.
class Generator {
 public:
  explicit Generator(uint64_t seed) : state_(seed) {}
  uint64_t NextBits() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1) with 53 random bits.
  double NextUniform() { return static_cast<double>(NextBits() >> 11) * 0x1.0p-53; }
  // Uniform in (0, 1): never 0, for logarithms.
  double NextOpenUniform() { return (static_cast<double>(NextBits() >> 11) + 0.5) * 0x1.0p-53; }
  // Standard normal (Box-Muller; the second value is kept for the next call).
  double NextNormal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double radius = std::sqrt(-2.0 * std::log(NextOpenUniform()));
    double angle = 2.0 * std::numbers::pi * NextUniform();
    spare_ = radius * std::sin(angle);
    has_spare_ = true;
    return radius * std::cos(angle);
  }
  // Gamma(shape, 1) by Marsaglia and Tsang (2000); shape < 1 by boosting.
  double NextGamma(double shape) {
    if (shape < 1.0) return NextGamma(shape + 1.0) * std::pow(NextOpenUniform(), 1.0 / shape);
    double d = shape - 1.0 / 3.0;
    double c = 1.0 / std::sqrt(9.0 * d);
    while (true) {
      double x = NextNormal();
      double v = 1.0 + c * x;
      if (v <= 0) continue;
      v = v * v * v;
      double u = NextOpenUniform();
      if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
    }
  }
  // Student-t with `degrees` degrees of freedom: Z / sqrt(chi2 / degrees).
  double NextStudentT(double degrees) {
    double chi_square = 2.0 * NextGamma(degrees / 2.0);
    return NextNormal() / std::sqrt(chi_square / degrees);
  }
  // Uniform integer in [low, high] (inclusive), by rejection (no modulo bias).
  int64_t NextInteger(int64_t low, int64_t high) {
    uint64_t span = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
    if (span == UINT64_MAX) return static_cast<int64_t>(NextBits());
    uint64_t count = span + 1;
    uint64_t limit = UINT64_MAX - UINT64_MAX % count;
    uint64_t bits;
    do {
      bits = NextBits();
    } while (bits >= limit);
    return static_cast<int64_t>(static_cast<uint64_t>(low) + bits % count);
  }

 private:
  uint64_t state_;
  bool has_spare_ = false;
  double spare_ = 0.0;
};

double DrawFloating(const TensorInit& init, Generator& generator) {
  switch (init.kind) {
    case InitKind::kNormal: return init.mean + init.stddev * generator.NextNormal();
    case InitKind::kUniform: return init.low + (init.high - init.low) * generator.NextUniform();
    case InitKind::kHeavyTailed: return init.scale * generator.NextStudentT(init.alpha);
    case InitKind::kIntRange:
      return static_cast<double>(generator.NextInteger(init.integer_low, init.integer_high));
    case InitKind::kOnes: return 1.0;
    default: return 0.0;
  }
}

int64_t DrawInteger(const TensorInit& init, Generator& generator) {
  switch (init.kind) {
    case InitKind::kIntRange: return generator.NextInteger(init.integer_low, init.integer_high);
    case InitKind::kOnes: return 1;
    case InitKind::kZeros: return 0;
    default: return static_cast<int64_t>(std::llround(DrawFloating(init, generator)));
  }
}

template <typename T>
void Store(std::byte* destination, T value) {
  std::memcpy(destination, &value, sizeof(T));
}

void StoreElement(Dtype dtype, std::byte* destination, const TensorInit& init, Generator& generator) {
  switch (dtype) {
    case Dtype::kF64: Store<double>(destination, DrawFloating(init, generator)); break;
    case Dtype::kF32: Store<float>(destination, static_cast<float>(DrawFloating(init, generator))); break;
    case Dtype::kF16:
      Store<uint16_t>(destination, FloatToHalfBits(static_cast<float>(DrawFloating(init, generator))));
      break;
    case Dtype::kBF16:
      Store<uint16_t>(destination, FloatToBfloat16Bits(static_cast<float>(DrawFloating(init, generator))));
      break;
    case Dtype::kI64: Store<int64_t>(destination, DrawInteger(init, generator)); break;
    case Dtype::kI32: Store<int32_t>(destination, static_cast<int32_t>(DrawInteger(init, generator))); break;
    case Dtype::kU8:
      Store<uint8_t>(destination,
                     static_cast<uint8_t>(std::clamp<int64_t>(DrawInteger(init, generator), 0, 255)));
      break;
  }
}

}  // namespace

uint64_t ChunkSeed(uint64_t tensor_seed, size_t chunk) {
  Generator mixer(tensor_seed ^ (0xD1B54A32D192ED03ull * (static_cast<uint64_t>(chunk) + 1)));
  return mixer.NextBits();
}

uint64_t TensorSeed(uint64_t round_seed, const std::string& tensor_name) {
  uint64_t hash = 0xCBF29CE484222325ull;  // FNV-1a over the name
  for (unsigned char character : tensor_name) hash = (hash ^ character) * 0x100000001B3ull;
  Generator mixer(round_seed ^ hash);
  return mixer.NextBits();
}

void FillPoison(std::span<std::byte> bytes) {
  std::fill(bytes.begin(), bytes.end(), kPoisonByte);
}

void FillTensor(const TensorInit& init, Dtype dtype, uint64_t seed, std::span<std::byte> bytes) {
  if (init.kind == InitKind::kNone) {
    FillPoison(bytes);
    return;
  }
  if (init.kind == InitKind::kZeros) {
    std::fill(bytes.begin(), bytes.end(), std::byte{0});
    return;
  }
  size_t element_bytes = DtypeBytes(dtype);
  size_t elements = bytes.size() / element_bytes;
  ForEachChunk(ChunkCount(elements, kChunkElements), [&](size_t chunk) {
    Generator generator(ChunkSeed(seed, chunk));
    size_t end = std::min(elements, (chunk + 1) * kChunkElements);
    for (size_t element = chunk * kChunkElements; element < end; ++element) {
      StoreElement(dtype, bytes.data() + element * element_bytes, init, generator);
    }
  });
}

void GenerateTensorInto(const TensorDecl& tensor, uint64_t round_seed, std::vector<std::byte>& bytes) {
  bytes.resize(static_cast<size_t>(tensor.ByteCount()));
  TensorInit init = tensor.role == TensorRole::kOutput ? TensorInit{} : tensor.init;
  FillTensor(init, tensor.dtype, TensorSeed(round_seed, tensor.name), bytes);
}

std::vector<std::byte> GenerateTensor(const TensorDecl& tensor, uint64_t round_seed) {
  std::vector<std::byte> bytes;
  GenerateTensorInto(tensor, round_seed, bytes);
  return bytes;
}

}  // namespace kopt::runner
