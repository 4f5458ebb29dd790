// The profile of one kernel launch, as read from Nsight Compute.
//
// Metrics are kept in ncu's base units (see core/units.h). A metric that the
// source did not contain is absent (Metric() returns nullopt), never zero.
// Launches read from one file share one MetricSchema, so a 1,000-launch export
// stores its 2,000+ metric names once.
//
// Thread safety: immutable after construction; safe to share across threads.
#pragma once

#include <cmath>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace kopt {

struct LaunchDimensions {
  long long x = 1, y = 1, z = 1;
  long long Count() const { return x * y * z; }
};

// Metric names and units of one export, with a name → column index lookup.
class MetricSchema {
 public:
  // Adds a metric column; returns its index. Duplicate names keep the first.
  int Add(std::string name, std::string base_unit);
  std::optional<int> IndexOf(std::string_view name) const;
  const std::string& Name(int index) const { return names_[index]; }
  const std::string& Unit(int index) const { return units_[index]; }
  int size() const { return static_cast<int>(names_.size()); }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
  };
  std::vector<std::string> names_;
  std::vector<std::string> units_;
  std::unordered_map<std::string, int, Hash, std::equal_to<>> index_;
};

// "(256, 1, 1)" as ncu prints block and grid sizes → dimensions; nullopt when malformed.
std::optional<LaunchDimensions> ParseLaunchDimensions(std::string_view text);

// One result of ncu's guided analysis (the details page's rule rows).
struct NcuRuleResult {
  std::string section;                              // "SourceCounters"
  std::string name;                                 // "UncoalescedGlobalAccess"
  std::string type;                                 // "OPT" (an optimization), "WRN", "INF", "ERR"
  std::string description;                          // ncu's text
  std::string speedup_type;                         // "global", "local" or ""
  std::optional<double> estimated_speedup_percent;  // ncu's estimate, % of the kernel's time
};

struct KernelLaunch {
  long long launch_id = 0;  // ncu's "ID": the launch's position among profiled launches
  long long process_id = 0;
  std::string process_name;
  std::string host_name;
  std::string kernel_name;  // demangled as ncu prints it, e.g. "saxpy(const float *, float *, float, int)"
  long long context_id = 0;
  long long stream_id = 0;
  LaunchDimensions block;
  LaunchDimensions grid;
  std::string device;              // ncu's "Device" column (the ordinal)
  std::string compute_capability;  // "9.0"

  std::shared_ptr<const MetricSchema> schema;
  std::vector<double> values;                            // aligned with schema; NaN = absent or not numeric
  std::vector<std::pair<int, std::string>> text_values;  // non-numeric cells: (column, text)
  std::vector<NcuRuleResult> ncu_rules;                  // from a details page; empty from a raw page

  // The metric's value in base units, or nullopt when absent or non-numeric.
  std::optional<double> Metric(std::string_view name) const;
  // The metric's base unit ("" when dimensionless or absent).
  std::string MetricUnit(std::string_view name) const;
  // A non-numeric cell such as device__attribute_display_name, or nullopt.
  std::optional<std::string> Text(std::string_view name) const;

  // The function name without return type, template arguments' spacing
  // differences, or parameter list: "saxpy", "ns::gemm<128>".
  std::string FunctionName() const;
};

// The function part of a demangled C++ name: drops the parameter list and any
// return type, keeps namespaces and template arguments. "void k<1>(int)" → "k<1>".
std::string FunctionNameOf(std::string_view demangled);

// A function name as a heading or a progress line shows it: the function without namespaces and its
// outer template arguments without theirs, nested arguments as "…"
// ("at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>" →
// "vectorized_elementwise_kernel<4, CUDAFunctor_add<…>>"); of the arguments, those that fit in
// kMaxShortNameWidth columns, then "…" ("cunn_SoftMaxForwardReg<float, float, float, SoftMaxForwardEpilogue,
// …>").
inline constexpr size_t kMaxShortNameWidth = 72;
std::string ShortKernelName(std::string_view function_name);

// The first entry (of a parsed SASS listing or ptxas report: anything with
// `mangled_name` and `demangled_name`) that is `function_name` mangled, or
// whose demangled FunctionNameOf equals FunctionNameOf(function_name); nullptr.
template <typename Entry>
const Entry* FindByFunctionName(const std::vector<Entry>& entries, std::string_view function_name) {
  std::string wanted = FunctionNameOf(function_name);
  for (const Entry& entry : entries) {
    if (entry.mangled_name == function_name || FunctionNameOf(entry.demangled_name) == wanted) return &entry;
  }
  return nullptr;
}

// Demangles an Itanium-ABI name ("_Z5saxpyPKfPffi"); returns the input when it
// is not a mangled name.
std::string Demangle(std::string_view mangled);

}  // namespace kopt
