// FAKE_RUNNER: fast
// a correct candidate, twice as fast as the reference (50 us)
extern "C" void saxpy(const float* x, const float* y, float* z, int n, float a, cudaStream_t stream) {}
