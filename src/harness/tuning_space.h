// The configurations of a tunable candidate (docs/tuning.md): the cartesian
// product of its declared parameters' values (harness/tunable_declarations.h)
// less those that break a restriction, and how one configuration becomes a
// whole candidate source.
//
// A configuration is materialized by prepending one `#define NAME VALUE` line
// per parameter (and a `// kopt:config` line naming them, and `#line 1` so
// that compiler messages keep the original line numbers) to the seed file:
// the result is an ordinary candidate, so the harness, the compile cache and
// the search's transpositions work on it unchanged. ParseMaterialized
// recovers (seed source, configuration) from such a file.
//
// Keys follow Kernel Tuner's cache: the values joined by commas in
// declaration order ("256,4").
//
// Thread safety: a TuningSpace is immutable once made; its methods are const
// and may be called from several threads.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "harness/tunable_declarations.h"

namespace kopt {

// One value per parameter, in declaration order.
using Configuration = std::vector<int64_t>;

class TuningSpace {
 public:
  // Parses and checks `source` (ParseTunableDeclarations, then
  // CheckDeclarationsAgainstSource). InvalidInput for a source without any
  // kopt:tune line ("not tunable"), for any declaration error, and when the
  // restrictions exclude every configuration (the message lists them; a
  // cartesian product above `enumeration_limit` is checked by sampling).
  static Result<TuningSpace> FromSource(std::string_view source, std::string_view file,
                                        const ScalarValues& scalars, uint64_t enumeration_limit = 1 << 20);

  const TunableDeclarations& declarations() const { return declarations_; }
  const std::string& seed_source() const { return seed_source_; }
  size_t dimensions() const { return declarations_.parameters.size(); }
  // The product of the parameters' value counts (saturates at UINT64_MAX).
  uint64_t CartesianSize() const;

  // True when every value is declared and every restriction holds (a
  // restriction that divides by zero does not hold).
  bool Contains(const Configuration& configuration) const;
  // The declared defaults when they satisfy the restrictions, else the valid
  // configuration nearest to them (fewest value-index steps; ties: first in
  // enumeration order). Precondition: the space is not empty.
  Configuration Default() const;
  // Every valid configuration in mixed-radix order (the last parameter
  // varies fastest), at most `limit` of them.
  std::vector<Configuration> Enumerate(uint64_t limit) const;
  // A uniformly random valid configuration (rejection sampling, then the
  // enumeration for sparse spaces); nullopt when none was found.
  std::optional<Configuration> Sample(std::mt19937_64& generator) const;
  // The configuration `steps` value-indices away from `from` in parameter
  // `parameter` (negative: smaller values); nullopt past either end.
  std::optional<Configuration> Step(const Configuration& from, size_t parameter, int steps) const;
  // Index of the configuration's value in parameter `parameter`'s values.
  size_t ValueIndex(const Configuration& configuration, size_t parameter) const;

  std::string Key(const Configuration& configuration) const;  // "256,4"
  // InvalidInput when the key has the wrong arity or a value is not declared.
  Result<Configuration> ParseKey(std::string_view key) const;
  std::string Describe(const Configuration& configuration) const;  // "BLOCK_SIZE=256 ITEMS=4"

  // The whole candidate source of a configuration (see the file comment).
  std::string Materialize(const Configuration& configuration) const;

 private:
  bool Satisfies(const Configuration& configuration) const;  // declared values and restrictions
  std::vector<Configuration> EnumerateBySearch(uint64_t limit) const;

  TunableDeclarations declarations_;
  std::string seed_source_;
  ScalarValues scalars_;
  // Every valid configuration, in enumeration (= lexicographic) order, when
  // the cartesian product is within the enumeration limit; else empty.
  std::vector<Configuration> valid_;
  bool listed_ = false;
};

struct MaterializedSource {
  std::string seed_source;      // the file without the prelude
  Configuration configuration;  // values in the order of the `// kopt:config` line
  std::vector<std::string> names;
};

// Splits a source written by TuningSpace::Materialize; nullopt for any other text.
std::optional<MaterializedSource> ParseMaterialized(std::string_view source);

}  // namespace kopt
