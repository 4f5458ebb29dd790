#include "agents/evidence_tools.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "agents/evidence_digest.h"
#include "core/quantity_format.h"
#include "llm/tool_json.h"

namespace kopt::agents {
namespace {

using nlohmann::json;

constexpr const char* kProfileProperty =
    R"("profile":{"type":"integer","description":"the profile's index in list_kernels (with two: 0 = before, 1 = after); default 0"})";
constexpr const char* kKernelProperty =
    R"("kernel":{"type":"string","description":"the kernel's index in list_kernels, or a part of its name"})";

ToolAnswer Error(std::string text) {
  return {"error: " + std::move(text), true};
}

const EvidenceProfile* ProfileOf(const AskEvidence& evidence, const json& arguments, std::string& error) {
  int index = arguments.contains("profile") && arguments["profile"].is_number_integer()
                  ? arguments["profile"].get<int>()
                  : 0;
  if (index < 0 || static_cast<size_t>(index) >= evidence.profiles.size()) {
    error = fmt::format("profile {} does not exist (0..{})", index, evidence.profiles.size() - 1);
    return nullptr;
  }
  return &evidence.profiles[static_cast<size_t>(index)];
}

// The kernel named by "kernel": an index, else the first whose name contains the text.
const KernelDiagnosis* KernelOf(const EvidenceProfile& profile, const json& arguments, std::string& error) {
  const std::vector<KernelDiagnosis>& kernels = profile.diagnosis->kernels;
  if (kernels.empty()) {
    error = "the profile has no diagnosed kernel";
    return nullptr;
  }
  if (!arguments.contains("kernel")) return &kernels.front();
  std::string wanted =
      arguments["kernel"].is_string() ? arguments["kernel"].get<std::string>() : arguments["kernel"].dump();
  if (!wanted.empty() && wanted.size() <= 9 && std::all_of(wanted.begin(), wanted.end(), ::isdigit)) {
    size_t index = std::stoul(wanted);
    if (index < kernels.size()) return &kernels[index];
  }
  for (const KernelDiagnosis& kernel : kernels) {
    if (kernel.kernel_name.find(wanted) != std::string::npos) return &kernel;
  }
  error = fmt::format("no kernel \"{}\" (list_kernels names them)", wanted);
  return nullptr;
}

const KernelLaunch* LaunchOf(const EvidenceProfile& profile, const KernelDiagnosis& kernel) {
  for (const KernelLaunch& launch : profile.profile->launches) {
    if (launch.launch_id == kernel.launch_id) return &launch;
  }
  return nullptr;
}

std::string KernelLine(size_t index, const KernelDiagnosis& kernel) {
  std::string time = kernel.launches.total_duration_ns
                         ? FormatDuration(*kernel.launches.total_duration_ns, QuantityStyle::kTrimmed)
                         : "duration unknown";
  std::string top = kernel.findings.empty() ? "no finding" : kernel.findings.front().tool;
  return fmt::format("[{}] {}: {} launch(es), {} in all, {}, top finding {}\n", index, kernel.function_name,
                     kernel.launches.count, time, BottleneckClassName(kernel.roofline.bottleneck), top);
}

std::string ListKernels(const AskEvidence& evidence) {
  std::string out;
  for (size_t p = 0; p < evidence.profiles.size(); ++p) {
    const EvidenceProfile& profile = evidence.profiles[p];
    out += fmt::format("profile {} ({}): {}, {}\n", p, profile.label, profile.diagnosis->source,
                       profile.diagnosis->device_name);
    for (size_t k = 0; k < profile.diagnosis->kernels.size(); ++k) {
      out += KernelLine(k, profile.diagnosis->kernels[k]);
    }
  }
  return out;
}

// One line per program: its kernels and their time.
std::string ListPrograms(const AskEvidence& evidence) {
  std::string out;
  for (size_t p = 0; p < evidence.profiles.size(); ++p) {
    const Diagnosis& diagnosis = *evidence.profiles[p].diagnosis;
    double total_ns = 0;
    for (const KernelDiagnosis& kernel : diagnosis.kernels)
      total_ns += kernel.launches.total_duration_ns.value_or(0);
    out += fmt::format("profile {} ({}): {}, {}, {} kernel(s), {} of kernel time\n", p,
                       evidence.profiles[p].label, diagnosis.source, diagnosis.device_name,
                       diagnosis.kernels.size(), FormatDuration(total_ns, QuantityStyle::kTrimmed));
  }
  return out;
}

size_t KernelCount(const AskEvidence& evidence) {
  size_t count = 0;
  for (const EvidenceProfile& profile : evidence.profiles) count += profile.diagnosis->kernels.size();
  return count;
}

// The evidence digest of one kernel: its stage-1 numbers, stalls, findings and hot instructions.
ToolAnswer ReadFindings(const EvidenceProfile& profile, const KernelDiagnosis& kernel, EvidenceSet& shown) {
  Diagnosis one = *profile.diagnosis;
  one.kernels = {kernel};
  one.narrative.reset();
  DigestInputs inputs{&one, HotSpotsFromProfile(*profile.profile, one), "", ""};
  EvidenceSet digest_evidence = BuildEvidenceSet(inputs);
  for (const EvidenceValue& value : digest_evidence.values()) shown.Add(value.label, value.value, value.unit);
  return {RenderEvidenceDigest(inputs), false};
}

ToolAnswer ReadMetrics(const EvidenceProfile& profile, const KernelDiagnosis& kernel, const json& arguments,
                       EvidenceSet& shown) {
  const KernelLaunch* launch = LaunchOf(profile, kernel);
  if (launch == nullptr || !launch->schema) return Error("the diagnosed launch has no metrics");
  std::string contains = arguments.contains("contains") && arguments["contains"].is_string()
                             ? arguments["contains"].get<std::string>()
                             : "";
  std::string out = fmt::format("metrics of launch {} ({}), base units, containing \"{}\":\n",
                                launch->launch_id, kernel.function_name, contains);
  size_t listed = 0, matched = 0;
  for (int column = 0; column < launch->schema->size(); ++column) {
    const std::string& name = launch->schema->Name(column);
    if (!contains.empty() && name.find(contains) == std::string::npos) continue;
    std::optional<double> value = launch->Metric(name);
    if (!value) continue;
    ++matched;
    if (listed >= kMaxMetricLines) continue;
    const std::string& unit = launch->schema->Unit(column);
    out += fmt::format("{} = {} {}\n", name, FormatNumber(*value, QuantityStyle::kTrimmed), unit);
    shown.Add(name, *value, unit);
    ++listed;
  }
  if (matched == 0) return Error(fmt::format("no numeric metric contains \"{}\"", contains));
  if (matched > listed) out += fmt::format("({} more match: narrow \"contains\")\n", matched - listed);
  return {out, false};
}

ToolAnswer ReadSass(const EvidenceProfile& profile, const KernelDiagnosis& kernel, EvidenceSet& shown) {
  Diagnosis one = *profile.diagnosis;
  one.kernels = {kernel};
  std::vector<KernelHotSpots> spots = HotSpotsFromProfile(*profile.profile, one, 24);
  if (spots.empty() || spots.front().instructions.empty()) {
    return Error("no ncu source page for this kernel: no per-instruction stall samples");
  }
  std::string out =
      fmt::format("hottest SASS instructions of {} (share of stall samples):\n", kernel.function_name);
  for (const HotInstruction& instruction : spots.front().instructions) {
    out += fmt::format("0x{:04x} {}: {}\n", instruction.offset, instruction.sass,
                       FormatFraction(instruction.stall_share, QuantityStyle::kTrimmed));
    shown.Add("stall share of 0x" + fmt::format("{:04x}", instruction.offset), instruction.stall_share,
              "fraction");
    shown.Add("SASS offset", static_cast<double>(instruction.offset), "offset");
  }
  return {out, false};
}

ToolAnswer ReadSource(const AskEvidence& evidence, const json& arguments, EvidenceSet& shown) {
  if (evidence.source_text.empty()) return Error("no kernel source was given (kopt ask FILE.cu or --source)");
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t end; (end = evidence.source_text.find('\n', start)) != std::string::npos; start = end + 1) {
    lines.push_back(evidence.source_text.substr(start, end - start));
  }
  if (start < evidence.source_text.size()) lines.push_back(evidence.source_text.substr(start));
  // Line numbers in 64 bits, clamped to the file before any arithmetic (untrusted values).
  auto line_argument = [&](const char* name, long long fallback) {
    return arguments.contains(name) && arguments[name].is_number_integer() ? arguments[name].get<long long>()
                                                                           : fallback;
  };
  long long count = static_cast<long long>(lines.size());
  long long first_wanted = std::clamp(line_argument("first_line", 1), 1LL, count + 1);
  long long last_wanted =
      std::clamp(line_argument("last_line", first_wanted + kMaxSourceLinesPerRead - 1), 0LL, count);
  int first = static_cast<int>(first_wanted);
  int last = static_cast<int>(std::min(last_wanted, first_wanted + kMaxSourceLinesPerRead - 1));
  if (first > last) return Error(fmt::format("the source has {} lines", lines.size()));
  std::string out = fmt::format("{} lines {}-{} of {}:\n", evidence.source_file, first, last, lines.size());
  for (int line = first; line <= last; ++line) {
    out += fmt::format("{:4} | {}\n", line, lines[static_cast<size_t>(line - 1)]);
    shown.Add(evidence.source_file + " line", line, "line");
    shown.AddNumbersIn(fmt::format("{} line {}", evidence.source_file, line),
                       lines[static_cast<size_t>(line - 1)]);
  }
  return {out, false};
}

std::string Definition(const char* properties) {
  return fmt::format(R"({{"type":"object","properties":{{{}}}}})", properties);
}

}  // namespace

