// kopt-launcher: runs a CUDA program built as a shared object, so that ncu can start it while nvcc is
// still building it (live `kopt explain kernel.cu`, profile/ncu_collector.h: the build overlapped with
// ncu's start). No kopt code in it: it is the process ncu profiles.
//
//   kopt-launcher READY_FILE PROGRAM.so [ARGS...]
//
// 1. Initialises CUDA at once through the driver API (cuInit, the device's primary context retained;
//    libcuda.so.1 opened with dlopen, no CUDA runtime in this binary): ncu connects to the process and
//    the context is created while nvcc builds. With KOPT_LAUNCHER_WARMUP=1 in its environment it also
//    launches an empty kernel, `kopt_warmup` (PTX), which ncu profiles as one more launch (kopt drops
//    its row): ncu sets its profiling up during the build too.
// 2. Waits, in this process (no child process: each process ncu intercepts costs it time), until
//    READY_FILE exists; it holds "ok" when the build succeeded, anything else when it failed.
// 3. dlopen()s PROGRAM.so and calls its `main` with PROGRAM.so and ARGS as argv; exits with its status.
//
// Exit status when the program does not run: 2 usage, 96 the build failed (READY_FILE says so), 97 no
// READY_FILE within $KOPT_LAUNCHER_WAIT_SECONDS (default 900 s), 98 dlopen failed (the reason on
// stderr), 99 the shared object has no `main`.
#include <dlfcn.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace {

constexpr int kUsage = 2, kBuildFailed = 96, kNoReadyFile = 97, kNotLoaded = 98, kNoMain = 99;
constexpr long kPollNanoseconds = 2'000'000;  // 2 ms between looks at READY_FILE

using CuInit = int (*)(unsigned);
using CuDeviceGet = int (*)(int*, int);
using CuPrimaryCtxRetain = int (*)(void**, int);
using CuCtxSetCurrent = int (*)(void*);
using CuModuleLoadData = int (*)(void**, const void*);
using CuModuleGetFunction = int (*)(void**, void*, const char*);
using CuLaunchKernel = int (*)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                               void*, void**, void**);
using CuCtxSynchronize = int (*)();
using ProgramMain = int (*)(int, char**);

constexpr char kWarmupPtx[] =
    ".version 7.8\n.target sm_50\n.address_size 64\n.visible .entry kopt_warmup()\n{\n\tret;\n}\n";

template <class Function>
Function Symbol(void* library, const char* name) {
  return reinterpret_cast<Function>(dlsym(library, name));
}

// The empty kernel, launched once on `context` (errors ignored: it only makes ncu start early).
void LaunchWarmup(void* cuda, void* context) {
  auto set_current = Symbol<CuCtxSetCurrent>(cuda, "cuCtxSetCurrent");
  auto load = Symbol<CuModuleLoadData>(cuda, "cuModuleLoadData");
  auto get_function = Symbol<CuModuleGetFunction>(cuda, "cuModuleGetFunction");
  auto launch = Symbol<CuLaunchKernel>(cuda, "cuLaunchKernel");
  auto synchronize = Symbol<CuCtxSynchronize>(cuda, "cuCtxSynchronize");
  if (!set_current || !load || !get_function || !launch || !synchronize) return;
  void* module = nullptr;
  void* function = nullptr;
  if (set_current(context) != 0 || load(&module, kWarmupPtx) != 0) return;
  if (get_function(&function, module, "kopt_warmup") != 0) return;
  if (launch(function, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr) == 0) synchronize();
}

// cuInit and the primary context of device 0, before the program exists.
void StartCuda(bool warmup) {
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (!cuda) return;  // the program's own CUDA calls will say what is wrong
  auto init = Symbol<CuInit>(cuda, "cuInit");
  auto device_get = Symbol<CuDeviceGet>(cuda, "cuDeviceGet");
  auto retain = Symbol<CuPrimaryCtxRetain>(cuda, "cuDevicePrimaryCtxRetain");
  int device = 0;
  void* context = nullptr;
  if (!init || init(0) != 0 || !device_get || device_get(&device, 0) != 0 || !retain) return;
  if (retain(&context, device) != 0) return;
  if (warmup) LaunchWarmup(cuda, context);
}

double WaitSeconds() {
  const char* text = std::getenv("KOPT_LAUNCHER_WAIT_SECONDS");
  double seconds = text ? std::atof(text) : 0;
  return seconds > 0 ? seconds : 900;
}

// True once `path` exists; false after WaitSeconds().
bool WaitFor(const char* path) {
  const timespec pause = {0, kPollNanoseconds};
  double waited = 0;
  while (access(path, F_OK) != 0) {
    if (waited > WaitSeconds()) return false;
    nanosleep(&pause, nullptr);
    waited += kPollNanoseconds / 1e9;
  }
  return true;
}

bool BuildSucceeded(const char* ready_file) {
  std::ifstream stream(ready_file);
  std::string word;
  stream >> word;
  return word == "ok";
}

}  // namespace

int main(int argc, char** argv) {
  const int first = 1;
  const char* warmup = std::getenv("KOPT_LAUNCHER_WARMUP");
  if (argc - first < 2) {
    std::fprintf(stderr, "usage: %s READY_FILE PROGRAM.so [ARGS...]\n", argv[0]);
    return kUsage;
  }
  const char* ready_file = argv[first];
  const char* program = argv[first + 1];
  StartCuda(warmup && std::strcmp(warmup, "1") == 0);
  if (!WaitFor(ready_file)) {
    std::fprintf(stderr, "kopt-launcher: %s did not appear\n", ready_file);
    return kNoReadyFile;
  }
  if (!BuildSucceeded(ready_file)) return kBuildFailed;
  void* library = dlopen(program, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    std::fprintf(stderr, "kopt-launcher: cannot load %s: %s\n", program, dlerror());
    return kNotLoaded;
  }
  auto program_main = Symbol<ProgramMain>(library, "main");
  if (!program_main) {
    std::fprintf(stderr, "kopt-launcher: %s has no main\n", program);
    return kNoMain;
  }
  int status = program_main(argc - first - 1, argv + first + 1);
  std::fflush(nullptr);
  std::exit(status);
}
