#include "harness/tunable_declarations.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <limits>
#include <set>

#include "harness/candidate_flags.h"
#include "harness/size_expression.h"
#include "core/text.h"

namespace kopt {
namespace {

constexpr size_t kMaximumValues = 4096;


// The directive of a line: the text after "// kopt:" (word and arguments), or nullopt.
std::optional<std::string_view> DirectiveOf(std::string_view line) {
  size_t comment = line.find("//");
  if (comment == std::string_view::npos) return std::nullopt;
  std::string_view rest = TrimWhitespace(line.substr(comment + 2));
  if (rest.substr(0, 5) != "kopt:") return std::nullopt;
  rest.remove_prefix(5);
  if (rest.empty() || !(std::isalpha(static_cast<unsigned char>(rest[0])))) return std::nullopt;
  return rest;
}

class DeclarationParser {
 public:
  DeclarationParser(std::string_view file, const ScalarValues& scalars) : file_(file), scalars_(scalars) {
    declarations_.file = std::string(file);
  }

  Status ParseLine(std::string_view directive, int line) {
    line_ = line;
    std::vector<std::string_view> words = SplitWords(directive);
    std::string_view word = words.empty() ? std::string_view() : words.front();
    std::vector<std::string_view> arguments(words.empty() ? words.end() : words.begin() + 1, words.end());
    if (word == "tune" || word == "flag") {
      directive_ = word;
      return ParseParameter(arguments, word == "flag");
    }
    if (word == "nvcc") return Status::Ok();  // fixed flags: harness/candidate_flags.h
    if (word == "restrict") return ParseRestrict(TrimWhitespace(directive.substr(8)));
    if (word == "config") return Status::Ok();  // written by MaterializeConfiguration
    return Error("", fmt::format("\"kopt:{}\" is not a directive; expected kopt:tune, kopt:flag, "
                                 "kopt:restrict or kopt:nvcc",
                                 word));
  }

  Status Finish(std::string_view source) {
    for (TunableParameter& parameter : declarations_.parameters) {
      KOPT_RETURN_IF_ERROR(ResolveDefault(parameter, source));
    }
    for (const Restriction& restriction : declarations_.restrictions) {
      line_ = restriction.line;
      KOPT_RETURN_IF_ERROR(CheckRestrictionNames(restriction));
    }
    return Status::Ok();
  }

  TunableDeclarations Take() { return std::move(declarations_); }

 private:
  Status Error(std::string_view parameter, std::string_view message) const {
    if (parameter.empty()) return InvalidInput(fmt::format("{}:{}: {}", file_, line_, message));
    return InvalidInput(fmt::format("{}:{}: kopt:{} {}: {}", file_, line_, directive_, parameter, message));
  }

  // kopt:tune NAME values=|range= [step=] role= [default=], or
  // kopt:flag NAME option= [values=|range= [step=]] role= [default=].
  Status ParseParameter(const std::vector<std::string_view>& words, bool flag) {
    if (words.empty()) return Error("", fmt::format("kopt:{} needs a parameter name", directive_));
    std::string_view name = words.front();
    if (!IsIdentifier(name)) return Error(name, "the name is not a C identifier");
    if (declarations_.Find(name)) return Error(name, "declared twice");
    TunableParameter parameter{std::string(name), {}, 0, ParameterRole::kOther, line_, ""};
    std::optional<std::string_view> values, range, step, role, default_text, option;
    for (size_t i = 1; i < words.size(); ++i) {
      size_t equals = words[i].find('=');
      std::string_view key = words[i].substr(0, equals);
      std::string_view value = equals == std::string_view::npos ? "" : words[i].substr(equals + 1);
      std::optional<std::string_view>* slot = key == "values"            ? &values
                                              : key == "range"           ? &range
                                              : key == "step"            ? &step
                                              : key == "role"            ? &role
                                              : key == "default"         ? &default_text
                                              : (flag && key == "option") ? &option
                                                                          : nullptr;
      if (slot == nullptr || equals == std::string_view::npos) {
        return Error(name, fmt::format("\"{}\" is not a key=value of kopt:{}; expected {}values=, range=, "
                                       "step=, role=, default=",
                                       words[i], directive_, flag ? "option=, " : ""));
      }
      if (slot->has_value()) return Error(name, fmt::format("{}= given twice", key));
      *slot = value;
    }
    if (flag) {
      KOPT_RETURN_IF_ERROR(ParseFlagOption(parameter, option, values, range, step));
    } else {
      KOPT_RETURN_IF_ERROR(ParseValues(parameter, values, range, step));
    }
    KOPT_RETURN_IF_ERROR(ParseRole(parameter, role));
    if (default_text) {
      std::optional<int64_t> value = ParseSignedInteger(*default_text);
      if (!value) return Error(name, fmt::format("default={} is not an integer", *default_text));
      explicit_defaults_[parameter.name] = *value;
    }
    declarations_.parameters.push_back(std::move(parameter));
    return Status::Ok();
  }

