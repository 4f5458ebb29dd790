#include "search/transposition_key.h"

#include <cctype>

#include "core/sha256.h"

namespace kopt {
namespace {

// A single pass over the source, copying literals verbatim, dropping
// comments and collapsing whitespace.
class SourceNormalizer {
 public:
  explicit SourceNormalizer(std::string_view source) : source_(source) {}

  std::string Run() {
    while (position_ < source_.size()) Step();
    while (!output_.empty() && output_.back() == ' ') output_.pop_back();
    return output_;
  }

 private:
  char At(size_t offset) const {
    return position_ + offset < source_.size() ? source_[position_ + offset] : '\0';
  }

  void Step() {
    char current = At(0);
    if (current == '/' && At(1) == '/') return SkipLineComment();
    if (current == '/' && At(1) == '*') return SkipBlockComment();
    if (current == '"') return CopyLiteral('"');
    if (current == '\'' && !PreviousIsIdentifierCharacter()) return CopyLiteral('\'');
    if (current == '\n') return EndLine();
    if (std::isspace(static_cast<unsigned char>(current))) {
      pending_space_ = true;
      ++position_;
      return;
    }
    if (current == '#' && at_line_start_) in_directive_ = true;
    Emit(current);
    ++position_;
  }

  bool PreviousIsIdentifierCharacter() const {
    return !output_.empty() && !pending_space_ && std::isalnum(static_cast<unsigned char>(output_.back()));
  }

  void Emit(char character) {
    if (pending_space_ && !output_.empty() && output_.back() != '\n') output_ += ' ';
    pending_space_ = false;
    at_line_start_ = false;
    output_ += character;
  }

  void EndLine() {
    ++position_;
    bool continued = !output_.empty() && output_.back() == '\\';
    if (in_directive_ && !continued) {
      while (!output_.empty() && output_.back() == ' ') output_.pop_back();
      output_ += '\n';
      in_directive_ = false;
      pending_space_ = false;
    } else {
      pending_space_ = true;
    }
    at_line_start_ = true;
  }

  void SkipLineComment() {
    while (position_ < source_.size() && source_[position_] != '\n') ++position_;
  }

  void SkipBlockComment() {
    size_t end = source_.find("*/", position_ + 2);
    position_ = end == std::string_view::npos ? source_.size() : end + 2;
    pending_space_ = true;
  }

  void CopyLiteral(char quote) {
    Emit(quote);
    ++position_;
    while (position_ < source_.size()) {
      char character = source_[position_++];
      output_ += character;
      if (character == '\\' && position_ < source_.size()) {
        output_ += source_[position_++];
      } else if (character == quote || character == '\n') {
        return;
      }
    }
  }

  std::string_view source_;
  size_t position_ = 0;
  std::string output_;
  bool pending_space_ = false;
  bool at_line_start_ = true;
  bool in_directive_ = false;
};

}  // namespace

std::string NormalizeSource(std::string_view source) {
  return SourceNormalizer(source).Run();
}

std::string SourceTranspositionKey(std::string_view source) {
  return "source:" + Sha256Hex(NormalizeSource(source));
}

std::string BinaryTranspositionKey(std::string_view binary) {
  return "binary:" + Sha256Hex(binary);
}

}  // namespace kopt
