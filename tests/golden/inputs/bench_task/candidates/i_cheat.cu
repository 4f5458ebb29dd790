// FAKE_RUNNER: too_fast
// timed faster than the roofline floor (1 us)
extern "C" void saxpy(const float* x, const float* y, float* z, int n, float a, cudaStream_t stream) {}
