#include "profile/kernel_launch.h"

#include <cxxabi.h>

#include <array>
#include <cmath>
#include <cstdlib>

#include "core/terminal_text.h"
#include "core/text.h"

namespace kopt {

int MetricSchema::Add(std::string name, std::string base_unit) {
  if (auto existing = IndexOf(name)) return *existing;
  int index = static_cast<int>(names_.size());
  index_.emplace(name, index);
  names_.push_back(std::move(name));
  units_.push_back(std::move(base_unit));
  return index;
}

std::optional<int> MetricSchema::IndexOf(std::string_view name) const {
  auto it = index_.find(name);
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

std::optional<double> KernelLaunch::Metric(std::string_view name) const {
  if (!schema) return std::nullopt;
  auto index = schema->IndexOf(name);
  if (!index || *index >= static_cast<int>(values.size())) return std::nullopt;
  double value = values[*index];
  if (std::isnan(value)) return std::nullopt;
  return value;
}

std::string KernelLaunch::MetricUnit(std::string_view name) const {
  if (!schema) return "";
  auto index = schema->IndexOf(name);
  return index ? schema->Unit(*index) : "";
}

std::optional<std::string> KernelLaunch::Text(std::string_view name) const {
  if (!schema) return std::nullopt;
  auto index = schema->IndexOf(name);
  if (!index) return std::nullopt;
  for (const auto& [column, text] : text_values) {
    if (column == *index) return text;
  }
  return std::nullopt;
}

std::optional<LaunchDimensions> ParseLaunchDimensions(std::string_view text) {
  text = TrimWhitespace(text);
  if (text.size() < 2 || text.front() != '(' || text.back() != ')') return std::nullopt;
  text = text.substr(1, text.size() - 2);
  std::array<long long, 3> values{1, 1, 1};
  for (int i = 0; i < 3; ++i) {
    size_t comma = text.find(',');
    if ((comma == std::string_view::npos) != (i == 2)) return std::nullopt;
    auto value = ParseNumber(text.substr(0, comma));
    if (!value || *value < 0 || *value != std::floor(*value)) return std::nullopt;
    values[i] = static_cast<long long>(*value);
    text = comma == std::string_view::npos ? "" : text.substr(comma + 1);
  }
  return LaunchDimensions{values[0], values[1], values[2]};
}

std::string KernelLaunch::FunctionName() const {
  return FunctionNameOf(kernel_name);
}

std::string FunctionNameOf(std::string_view demangled) {
  // Find the '(' that opens the parameter list: the last top-level '(' that is
  // not inside template brackets.
  int angle_depth = 0;
  int paren_depth = 0;
  size_t parameters_open = std::string_view::npos;
  size_t name_start = 0;
  constexpr std::string_view kAnonymous = "(anonymous namespace)";
  for (size_t i = 0; i < demangled.size(); ++i) {
    char c = demangled[i];
    if (c == '(' && demangled.substr(i).starts_with(kAnonymous)) {  // a namespace, not the parameters
      i += kAnonymous.size() - 1;
      continue;
    }
    if (c == '<') ++angle_depth;
    if (c == '>' && angle_depth > 0) --angle_depth;
    if (angle_depth > 0) continue;
    if (c == '(') {
      if (paren_depth == 0 && parameters_open == std::string_view::npos) parameters_open = i;
      ++paren_depth;
    } else if (c == ')') {
      --paren_depth;
    } else if (c == ' ' && paren_depth == 0 && parameters_open == std::string_view::npos) {
      name_start = i + 1;  // a return type precedes the name
    }
  }
  size_t end = parameters_open == std::string_view::npos ? demangled.size() : parameters_open;
  if (name_start > end) name_start = 0;
  std::string_view name = demangled.substr(name_start, end - name_start);
  while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
  while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
  std::string result;
  result.reserve(name.size());
  for (char c : name) {
    if (c != ' ') result.push_back(c);  // "k<1, 2>" and "k<1,2>" compare equal
  }
  return result;
}

namespace {

// `text` without the namespaces of its outermost name ("a::b<c::d>" → "b<c::d>").
std::string_view WithoutNamespaces(std::string_view text) {
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    char c = text[i];
    if (c == '<' || c == '(') ++depth;
    if (c == '>' || c == ')') --depth;
    if (depth == 0 && c == ':' && text[i + 1] == ':') start = i + 2;
  }
  return text.substr(start);
}

// One template argument: its namespaces dropped, its own arguments "…".
std::string ShortArgument(std::string_view argument) {
  argument = WithoutNamespaces(TrimWhitespace(argument));
  size_t open = argument.find('<');
  if (open == std::string_view::npos) return std::string(argument);
  return std::string(argument.substr(0, open)) + "<…>";
}

}  // namespace

std::string ShortKernelName(std::string_view function_name) {
  std::string_view name = WithoutNamespaces(TrimWhitespace(function_name));
  size_t open = name.find('<');
  if (open == std::string_view::npos || name.back() != '>') return std::string(name);
  std::string base(name.substr(0, open));
  std::string_view arguments = name.substr(open + 1, name.size() - open - 2);
  std::vector<std::string> shown;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= arguments.size(); ++i) {
    char c = i < arguments.size() ? arguments[i] : ',';
    if (c == '<' || c == '(') ++depth;
    if (c == '>' || c == ')') --depth;
    if (depth == 0 && c == ',') {
      shown.push_back(ShortArgument(arguments.substr(start, i - start)));
      start = i + 1;
    }
  }
  // The leading arguments that fit in kMaxShortNameWidth columns, then "…".
  std::string text = base + "<";
  for (size_t index = 0; index < shown.size(); ++index) {
    std::string next = (index == 0 ? "" : ", ") + shown[index];
    bool last = index + 1 == shown.size();
    size_t room = last ? 1 : 4;  // ">" or ", …>"
    if (DisplayWidth(text) + DisplayWidth(next) + room > kMaxShortNameWidth) {
      return text + (index == 0 ? "…>" : ", …>");
    }
    text += next;
  }
  return text + ">";
}

std::string Demangle(std::string_view mangled) {
  if (mangled.size() < 2 || mangled.substr(0, 2) != "_Z") return std::string(mangled);
  std::string input(mangled);
  int status = 0;
  char* demangled = abi::__cxa_demangle(input.c_str(), nullptr, nullptr, &status);
  if (status != 0 || demangled == nullptr) {
    std::free(demangled);
    return input;
  }
  std::string result(demangled);
  std::free(demangled);
  return result;
}

}  // namespace kopt
