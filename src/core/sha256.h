// SHA-256 over OpenSSL's EVP interface, with lowercase hexadecimal output.
//
// Used for content keys (the compile cache, result stores). Sha256 hashes
// data given in pieces; Sha256Hex hashes one string.
//
// Thread safety: a Sha256 object is used by one thread at a time; separate
// objects and Sha256Hex may be used from any number of threads.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace kopt {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  // Appends bytes to the hashed message.
  void Update(std::string_view data);
  // Appends a length-prefixed field ("<label>:<size>\n<data>\n") so that a
  // sequence of fields hashes unambiguously (no two sequences collide by
  // moving bytes across a boundary).
  void UpdateField(std::string_view label, std::string_view data);
  // The digest as 64 lowercase hex digits. The object may not be updated afterwards.
  std::string FinishHex();

 private:
  struct Context;
  std::unique_ptr<Context> context_;
  bool finished_ = false;
};

// The SHA-256 of `data` as 64 lowercase hex digits.
std::string Sha256Hex(std::string_view data);

}  // namespace kopt
