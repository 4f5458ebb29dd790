// FAKE_RUNNER: slow
// a correct candidate, twice as slow (200 us)
extern "C" void saxpy(const float* x, const float* y, float* z, int n, float a, cudaStream_t stream) {}
