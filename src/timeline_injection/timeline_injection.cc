// libkopt_timeline.so: kopt's CUPTI injection library. The CUDA driver loads it
// into a program when CUDA_INJECTION64_PATH names it, and calls
// InitializeInjection() once, before the program's first CUDA call returns.
// It records CUPTI activity (every kernel's GPU start and end, memcpy and
// memset, and the host side of kernel-launch API calls) and, at process exit,
// writes them as JSON lines to the file named by KOPT_TIMELINE_OUT ("%p" in
// the name is replaced by the process id; unset: kopt-timeline.<pid>.jsonl in
// the working directory). KOPT_TIMELINE_API=0 leaves out the launch API
// records (their tracing adds to each launch's host cost).
//
// The format (version 1; parsed by profile/launch_trace.h, which documents it):
//   {"format":"kopt-timeline","version":1,"time_unit":"ns","pid":P}
//   {"kind":"kernel","name":"<mangled>","start":S,"end":E,"device":D,"context":C,"stream":T,
//    "correlation":N,"grid":[x,y,z],"block":[x,y,z],"registers":R,"shared_static":B,"shared_dynamic":B}
//   {"kind":"memcpy","copy":"HtoD","bytes":B,"start":S,"end":E,"device":D,"context":C,"stream":T,
//    "correlation":N}
//   {"kind":"memset","bytes":B,"start":S,"end":E,"device":D,"context":C,"stream":T,"correlation":N}
//   {"kind":"api","name":"cudaLaunchKernel","start":S,"end":E,"thread":H,"correlation":N}
//   {"kind":"end","records":N,"dropped":N}
// Times are CUPTI timestamps (ns, one clock for host and GPU records). The
// "end" line is written last: a file without it was cut short.
//
// No kopt code is linked in (the library lives in other programs' processes):
// only libc, libstdc++ and libcupti. Thread safety: CUPTI calls the buffer
// callbacks from its own threads; the writer is guarded by one mutex.
#include <cupti.h>
#include <unistd.h>

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace {

constexpr size_t kBufferBytes = size_t{8} << 20;  // per CUPTI activity buffer
constexpr size_t kBufferAlignment = 8;            // CUPTI requires 8-byte aligned buffers

std::mutex output_mutex;
FILE* output = nullptr;
uint64_t records_written = 0;
uint64_t records_dropped = 0;
std::atomic<bool> initialized{false};

// Writes `text` as the body of a JSON string (quotes, backslashes and control characters escaped).
void WriteJsonString(FILE* file, const char* text) {
  std::fputc('"', file);
  for (const char* cursor = text ? text : ""; *cursor; ++cursor) {
    unsigned char character = static_cast<unsigned char>(*cursor);
    if (character == '"' || character == '\\') {
      std::fputc('\\', file);
      std::fputc(character, file);
    } else if (character < 0x20) {
      std::fprintf(file, "\\u%04x", character);
    } else {
      std::fputc(character, file);
    }
  }
  std::fputc('"', file);
}

const char* CopyKindName(uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "PtoP";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return "HtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return "AtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: return "AtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD: return "AtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return "DtoA";
    default: return "unknown";
  }
}

void WriteKernel(const CUpti_ActivityKernel10& kernel) {
  std::fputs("{\"kind\":\"kernel\",\"name\":", output);
  WriteJsonString(output, kernel.name);
  std::fprintf(output,
               ",\"start\":%" PRIu64 ",\"end\":%" PRIu64
               ",\"device\":%u,\"context\":%u,\"stream\":%u,"
               "\"correlation\":%u,\"grid\":[%d,%d,%d],\"block\":[%d,%d,%d],\"registers\":%u,"
               "\"shared_static\":%d,\"shared_dynamic\":%d}\n",
               kernel.start, kernel.end, kernel.deviceId, kernel.contextId, kernel.streamId,
               kernel.correlationId, kernel.gridX, kernel.gridY, kernel.gridZ, kernel.blockX, kernel.blockY,
               kernel.blockZ, static_cast<unsigned>(kernel.registersPerThread), kernel.staticSharedMemory,
               kernel.dynamicSharedMemory);
}

void WriteMemcpy(const CUpti_ActivityMemcpy6& copy) {
  std::fprintf(output,
               "{\"kind\":\"memcpy\",\"copy\":\"%s\",\"bytes\":%" PRIu64 ",\"start\":%" PRIu64
               ",\"end\":%" PRIu64 ",\"device\":%u,\"context\":%u,\"stream\":%u,\"correlation\":%u}\n",
               CopyKindName(copy.copyKind), copy.bytes, copy.start, copy.end, copy.deviceId, copy.contextId,
               copy.streamId, copy.correlationId);
}

void WriteMemset(const CUpti_ActivityMemset4& set) {
  std::fprintf(output,
               "{\"kind\":\"memset\",\"bytes\":%" PRIu64 ",\"start\":%" PRIu64 ",\"end\":%" PRIu64
               ",\"device\":%u,\"context\":%u,\"stream\":%u,\"correlation\":%u}\n",
               set.bytes, set.start, set.end, set.deviceId, set.contextId, set.streamId, set.correlationId);
}

