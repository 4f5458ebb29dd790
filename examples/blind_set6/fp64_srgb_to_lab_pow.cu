// fp64_srgb_to_lab_pow: blind set 6, kind 1 (the FP64 pipe used by float code).
// Colour conversion of a 4096 x 4096 RGBA8 photo to CIE L*a*b* (image processing), ported from a double-
// precision reference: the sRGB linearisation pow((c + 0.055) / 1.055, 2.4) and the Lab transfer function
// pow(t, 1.0 / 3.0) on double white-point-scaled values are double pow calls (a double log and exp each,
// long DFMA sequences), six per pixel, 16.8 M pixels, against 20 bytes of global traffic per pixel (336 MB):
// the FP64 pipe is the bottleneck of float image code. powf / cbrtf (or a LUT for the 8-bit input) keep it
// in FP32.
// Usage: ./fp64_srgb_to_lab_pow [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

__host__ __device__ inline double srgb_to_linear(double c) {
  return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

__host__ __device__ inline double lab_f(double t) {
  return t > 0.008856 ? pow(t, 1.0 / 3.0) : 7.787 * t + 16.0 / 116.0;
}

__host__ __device__ inline float4 rgba_to_lab(uchar4 p) {
  double r = srgb_to_linear(p.x / 255.0f), g = srgb_to_linear(p.y / 255.0f), b = srgb_to_linear(p.z / 255.0f);
  double fx = lab_f((0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047);
  double fy = lab_f(0.2126 * r + 0.7152 * g + 0.0722 * b);
  double fz = lab_f((0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883);
  return make_float4(float(116.0 * fy - 16.0), float(500.0 * (fx - fy)), float(200.0 * (fy - fz)), p.w / 255.0f);
}

__global__ void fp64_srgb_to_lab_pow(const uchar4* __restrict__ rgba, float4* __restrict__ lab, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) lab[i] = rgba_to_lab(rgba[i]);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 4096 * 4096;
  std::vector<uchar4> hp(n);
  for (int i = 0; i < n; ++i) {
    unsigned h = unsigned(i) * 2654435761u ^ 0x5bd1e995u;
    h ^= h >> 15;
    hp[i] = make_uchar4(h & 255, (h >> 8) & 255, (h >> 16) & 255, 255);
  }
  uchar4* rgba = device_alloc<uchar4>(n);
  float4* lab = device_alloc<float4>(n);
  CK(cudaMemcpy(rgba, hp.data(), sizeof(uchar4) * n, cudaMemcpyHostToDevice));
  auto launch = [&] {
    fp64_srgb_to_lab_pow<<<n / 256, 256>>>(rgba, lab, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int i : {0, 777, n / 3, n - 1}) {
    float4 got = read_back(lab + i), want = rgba_to_lab(hp[i]);
    if (!(std::fabs(got.x - want.x) < 1e-3f && std::fabs(got.y - want.y) < 1e-3f && std::fabs(got.z - want.z) < 1e-3f))
      fail("wrong Lab at %d: %f %f %f vs %f %f %f\n", i, got.x, got.y, got.z, want.x, want.y, want.z);
  }
  time_kernel("fp64_srgb_to_lab_pow", reps, launch);
  free_device({rgba, lab});
  printf("ok\n");
  return 0;
}
