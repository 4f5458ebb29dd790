// FAKE_RUNNER: garbage
// the child prints garbage and exits 0
extern "C" void saxpy(const float* x, const float* y, float* z, int n, float a, cudaStream_t stream) {}
