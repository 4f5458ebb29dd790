// kalman_track_launches: blind set 6, kind 7 (launch overhead of thousands of tiny launches).
// Radar tracking (signal processing): 4,096 constant-velocity tracks filtered by a 2-state Kalman filter
// over 3,000 scans, one launch of kalman_step per scan (predict, synthesize the scan's measurement, update),
// 16 blocks of 256 threads doing a few dozen FLOPs per track: well under a microsecond of work per launch,
// so the run is launch-bound, the GPU idle between the 3,000 back-to-back launches. Looping over the scans
// inside one kernel (each track is independent) or a CUDA graph is the fix.
// Usage: ./kalman_track_launches [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kTracks = 4096, kScans = 3000;

struct Track {
  float x, v, p00, p01, p11, pad0, pad1, pad2;
};

__host__ __device__ inline void kalman_update(Track& t, int id, int scan) {
  const float dt = 0.1f, q = 1e-3f, r = 0.25f;
  // predict
  t.x += dt * t.v;
  float p00 = t.p00 + dt * (2.0f * t.p01 + dt * t.p11) + q, p01 = t.p01 + dt * t.p11, p11 = t.p11 + q;
  // the scan's measurement: true position plus deterministic noise
  unsigned h = unsigned(id) * 2654435761u ^ unsigned(scan) * 0x9e3779b9u;
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  float z = (0.5f + 0.001f * id) * scan * dt + 0.5f * ((h >> 8) * (1.0f / 16777216.0f) - 0.5f);
  // update
  float s = p00 + r, k0 = p00 / s, k1 = p01 / s, y = z - t.x;
  t.x += k0 * y;
  t.v += k1 * y;
  t.p00 = (1.0f - k0) * p00;
  t.p01 = (1.0f - k0) * p01;
  t.p11 = p11 - k1 * p01;
}

__global__ void kalman_step(Track* __restrict__ tracks, int scan) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kTracks) return;
  Track t = tracks[i];
  kalman_update(t, i, scan);
  tracks[i] = t;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  std::vector<Track> init(kTracks, Track{0.0f, 0.0f, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f});
  Track* tracks = device_alloc<Track>(kTracks);
  auto run = [&] {
    CK(cudaMemcpy(tracks, init.data(), sizeof(Track) * kTracks, cudaMemcpyHostToDevice));
    for (int s = 1; s <= kScans; ++s) {
      kalman_step<<<kTracks / 256, 256>>>(tracks, s);
      CK(cudaGetLastError());
    }
  };
  run();
  CK(cudaDeviceSynchronize());
  for (int i : {0, 1, 2047, kTracks - 1}) {
    Track want = init[i];
    for (int s = 1; s <= kScans; ++s) kalman_update(want, i, s);
    Track got = read_back(tracks + i);
    if (!(std::fabs(got.x - want.x) <= 1e-3f * std::fabs(want.x) + 1e-2f && std::fabs(got.v - want.v) <= 1e-2f))
      fail("wrong track %d: x %f vs %f, v %f vs %f\n", i, got.x, want.x, got.v, want.v);
  }
  time_kernel("kalman_track_launches_run", reps > 0 ? 3 : 0, run);
  free_device({tracks});
  printf("ok\n");
  return 0;
}