  // option= is one nvcc flag: without "{}" the parameter is on/off (values
  // 0,1); with "{}" each declared value is put in its place. Every flag the
  // parameter can give must be one the compiler accepts from a candidate.
  Status ParseFlagOption(TunableParameter& parameter, std::optional<std::string_view> option,
                         std::optional<std::string_view> values, std::optional<std::string_view> range,
                         std::optional<std::string_view> step) {
    if (!option || option->empty())
      return Error(parameter.name, "option= is missing (e.g. option=-use_fast_math or option=-maxrregcount={})");
    parameter.compile_option = std::string(*option);
    if (parameter.compile_option.find("{}") == std::string::npos) {
      if (values || range) {
        return Error(parameter.name, fmt::format("option={} takes no value: the parameter is 0 (off) or 1 (on); "
                                                 "write option=...{{}} to give it values",
                                                 *option));
      }
      parameter.values = {0, 1};
    } else {
      KOPT_RETURN_IF_ERROR(ParseValues(parameter, values, range, step));
    }
    for (int64_t value : parameter.values) {
      std::optional<std::string> rendered = CompileFlagOf(parameter, value);
      if (rendered && !IsAllowedCandidateFlag(*rendered)) {
        return Error(parameter.name,
                     fmt::format("option={} gives \"{}\" for value {}, which is not a flag kopt accepts from a "
                                 "candidate (docs/tuning.md lists them)",
                                 *option, *rendered, value));
      }
    }
    return Status::Ok();
  }

  Status ParseValues(TunableParameter& parameter, std::optional<std::string_view> values,
                     std::optional<std::string_view> range, std::optional<std::string_view> step) {
    const std::string& name = parameter.name;
    if (values.has_value() == range.has_value()) return Error(name, "give exactly one of values= and range=");
    if (values) {
      if (step) return Error(name, "step= goes with range=, not values=");
      KOPT_RETURN_IF_ERROR(ParseValueList(parameter, *values));
    } else {
      KOPT_RETURN_IF_ERROR(ParseRange(parameter, *range, step.value_or("+1")));
    }
    std::vector<int64_t> sorted = parameter.values;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
      return Error(name, "a value is listed twice");
    }
    parameter.values = std::move(sorted);
    return Status::Ok();
  }

  Status ParseValueList(TunableParameter& parameter, std::string_view list) {
    size_t start = 0;
    while (start <= list.size()) {
      size_t comma = list.find(',', start);
      if (comma == std::string_view::npos) comma = list.size();
      std::string_view item = list.substr(start, comma - start);
      std::optional<int64_t> value = ParseSignedInteger(item);
      if (!value) return Error(parameter.name, fmt::format("values=: \"{}\" is not an integer", item));
      if (parameter.values.size() == kMaximumValues) {
        return Error(parameter.name, fmt::format("more than {} values", kMaximumValues));
      }
      parameter.values.push_back(*value);
      start = comma + 1;
    }
    return Status::Ok();
  }

