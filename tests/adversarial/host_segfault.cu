// Adversarial candidate (task saxpy) -- expected: crash.
// Dereferences a null host pointer in the entry point (read through a
// volatile pointer so the compiler keeps the store): SIGSEGV in the child
// process. The parent must classify the signal and go on.
static int* volatile g_host_table = nullptr;

extern "C" void saxpy(const float* x, const float* y, float* z, int n, float a, cudaStream_t stream) {
  (void)x, (void)y, (void)z, (void)a, (void)stream;
  g_host_table[n] = 42;  // null + n: segmentation fault
}
