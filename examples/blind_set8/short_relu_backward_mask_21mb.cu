// short_relu_backward_mask_21mb: blind set 8, kind 4 (a short kernel near its size-limited ceiling: healthy).
// The ReLU backward of a small MLP block: dx = x > 0 ? dy : 0 over 1.75 M floats, reading the saved input and
// the upstream gradient as float4 and writing the result as float4: 21 MB in one launch of several
// microseconds, fully coalesced 16-byte accesses and a handful of instructions per element. At this size the
// achievable bandwidth of a short launch, not the code, is the limit. Usage: ./short_relu_backward_mask_21mb
// [reps]
#include "../kernels/example_common.cuh"

__global__ void short_relu_backward_mask_21mb(const float4* __restrict__ x, const float4* __restrict__ dy,
                                              float4* __restrict__ dx, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n4) return;
  float4 a = x[i], g = dy[i];
  dx[i] = make_float4(a.x > 0.0f ? g.x : 0.0f, a.y > 0.0f ? g.y : 0.0f, a.z > 0.0f ? g.z : 0.0f,
                      a.w > 0.0f ? g.w : 0.0f);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 1792 * 1024, n4 = n / 4;
  float* x = device_alloc<float>(n);
  float* dy = device_alloc<float>(n);
  float* dx = device_alloc<float>(n);
  fill_random<<<1024, 256>>>(x, n, 871, -1.0f, 1.0f);
  fill_random<<<1024, 256>>>(dy, n, 872, -0.5f, 0.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    short_relu_backward_mask_21mb<<<(n4 + 255) / 256, 256>>>((const float4*)x, (const float4*)dy, (float4*)dx,
                                                             n4);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int i : {0, 1, 777777, n - 1}) {
    float want = read_back(x + i) > 0.0f ? read_back(dy + i) : 0.0f;
    if (read_back(dx + i) != want) fail("wrong gradient at %d\n", i);
  }
  time_kernel("short_relu_backward_mask_21mb", reps, launch);
  free_device({x, dy, dx});
  printf("ok\n");
  return 0;
}
