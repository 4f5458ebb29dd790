// life_step_launches: blind set 5, kind 7 (launch overhead of thousands of tiny launches).
// Conway's Game of Life on a 128 x 128 torus (a cellular-automaton teaching code), 3,000 generations,
// one launch of life_step per generation on 64 blocks of 256 threads, ping-ponging two byte grids. Each
// launch does about a microsecond of work (16 K cells, nine byte loads each, all cached); the host enqueues
// 3,000 launches back to back, so the run is launch-bound: the GPU is idle between kernels most of the
// time. Running many generations per launch in one block's shared memory (the grid is 16 KB), or a CUDA
// graph of the loop, is the fix.
// Usage: ./life_step_launches [reps]
#include <cstdint>

#include "../kernels/example_common.cuh"

constexpr int kN = 128, kGenerations = 3000;

__global__ void life_step(const uint8_t* __restrict__ cur, uint8_t* __restrict__ next) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int x = i % kN, y = i / kN, alive = 0;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      if (dx || dy) alive += cur[((y + dy + kN) % kN) * kN + (x + dx + kN) % kN];
  next[i] = (alive == 3 || (alive == 2 && cur[i])) ? 1 : 0;
}

static void life_cpu(std::vector<uint8_t>& g, int generations) {
  std::vector<uint8_t> n(g.size());
  for (int s = 0; s < generations; ++s) {
    for (int y = 0; y < kN; ++y)
      for (int x = 0; x < kN; ++x) {
        int alive = 0;
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx)
            if (dx || dy) alive += g[((y + dy + kN) % kN) * kN + (x + dx + kN) % kN];
        n[y * kN + x] = (alive == 3 || (alive == 2 && g[y * kN + x])) ? 1 : 0;
      }
    g.swap(n);
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  std::vector<uint8_t> init(kN * kN);
  for (int i = 0; i < kN * kN; ++i) init[i] = ((unsigned(i) * 2654435761u) >> 28) < 5 ? 1 : 0;
  uint8_t* a = device_alloc<uint8_t>(kN * kN);
  uint8_t* b = device_alloc<uint8_t>(kN * kN);
  auto run = [&] {
    CK(cudaMemcpy(a, init.data(), kN * kN, cudaMemcpyHostToDevice));
    for (int s = 0; s < kGenerations; ++s) {
      life_step<<<kN * kN / 256, 256>>>(s % 2 ? b : a, s % 2 ? a : b);
      CK(cudaGetLastError());
    }
  };
  run();
  CK(cudaDeviceSynchronize());
  std::vector<uint8_t> want = init, got(kN * kN);
  life_cpu(want, kGenerations);
  CK(cudaMemcpy(got.data(), kGenerations % 2 ? b : a, kN * kN, cudaMemcpyDeviceToHost));
  if (got != want) fail("wrong final generation\n");
  time_kernel("life_step_launches_run", reps > 0 ? 3 : 0, run);
  free_device({a, b});
  printf("ok\n");
  return 0;
}
