// sandpile_topple_launches: blind set 8, kind 7 (launch overhead: thousands of tiny launches).
// An abelian sandpile (self-organized criticality demo) on a 64 x 64 grid: grains dropped in the centre,
// then 3,000 synchronous toppling sweeps, one sandpile_topple launch per sweep from the host loop. Each
// launch updates 4,096 ints (16 blocks, 32 KB of traffic, far under a microsecond of work) while a launch
// costs 2-4 us: the GPU idles between launches. One persistent block looping over the sweeps (a 64 x 64 grid
// fits in shared memory) or a CUDA graph would remove it. The profiled launches are 10 of the
// sandpile_topple launches. Usage: ./sandpile_topple_launches [reps]
#include "../kernels/example_common.cuh"

constexpr int kN = 64, kSweeps = 3000;

__global__ void sandpile_topple(const int* __restrict__ cur, int* __restrict__ next) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kN * kN) return;
  int r = i / kN, c = i % kN;
  int v = cur[i];
  int keep = v >= 4 ? v - 4 : v;
  int in = (r > 0 && cur[i - kN] >= 4) + (r < kN - 1 && cur[i + kN] >= 4) + (c > 0 && cur[i - 1] >= 4) +
           (c < kN - 1 && cur[i + 1] >= 4);
  next[i] = keep + in;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  int* g[2] = {device_alloc<int>(kN * kN), device_alloc<int>(kN * kN)};
  std::vector<int> h0(kN * kN, 2);
  h0[(kN / 2) * kN + kN / 2] = 20000;
  auto run = [&](int sweeps) {
    CK(cudaMemcpy(g[0], h0.data(), kN * kN * 4, cudaMemcpyHostToDevice));
    for (int s = 0; s < sweeps; ++s) {
      sandpile_topple<<<kN * kN / 256, 256>>>(g[s % 2], g[(s + 1) % 2]);
      CK(cudaGetLastError());
    }
  };
  run(kSweeps);
  CK(cudaDeviceSynchronize());
  run(150);  // host replay of 150 sweeps
  std::vector<int> got(kN * kN), cur = h0, next(kN * kN);
  CK(cudaMemcpy(got.data(), g[150 % 2], kN * kN * 4, cudaMemcpyDeviceToHost));
  for (int s = 0; s < 150; ++s) {
    for (int r = 0; r < kN; ++r)
      for (int c = 0; c < kN; ++c) {
        int i = r * kN + c, v = cur[i];
        next[i] = (v >= 4 ? v - 4 : v) + (r > 0 && cur[i - kN] >= 4) + (r < kN - 1 && cur[i + kN] >= 4) +
                  (c > 0 && cur[i - 1] >= 4) + (c < kN - 1 && cur[i + 1] >= 4);
      }
    cur.swap(next);
  }
  for (int i = 0; i < kN * kN; ++i)
    if (got[i] != cur[i]) fail("wrong cell %d: %d vs %d\n", i, got[i], cur[i]);
  time_kernel("sandpile_topple_launches_run", reps > 0 ? 3 : 0, [&] { run(kSweeps); });
  free_device({g[0], g[1]});
  printf("ok\n");
  return 0;
}
