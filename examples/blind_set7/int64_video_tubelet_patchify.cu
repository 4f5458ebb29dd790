// int64_video_tubelet_patchify: blind set 7, kind 1 (64-bit integer index arithmetic).
// Video transformer input (ViViT / VideoMAE): a [B][C][T][H][W] fp32 clip is cut into 2 x 16 x 16 tubelets
// and written as [B][tokens][C * 2 * 16 * 16] patch vectors. The generic port decomposes each output index
// with int64_t division and remainder by run-time sizes: about ten 64-bit div/mod (patch dims, grid dims,
// channel, token) per 4-byte element, each the 64-bit division subroutine (or its 32-bit fast path), 19.3 M
// elements (batch 8); the reads are 64-byte runs and the writes coalesced (154 MB, ~40 us of DRAM). Integer
// instructions dominate; 32-bit indices with compile-time patch sizes (shifts) would fix it. Usage:
// ./int64_video_tubelet_patchify [reps]
#include <cstdint>

#include "../kernels/example_common.cuh"

struct Dims {
  int64_t B, C, T, H, W, pt, ph, pw;
};

__host__ __device__ inline int64_t tubelet_source(int64_t o, const Dims& d) {
  int64_t patch = d.C * d.pt * d.ph * d.pw;
  int64_t token = o / patch, e = o % patch;
  int64_t x = e % d.pw;
  int64_t y = e / d.pw % d.ph;
  int64_t t = e / (d.pw * d.ph) % d.pt;
  int64_t c = e / (d.pw * d.ph * d.pt);
  int64_t gw = d.W / d.pw, gh = d.H / d.ph, gt = d.T / d.pt;
  int64_t tw = token % gw, th = token / gw % gh, tt = token / (gw * gh) % gt, b = token / (gw * gh * gt);
  return (((b * d.C + c) * d.T + tt * d.pt + t) * d.H + th * d.ph + y) * d.W + tw * d.pw + x;
}

__global__ void int64_video_tubelet_patchify(const float* __restrict__ video, float* __restrict__ patches,
                                             Dims d, int64_t total) {
  for (int64_t o = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; o < total;
       o += (int64_t)gridDim.x * blockDim.x)
    patches[o] = video[tubelet_source(o, d)];
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  Dims d{8, 3, 16, 224, 224, 2, 16, 16};
  const int64_t total = d.B * d.C * d.T * d.H * d.W;
  float* video = device_alloc<float>(total);
  float* patches = device_alloc<float>(total);
  fill_random<<<2048, 256>>>(video, total, 706, 0.0f, 1.0f);
  CK(cudaGetLastError());
  const int blocks = sm_count() * 16;
  auto launch = [&] {
    int64_video_tubelet_patchify<<<blocks, 256>>>(video, patches, d, total);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int64_t o : {int64_t(0), int64_t(1234567), total / 2 + 99, total - 1}) {
    float got = read_back(patches + o), want = read_back(video + tubelet_source(o, d));
    if (got != want) fail("wrong patch element %lld: %g vs %g\n", (long long)o, got, want);
  }
  time_kernel("int64_video_tubelet_patchify", reps, launch);
  free_device({video, patches});
  printf("ok\n");
  return 0;
}
