#include "runner/cuda_check.h"

#include <fmt/format.h>

#include <string_view>

namespace kopt::runner {
namespace {

thread_local std::optional<CudaCallError> last_cuda_call_error;

std::string ShortenSourcePath(std::string_view file) {
  size_t position = file.rfind("src/");
  if (position == std::string_view::npos) return std::string(file);
  return std::string(file.substr(position));
}

}  // namespace

bool IsDeviceUnavailableError(cudaError_t error) {
  switch (error) {
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInvalidDevice:
    case cudaErrorDevicesUnavailable:
    case cudaErrorSystemNotReady:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
    case cudaErrorStubLibrary:
    case cudaErrorDeviceUninitialized:
    case cudaErrorInitializationError: return true;
    default: return false;
  }
}

bool IsStickyCudaError(cudaError_t error) {
  switch (error) {
    case cudaErrorIllegalAddress:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorContextIsDestroyed:
    case cudaErrorUnknown: return true;
    default: return false;
  }
}

FailureKind FailureKindForCudaError(cudaError_t error) {
  if (IsDeviceUnavailableError(error)) return FailureKind::kDeviceUnavailable;
  switch (error) {
    case cudaErrorIllegalAddress:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace: return FailureKind::kIllegalAddress;
    case cudaErrorMemoryAllocation: return FailureKind::kOutOfMemory;
    case cudaErrorLaunchOutOfResources:
    case cudaErrorInvalidConfiguration:
    case cudaErrorCooperativeLaunchTooLarge: return FailureKind::kTooManyResources;
    default: return FailureKind::kLaunchFailure;
  }
}

FailureKind FailureKindForLaunchError(cudaError_t error) {
  if (error == cudaErrorInvalidValue) return FailureKind::kTooManyResources;
  return FailureKindForCudaError(error);
}

std::string DescribeCudaCallError(const CudaCallError& error) {
  return fmt::format("{} at {}:{}: {} ({})", error.call, error.file, error.line,
                     cudaGetErrorName(error.error), cudaGetErrorString(error.error));
}

Status CheckCudaResult(cudaError_t error, const char* call_text, const char* file, int line) {
  if (error == cudaSuccess) return Status::Ok();
  CudaCallError record{error, call_text, ShortenSourcePath(file), line};
  std::string message = DescribeCudaCallError(record);
  last_cuda_call_error = std::move(record);
  if (IsDeviceUnavailableError(error)) return Unavailable(std::move(message));
  return WorkFailed(std::move(message));
}

std::optional<CudaCallError> TakeLastCudaCallError() {
  std::optional<CudaCallError> taken = std::move(last_cuda_call_error);
  last_cuda_call_error.reset();
  return taken;
}

RunnerFailure FailureForStatus(const Status& status, FailureKind fallback_kind) {
  RunnerFailure failure;
  failure.message = status.message();
  failure.kind = fallback_kind;
  std::optional<CudaCallError> cuda_error = TakeLastCudaCallError();
  if (cuda_error && status.message().find(DescribeCudaCallError(*cuda_error)) != std::string::npos) {
    failure.kind = FailureKindForCudaError(cuda_error->error);
    failure.sticky = IsStickyCudaError(cuda_error->error);
  }
  return failure;
}

}  // namespace kopt::runner