  Status ParseRange(TunableParameter& parameter, std::string_view range, std::string_view step) {
    const std::string& name = parameter.name;
    size_t dots = range.find("..");
    std::optional<int64_t> low =
        dots == std::string_view::npos ? std::nullopt : ParseSignedInteger(range.substr(0, dots));
    std::optional<int64_t> high =
        dots == std::string_view::npos ? std::nullopt : ParseSignedInteger(range.substr(dots + 2));
    if (!low || !high) return Error(name, fmt::format("range={}: expected LOW..HIGH with integers", range));
    if (*low > *high) return Error(name, fmt::format("range={}: the low end is above the high end", range));
    bool multiply = !step.empty() && step.front() == '*';
    std::optional<int64_t> factor =
        step.empty() ? std::nullopt : ParseSignedInteger(multiply ? step.substr(1) : step);
    if (!factor || (multiply && *factor < 2) || (!multiply && *factor < 1) ||
        (!multiply && step.front() == '-')) {
      return Error(name, fmt::format("step={}: expected +K (K >= 1) or *K (K >= 2)", step));
    }
    if (multiply && *low <= 0) return Error(name, fmt::format("range={} with step=*K needs LOW >= 1", range));
    for (int64_t value = *low; value <= *high;) {
      if (parameter.values.size() == kMaximumValues) {
        return Error(name, fmt::format("range={} step={}: more than {} values", range, step, kMaximumValues));
      }
      parameter.values.push_back(value);
      if (multiply ? value > std::numeric_limits<int64_t>::max() / *factor
                   : value > std::numeric_limits<int64_t>::max() - *factor) {
        break;
      }
      value = multiply ? value * *factor : value + *factor;
    }
    return Status::Ok();
  }

  Status ParseRole(TunableParameter& parameter, std::optional<std::string_view> role) {
    if (!role)
      return Error(parameter.name, "role= is missing (e.g. role=block_size; docs/tuning.md lists them)");
    std::optional<ParameterRole> parsed = ParseParameterRole(*role);
    if (!parsed) {
      std::string names;
      for (ParameterRole known : AllParameterRoles()) names += fmt::format(" {}", ParameterRoleName(known));
      return Error(parameter.name, fmt::format("role={} is not a role; expected one of:{}", *role, names));
    }
    parameter.role = *parsed;
    return Status::Ok();
  }

  Status ParseRestrict(std::string_view text) {
    if (text.empty()) return Error("", "kopt:restrict needs an expression, e.g. BLOCK_SIZE * ITEMS <= 4096");
    static constexpr std::array<std::pair<std::string_view, ComparisonOperator>, 6> kOperators = {{
        {"<=", ComparisonOperator::kLessEqual},
        {">=", ComparisonOperator::kGreaterEqual},
        {"==", ComparisonOperator::kEqual},
        {"!=", ComparisonOperator::kNotEqual},
        {"<", ComparisonOperator::kLess},
        {">", ComparisonOperator::kGreater},
    }};
    for (const auto& [symbol, comparison] : kOperators) {
      size_t at = text.find(symbol);
      if (at == std::string_view::npos) continue;
      std::string_view right = text.substr(at + symbol.size());
      if (right.find_first_of("<>=!") != std::string_view::npos) {
        return Error(
            "",
            fmt::format("kopt:restrict {}: one comparison per line (write one line per condition)", text));
      }
      declarations_.restrictions.push_back(Restriction{std::string(text),
                                                       std::string(TrimWhitespace(text.substr(0, at))), comparison,
                                                       std::string(TrimWhitespace(right)), line_});
      return Status::Ok();
    }
    return Error("", fmt::format("kopt:restrict {}: expected a comparison (<= < >= > == !=)", text));
  }

