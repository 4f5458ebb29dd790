// Status and Result<T>: expected failures as data.
//
// Every operation that can fail for reasons outside the program's control (a
// malformed file, a missing tool, a kernel that does not compile) returns a
// Status or a Result<T>. Exceptions and asserts are reserved for bugs. Only
// cli/main.cc maps a Status to an exit code.
//
// Thread safety: values; no shared state.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace kopt {

// What kind of failure; decides the exit code (see ExitCodeFor).
enum class ErrorKind {
  kOk = 0,
  kInvalidInput,  // bad user input: file contents, arguments (exit 2)
  kNotFound,      // a file, kernel or tool that should exist does not (exit 2)
  kUnavailable,   // a capability is missing here: no GPU, no ncu (exit 2)
  kPermission,    // e.g. ncu lacks counter permission (exit 2)
  kWorkFailed,    // the work itself failed: compile error, crash (exit 1)
  kInternal,      // an unexpected condition in kopt itself (exit 1)
};

class Status {
 public:
  Status() = default;  // OK
  Status(ErrorKind kind, std::string message) : kind_(kind), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  bool ok() const { return kind_ == ErrorKind::kOk; }
  ErrorKind kind() const { return kind_; }
  const std::string& message() const { return message_; }

  // Returns a copy whose message is "context: message".
  Status WithContext(const std::string& context) const {
    if (ok()) return *this;
    return Status(kind_, context + ": " + message_);
  }

 private:
  ErrorKind kind_ = ErrorKind::kOk;
  std::string message_;
};

inline Status InvalidInput(std::string message) {
  return Status(ErrorKind::kInvalidInput, std::move(message));
}
inline Status NotFound(std::string message) {
  return Status(ErrorKind::kNotFound, std::move(message));
}
inline Status Unavailable(std::string message) {
  return Status(ErrorKind::kUnavailable, std::move(message));
}
inline Status PermissionDenied(std::string message) {
  return Status(ErrorKind::kPermission, std::move(message));
}
inline Status WorkFailed(std::string message) {
  return Status(ErrorKind::kWorkFailed, std::move(message));
}
inline Status Internal(std::string message) {
  return Status(ErrorKind::kInternal, std::move(message));
}

// Exit codes of DESIGN.md: 0 success, 1 the work failed, 2 bad usage or input.
inline int ExitCodeFor(const Status& status) {
  switch (status.kind()) {
    case ErrorKind::kOk: return 0;
    case ErrorKind::kWorkFailed:
    case ErrorKind::kInternal: return 1;
    default: return 2;
  }
}

// Either a value or a non-OK Status.
template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    assert(!status_.ok() && "Result constructed from an OK status without a value");
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  T& value() & {
    assert(ok());
    return *value_;
  }
  const T& value() const& {
    assert(ok());
    return *value_;
  }
  T&& value() && {
    assert(ok());
    return std::move(*value_);
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace kopt

// Propagates a non-OK Status from an expression returning Status.
#define KOPT_RETURN_IF_ERROR(expr)               \
  do {                                           \
    ::kopt::Status kopt_status_ = (expr);        \
    if (!kopt_status_.ok()) return kopt_status_; \
  } while (0)

#define KOPT_CONCAT_INNER(a, b) a##b
#define KOPT_CONCAT(a, b) KOPT_CONCAT_INNER(a, b)
// Assigns the value of a Result<T> expression to `lhs`, or returns its Status.
#define KOPT_ASSIGN_OR_RETURN(lhs, expr) \
  KOPT_ASSIGN_OR_RETURN_IMPL(KOPT_CONCAT(kopt_result_, __LINE__), lhs, expr)
#define KOPT_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return tmp.status();              \
  lhs = std::move(tmp).value()
