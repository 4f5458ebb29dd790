// short_causal_mask_fill_27mb: blind set 4, kind 4 (a short kernel near its size-limited ceiling:
// healthy).
// Attention-score masking for a small decoder: scores [12 heads x 512 x 512] float scaled by 1/sqrt(64),
// with a precomputed byte mask (padding + causal) that sets masked scores to -inf (3.1 M scores: 12.6 MB
// read, 3.1 MB of mask, 12.6 MB written: 28 MB moved). Four scores per thread through a 16-byte load,
// a 4-byte mask load and a 16-byte store, one launch of several microseconds. The accesses are already
// the widest coalesced ones; at this size the achievable bandwidth, not the code, bounds it; the
// remaining gain is fusing the mask into the softmax that follows.
// Usage: ./short_causal_mask_fill_27mb [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kSeq = 512, kHeads = 12;

__global__ void make_mask(uchar4* __restrict__ mask, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n4) return;
  int col = (i * 4) % kSeq, row = ((i * 4) / kSeq) % kSeq;
  unsigned char m[4];
  for (int k = 0; k < 4; ++k) m[k] = (col + k > row || col + k >= kSeq - 17) ? 1 : 0;
  mask[i] = make_uchar4(m[0], m[1], m[2], m[3]);
}

__global__ void short_causal_mask_fill_27mb(const float4* __restrict__ scores,
                                            const uchar4* __restrict__ mask, float4* __restrict__ out, int n4,
                                            float scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n4) return;
  float4 s = scores[i];
  uchar4 m = mask[i];
  out[i] = make_float4(m.x ? -INFINITY : s.x * scale, m.y ? -INFINITY : s.y * scale,
                       m.z ? -INFINITY : s.z * scale, m.w ? -INFINITY : s.w * scale);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = kHeads * kSeq * kSeq, n4 = n / 4;
  const float scale = 0.125f;
  float* scores = device_alloc<float>(n);
  unsigned char* mask = device_alloc<unsigned char>(n);
  float* out = device_alloc<float>(n);
  fill_random<<<1024, 256>>>(scores, n, 413, 0.01f, 8.0f);
  make_mask<<<(n4 + 255) / 256, 256>>>((uchar4*)mask, n4);
  CK(cudaGetLastError());
  auto launch = [&] {
    short_causal_mask_fill_27mb<<<(n4 + 255) / 256, 256>>>((const float4*)scores, (const uchar4*)mask,
                                                           (float4*)out, n4, scale);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int i : {0, 1, 513, 100000, 262143, n - 1}) {
    int col = i % kSeq, row = (i / kSeq) % kSeq;
    bool masked = col > row || col >= kSeq - 17;
    float got = read_back(out + i);
    float want = masked ? -INFINITY : read_back(scores + i) * scale;
    if (!(got == want)) fail("wrong masked score at %d: %f vs %f\n", i, got, want);
  }
  time_kernel("short_causal_mask_fill_27mb", reps, launch);
  free_device({scores, mask, out});
  printf("ok\n");
  return 0;
}
