// Parser of libkopt_timeline.so's JSON-lines timeline. See launch_trace.h.
#include "profile/launch_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

#include "core/file_io.h"
#include "core/text.h"

namespace kopt {
namespace {

using nlohmann::json;

// Where a line is, for messages: "timeline.jsonl line 3".
struct LineRef {
  std::string_view file;
  size_t line = 0;
  std::string Where() const { return fmt::format("{} line {}", file, line); }
};

Status FieldError(const LineRef& ref, std::string_view field, std::string_view expected) {
  return InvalidInput(fmt::format("{}: field \"{}\": expected {}", ref.Where(), field, expected));
}

Result<uint64_t> UnsignedField(const json& object, std::string_view field, const LineRef& ref) {
  auto found = object.find(field);
  if (found == object.end() || !found->is_number_unsigned())
    return FieldError(ref, field, "a non-negative integer");
  return found->get<uint64_t>();
}

Result<long long> CountField(const json& object, std::string_view field, const LineRef& ref) {
  KOPT_ASSIGN_OR_RETURN(uint64_t value, UnsignedField(object, field, ref));
  if (value > static_cast<uint64_t>(INT64_MAX)) return FieldError(ref, field, "an integer below 2^63");
  return static_cast<long long>(value);
}

// A count field that may be absent (0 then): fields older writers did not have.
Result<long long> OptionalCountField(const json& object, std::string_view field, const LineRef& ref) {
  if (!object.contains(field)) return 0LL;
  return CountField(object, field, ref);
}

Result<std::string> TextField(const json& object, std::string_view field, const LineRef& ref) {
  auto found = object.find(field);
  if (found == object.end() || !found->is_string()) return FieldError(ref, field, "a string");
  return found->get<std::string>();
}

Result<LaunchDimensions> DimensionsField(const json& object, std::string_view field, const LineRef& ref) {
  auto found = object.find(field);
  bool shaped =
      found != object.end() && found->is_array() && found->size() == 3 &&
      std::all_of(found->begin(), found->end(), [](const json& v) { return v.is_number_integer(); });
  if (!shaped) return FieldError(ref, field, "an array of three integers [x,y,z]");
  LaunchDimensions dimensions{(*found)[0].get<long long>(), (*found)[1].get<long long>(),
                              (*found)[2].get<long long>()};
  if (dimensions.x < 1 || dimensions.y < 1 || dimensions.z < 1)
    return FieldError(ref, field, "three integers of at least 1");
  return dimensions;
}

// start and end, end not before start.
Status ReadInterval(const json& object, const LineRef& ref, uint64_t& start, uint64_t& end) {
  KOPT_ASSIGN_OR_RETURN(start, UnsignedField(object, "start", ref));
  KOPT_ASSIGN_OR_RETURN(end, UnsignedField(object, "end", ref));
  if (end < start)
    return InvalidInput(fmt::format("{}: \"end\" ({}) is before \"start\" ({})", ref.Where(), end, start));
  return Status::Ok();
}

// device, context, stream and correlation of a GPU activity.
Status ReadPlacement(const json& object, const LineRef& ref, TraceActivity& activity) {
  KOPT_RETURN_IF_ERROR(ReadInterval(object, ref, activity.start_ns, activity.end_ns));
  KOPT_ASSIGN_OR_RETURN(activity.device, CountField(object, "device", ref));
  KOPT_ASSIGN_OR_RETURN(activity.context, CountField(object, "context", ref));
  KOPT_ASSIGN_OR_RETURN(activity.stream, CountField(object, "stream", ref));
  KOPT_ASSIGN_OR_RETURN(activity.correlation, CountField(object, "correlation", ref));
  return Status::Ok();
}

Result<TraceActivity> ReadKernel(const json& object, const LineRef& ref) {
  TraceActivity kernel;
  kernel.kind = TraceActivityKind::kKernel;
  KOPT_ASSIGN_OR_RETURN(kernel.name, TextField(object, "name", ref));
  if (kernel.name.empty()) return FieldError(ref, "name", "a non-empty kernel name");
  KOPT_RETURN_IF_ERROR(ReadPlacement(object, ref, kernel));
  KOPT_ASSIGN_OR_RETURN(kernel.grid, DimensionsField(object, "grid", ref));
  KOPT_ASSIGN_OR_RETURN(kernel.block, DimensionsField(object, "block", ref));
  KOPT_ASSIGN_OR_RETURN(kernel.registers, OptionalCountField(object, "registers", ref));
  KOPT_ASSIGN_OR_RETURN(kernel.shared_static_bytes, OptionalCountField(object, "shared_static", ref));
  KOPT_ASSIGN_OR_RETURN(kernel.shared_dynamic_bytes, OptionalCountField(object, "shared_dynamic", ref));
  return kernel;
}

Result<TraceActivity> ReadTransfer(const json& object, const LineRef& ref, TraceActivityKind kind) {
  TraceActivity transfer;
  transfer.kind = kind;
  if (kind == TraceActivityKind::kMemcpy) {
    KOPT_ASSIGN_OR_RETURN(transfer.name, TextField(object, "copy", ref));
  }
  KOPT_ASSIGN_OR_RETURN(transfer.bytes, CountField(object, "bytes", ref));
  KOPT_RETURN_IF_ERROR(ReadPlacement(object, ref, transfer));
  return transfer;
}

Result<TraceApiCall> ReadApiCall(const json& object, const LineRef& ref) {
  TraceApiCall call;
  KOPT_ASSIGN_OR_RETURN(call.name, TextField(object, "name", ref));
  KOPT_RETURN_IF_ERROR(ReadInterval(object, ref, call.start_ns, call.end_ns));
  KOPT_ASSIGN_OR_RETURN(call.thread, CountField(object, "thread", ref));
  KOPT_ASSIGN_OR_RETURN(call.correlation, CountField(object, "correlation", ref));
  return call;
}

Result<json> ParseObjectLine(std::string_view line, const LineRef& ref) {
  json object = json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
  if (object.is_discarded() || !object.is_object())
    return InvalidInput(fmt::format("{}: expected one JSON object per line", ref.Where()));
  return object;
}

Status ReadHeader(const json& object, const LineRef& ref, LaunchTrace& trace) {
  auto format = object.find("format");
  if (format == object.end() || *format != "kopt-timeline")
    return InvalidInput(fmt::format(
        "{}: not a kopt launch timeline (the first line must be {{\"format\":\"kopt-timeline\",…}})",
        ref.Where()));
  KOPT_ASSIGN_OR_RETURN(uint64_t version, UnsignedField(object, "version", ref));
  if (version != kLaunchTraceVersion)
    return InvalidInput(fmt::format("{}: timeline version {}; this kopt reads version {}", ref.Where(),
                                    version, kLaunchTraceVersion));
  auto unit = object.find("time_unit");
  if (unit == object.end() || !unit->is_string() || *unit != "ns")
    return FieldError(ref, "time_unit", "\"ns\"");
  KOPT_ASSIGN_OR_RETURN(trace.process_id, OptionalCountField(object, "pid", ref));
  return Status::Ok();
}

// One record line into `trace`; `ended` is set by the end line.
Status ReadRecord(const json& object, const LineRef& ref, LaunchTrace& trace, bool& ended) {
  KOPT_ASSIGN_OR_RETURN(std::string kind, TextField(object, "kind", ref));
  if (kind == "kernel") {
    KOPT_ASSIGN_OR_RETURN(TraceActivity kernel, ReadKernel(object, ref));
    trace.activities.push_back(std::move(kernel));
  } else if (kind == "memcpy" || kind == "memset") {
    TraceActivityKind activity_kind =
        kind == "memcpy" ? TraceActivityKind::kMemcpy : TraceActivityKind::kMemset;
    KOPT_ASSIGN_OR_RETURN(TraceActivity transfer, ReadTransfer(object, ref, activity_kind));
    trace.activities.push_back(std::move(transfer));
  } else if (kind == "api") {
    KOPT_ASSIGN_OR_RETURN(TraceApiCall call, ReadApiCall(object, ref));
    trace.api_calls.push_back(std::move(call));
  } else if (kind == "end") {
    KOPT_ASSIGN_OR_RETURN(trace.dropped_records, CountField(object, "dropped", ref));
    ended = true;
  }
  return Status::Ok();  // other kinds: written by a later library version, skipped
}

template <typename Record>
void SortByStart(std::vector<Record>& records) {
  std::stable_sort(records.begin(), records.end(),
                   [](const Record& a, const Record& b) { return a.start_ns < b.start_ns; });
}

}  // namespace

std::string_view TraceActivityKindName(TraceActivityKind kind) {
  switch (kind) {
    case TraceActivityKind::kKernel: return "kernel";
    case TraceActivityKind::kMemcpy: return "memcpy";
    case TraceActivityKind::kMemset: return "memset";
  }
  return "kernel";
}

long long LaunchTrace::KernelCount() const {
  return std::count_if(activities.begin(), activities.end(),
                       [](const TraceActivity& a) { return a.kind == TraceActivityKind::kKernel; });
}

Result<LaunchTrace> ParseLaunchTrace(std::string_view text, std::string_view file_name) {
  LaunchTrace trace;
  trace.files.emplace_back(file_name);
  bool header_seen = false, ended = false;
  size_t line_number = 0, records = 0;
  for (std::string_view line : SplitLines(text)) {
    ++line_number;
    line = TrimWhitespace(line);
    if (line.empty()) continue;
    LineRef ref{file_name, line_number};
    if (ended)
      return InvalidInput(
          fmt::format("{}: a record after the \"end\" line (two timelines in one file?)", ref.Where()));
    KOPT_ASSIGN_OR_RETURN(json object, ParseObjectLine(line, ref));
    if (!header_seen) {
      KOPT_RETURN_IF_ERROR(ReadHeader(object, ref, trace));
      header_seen = true;
      continue;
    }
    if (++records > kMaxTraceRecords)
      return InvalidInput(fmt::format("{}: more than {} records", ref.Where(), kMaxTraceRecords));
    KOPT_RETURN_IF_ERROR(ReadRecord(object, ref, trace, ended));
  }
  if (!header_seen)
    return InvalidInput(fmt::format("{}: empty; expected a kopt launch timeline (JSON lines)", file_name));
  trace.complete = ended;
  SortByStart(trace.activities);
  SortByStart(trace.api_calls);
  return trace;
}

const KernelTraceSummary* TraceSummary::Find(std::string_view function_name) const {
  for (const KernelTraceSummary& kernel : kernels) {
    if (kernel.function_name == function_name) return &kernel;
  }
  return nullptr;
}

TraceSummary SummarizeLaunchTrace(const LaunchTrace& trace) {
  TraceSummary summary;
  std::unordered_map<long long, double> host_call_ns;  // correlation → duration
  for (const TraceApiCall& call : trace.api_calls)
    host_call_ns.emplace(call.correlation, static_cast<double>(call.end_ns - call.start_ns));
  std::unordered_map<std::string, size_t> index;  // recorded name → kernels slot
  std::vector<std::vector<double>> gaps;          // per slot
  std::vector<std::set<std::tuple<long long, long long, long long, long long, long long, long long>>> shapes;
  std::unordered_map<long long, uint64_t> busy_until;  // device → latest end so far
  uint64_t first_start = 0, last_end = 0;
  bool any = false;
  for (const TraceActivity& activity : trace.activities) {
    auto [busy, first_on_device] = busy_until.try_emplace(activity.device, activity.end_ns);
    double gap = -1;  // none: the device's first activity
    if (!first_on_device) {
      gap = activity.start_ns > busy->second ? static_cast<double>(activity.start_ns - busy->second) : 0;
      if (activity.start_ns > busy->second)
        summary.gpu_busy_ns += activity.DurationNs();
      else if (activity.end_ns > busy->second)
        summary.gpu_busy_ns += static_cast<double>(activity.end_ns - busy->second);
      busy->second = std::max(busy->second, activity.end_ns);
    } else {
      summary.gpu_busy_ns += activity.DurationNs();
    }
    first_start = any ? std::min(first_start, activity.start_ns) : activity.start_ns;
    last_end = any ? std::max(last_end, activity.end_ns) : activity.end_ns;
    any = true;
    if (activity.kind == TraceActivityKind::kMemcpy) {
      ++summary.memcpy_count;
      summary.memcpy_bytes += static_cast<double>(activity.bytes);
      summary.memcpy_ns += activity.DurationNs();
      continue;
    }
    if (activity.kind == TraceActivityKind::kMemset) {
      ++summary.memset_count;
      continue;
    }
    auto [slot, added] = index.try_emplace(activity.name, summary.kernels.size());
    if (added) {
      KernelTraceSummary kernel;
      kernel.kernel_name = activity.name;
      kernel.function_name = FunctionNameOf(Demangle(activity.name));
      summary.kernels.push_back(std::move(kernel));
      gaps.emplace_back();
      shapes.emplace_back();
    }
    KernelTraceSummary& kernel = summary.kernels[slot->second];
    double duration = activity.DurationNs();
    kernel.minimum_duration_ns =
        kernel.launches == 0 ? duration : std::min(kernel.minimum_duration_ns, duration);
    kernel.maximum_duration_ns = std::max(kernel.maximum_duration_ns, duration);
    kernel.total_duration_ns += duration;
    ++kernel.launches;
    if (gap >= 0) {
      gaps[slot->second].push_back(gap);
      kernel.total_gap_ns += gap;
      ++kernel.gaps;
    }
    if (auto call = host_call_ns.find(activity.correlation); call != host_call_ns.end()) {
      ++kernel.host_calls;
      kernel.total_host_call_ns += call->second;
    }
    shapes[slot->second].emplace(activity.grid.x, activity.grid.y, activity.grid.z, activity.block.x,
                                 activity.block.y, activity.block.z);
  }
  for (size_t slot = 0; slot < summary.kernels.size(); ++slot) {
    summary.kernels[slot].configurations = static_cast<long long>(shapes[slot].size());
    std::vector<double>& values = gaps[slot];
    if (values.empty()) continue;
    auto middle = values.begin() + static_cast<long>((values.size() - 1) / 2);  // the lower median
    std::nth_element(values.begin(), middle, values.end());
    summary.kernels[slot].median_gap_ns = *middle;
  }
  summary.span_ns = any ? static_cast<double>(last_end - first_start) : 0;
  return summary;
}

void MergeLaunchTrace(LaunchTrace& trace, LaunchTrace other) {
  auto merge = [](auto& into, auto& from) {
    size_t middle = into.size();
    into.insert(into.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
    std::inplace_merge(into.begin(), into.begin() + middle, into.end(),
                       [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; });
  };
  merge(trace.activities, other.activities);
  merge(trace.api_calls, other.api_calls);
  trace.complete = trace.complete && other.complete;
  trace.dropped_records += other.dropped_records;
  trace.files.insert(trace.files.end(), other.files.begin(), other.files.end());
}

Result<LaunchTrace> ReadLaunchTraceFiles(const std::vector<std::string>& paths) {
  if (paths.empty()) return InvalidInput("no launch timeline file to read");
  std::optional<LaunchTrace> merged;
  for (const std::string& path : paths) {
    KOPT_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path));
    KOPT_ASSIGN_OR_RETURN(LaunchTrace trace, ParseLaunchTrace(text, path));
    if (merged) {
      MergeLaunchTrace(*merged, std::move(trace));
    } else {
      merged = std::move(trace);
    }
  }
  return std::move(*merged);
}

std::vector<std::string> FindLaunchTraceFiles(const std::string& directory) {
  std::vector<std::string> paths;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(directory, error)) {
    std::string name = entry.path().filename().string();
    if (entry.is_regular_file(error) && name.starts_with("timeline") && name.ends_with(".jsonl"))
      paths.push_back(entry.path().string());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

}  // namespace kopt
