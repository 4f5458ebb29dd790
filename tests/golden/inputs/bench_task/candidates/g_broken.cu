// FAKE_RUNNER: compile_error
// the fake nvcc rejects it
extern "C" void saxpy(const float* x, const float* y, float* z, int n, float a, cudaStream_t stream) {}
