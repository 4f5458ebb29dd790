#include "harness/tuning_space.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>

#include "core/text.h"
#include "harness/candidate_flags.h"
#include "harness/size_expression.h"

namespace kopt {
namespace {

constexpr std::string_view kConfigPrefix = "// kopt:config";
constexpr int kSampleAttempts = 256;

bool Compare(double left, ComparisonOperator comparison, double right) {
  switch (comparison) {
    case ComparisonOperator::kLess: return left < right;
    case ComparisonOperator::kLessEqual: return left <= right;
    case ComparisonOperator::kGreater: return left > right;
    case ComparisonOperator::kGreaterEqual: return left >= right;
    case ComparisonOperator::kEqual: return left == right;
    case ComparisonOperator::kNotEqual: return left != right;
  }
  return false;
}

// The next line of `text` from `position` (without '\n'); advances `position`.
std::string_view NextLine(std::string_view text, size_t& position) {
  size_t end = text.find('\n', position);
  if (end == std::string_view::npos) end = text.size();
  std::string_view line = text.substr(position, end - position);
  position = std::min(text.size(), end + 1);
  return line;
}

}  // namespace

Result<TuningSpace> TuningSpace::FromSource(std::string_view source, std::string_view file,
                                            const ScalarValues& scalars, uint64_t enumeration_limit) {
  KOPT_ASSIGN_OR_RETURN(TunableDeclarations declarations, ParseTunableDeclarations(source, file, scalars));
  if (declarations.empty()) {
    return InvalidInput(fmt::format("{}: not tunable: no kopt:tune line (docs/tuning.md)", file));
  }
  KOPT_RETURN_IF_ERROR(CheckDeclarationsAgainstSource(declarations, source));
  TuningSpace space;
  space.declarations_ = std::move(declarations);
  space.seed_source_ = std::string(source);
  space.scalars_ = scalars;
  bool empty = false;
  if (space.CartesianSize() <= enumeration_limit) {
    space.valid_ = space.EnumerateBySearch(enumeration_limit);
    space.listed_ = true;
    empty = space.valid_.empty();
  } else {
    std::mt19937_64 generator(0);
    empty = !space.Sample(generator).has_value();
  }
  if (empty) {
    std::string listed;
    for (const Restriction& restriction : space.declarations_.restrictions) {
      listed += fmt::format("\n  line {}: {}", restriction.line, restriction.text);
    }
    return InvalidInput(fmt::format("{}: the restrictions exclude every one of the {} configurations:{}",
                                    file, space.CartesianSize(), listed));
  }
  return space;
}

uint64_t TuningSpace::CartesianSize() const {
  uint64_t size = 1;
  for (const TunableParameter& parameter : declarations_.parameters) {
    uint64_t count = parameter.values.size();
    if (size > std::numeric_limits<uint64_t>::max() / count) return std::numeric_limits<uint64_t>::max();
    size *= count;
  }
  return size;
}

bool TuningSpace::Contains(const Configuration& configuration) const {
  if (listed_) return std::binary_search(valid_.begin(), valid_.end(), configuration);
  return Satisfies(configuration);
}

bool TuningSpace::Satisfies(const Configuration& configuration) const {
  if (configuration.size() != dimensions()) return false;
  for (size_t i = 0; i < dimensions(); ++i) {
    const std::vector<int64_t>& values = declarations_.parameters[i].values;
    if (!std::binary_search(values.begin(), values.end(), configuration[i])) return false;
  }
  auto lookup = [&](std::string_view name) -> std::optional<double> {
    if (std::optional<size_t> index = declarations_.Find(name))
      return static_cast<double>(configuration[*index]);
    if (auto scalar = scalars_.find(name); scalar != scalars_.end()) return scalar->second;
    return std::nullopt;
  };
  for (const Restriction& restriction : declarations_.restrictions) {
    Result<double> left = EvaluateSizeExpression(restriction.left, lookup);
    Result<double> right = EvaluateSizeExpression(restriction.right, lookup);
    if (!left.ok() || !right.ok() || !Compare(*left, restriction.comparison, *right)) return false;
  }
  return true;
}

Configuration TuningSpace::Default() const {
  Configuration defaults;
  for (const TunableParameter& parameter : declarations_.parameters)
    defaults.push_back(parameter.default_value);
  if (Contains(defaults)) return defaults;
  std::optional<Configuration> nearest;
  int64_t nearest_distance = std::numeric_limits<int64_t>::max();
  for (const Configuration& candidate : Enumerate(1 << 16)) {
    int64_t distance = 0;
    for (size_t i = 0; i < dimensions(); ++i) {
      distance += std::llabs(static_cast<int64_t>(ValueIndex(candidate, i)) -
                             static_cast<int64_t>(ValueIndex(defaults, i)));
    }
    if (distance < nearest_distance) {
      nearest_distance = distance;
      nearest = candidate;
    }
  }
  return nearest.value_or(defaults);
}

std::vector<Configuration> TuningSpace::Enumerate(uint64_t limit) const {
  if (listed_)
    return std::vector<Configuration>(valid_.begin(),
                                      valid_.begin() + std::min<uint64_t>(limit, valid_.size()));
  return EnumerateBySearch(limit);
}

std::vector<Configuration> TuningSpace::EnumerateBySearch(uint64_t limit) const {
  std::vector<Configuration> valid;
  std::vector<size_t> index(dimensions(), 0);
  Configuration configuration(dimensions());
  while (valid.size() < limit) {
    for (size_t i = 0; i < dimensions(); ++i) configuration[i] = declarations_.parameters[i].values[index[i]];
    if (Satisfies(configuration)) valid.push_back(configuration);
    size_t digit = dimensions();
    while (digit > 0) {
      --digit;
      if (++index[digit] < declarations_.parameters[digit].values.size()) break;
      index[digit] = 0;
      if (digit == 0) return valid;
    }
    if (dimensions() == 0) return valid;
  }
  return valid;
}

std::optional<Configuration> TuningSpace::Sample(std::mt19937_64& generator) const {
  Configuration configuration(dimensions());
  for (int attempt = 0; attempt < kSampleAttempts; ++attempt) {
    for (size_t i = 0; i < dimensions(); ++i) {
      const std::vector<int64_t>& values = declarations_.parameters[i].values;
      configuration[i] = values[std::uniform_int_distribution<size_t>(0, values.size() - 1)(generator)];
    }
    if (Contains(configuration)) return configuration;
  }
  if (listed_ && valid_.empty()) return std::nullopt;
  std::vector<Configuration> all = listed_ ? valid_ : EnumerateBySearch(1 << 16);
  if (all.empty()) return std::nullopt;
  return all[std::uniform_int_distribution<size_t>(0, all.size() - 1)(generator)];
}

std::optional<Configuration> TuningSpace::Step(const Configuration& from, size_t parameter, int steps) const {
  const std::vector<int64_t>& values = declarations_.parameters[parameter].values;
  int64_t index = static_cast<int64_t>(ValueIndex(from, parameter)) + steps;
  if (index < 0 || index >= static_cast<int64_t>(values.size())) return std::nullopt;
  Configuration moved = from;
  moved[parameter] = values[static_cast<size_t>(index)];
  return moved;
}

size_t TuningSpace::ValueIndex(const Configuration& configuration, size_t parameter) const {
  const std::vector<int64_t>& values = declarations_.parameters[parameter].values;
  auto found = std::lower_bound(values.begin(), values.end(), configuration[parameter]);
  return static_cast<size_t>(std::min<std::ptrdiff_t>(found - values.begin(), values.size() - 1));
}

std::string TuningSpace::Key(const Configuration& configuration) const {
  return fmt::format("{}", fmt::join(configuration, ","));
}

Result<Configuration> TuningSpace::ParseKey(std::string_view key) const {
  Configuration configuration;
  size_t start = 0;
  while (start <= key.size()) {
    size_t comma = key.find(',', start);
    if (comma == std::string_view::npos) comma = key.size();
    std::optional<int64_t> value = ParseSignedInteger(key.substr(start, comma - start));
    if (!value) return InvalidInput(fmt::format("configuration key \"{}\": not a list of integers", key));
    configuration.push_back(*value);
    start = comma + 1;
  }
  if (configuration.size() != dimensions()) {
    return InvalidInput(fmt::format("configuration key \"{}\": {} values for {} parameters", key,
                                    configuration.size(), dimensions()));
  }
  for (size_t i = 0; i < dimensions(); ++i) {
    const TunableParameter& parameter = declarations_.parameters[i];
    if (!std::binary_search(parameter.values.begin(), parameter.values.end(), configuration[i])) {
      return InvalidInput(fmt::format("configuration key \"{}\": {} = {} is not a declared value", key,
                                      parameter.name, configuration[i]));
    }
  }
  return configuration;
}

std::string TuningSpace::Describe(const Configuration& configuration) const {
  std::string text;
  for (size_t i = 0; i < dimensions() && i < configuration.size(); ++i) {
    text += fmt::format("{}{}={}", i == 0 ? "" : " ", declarations_.parameters[i].name, configuration[i]);
  }
  return text;
}

std::string TuningSpace::Materialize(const Configuration& configuration) const {
  std::string prelude = fmt::format("{} {}\n", kConfigPrefix, Describe(configuration));
  std::vector<std::string> flags;
  for (size_t i = 0; i < dimensions(); ++i) {
    prelude += fmt::format("#define {} {}\n", declarations_.parameters[i].name, configuration[i]);
    if (std::optional<std::string> flag = CompileFlagOf(declarations_.parameters[i], configuration[i])) {
      flags.push_back(std::move(*flag));
    }
  }
  if (!flags.empty()) prelude += CandidateFlagsLine(flags) + "\n";
  return prelude + "#line 1\n" + seed_source_;
}

std::optional<MaterializedSource> ParseMaterialized(std::string_view source) {
  size_t position = 0;
  std::string_view first = NextLine(source, position);
  if (first.substr(0, kConfigPrefix.size()) != kConfigPrefix) return std::nullopt;
  MaterializedSource parsed;
  std::string_view rest = first.substr(kConfigPrefix.size());
  size_t start = 0;
  while (start < rest.size()) {
    size_t space = rest.find(' ', start);
    if (space == std::string_view::npos) space = rest.size();
    std::string_view pair = rest.substr(start, space - start);
    start = space + 1;
    if (pair.empty()) continue;
    size_t equals = pair.find('=');
    if (equals == std::string_view::npos) return std::nullopt;
    std::optional<int64_t> value = ParseSignedInteger(pair.substr(equals + 1));
    if (!value) return std::nullopt;
    parsed.names.emplace_back(pair.substr(0, equals));
    parsed.configuration.push_back(*value);
  }
  for (size_t i = 0; i < parsed.names.size(); ++i) {
    if (NextLine(source, position) !=
        fmt::format("#define {} {}", parsed.names[i], parsed.configuration[i])) {
      return std::nullopt;
    }
  }
  std::string_view after_defines = NextLine(source, position);
  if (after_defines.substr(0, 12) == "// kopt:nvcc") after_defines = NextLine(source, position);
  if (after_defines != "#line 1") return std::nullopt;
  parsed.seed_source = std::string(source.substr(position));
  return parsed;
}

}  // namespace kopt