  // Every name in the restriction is a parameter or a scalar; both sides parse.
  Status CheckRestrictionNames(const Restriction& restriction) const {
    std::string unknown;
    auto lookup = [&](std::string_view name) -> std::optional<double> {
      if (std::optional<size_t> index = declarations_.Find(name)) {
        return static_cast<double>(declarations_.parameters[*index].default_value);
      }
      if (auto scalar = scalars_.find(name); scalar != scalars_.end()) return scalar->second;
      if (unknown.empty()) unknown = std::string(name);
      return std::nullopt;
    };
    for (const std::string& side : {restriction.left, restriction.right}) {
      Result<double> value = EvaluateSizeExpression(side, lookup);
      if (value.ok() || value.status().message().find("non-zero divisor") != std::string::npos) continue;
      if (!unknown.empty()) {
        return Error("",
                     fmt::format("kopt:restrict {}: \"{}\" is neither a declared parameter nor a task scalar",
                                 restriction.text, unknown));
      }
      return Error("", fmt::format("kopt:restrict {}: {}", restriction.text, value.status().message()));
    }
    return Status::Ok();
  }

  Status ResolveDefault(TunableParameter& parameter, std::string_view source) {
    line_ = parameter.line;
    directive_ = parameter.compile_option.empty() ? "tune" : "flag";
    std::optional<int64_t> guarded = GuardedDefault(source, parameter.name);
    auto explicit_default = explicit_defaults_.find(parameter.name);
    if (explicit_default != explicit_defaults_.end() && guarded && *guarded != explicit_default->second) {
      return Error(parameter.name, fmt::format("default={} but the source's #ifndef {} defines {}",
                                               explicit_default->second, parameter.name, *guarded));
    }
    std::optional<int64_t> value = explicit_default != explicit_defaults_.end()
                                       ? std::optional<int64_t>(explicit_default->second)
                                       : guarded;
    if (!value) value = parameter.values[(parameter.values.size() - 1) / 2];
    if (!std::binary_search(parameter.values.begin(), parameter.values.end(), *value)) {
      return Error(parameter.name, fmt::format("the default {} is not among the declared values", *value));
    }
    parameter.default_value = *value;
    return Status::Ok();
  }

  std::string_view file_;
  const ScalarValues& scalars_;
  int line_ = 0;
  std::string_view directive_ = "tune";
  TunableDeclarations declarations_;
  std::map<std::string, int64_t, std::less<>> explicit_defaults_;
};

// Identifier tokens of the code outside comments and outside `kopt:` lines.
std::set<std::string, std::less<>> IdentifiersOutsideComments(std::string_view source) {
  std::set<std::string, std::less<>> identifiers;
  size_t i = 0;
  while (i < source.size()) {
    if (source.compare(i, 2, "//") == 0) {
      i = source.find('\n', i);
      if (i == std::string_view::npos) break;
    } else if (source.compare(i, 2, "/*") == 0) {
      i = source.find("*/", i + 2);
      if (i == std::string_view::npos) break;
      i += 2;
    } else if (std::isalpha(static_cast<unsigned char>(source[i])) || source[i] == '_') {
      size_t start = i;
      while (i < source.size() && (std::isalnum(static_cast<unsigned char>(source[i])) || source[i] == '_'))
        ++i;
      identifiers.insert(std::string(source.substr(start, i - start)));
    } else {
      ++i;
    }
  }
  return identifiers;
}

// "#  define NAME ..." → NAME (the directive word must match).
std::optional<std::string_view> PreprocessorName(std::string_view line, std::string_view directive) {
  line = TrimWhitespace(line);
  if (line.empty() || line.front() != '#') return std::nullopt;
  line = TrimWhitespace(line.substr(1));
  if (line.substr(0, directive.size()) != directive) return std::nullopt;
  line = line.substr(directive.size());
  if (line.empty() || !std::isspace(static_cast<unsigned char>(line.front()))) return std::nullopt;
  line = TrimWhitespace(line);
  size_t end = 0;
  while (end < line.size() && (std::isalnum(static_cast<unsigned char>(line[end])) || line[end] == '_'))
    ++end;
  if (end == 0) return std::nullopt;
  return line.substr(0, end);
}

struct MacroDefinition {
  std::string name;
  int line = 0;
  bool guarded = false;  // the previous non-blank line is `#ifndef NAME`
  std::string value;     // the rest of the #define line, trimmed
};

std::vector<MacroDefinition> MacroDefinitions(std::string_view source) {
  std::vector<MacroDefinition> definitions;
  std::vector<std::string_view> lines = SplitLines(source);
  std::optional<std::string_view> open_ifndef;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (TrimWhitespace(lines[i]).empty()) continue;
    if (std::optional<std::string_view> name = PreprocessorName(lines[i], "define")) {
      std::string_view rest = TrimWhitespace(lines[i]);
      rest = TrimWhitespace(rest.substr(rest.find(*name) + name->size()));
      definitions.push_back(MacroDefinition{std::string(*name), static_cast<int>(i + 1), open_ifndef == *name,
                                            std::string(rest)});
    }
    open_ifndef = PreprocessorName(lines[i], "ifndef");
  }
  return definitions;
}

}  // namespace

