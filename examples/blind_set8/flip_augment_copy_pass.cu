// flip_augment_copy_pass: blind set 8, kind 8 (a pass that only moves data, between a producer and a
// consumer). A GPU data-augmentation pipeline: normalize_pixels turns a batch of 64 RGB 512 x 512 fp32 images
// (201 MB) into zero-mean values in place, flip_rows_pass writes the horizontally flipped copy the model
// consumes (each row reversed, float4 loads and stores: 201 MB read, 201 MB written, nothing computed), and
// row_energy, the consumer, reduces each flipped row. The flip runs near DRAM bandwidth but only moves
// data: indexing the row from its end in the consumer (or in normalize_pixels) removes 402 MB of traffic and
// a launch. The labelled launch is flip_rows_pass. Usage: ./flip_augment_copy_pass [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kW = 512, kRowsTotal = 64 * 3 * 512;

__global__ void normalize_pixels(float4* __restrict__ x, size_t n4, float mean, float inv_std) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= n4) return;
  float4 v = x[i];
  x[i] = make_float4((v.x - mean) * inv_std, (v.y - mean) * inv_std, (v.z - mean) * inv_std,
                     (v.w - mean) * inv_std);
}

__global__ void flip_rows_pass(const float4* __restrict__ in, float4* __restrict__ out) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;  // float4 index of the output
  if (i >= size_t(kRowsTotal) * (kW / 4)) return;
  size_t row = i / (kW / 4);
  int c4 = int(i % (kW / 4));
  float4 v = in[row * (kW / 4) + (kW / 4 - 1 - c4)];
  out[i] = make_float4(v.w, v.z, v.y, v.x);
}

__global__ void row_energy(const float* __restrict__ x, float* __restrict__ energy) {
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (row >= kRowsTotal) return;
  float s = 0.0f;
  for (int c = lane; c < kW; c += 32) s += x[size_t(row) * kW + c] * (c + 1);
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (lane == 0) energy[row] = s;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const size_t n = size_t(kRowsTotal) * kW, n4 = n / 4;
  float* img = device_alloc<float>(n);
  float* flipped = device_alloc<float>(n);
  float* energy = device_alloc<float>(kRowsTotal);
  const unsigned blocks = unsigned((n4 + 255) / 256);
  auto forward = [&] {
    fill_random<<<2048, 256>>>(img, n, 921, 0.0f + 1e-4f, 1.0f);
    normalize_pixels<<<blocks, 256>>>((float4*)img, n4, 0.45f, 4.0f);
    flip_rows_pass<<<blocks, 256>>>((const float4*)img, (float4*)flipped);
    row_energy<<<kRowsTotal * 32 / 256, 256>>>(flipped, energy);
    CK(cudaGetLastError());
  };
  forward();
  CK(cudaDeviceSynchronize());
  std::vector<float> row(kW);
  for (int r : {0, 5000, kRowsTotal - 1}) {
    CK(cudaMemcpy(row.data(), img + size_t(r) * kW, kW * 4, cudaMemcpyDeviceToHost));
    double want = 0;
    for (int c = 0; c < kW; ++c) want += double(row[kW - 1 - c]) * (c + 1);
    float got = read_back(energy + r);
    if (!(std::fabs(got - want) <= 1e-3 * (1 + std::fabs(want)) + 0.05))
      fail("wrong energy row %d: %g vs %g\n", r, got, want);
  }
  time_kernel("flip_augment_copy_pass_forward", reps, forward);
  free_device({img, flipped, energy});
  printf("ok\n");
  return 0;
}
