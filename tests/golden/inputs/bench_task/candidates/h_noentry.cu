// FAKE_RUNNER: missing_entry
// the fake nvcc reports an undefined entry point
extern "C" void saxpy(const float* x, const float* y, float* z, int n, float a, cudaStream_t stream) {}
