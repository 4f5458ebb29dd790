// FAKE_RUNNER: hang
// the child sleeps past the --timeout watchdog
extern "C" void saxpy(const float* x, const float* y, float* z, int n, float a, cudaStream_t stream) {}
