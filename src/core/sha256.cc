#include "core/sha256.h"

#include <openssl/evp.h>

#include <cassert>
#include <stdexcept>

namespace kopt {

struct Sha256::Context {
  EVP_MD_CTX* handle = nullptr;
};

Sha256::Sha256() : context_(std::make_unique<Context>()) {
  context_->handle = EVP_MD_CTX_new();
  // Allocation failure or a missing SHA-256 in libcrypto is a broken environment, not input.
  if (!context_->handle || EVP_DigestInit_ex(context_->handle, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("OpenSSL: cannot initialise SHA-256");
  }
}

Sha256::~Sha256() {
  EVP_MD_CTX_free(context_->handle);
}

void Sha256::Update(std::string_view data) {
  assert(!finished_);
  if (!data.empty()) EVP_DigestUpdate(context_->handle, data.data(), data.size());
}

void Sha256::UpdateField(std::string_view label, std::string_view data) {
  Update(label);
  Update(":" + std::to_string(data.size()) + "\n");
  Update(data);
  Update("\n");
}

std::string Sha256::FinishHex() {
  assert(!finished_);
  finished_ = true;
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(context_->handle, digest, &length);
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(length * 2);
  for (unsigned int index = 0; index < length; ++index) {
    hex.push_back(kDigits[digest[index] >> 4]);
    hex.push_back(kDigits[digest[index] & 0xF]);
  }
  return hex;
}

std::string Sha256Hex(std::string_view data) {
  Sha256 hasher;
  hasher.Update(data);
  return hasher.FinishHex();
}

}  // namespace kopt
