// fp64_haversine_pairs: blind set 3, kind 1 (the busy unit is the wrong one: FP64 on float data).
// Great-circle distance from each of 1 M float (lat, lon) points to 64 reference sites, keeping the
// nearest, written as a CPU port would: double locals, M_PI / 180.0, sin/cos/atan2/sqrt of doubles.
// Inputs and the output are float, yet every step runs the double polynomials on the FP64 pipe (plus
// F2F conversions). Float math (sinf/cosf/atan2f, or __sinf/__cosf, or sincospif) is the fix.
// Usage: ./fp64_haversine_pairs [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kSites = 64;
__constant__ float2 c_sites[kSites];  // (lat, lon) in degrees

__global__ void fp64_haversine_pairs(const float2* __restrict__ pts, float* __restrict__ nearest_km, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float2 p = pts[i];
  double lat1 = p.x * M_PI / 180.0;
  double best = 1e30;
  for (int s = 0; s < kSites; ++s) {
    float2 q = c_sites[s];
    double lat2 = q.x * M_PI / 180.0;
    double dlat = (q.x - p.x) * M_PI / 180.0;
    double dlon = (q.y - p.y) * M_PI / 180.0;
    double a = sin(dlat / 2) * sin(dlat / 2) + cos(lat1) * cos(lat2) * sin(dlon / 2) * sin(dlon / 2);
    double c = 2 * atan2(sqrt(a), sqrt(1 - a));
    best = fmin(best, 6371.0 * c);
  }
  nearest_km[i] = float(best);
}

static double host_nearest(float2 p, const float2* sites) {
  double best = 1e30;
  for (int s = 0; s < kSites; ++s) {
    float2 q = sites[s];
    double dlat = (q.x - p.x) * M_PI / 180.0, dlon = (q.y - p.y) * M_PI / 180.0;
    double a = sin(dlat / 2) * sin(dlat / 2) +
               cos(p.x * M_PI / 180.0) * cos(q.x * M_PI / 180.0) * sin(dlon / 2) * sin(dlon / 2);
    best = fmin(best, 6371.0 * 2 * atan2(sqrt(a), sqrt(1 - a)));
  }
  return best;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 1 << 20;
  float2 sites[kSites];
  for (int s = 0; s < kSites; ++s) sites[s] = make_float2(-60.0f + 1.9f * s, -170.0f + 5.3f * s);
  CK(cudaMemcpyToSymbol(c_sites, sites, sizeof(sites)));
  float* coords = device_alloc<float>(2 * size_t(n));  // lat/lon pairs, both in [-80, 80) degrees
  float* out = device_alloc<float>(n);
  fill_random<<<1024, 256>>>(coords, 2 * size_t(n), 301, 0.0f, 1.0f);
  CK(cudaGetLastError());
  // map [0, 1) to [-80, 80) on the host copy and upload it back (a fixed, deterministic input set)
  std::vector<float> h(2 * size_t(n));
  CK(cudaMemcpy(h.data(), coords, h.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (float& v : h) v = -80.0f + 160.0f * v;
  CK(cudaMemcpy(coords, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
  auto launch = [&] {
    fp64_haversine_pairs<<<(n + 255) / 256, 256>>>((const float2*)coords, out, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int i : {0, 4097, 654321, n - 1}) {
    float got = read_back(out + i);
    double want = host_nearest(make_float2(h[2 * size_t(i)], h[2 * size_t(i) + 1]), sites);
    if (!(fabs(got - want) <= 1e-3 * want + 1e-2)) fail("wrong result at %d: %f vs %f\n", i, got, want);
  }
  time_kernel("fp64_haversine_pairs", reps, launch);
  free_device({coords, out});
  printf("ok\n");
  return 0;
}