void WriteApi(const CUpti_ActivityAPI& api) {
  const char* name = nullptr;
  CUpti_CallbackDomain domain =
      api.kind == CUPTI_ACTIVITY_KIND_DRIVER ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
  if (cuptiGetCallbackName(domain, api.cbid, &name) != CUPTI_SUCCESS) name = "unknown";
  std::fputs("{\"kind\":\"api\",\"name\":", output);
  WriteJsonString(output, name);
  std::fprintf(output, ",\"start\":%" PRIu64 ",\"end\":%" PRIu64 ",\"thread\":%u,\"correlation\":%u}\n",
               api.start, api.end, api.threadId, api.correlationId);
}

// Writes one record; kinds kopt does not read are skipped (and not counted).
void WriteRecord(const CUpti_Activity* record) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      WriteKernel(*reinterpret_cast<const CUpti_ActivityKernel10*>(record));
      break;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      WriteMemcpy(*reinterpret_cast<const CUpti_ActivityMemcpy6*>(record));
      break;
    case CUPTI_ACTIVITY_KIND_MEMSET:
      WriteMemset(*reinterpret_cast<const CUpti_ActivityMemset4*>(record));
      break;
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: WriteApi(*reinterpret_cast<const CUpti_ActivityAPI*>(record)); break;
    default: return;
  }
  ++records_written;
}

void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlignment, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

void CUPTIAPI BufferCompleted(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t /*size*/,
                              size_t valid_bytes) {
  {
    std::lock_guard<std::mutex> lock(output_mutex);
    CUpti_Activity* record = nullptr;
    while (output && cuptiActivityGetNextRecord(buffer, valid_bytes, &record) == CUPTI_SUCCESS) {
      WriteRecord(record);
    }
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, stream_id, &dropped) == CUPTI_SUCCESS)
      records_dropped += dropped;
  }
  std::free(buffer);
}

// The output path: KOPT_TIMELINE_OUT with %p replaced by the process id.
std::string OutputPath() {
  const char* configured = std::getenv("KOPT_TIMELINE_OUT");
  std::string pattern = configured && *configured ? configured : "kopt-timeline.%p.jsonl";
  std::string pid = std::to_string(static_cast<long>(getpid()));
  std::string path;
  for (size_t index = 0; index < pattern.size(); ++index) {
    if (pattern[index] == '%' && index + 1 < pattern.size() && pattern[index + 1] == 'p') {
      path += pid;
      ++index;
    } else {
      path += pattern[index];
    }
  }
  return path;
}

void Complain(const char* what, CUptiResult result) {
  const char* text = nullptr;
  cuptiGetResultString(result, &text);
  std::fprintf(stderr, "kopt timeline: %s failed: %s\n", what, text ? text : "unknown CUPTI error");
}

void AtExit() {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard<std::mutex> lock(output_mutex);
  if (!output) return;
  std::fprintf(output, "{\"kind\":\"end\",\"records\":%" PRIu64 ",\"dropped\":%" PRIu64 "}\n",
               records_written, records_dropped);
  std::fclose(output);
  output = nullptr;
}

// The launch APIs whose host-side records are kept (all others stay off: their records would cost
// time in programs that call, say, cudaGetLastError after every launch).
void EnableLaunchApis() {
  const CUpti_CallbackId runtime_launches[] = {
      CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
      CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
      CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
      CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
      CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
      CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
      CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000,
      CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
      CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
  };
  const CUpti_CallbackId driver_launches[] = {
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,   CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
  };
  for (CUpti_CallbackId id : runtime_launches) cuptiActivityEnableRuntimeApi(id, 1);
  for (CUpti_CallbackId id : driver_launches) cuptiActivityEnableDriverApi(id, 1);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  if (initialized.exchange(true)) return 1;
  std::string path = OutputPath();
  output = std::fopen(path.c_str(), "w");
  if (!output) {
    std::fprintf(stderr, "kopt timeline: cannot write %s: no launch timeline\n", path.c_str());
    return 0;
  }
  std::setvbuf(output, nullptr, _IOFBF, size_t{1} << 20);
  std::fprintf(output, "{\"format\":\"kopt-timeline\",\"version\":1,\"time_unit\":\"ns\",\"pid\":%ld}\n",
               static_cast<long>(getpid()));
  CUptiResult result = cuptiActivityRegisterCallbacks(BufferRequested, BufferCompleted);
  if (result != CUPTI_SUCCESS) {
    Complain("cuptiActivityRegisterCallbacks", result);
    return 0;
  }
  const CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                      CUPTI_ACTIVITY_KIND_MEMSET};
  for (CUpti_ActivityKind kind : kinds) {
    result = cuptiActivityEnable(kind);
    if (result != CUPTI_SUCCESS) Complain("cuptiActivityEnable", result);
  }
  const char* api = std::getenv("KOPT_TIMELINE_API");  // "0": no host-side launch records (less overhead)
  if (!(api && std::strcmp(api, "0") == 0)) EnableLaunchApis();
  std::atexit(AtExit);
  return 1;
}
