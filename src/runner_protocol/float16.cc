#include "runner_protocol/float16.h"

#include <bit>
#include <cmath>

namespace kopt {

uint16_t FloatToHalfBits(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  uint32_t magnitude = bits & 0x7FFFFFFFu;
  if (magnitude > 0x7F800000u)
    return sign | 0x7E00u | static_cast<uint16_t>((magnitude >> 13) & 0x1FFu);  // NaN
  if (magnitude >= 0x477FF000u) return sign | 0x7C00u;  // rounds to >= 65520: infinity
  if (magnitude < 0x38800000u) {
    // Below the smallest normal half (2^-14): a subnormal half or zero.
    // value = magnitude_float; half subnormal unit is 2^-24.
    float scaled = std::bit_cast<float>(magnitude) * 16777216.0f;  // / 2^-24, exact (power of two)
    // nearbyint uses the current rounding mode: round to nearest even by default.
    return sign | static_cast<uint16_t>(std::nearbyint(scaled));
  }
  // Normal: rebias the exponent (127 -> 15) and round the 23-bit mantissa to 10 bits.
  uint32_t rebased = magnitude - (112u << 23);
  uint32_t round_bit = 1u << 12;
  uint32_t lower = rebased & 0x1FFFu;
  uint32_t result = rebased >> 13;
  if (lower > round_bit || (lower == round_bit && (result & 1u))) ++result;  // may carry into the exponent
  return sign | static_cast<uint16_t>(result);
}

float HalfBitsToFloat(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  uint32_t exponent = (bits >> 10) & 0x1Fu;
  uint32_t mantissa = bits & 0x3FFu;
  if (exponent == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));
  if (exponent == 0) {
    float magnitude = static_cast<float>(mantissa) * (1.0f / 16777216.0f);  // mantissa * 2^-24
    return sign ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

uint16_t FloatToBfloat16Bits(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((bits >> 16) | 0x0040u);  // quiet NaN
  uint32_t rounding = 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

float Bfloat16BitsToFloat(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

}  // namespace kopt
