#include "llm/secret_redactor.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace kopt::llm {
namespace {

constexpr std::string_view kMask = "[REDACTED]";

void ReplaceAll(std::string& text, const std::string& secret) {
  size_t position = 0;
  while ((position = text.find(secret, position)) != std::string::npos) {
    text.replace(position, secret.size(), kMask);
    position += kMask.size();
  }
}

bool StartsWithNoCase(std::string_view text, size_t at, std::string_view prefix) {
  if (text.size() - at < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[at + i])) != prefix[i]) return false;
  }
  return true;
}

bool EndsValue(char c) {
  return c == '\n' || c == '\r' || c == '"' || c == '\'';
}

// Masks the value after each "name: " (or "name:" / "name=") header prefix.
void MaskHeaderValues(std::string& text) {
  static constexpr std::array<std::string_view, 3> kNames = {"authorization", "x-api-key", "api-key"};
  for (std::string_view name : kNames) {
    size_t position = 0;
    while (position < text.size()) {
      size_t found = std::string::npos;
      for (size_t i = position; i < text.size(); ++i) {
        if (StartsWithNoCase(text, i, name)) {
          found = i;
          break;
        }
      }
      if (found == std::string::npos) break;
      size_t value = found + name.size();
      if (value < text.size() && text[value] == '"') ++value;  // JSON: "name": "value"
      if (value >= text.size() || (text[value] != ':' && text[value] != '=')) {
        position = found + name.size();
        continue;
      }
      ++value;
      while (value < text.size() && (text[value] == ' ' || text[value] == '"')) ++value;
      if (StartsWithNoCase(text, value, "bearer ")) value += 7;
      size_t end = value;
      while (end < text.size() && !EndsValue(text[end])) ++end;
      if (end > value && text.compare(value, end - value, kMask) != 0) {
        text.replace(value, end - value, kMask);
      }
      position = value + kMask.size();
    }
  }
}

}  // namespace

void SecretRedactor::AddSecret(std::string secret) {
  if (secret.size() < 4) return;
  std::lock_guard lock(mutex_);
  if (std::find(secrets_.begin(), secrets_.end(), secret) == secrets_.end()) {
    secrets_.push_back(std::move(secret));
    // Longest first, so that a secret containing another is masked whole.
    std::sort(secrets_.begin(), secrets_.end(),
              [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  }
}

std::string SecretRedactor::Redact(std::string_view text) const {
  std::string result(text);
  {
    std::lock_guard lock(mutex_);
    for (const std::string& secret : secrets_) ReplaceAll(result, secret);
  }
  MaskHeaderValues(result);
  return result;
}

Status SecretRedactor::Redact(const Status& status) const {
  if (status.ok()) return status;
  return Status(status.kind(), Redact(status.message()));
}

}  // namespace kopt::llm
