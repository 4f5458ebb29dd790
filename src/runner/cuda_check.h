// Checked CUDA runtime calls for kopt-runner (docs/harness-protocol.md §3-4).
//
// Every CUDA runtime call in src/runner goes through KOPT_CUDA_CHECK (returns
// from the enclosing function on error) or KOPT_CUDA_STATUS (evaluates to a
// Status). A failed call becomes a Status whose message is
//   "<call text> at <file>:<line>: <cudaErrorName> (<cudaGetErrorString>)"
// (file shortened to its path from "src/"), and the call is recorded as this
// thread's last failed CUDA call, so that the code that turns a phase's
// Status into a `failure` event can recover the cudaError_t and its failure
// kind (FailureForStatus below) without parsing messages.
//
// Status kinds: device-missing errors (no device, no/old driver, stub
// library) are kUnavailable; every other CUDA error is kWorkFailed.
//
// Sticky errors (illegal address, launch failure, ...) corrupt the CUDA
// context: after one, the runner must emit its failure and exit without any
// further CUDA call (IsStickyCudaError).
//
// Thread safety: the last-failed-call record is thread-local; everything else
// is pure.
#pragma once

#include <cuda_runtime_api.h>

#include <optional>
#include <string>

#include "core/status.h"
#include "runner_protocol/failure_kind.h"

namespace kopt::runner {

// One failed CUDA runtime call: what was called, where, and what it returned.
struct CudaCallError {
  cudaError_t error = cudaSuccess;
  std::string call;  // the call's source text, e.g. "cudaMalloc(&pointer, bytes)"
  std::string file;  // shortened to the path from "src/"
  int line = 0;
};

// The failure kind (protocol §4) a CUDA error stands for, wherever it arose:
// illegal_address, out_of_memory, too_many_resources, device_unavailable, or
// launch_failure for every other error.
FailureKind FailureKindForCudaError(cudaError_t error);

// As FailureKindForCudaError, for the error a candidate's launch left behind
// (cudaGetLastError right after kopt_launch): there cudaErrorInvalidValue
// means a launch configuration the device refuses (too much dynamic shared
// memory), so it is too_many_resources.
FailureKind FailureKindForLaunchError(cudaError_t error);

// True for errors after which the context is unusable (every later call
// returns the same error): illegal/misaligned address, launch failure,
// illegal instruction, hardware stack error, device-side assert, ...
bool IsStickyCudaError(cudaError_t error);

// True for errors that mean there is no usable GPU here.
bool IsDeviceUnavailableError(cudaError_t error);

// "<call> at <file>:<line>: <cudaErrorName> (<description>)".
std::string DescribeCudaCallError(const CudaCallError& error);

// OK for cudaSuccess. Otherwise records the call as this thread's last failed
// CUDA call and returns its Status (kinds above).
Status CheckCudaResult(cudaError_t error, const char* call_text, const char* file, int line);

// The last failed call CheckCudaResult recorded on this thread, if any;
// taking it clears the record.
std::optional<CudaCallError> TakeLastCudaCallError();

// A failure as the runner reports it in a `failure` event.
struct RunnerFailure {
  FailureKind kind = FailureKind::kLaunchFailure;
  std::string message;
  bool sticky = false;  // the CUDA context is unusable; make no further CUDA call
  // The reference or the environment failed, not the candidate (kopt-runner
  // exits 4 instead of 3; docs/harness-protocol.md §3).
  bool not_candidate = false;
};

// Converts a phase's error Status into a failure: when the Status came from a
// failed CUDA call on this thread (the record is taken and its description
// appears in the message), the call's kind and stickiness; otherwise
// `fallback_kind`. The message is the Status message.
RunnerFailure FailureForStatus(const Status& status, FailureKind fallback_kind);

}  // namespace kopt::runner

// Evaluates to the Status of a CUDA runtime call.
// Usage: Status status = KOPT_CUDA_STATUS(cudaStreamSynchronize(stream));
#define KOPT_CUDA_STATUS(call) ::kopt::runner::CheckCudaResult((call), #call, __FILE__, __LINE__)

// Returns the Status of a failed CUDA runtime call from the enclosing function
// (which returns Status or Result<T>).
// Usage: KOPT_CUDA_CHECK(cudaMalloc(&pointer, bytes));
#define KOPT_CUDA_CHECK(call)                                                                              \
  do {                                                                                                     \
    ::kopt::Status kopt_cuda_status_ = ::kopt::runner::CheckCudaResult((call), #call, __FILE__, __LINE__); \
    if (!kopt_cuda_status_.ok()) return kopt_cuda_status_;                                                 \
  } while (0)