std::vector<llm::ToolDefinition> EvidenceToolDefinitions(const AskEvidence& evidence) {
  std::string profile_and_kernel = std::string(kProfileProperty) + "," + kKernelProperty;
  std::vector<llm::ToolDefinition> tools = {
      {"list_kernels",
       "The profiled kernels of every profile: launches, total time, bottleneck class, top finding.",
       Definition("")},
      {"read_findings",
       "One kernel's diagnosis: roofline numbers, stall reasons, every finding with its evidence, gain and "
       "recommendations, the hottest SASS instructions.",
       Definition(profile_and_kernel.c_str())},
      {"read_metrics",
       "The raw ncu metrics of a kernel's diagnosed launch (base units) whose name contains a text, at most "
       "60.",
       Definition(
           (profile_and_kernel +
            R"(,"contains":{"type":"string","description":"part of the metric name, e.g. dram__throughput"})")
               .c_str())},
      {"read_sass",
       "The SASS instructions of a kernel with the most stall samples (needs the ncu source page).",
       Definition(profile_and_kernel.c_str())},
  };
  if (!evidence.source_text.empty()) {
    tools.push_back({"read_source", "Lines of the kernel source, numbered (at most 80 per call).",
                     Definition(R"("first_line":{"type":"integer"},"last_line":{"type":"integer"})")});
  }
  if (!evidence.plan.empty()) {
    tools.push_back({"read_plan",
                     "The plan over the programs: where the GPU time goes, the findings ranked by the "
                     "whole-program time they save (Amdahl), kernels grouped by root cause.",
                     Definition("")});
  }
  if (!evidence.comparison.empty()) {
    tools.push_back({"compare",
                     "The comparison of the two profiles: time change attributed to its causes, findings "
                     "resolved and introduced, moved metrics.",
                     Definition("")});
  }
  return tools;
}

