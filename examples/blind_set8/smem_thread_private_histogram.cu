// smem_thread_private_histogram: blind set 8, kind other (shared-memory bank conflicts).
// Per-image intensity histograms (32 bins, for histogram equalization) privatized per thread to avoid
// atomics: each of 256 threads owns 32 consecutive shared-memory counters at s[thread * 32 + bin], so the
// bank of a counter is its bin. The images are smooth (like photographs: neighbouring pixels, which the 32
// lanes of a warp read together, mostly fall in the same bin), so the lanes hit 32 different words of one
// bank: about a 32-way conflict per increment (and the zeroing and the merge read columns the same way): 32
// shared wavefronts per access for 16.8 M pixels read from 16.8 MB (u8). A [bin][thread] layout (s[bin * 256
// + thread]) would be conflict-free. Usage: ./smem_thread_private_histogram [reps]
#include <cstdint>

#include "../kernels/example_common.cuh"

constexpr int kBins = 32, kThreads = 256, kPixelsPerImage = 65536;

__global__ void smem_thread_private_histogram(const uchar4* __restrict__ img, unsigned* __restrict__ hist) {
  __shared__ unsigned s[kThreads * kBins];
  const int t = threadIdx.x;
  for (int b = 0; b < kBins; ++b) s[t * kBins + b] = 0;
  const uchar4* p = img + size_t(blockIdx.x) * (kPixelsPerImage / 4);
  for (int i = t; i < kPixelsPerImage / 4; i += kThreads) {
    uchar4 v = p[i];
    s[t * kBins + (v.x >> 3)]++;
    s[t * kBins + (v.y >> 3)]++;
    s[t * kBins + (v.z >> 3)]++;
    s[t * kBins + (v.w >> 3)]++;
  }
  __syncthreads();
  if (t < kBins) {
    unsigned sum = 0;
    for (int k = 0; k < kThreads; ++k) sum += s[k * kBins + t];
    hist[blockIdx.x * kBins + t] = sum;
  }
}

__global__ void fill_pixels(uint8_t* p, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h =
        unsigned(i) * 2654435761u;  // a slow ramp (a new grey level every 2,048 pixels) plus noise 0-3
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h ^= h >> 12;
    p[i] = uint8_t(((i >> 11) * 5 + ((h >> 8) & 3)) & 255);
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int images = 256;
  const size_t n = size_t(images) * kPixelsPerImage;
  uint8_t* img = device_alloc<uint8_t>(n);
  unsigned* hist = device_alloc<unsigned>(images * kBins);
  fill_pixels<<<1024, 256>>>(img, n);
  CK(cudaGetLastError());
  auto launch = [&] {
    smem_thread_private_histogram<<<images, kThreads>>>((const uchar4*)img, hist);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<uint8_t> hp(kPixelsPerImage);
  std::vector<unsigned> got(kBins);
  for (int im : {0, 100, images - 1}) {
    CK(cudaMemcpy(hp.data(), img + size_t(im) * kPixelsPerImage, kPixelsPerImage, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(got.data(), hist + im * kBins, kBins * 4, cudaMemcpyDeviceToHost));
    std::vector<unsigned> want(kBins, 0);
    for (uint8_t v : hp) want[v >> 3]++;
    for (int b = 0; b < kBins; ++b)
      if (got[b] != want[b]) fail("wrong bin %d of image %d: %u vs %u\n", b, im, got[b], want[b]);
  }
  time_kernel("smem_thread_private_histogram", reps, launch);
  free_device({img, hist});
  printf("ok\n");
  return 0;
}
