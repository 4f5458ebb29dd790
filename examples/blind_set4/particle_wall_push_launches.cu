// particle_wall_push_launches: blind set 4, kind 7 (launch overhead of thousands of tiny launches).
// A 1-D particle-in-a-box toy (the inner loop of a Monte Carlo transport demo): 8,192 particles, each time
// step one launch of push_particles (32 blocks of 256 threads: move, reflect at the walls, count wall
// hits), 6,000 steps. Each launch is a microsecond of work; the host loop's launch cost and the idle gaps
// between launches dominate the run. A persistent kernel looping over the steps in registers (the
// particles are independent) or a CUDA graph would remove them.
// Usage: ./particle_wall_push_launches [reps]
#include "../kernels/example_common.cuh"

constexpr int kParticles = 8192, kSteps = 6000;
constexpr float kDt = 0.01f, kBox = 10.0f;

__global__ void push_particles(float* __restrict__ x, float* __restrict__ v, int* __restrict__ hits) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float vi = v[i], xi = __fadd_rn(x[i], __fmul_rn(vi, kDt));  // no FMA: the host check repeats it bit for bit
  if (xi < 0.0f) {
    xi = -xi;
    vi = -vi;
    hits[i] += 1;
  } else if (xi > kBox) {
    xi = __fsub_rn(2.0f * kBox, xi);
    vi = -vi;
    hits[i] += 1;
  }
  x[i] = xi;
  v[i] = vi;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  float* x = device_alloc<float>(kParticles);
  float* v = device_alloc<float>(kParticles);
  int* hits = device_alloc<int>(kParticles);
  fill_random<<<32, 256>>>(x, kParticles, 419, 0.1f, 9.9f);
  fill_random<<<32, 256>>>(v, kParticles, 420, 0.5f, 3.0f);
  CK(cudaGetLastError());
  std::vector<float> hx(kParticles), hv(kParticles);
  CK(cudaMemcpy(hx.data(), x, kParticles * sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hv.data(), v, kParticles * sizeof(float), cudaMemcpyDeviceToHost));
  auto simulate = [&] {
    CK(cudaMemsetAsync(hits, 0, kParticles * sizeof(int)));
    for (int s = 0; s < kSteps; ++s) push_particles<<<kParticles / 256, 256>>>(x, v, hits);
    CK(cudaGetLastError());
  };
  simulate();
  CK(cudaDeviceSynchronize());
  // the same float arithmetic on the host for a few particles
  for (int i : {0, 4000, kParticles - 1}) {
    float xi = hx[i], vi = hv[i];
    int h = 0;
    for (int s = 0; s < kSteps; ++s) {
      float xn = xi + vi * kDt;
      if (xn < 0.0f) {
        xn = -xn;
        vi = -vi;
        ++h;
      } else if (xn > kBox) {
        xn = 2.0f * kBox - xn;
        vi = -vi;
        ++h;
      }
      xi = xn;
    }
    float got = read_back(x + i);
    int got_h = read_back(hits + i);
    if (got != xi || got_h != h) fail("wrong particle %d: %f/%d vs %f/%d\n", i, got, got_h, xi, h);
  }
  time_kernel("particle_wall_push_launches", reps, simulate);
  free_device({x, v, hits});
  printf("ok\n");
  return 0;
}
