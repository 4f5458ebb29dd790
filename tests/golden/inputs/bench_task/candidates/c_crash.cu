// FAKE_RUNNER: crash
// the child dies by SIGSEGV after its device event
extern "C" void saxpy(const float* x, const float* y, float* z, int n, float a, cudaStream_t stream) {}
