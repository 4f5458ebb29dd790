// tiny_ssd_anchor_boxes_once: blind set 7, kind healthy (a tiny kernel launched once).
// Detector set-up (SSD300): the 8,732 default boxes of the six feature maps (38, 19, 10, 5, 3, 1 cells a
// side, 4 or 6 aspect ratios per cell) generated once at model load as (cx, cy, w, h): 35 K floats from 35
// blocks with a few divisions and a sqrtf per box, a few microseconds once per process: nothing to optimize.
// Usage: ./tiny_ssd_anchor_boxes_once [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

__constant__ int c_fmap[6] = {38, 19, 10, 5, 3, 1}, c_boxes[6] = {4, 6, 6, 6, 4, 4};
__constant__ float c_scale[7] = {0.1f, 0.2f, 0.375f, 0.55f, 0.725f, 0.9f, 1.075f};

__host__ __device__ inline void ssd_box(int i, const int* fmap, const int* boxes, const float* scale,
                                        float4& out) {
  int level = 0;
  while (i >= fmap[level] * fmap[level] * boxes[level])
    i -= fmap[level] * fmap[level] * boxes[level], ++level;
  int f = fmap[level], k = i % boxes[level], cell = i / boxes[level];
  float cx = (cell % f + 0.5f) / f, cy = (cell / f + 0.5f) / f, s = scale[level];
  float w, h;
  if (k == 0)
    w = h = s;
  else if (k == 1)
    w = h = sqrtf(s * scale[level + 1]);
  else {
    float ar = (k < 4 ? 2.0f : 3.0f), r = sqrtf(ar);
    bool wide = k % 2 == 0;
    w = wide ? s * r : s / r, h = wide ? s / r : s * r;
  }
  out = make_float4(cx, cy, w, h);
}

__global__ void tiny_ssd_anchor_boxes_once(float4* __restrict__ anchors, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) ssd_box(i, c_fmap, c_boxes, c_scale, anchors[i]);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int hf[6] = {38, 19, 10, 5, 3, 1}, hb[6] = {4, 6, 6, 6, 4, 4};
  const float hs[7] = {0.1f, 0.2f, 0.375f, 0.55f, 0.725f, 0.9f, 1.075f};
  int n = 0;
  for (int l = 0; l < 6; ++l) n += hf[l] * hf[l] * hb[l];
  if (n != 8732) fail("wrong box count %d\n", n);
  float4* anchors = device_alloc<float4>(n);
  auto launch = [&] {
    tiny_ssd_anchor_boxes_once<<<(n + 255) / 256, 256>>>(anchors, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float4> got(n);
  CK(cudaMemcpy(got.data(), anchors, sizeof(float4) * n, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    float4 want;
    ssd_box(i, hf, hb, hs, want);
    if (!(std::fabs(got[i].x - want.x) < 1e-5f && std::fabs(got[i].z - want.z) < 1e-5f &&
          std::fabs(got[i].w - want.w) < 1e-5f))
      fail("wrong box %d\n", i);
  }
  time_kernel("tiny_ssd_anchor_boxes_once", reps, launch);
  free_device({anchors});
  printf("ok\n");
  return 0;
}
