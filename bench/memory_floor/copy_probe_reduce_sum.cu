// Probe, not a candidate (bench/memory_floor): a plain device-to-device copy
// of the same bytes as reduce_sum moves (n / 2 floats read and n / 2
// written: 4n bytes in all), through reduce_sum's entry point so the capture
// driver times it like the candidates. Its output is left untouched (its
// CHECK fails; only its time matters). The scratch buffer is allocated on
// the first call, which the driver makes outside the timed samples.
extern "C" void reduce_sum(const float* x, float* y, int n, cudaStream_t stream) {
  (void)y;
  static void* scratch = nullptr;
  const size_t bytes = static_cast<size_t>(n) * 2;
  if (scratch == nullptr && cudaMalloc(&scratch, bytes) != cudaSuccess) return;
  cudaMemcpyAsync(scratch, x, bytes, cudaMemcpyDeviceToDevice, stream);
}
