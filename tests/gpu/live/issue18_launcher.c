// Issue 18 experiment (tests/gpu/live/issue18_round4.sh): run a .cu built as a shared object under ncu
// while nvcc is still building it. The process ncu starts initialises CUDA at once (cuInit and the
// primary context, through the driver API: no CUDA runtime in this binary), so ncu's connection and the
// context creation happen during the build; then it waits, in-process (no child process: every process
// ncu intercepts costs it about 0.5 s), for READY_FILE, dlopen()s the shared object and calls its main.
// With LAUNCHER_WARMUP=1 it also launches an empty kernel, kopt_warmup (PTX, through the driver API),
// so that ncu sets its profiling session up during the build too (the kernel is profiled: one more row).
// Usage: issue18_launcher READY_FILE LIBRARY.so [ARGS...]   (exit status: main's; 97 no ready file in
// 120 s, 98 dlopen failed, 99 no main)
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

typedef int (*CuInit)(unsigned);
typedef int (*CuDeviceGet)(int*, int);
typedef int (*CuPrimaryCtxRetain)(void**, int);
typedef int (*CuCtxSetCurrent)(void*);
typedef int (*CuModuleLoadData)(void**, const void*);
typedef int (*CuModuleGetFunction)(void**, void*, const char*);
typedef int (*CuLaunchKernel)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*,
                              void**, void**);
typedef int (*CuCtxSynchronize)(void);
typedef int (*UserMain)(int, char**);

static const char kWarmupPtx[] =
    ".version 7.8\n.target sm_90\n.address_size 64\n.visible .entry kopt_warmup()\n{\n\tret;\n}\n";

static void Warmup(void* cuda, void* context) {
  CuCtxSetCurrent set_current = (CuCtxSetCurrent)dlsym(cuda, "cuCtxSetCurrent");
  CuModuleLoadData load = (CuModuleLoadData)dlsym(cuda, "cuModuleLoadData");
  CuModuleGetFunction get_function = (CuModuleGetFunction)dlsym(cuda, "cuModuleGetFunction");
  CuLaunchKernel launch = (CuLaunchKernel)dlsym(cuda, "cuLaunchKernel");
  CuCtxSynchronize synchronize = (CuCtxSynchronize)dlsym(cuda, "cuCtxSynchronize");
  void* module = NULL;
  void* function = NULL;
  if (!set_current || !load || !get_function || !launch || !synchronize) return;
  if (set_current(context) != 0 || load(&module, kWarmupPtx) != 0) {
    fprintf(stderr, "launcher: warmup module not loaded\n");
    return;
  }
  if (get_function(&function, module, "kopt_warmup") != 0) return;
  int launched = launch(function, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL);
  int synchronized = synchronize();
  fprintf(stderr, "launcher: warmup launch %d, synchronize %d\n", launched, synchronized);
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s READY_FILE LIBRARY.so [ARGS...]\n", argv[0]);
    return 2;
  }
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (cuda && !getenv("LAUNCHER_NO_INIT")) {
    CuInit init = (CuInit)dlsym(cuda, "cuInit");
    CuDeviceGet device_get = (CuDeviceGet)dlsym(cuda, "cuDeviceGet");
    CuPrimaryCtxRetain retain = (CuPrimaryCtxRetain)dlsym(cuda, "cuDevicePrimaryCtxRetain");
    int device = 0;
    void* context = NULL;
    if (init && init(0) == 0 && device_get && device_get(&device, 0) == 0 && retain) retain(&context, device);
    if (context && getenv("LAUNCHER_WARMUP")) Warmup(cuda, context);
  }
  struct timespec pause = {0, 2 * 1000 * 1000};  // 2 ms
  for (int i = 0; access(argv[1], F_OK) != 0; ++i) {
    if (i > 60000) return 97;
    nanosleep(&pause, NULL);
  }
  void* library = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    fprintf(stderr, "dlopen %s: %s\n", argv[2], dlerror());
    return 98;
  }
  UserMain user_main = (UserMain)dlsym(library, "main");
  if (!user_main) return 99;
  int status = user_main(argc - 2, argv + 2);
  fflush(NULL);
  exit(status);
}
