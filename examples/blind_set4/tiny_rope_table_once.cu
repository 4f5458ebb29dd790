// tiny_rope_table_once: blind set 4, healthy (a tiny kernel launched once).
// Builds the rotary-position-embedding table of a small model once at start-up: cos and sin of
// position * theta^(-2i/d) for 2,048 positions x 32 frequency pairs (65,536 entries, 512 KB written), one
// thread per entry, sincospif on the angle in half-turns (exact range reduction, no slow path). One
// launch of a few microseconds in a program's initialization: nothing worth changing, and one launch is
// no launch-overhead problem.
// Usage: ./tiny_rope_table_once [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kPositions = 2048, kPairs = 32;

__global__ void tiny_rope_table_once(float2* __restrict__ table, float log2_theta) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kPositions * kPairs) return;
  int pos = i / kPairs, pair = i % kPairs;
  float inv_freq_turns = exp2f(-log2_theta * (2.0f * pair) / (2.0f * kPairs)) * 0.31830988618f;  // / pi
  float s, c;
  sincospif(float(pos) * inv_freq_turns, &s, &c);
  table[i] = make_float2(c, s);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const float log2_theta = log2f(10000.0f);
  float2* table = device_alloc<float2>(kPositions * kPairs);
  auto launch = [&] {
    tiny_rope_table_once<<<kPositions * kPairs / 256, 256>>>(table, log2_theta);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int pos : {0, 1, 777, kPositions - 1})
    for (int pair : {0, 5, kPairs - 1}) {
      double angle = pos * std::pow(10000.0, -2.0 * pair / (2.0 * kPairs));
      float2 got = read_back(table + pos * kPairs + pair);
      if (!(fabs(got.x - std::cos(angle)) <= 2e-3 && fabs(got.y - std::sin(angle)) <= 2e-3))
        fail("wrong rope entry (%d, %d): (%f, %f) vs (%f, %f)\n", pos, pair, got.x, got.y, std::cos(angle),
             std::sin(angle));
    }
  time_kernel("tiny_rope_table_once", reps, launch);
  free_device({table});
  printf("ok\n");
  return 0;
}
