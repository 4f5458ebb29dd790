// Host-side conversions between float and the 16-bit formats the GPU uses:
// IEEE binary16 (__half) and bfloat16 (__nv_bfloat16), as raw bit patterns.
// Float-to-16-bit conversions round to nearest, ties to even (what
// __float2half_rn and __float2bfloat16_rn do); overflow gives infinity,
// tiny values become subnormals or zero, NaN stays NaN (quiet).
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>

namespace kopt {

uint16_t FloatToHalfBits(float value);
float HalfBitsToFloat(uint16_t bits);
uint16_t FloatToBfloat16Bits(float value);
float Bfloat16BitsToFloat(uint16_t bits);

}  // namespace kopt