ToolAnswer ExecuteEvidenceTool(const AskEvidence& evidence, const llm::ToolCall& call, EvidenceSet& shown) {
  json arguments = llm::ObjectOrEmpty(call.arguments);
  if (call.name == "list_kernels") {
    std::string out = ListKernels(evidence);
    shown.AddNumbersIn("list_kernels", out);
    return {out, false};
  }
  if (call.name == "read_source") return ReadSource(evidence, arguments, shown);
  if (call.name == "read_plan") {
    if (evidence.plan.empty()) return Error("read_plan needs kopt ask --plan");
    shown.AddNumbersIn("plan", evidence.plan);
    return {evidence.plan, false};
  }
  if (call.name == "compare") {
    if (evidence.comparison.empty()) return Error("compare needs two profiles");
    shown.AddNumbersIn("comparison", evidence.comparison);
    return {evidence.comparison, false};
  }
  if (call.name != "read_findings" && call.name != "read_metrics" && call.name != "read_sass") {
    return Error(fmt::format("unknown tool \"{}\"", call.name));
  }
  std::string error;
  const EvidenceProfile* profile = ProfileOf(evidence, arguments, error);
  if (profile == nullptr) return Error(error);
  const KernelDiagnosis* kernel = KernelOf(*profile, arguments, error);
  if (kernel == nullptr) return Error(error);
  if (call.name == "read_findings") return ReadFindings(*profile, *kernel, shown);
  if (call.name == "read_metrics") return ReadMetrics(*profile, *kernel, arguments, shown);
  return ReadSass(*profile, *kernel, shown);
}

std::string EvidenceOverview(const AskEvidence& evidence, EvidenceSet& shown) {
  std::string out = "kopt ask evidence (read more with the tools)\n";
  out += KernelCount(evidence) <= kMaxOverviewKernels
             ? ListKernels(evidence)
             : ListPrograms(evidence) + "(list_kernels names every kernel)\n";
  if (!evidence.plan.empty()) out += "a plan over the programs: read_plan\n";
  if (!evidence.source_file.empty()) out += "kernel source: " + evidence.source_file + " (read_source)\n";
  if (!evidence.comparison.empty()) out += "two profiles: compare gives the comparison\n";
  shown.AddNumbersIn("overview", out);
  return out;
}

}  // namespace kopt::agents
