#include "cli/command_options.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <map>
#include <optional>

#include "app/bench.h"
#include "app/explain.h"
#include "core/text.h"

namespace kopt::cli {

CLI::Validator NonNegative() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        double value = std::strtod(text.c_str(), &end);
        if (!text.empty() && end == text.c_str() + text.size() && value >= 0) return "";
        return "expected a number of at least 0, got " + text;
      },
      "NUMBER >= 0", "NonNegative");
}

void AddReportOutputOption(CLI::App& command, std::string& output_path) {
  command
      .add_option(
          "--output,-o", output_path,
          "Write the report to FILE instead of stdout (\"-\": stdout); its extension (.txt, .md, .json, "
          ".html) picks the format unless -f does")
      ->transform([](const std::string& value) { return value == "-" ? std::string() : value; });
}

void AddColorOption(CLI::App& command, std::string& when) {
  command
      .add_option("--color", when,
                  "Colour the terminal report: auto, always or never (auto honours NO_COLOR)")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
}

void AddQuietOption(CLI::App& command, bool& quiet) {
  command.add_flag("--quiet,-q", quiet, "No progress lines on stderr (errors are still printed)");
}

int TerminalWidth() {
  winsize size{};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
    return size.ws_col;
  return 100;
}

bool ColorWanted(const std::string& when) {
  if (when == "always") return true;
  if (when == "never") return false;
  const char* no_color = std::getenv("NO_COLOR");
  return isatty(STDOUT_FILENO) && (no_color == nullptr || *no_color == '\0');
}

void AddLlmNarrativeOptions(CLI::App& command, LlmSettings& llm, const std::string& llm_help) {
  command.add_flag("--llm", llm.narrative, llm_help);
  command.add_option("--llm-config", llm.config_path, "LLM configuration (TOML, [llm] table; docs/llm.md)");
  auto* record = command.add_option("--llm-record", llm.record_path,
                                    "Record every LLM exchange to this transcript (JSON lines)");
  command
      .add_option("--llm-replay", llm.replay_path,
                  "Answer LLM calls from this transcript only (no network, no key)")
      ->excludes(record);
}

Status CheckLlmOptionsNeedLlm(const LlmSettings& llm) {
  bool llm_options = !llm.config_path.empty() || !llm.record_path.empty() || !llm.replay_path.empty();
  if (llm_options && !llm.narrative)
    return InvalidInput("--llm-config, --llm-record and --llm-replay need --llm");
  return Status::Ok();
}

void AddCollectionOptions(CLI::App& command, CollectionSettings& settings) {
  command
      .add_option(
          "--set", settings.section_set,
          "Live collection: \"targeted\" (the metrics kopt's analysis reads, one fast ncu pass) or an "
          "ncu section set such as \"full\"")
      ->capture_default_str();
  command
      .add_option("--launches-per-kernel", settings.launches_per_configuration,
                  "Live collection: profile the first N launches of each kernel launch configuration under "
                  "ncu (the launch timeline still times every launch); 0: every launch")
      ->check(NonNegative())
      ->capture_default_str();
}

void AddMeasureOptions(CLI::App& command, MeasureSettings& settings) {
  command.add_option("--workspace,-w", settings.workspace, "Workspace directory (results database)")
      ->capture_default_str();
  command.add_option("--seeds", settings.seeds, "Correctness seeds per candidate (default: the task's)")
      ->check(NonNegative());
  command.add_flag("--energy", settings.energy, "Measure joules per launch (NVML)");
  command.add_option("--jobs,-j", settings.jobs, "Parallel compiles (default: all cores)")
      ->check(NonNegative());
  command.add_option("--timeout", settings.timeout_seconds, "Watchdog per child process, seconds")
      ->capture_default_str();
  command.add_option("--max-noise", settings.max_noise, "Stop timing at this relative stdev (fraction)")
      ->capture_default_str();
  command.add_option("--min-samples", settings.min_samples, "Timing samples at least")->capture_default_str();
  command
      .add_option("--timing-seconds", settings.timing_seconds, "Stop timing after this much time, seconds")
      ->capture_default_str();
  command.add_flag("--warm", settings.warm, "Warm-cache timing (no L2 flush before each sample)");
  command
      .add_option_function<std::vector<std::string>>(
          "--allow",
          [&settings](const std::vector<std::string>& names) {
            for (const std::string& name : names) settings.policy_allow.insert(*ParsePolicyConstruct(name));
          },
          "Let candidates use a construct the static policy screens out (threads, host_wait, ...; kopt rules "
          "--policy lists them); repeatable")
      ->check(CLI::Validator(
          [](std::string& name) {
            return ParsePolicyConstruct(name)
                       ? std::string()
                       : "\"" + name +
                             "\" is not a policy construct; expected one of: " + PolicyConstructList();
          },
          "CONSTRUCT"));
  command
      .add_option("--input-scale", settings.inputs.scale,
                  "Scale every floating-point input by this factor (3, 0.01; -1 negates); default 1")
      ->capture_default_str();
  command
      .add_option("--input-shape", settings.inputs.shape,
                  "Input values' shape: declared (the task's initialisers) or heavy_tailed (Student-t of the "
                  "declared spread)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, InputShape>{{"declared", InputShape::kDeclared},
                                            {"heavy_tailed", InputShape::kHeavyTailed}},
          CLI::ignore_case));
  command.add_option("--arch", settings.arch, "nvcc architecture, e.g. sm_90a (default: the GPU's)");
  command.add_option("--include-dir", settings.include_directories,
                     "Add DIR to every compile's include path (-I DIR); repeatable");
  CLI::Option* cutlass_dir = command.add_option("--cutlass-dir", settings.cutlass,
                                                "Compile with the CUTLASS/CuTe tree DIR (a checkout or its "
                                                "include/); the LLM programmer may search it");
  command
      .add_flag_callback(
          "--cutlass", [&settings] { settings.cutlass = kCutlassFromPip; },
          "Compile with the pip-installed nvidia-cutlass wheel's CUTLASS/CuTe headers; the LLM programmer "
          "may search them")
      ->excludes(cutlass_dir);
}

Result<std::vector<int>> ParseDevices(const std::string& text) {
  std::vector<int> devices;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(start, end - start);
    std::optional<long long> ordinal = ParseInteger(item);
    if (!ordinal || *ordinal < 0 || *ordinal > 1024) {
      return InvalidInput("--devices: \"" + text +
                          "\": expected CUDA ordinals separated by commas, e.g. 0,1");
    }
    devices.push_back(static_cast<int>(*ordinal));
    start = end + 1;
  }
  return devices;
}

}  // namespace kopt::cli
