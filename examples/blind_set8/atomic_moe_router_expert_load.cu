// atomic_moe_router_expert_load: blind set 8, kind 6 (atomic contention on a few addresses).
// The load-balancing statistics of a mixture-of-experts router (Switch/Mixtral auxiliary loss): each of 4 M
// tokens takes the softmax of its 8 expert logits and adds every expert's probability to a global importance
// sum and a 1 to its top-1 expert's count - 38 M global atomics (float and int) on 16 addresses, serialized
// at the L2, against 134 MB of coalesced logit reads (~30 us). A block-level reduction (shuffles, one atomic
// per block and expert) would remove the contention. Usage: ./atomic_moe_router_expert_load [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kExperts = 8;

__global__ void atomic_moe_router_expert_load(const float4* __restrict__ logits,
                                              float* __restrict__ importance, int* __restrict__ load,
                                              int tokens) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= tokens) return;
  float4 a = logits[2 * t], b = logits[2 * t + 1];
  float z[kExperts] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
  float m = z[0];
  int arg = 0;
  for (int e = 1; e < kExperts; ++e)
    if (z[e] > m) m = z[e], arg = e;
  float sum = 0.0f;
  for (int e = 0; e < kExperts; ++e) z[e] = __expf(z[e] - m), sum += z[e];
  float inv = 1.0f / sum;
  for (int e = 0; e < kExperts; ++e) atomicAdd(&importance[e], z[e] * inv);
  atomicAdd(&load[arg], 1);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int tokens = 4 << 20;
  float* logits = device_alloc<float>(size_t(tokens) * kExperts);
  float* importance = device_alloc<float>(kExperts);
  int* load = device_alloc<int>(kExperts);
  fill_random<<<2048, 256>>>(logits, size_t(tokens) * kExperts, 911, -3.0f, 3.0f);
  CK(cudaGetLastError());
  auto launch = [&] {
    CK(cudaMemsetAsync(importance, 0, kExperts * 4));
    CK(cudaMemsetAsync(load, 0, kExperts * 4));
    atomic_moe_router_expert_load<<<(tokens + 255) / 256, 256>>>((const float4*)logits, importance, load,
                                                                 tokens);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> hl(size_t(tokens) * kExperts), gi(kExperts);
  std::vector<int> gl(kExperts);
  CK(cudaMemcpy(hl.data(), logits, hl.size() * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(gi.data(), importance, kExperts * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(gl.data(), load, kExperts * 4, cudaMemcpyDeviceToHost));
  std::vector<double> wi(kExperts, 0.0);
  std::vector<long long> wl(kExperts, 0);
  for (int t = 0; t < tokens; ++t) {
    const float* z = &hl[size_t(t) * kExperts];
    int arg = 0;
    for (int e = 1; e < kExperts; ++e)
      if (z[e] > z[arg]) arg = e;
    double ex[kExperts], s = 0;
    for (int e = 0; e < kExperts; ++e) s += ex[e] = std::exp(double(z[e]) - z[arg]);
    for (int e = 0; e < kExperts; ++e) wi[e] += ex[e] / s;
    wl[arg]++;
  }
  for (int e = 0; e < kExperts; ++e)
    if (gl[e] != wl[e] || !(std::fabs(gi[e] - wi[e]) <= 5e-3 * wi[e]))
      fail("wrong expert %d: %d vs %lld, %g vs %g\n", e, gl[e], wl[e], gi[e], wi[e]);
  time_kernel("atomic_moe_router_expert_load", reps, launch);
  free_device({logits, importance, load});
  printf("ok\n");
  return 0;
}
