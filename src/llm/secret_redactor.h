// SecretRedactor: masks API keys in any text kopt's llm layer writes (error
// messages, log lines, transcripts, cache files).
//
// It replaces every occurrence of each registered secret with "[REDACTED]",
// and the value after "Authorization: Bearer ", "Authorization: ",
// "x-api-key: " and "api-key: " (header names matched case-insensitively) up
// to the end of the line or a quote. Secrets shorter than 4 bytes are not
// registered (they would mask ordinary text).
//
// Thread safety: AddSecret and Redact may be called from several threads at
// once.
#pragma once

#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace kopt::llm {

class SecretRedactor {
 public:
  void AddSecret(std::string secret);
  std::string Redact(std::string_view text) const;
  // The same status with a redacted message.
  Status Redact(const Status& status) const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> secrets_;
};

}  // namespace kopt::llm
