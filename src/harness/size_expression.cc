#include "harness/size_expression.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>
#include <string>

namespace kopt {
namespace {

constexpr int kMaximumDepth = 64;

class ExpressionParser {
 public:
  ExpressionParser(std::string_view text, const SizeExpressionLookup& lookup)
      : text_(text), lookup_(lookup) {}

  Result<double> ParseAll() {
    KOPT_ASSIGN_OR_RETURN(double value, ParseSum(0));
    SkipSpaces();
    if (position_ != text_.size()) return Error("an operator (+ - * /) or the end");
    return value;
  }

 private:
  Status Error(std::string_view expected) const {
    std::string found = position_ < text_.size() ? fmt::format("'{}'", text_[position_]) : "the end";
    return InvalidInput(fmt::format("expression \"{}\": at column {}: found {}; expected {}", text_,
                                    position_ + 1, found, expected));
  }

  void SkipSpaces() {
    while (position_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[position_])))
      ++position_;
  }

  bool Accept(char symbol) {
    SkipSpaces();
    if (position_ < text_.size() && text_[position_] == symbol) {
      ++position_;
      return true;
    }
    return false;
  }

  Result<double> ParseSum(int depth) {
    KOPT_ASSIGN_OR_RETURN(double value, ParseProduct(depth));
    while (true) {
      if (Accept('+')) {
        KOPT_ASSIGN_OR_RETURN(double term, ParseProduct(depth));
        value += term;
      } else if (Accept('-')) {
        KOPT_ASSIGN_OR_RETURN(double term, ParseProduct(depth));
        value -= term;
      } else {
        return value;
      }
    }
  }

  Result<double> ParseProduct(int depth) {
    KOPT_ASSIGN_OR_RETURN(double value, ParseFactor(depth));
    while (true) {
      if (Accept('*')) {
        KOPT_ASSIGN_OR_RETURN(double factor, ParseFactor(depth));
        value *= factor;
      } else if (Accept('/')) {
        size_t divisor_position = position_;
        KOPT_ASSIGN_OR_RETURN(double divisor, ParseFactor(depth));
        if (divisor == 0) {
          position_ = divisor_position;
          return Error("a non-zero divisor");
        }
        value /= divisor;
      } else {
        return value;
      }
    }
  }

  Result<double> ParseFactor(int depth) {
    if (depth > kMaximumDepth) return Error("at most 64 nested parentheses or signs");
    if (Accept('-')) {
      KOPT_ASSIGN_OR_RETURN(double value, ParseFactor(depth + 1));
      return -value;
    }
    if (Accept('(')) {
      KOPT_ASSIGN_OR_RETURN(double value, ParseSum(depth + 1));
      if (!Accept(')')) return Error("')'");
      return value;
    }
    SkipSpaces();
    if (position_ >= text_.size()) return Error("a number, a scalar name or '('");
    char first = text_[position_];
    if (std::isdigit(static_cast<unsigned char>(first)) || first == '.') return ParseNumber();
    if (std::isalpha(static_cast<unsigned char>(first)) || first == '_') return ParseName();
    return Error("a number, a scalar name or '('");
  }

  Result<double> ParseNumber() {
    size_t start = position_;
    while (position_ < text_.size() &&
           (std::isdigit(static_cast<unsigned char>(text_[position_])) || text_[position_] == '.' ||
            text_[position_] == 'e' || text_[position_] == 'E' ||
            ((text_[position_] == '+' || text_[position_] == '-') && position_ > start &&
             (text_[position_ - 1] == 'e' || text_[position_ - 1] == 'E')))) {
      ++position_;
    }
    std::string literal(text_.substr(start, position_ - start));
    char* end = nullptr;
    double value = std::strtod(literal.c_str(), &end);
    if (end != literal.c_str() + literal.size()) {
      position_ = start;
      return Error("a number such as 2 or 1.5e3");
    }
    return value;
  }

  Result<double> ParseName() {
    size_t start = position_;
    while (position_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[position_])) || text_[position_] == '_')) {
      ++position_;
    }
    std::string_view name = text_.substr(start, position_ - start);
    std::optional<double> value = lookup_(name);
    if (!value) {
      position_ = start;
      return InvalidInput(fmt::format("expression \"{}\": at column {}: \"{}\" is not a scalar of the task",
                                      text_, start + 1, name));
    }
    return *value;
  }

  std::string_view text_;
  const SizeExpressionLookup& lookup_;
  size_t position_ = 0;
};

}  // namespace

Result<double> EvaluateSizeExpression(std::string_view text, const SizeExpressionLookup& lookup) {
  ExpressionParser parser(text, lookup);
  return parser.ParseAll();
}

}  // namespace kopt
