// Probe, not a candidate (bench/memory_floor): a plain device-to-device copy
// of x into y (H * W floats read and written: the bytes stencil2d moves),
// through stencil2d's entry point so the capture driver times it like the
// candidates (its CHECK fails; only its time matters).
extern "C" void stencil2d(const float* x, const float* w, float* y, int H, int W, cudaStream_t stream) {
  (void)w;
  cudaMemcpyAsync(y, x, static_cast<size_t>(H) * W * 4, cudaMemcpyDeviceToDevice, stream);
}