ScalarValues TaskScalarValues(const TaskSpec& task) {
  ScalarValues scalars;
  for (const ScalarSpec& scalar : task.scalars) scalars[scalar.name] = scalar.AsDouble();
  return scalars;
}

std::optional<std::string> CompileFlagOf(const TunableParameter& parameter, int64_t value) {
  if (parameter.compile_option.empty()) return std::nullopt;
  size_t slot = parameter.compile_option.find("{}");
  if (slot == std::string::npos) {
    if (value == 0) return std::nullopt;
    return parameter.compile_option;
  }
  std::string flag = parameter.compile_option;
  flag.replace(slot, 2, std::to_string(value));
  return flag;
}

std::optional<size_t> TunableDeclarations::Find(std::string_view name) const {
  for (size_t i = 0; i < parameters.size(); ++i) {
    if (parameters[i].name == name) return i;
  }
  return std::nullopt;
}

Result<TunableDeclarations> ParseTunableDeclarations(std::string_view source, std::string_view file,
                                                     const ScalarValues& scalars) {
  DeclarationParser parser(file, scalars);
  std::vector<std::string_view> lines = SplitLines(source);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (std::optional<std::string_view> directive = DirectiveOf(lines[i])) {
      KOPT_RETURN_IF_ERROR(parser.ParseLine(*directive, static_cast<int>(i + 1)));
    }
  }
  KOPT_RETURN_IF_ERROR(parser.Finish(source));
  return parser.Take();
}

std::optional<int64_t> GuardedDefault(std::string_view source, std::string_view name) {
  for (const MacroDefinition& definition : MacroDefinitions(source)) {
    if (definition.name == name && definition.guarded) return ParseSignedInteger(definition.value);
  }
  return std::nullopt;
}

Status CheckDeclarationsAgainstSource(const TunableDeclarations& declarations, std::string_view source) {
  if (declarations.empty()) return Status::Ok();
  std::set<std::string, std::less<>> identifiers = IdentifiersOutsideComments(source);
  std::vector<MacroDefinition> definitions = MacroDefinitions(source);
  for (const TunableParameter& parameter : declarations.parameters) {
    if (parameter.compile_option.empty() && !identifiers.contains(parameter.name)) {
      return InvalidInput(fmt::format("{}:{}: kopt:tune {}: declared but never used in the code",
                                      declarations.file, parameter.line, parameter.name));
    }
  }
  for (const MacroDefinition& definition : definitions) {
    bool declared = declarations.Find(definition.name).has_value();
    if (declared && !definition.guarded) {
      return InvalidInput(fmt::format(
          "{}:{}: kopt:tune {}: #define {} without an #ifndef {} guard would override the tuned value",
          declarations.file, definition.line, definition.name, definition.name, definition.name));
    }
    if (!declared && definition.guarded) {
      return InvalidInput(
          fmt::format("{}:{}: {}: a guarded (#ifndef) macro that no kopt:tune declares; declare it "
                      "(kopt:tune {} values=... "
                      "role=...) or drop the guard",
                      declarations.file, definition.line, definition.name, definition.name));
    }
  }
  return Status::Ok();
}

}  // namespace kopt
