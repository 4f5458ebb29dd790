// int64_stft_frame_unfold: blind set 4, kind 1 (the busy unit is the wrong one: 64-bit integer
// division and modulo in index arithmetic).
// The framing step of an STFT front end (torch.Tensor.unfold + window): 16 audio signals of 2^20 samples
// cut into frames of 1,024 samples every 256 samples and multiplied by a Hann window, written as
// frames[b][f][k] (268 MB of output). Written framework-style with one flat size_t index per output and
// run-time sizes, each element needs o / frame_elems, o % frame_elems, r / frame_len and r % frame_len
// on 64-bit operands: the 64-bit division subroutine (tens of integer instructions each) per 4-byte
// element. The reads hit L1/L2 (frames overlap four times) and the stores are coalesced, so the integer
// pipe, not memory, limits it. A 2-D grid (frame, sample) or 32-bit indices with the sizes as template
// constants would remove the division.
// Usage: ./int64_stft_frame_unfold [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

__global__ void int64_stft_frame_unfold(const float* __restrict__ signal, const float* __restrict__ window,
                                        float* __restrict__ frames, size_t n_samples, size_t n_frames,
                                        size_t frame_len, size_t hop, size_t total) {
  size_t frame_elems = n_frames * frame_len;
  for (size_t o = blockIdx.x * (size_t)blockDim.x + threadIdx.x; o < total;
       o += (size_t)gridDim.x * blockDim.x) {
    size_t b = o / frame_elems;
    size_t r = o % frame_elems;
    size_t f = r / frame_len;
    size_t k = r % frame_len;
    frames[o] = signal[b * n_samples + f * hop + k] * window[k];
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const size_t batch = 16, n_samples = size_t(1) << 20, frame_len = 1024, hop = 256;
  const size_t n_frames = (n_samples - frame_len) / hop + 1, total = batch * n_frames * frame_len;
  float* signal = device_alloc<float>(batch * n_samples);
  float* window = device_alloc<float>(frame_len);
  float* frames = device_alloc<float>(total);
  fill_random<<<2048, 256>>>(signal, batch * n_samples, 406, 0.01f, 1.0f);
  std::vector<float> hw(frame_len);
  for (size_t k = 0; k < frame_len; ++k) hw[k] = float(0.5 - 0.5 * std::cos(2 * M_PI * k / frame_len));
  CK(cudaMemcpy(window, hw.data(), frame_len * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaGetLastError());
  const int blocks = sm_count() * 16;
  auto launch = [&] {
    int64_stft_frame_unfold<<<blocks, 256>>>(signal, window, frames, n_samples, n_frames, frame_len, hop,
                                             total);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (size_t o : {size_t(0), size_t(1023), size_t(5000000), total / 2 + 77, total - 1}) {
    size_t b = o / (n_frames * frame_len), r = o % (n_frames * frame_len), f = r / frame_len,
           k = r % frame_len;
    float want = read_back(signal + b * n_samples + f * hop + k) * hw[k];
    float got = read_back(frames + o);
    if (got != want) fail("wrong frame element at %zu: %f vs %f\n", o, got, want);
  }
  time_kernel("int64_stft_frame_unfold", reps, launch);
  free_device({signal, window, frames});
  printf("ok\n");
  return 0;
}
