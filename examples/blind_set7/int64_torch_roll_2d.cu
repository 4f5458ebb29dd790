// int64_torch_roll_2d: blind set 7, kind 1 (64-bit integer index arithmetic).
// Swin-transformer cyclic shift: torch.roll of a [B][H][W][C] bf16-sized (here 2-byte) activation by
// (-shift, -shift) over H and W, generic port with int64_t indices: each output element is decomposed with
// 64-bit / and % by C, W and H, and each shifted coordinate wrapped with a 64-bit % by the run-time extent
// (((h + s) % H + H) % H): about seven 64-bit div/mod sequences per 2-byte element, 67 M elements, against
// 268 MB of contiguous traffic (~60 us). The integer pipe, not DRAM, is the limit; rolling whole C-vectors
// with 32-bit row arithmetic would be bandwidth-bound.
// Usage: ./int64_torch_roll_2d [reps]
#include <cstdint>

#include "../kernels/example_common.cuh"

__host__ __device__ inline int64_t roll_source(int64_t o, int64_t H, int64_t W, int64_t C, int64_t sh,
                                               int64_t sw) {
  int64_t c = o % C, w = o / C % W, h = o / (C * W) % H, b = o / (C * W * H);
  int64_t hs = ((h + sh) % H + H) % H, ws = ((w + sw) % W + W) % W;
  return ((b * H + hs) * W + ws) * C + c;
}

__global__ void int64_torch_roll_2d(const unsigned short* __restrict__ x, unsigned short* __restrict__ y,
                                    int64_t H, int64_t W, int64_t C, int64_t sh, int64_t sw, int64_t total) {
  for (int64_t o = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; o < total;
       o += (int64_t)gridDim.x * blockDim.x)
    y[o] = x[roll_source(o, H, W, C, sh, sw)];
}

__global__ void fill_u16(unsigned short* p, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    p[i] = (unsigned short)(i * 2654435761u >> 7);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int64_t B = 16, H = 112, W = 112, C = 336, sh = 3, sw = 3;
  const int64_t total = B * H * W * C;
  unsigned short* x = device_alloc<unsigned short>(total);
  unsigned short* y = device_alloc<unsigned short>(total);
  fill_u16<<<2048, 256>>>(x, total);
  CK(cudaGetLastError());
  const int blocks = sm_count() * 16;
  auto launch = [&] {
    int64_torch_roll_2d<<<blocks, 256>>>(x, y, H, W, C, sh, sw, total);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int64_t o : {int64_t(0), int64_t(C * W * (H - 1)), total / 3, total - 1}) {
    unsigned short got = read_back(y + o), want = read_back(x + roll_source(o, H, W, C, sh, sw));
    if (got != want) fail("wrong rolled element %lld: %u vs %u\n", (long long)o, got, want);
  }
  time_kernel("int64_torch_roll_2d", reps, launch);
  free_device({x, y});
  printf("ok\n");
  return 0;
}
