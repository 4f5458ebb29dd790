#include "suite/slurm_queue.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "core/text.h"

namespace kopt::suite {

namespace {

bool IsDigits(std::string_view text) {
  return !text.empty() && text.size() <= 18 &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<int> ParseSmallInteger(std::string_view text) {
  if (!IsDigits(text) || text.size() > 9) return std::nullopt;
  int value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

// "1234_5" → ("1234", 5); anything else (a step, a pending range, a plain
// job) → nullopt.
std::optional<std::pair<std::string, int>> SplitArrayTaskId(std::string_view id) {
  size_t underscore = id.find('_');
  if (underscore == std::string_view::npos) return std::nullopt;
  std::string_view job = id.substr(0, underscore);
  std::optional<int> task = ParseSmallInteger(id.substr(underscore + 1));
  if (!IsDigits(job) || !task.has_value()) return std::nullopt;
  return std::make_pair(std::string(job), *task);
}

std::vector<std::string_view> SplitFields(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t start = 0;
  while (true) {
    size_t bar = line.find('|', start);
    fields.push_back(
        line.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start));
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
  return fields;
}

// Slurm prints "CANCELLED by 0" in sacct's State: the first word is the state.
std::string FirstWord(std::string_view text) {
  size_t space = text.find(' ');
  return std::string(text.substr(0, space));
}

std::string NodeList(std::string_view text) {
  if (text == "(null)" || text == "None assigned") return "";
  return std::string(text);
}

// The loop both queue listings share: lines of four '|' fields whose first is
// an array task id (other ids are skipped) and whose second is a state. `tool`
// and `columns` name the listing in errors; `fill` reads the listing's other
// fields into the task.
template <typename Fill>
Result<std::vector<SlurmTaskLine>> ParseTaskListing(std::string_view text, std::string_view tool,
                                                    std::string_view columns, Fill fill) {
  std::vector<SlurmTaskLine> tasks;
  int line_number = 0;
  for (std::string_view line : SplitLines(text)) {
    if (line.empty()) continue;
    ++line_number;
    std::vector<std::string_view> fields = SplitFields(line);
    if (fields.size() != 4) {
      return InvalidInput(fmt::format("{} output line {}: expected 4 fields {}, got {}", tool, line_number,
                                      columns, fields.size()));
    }
    auto id = SplitArrayTaskId(fields[0]);
    if (!id.has_value()) continue;
    SlurmTaskLine task;
    task.array_job_id = id->first;
    task.task_index = id->second;
    task.state = FirstWord(fields[1]);
    if (task.state.empty()) {
      return InvalidInput(fmt::format("{} output line {}: empty job state", tool, line_number));
    }
    task.nodes = NodeList(fields[3]);
    fill(fields, task);
    tasks.push_back(std::move(task));
  }
  return tasks;
}

}  // namespace

SlurmTaskPhase PhaseOfSlurmState(std::string_view state) {
  static constexpr std::string_view kWaiting[] = {"PENDING",     "CONFIGURING", "REQUEUED", "REQUEUE_HOLD",
                                                  "REQUEUE_FED", "RESIZING",    "SUSPENDED"};
  static constexpr std::string_view kRunning[] = {"RUNNING", "COMPLETING", "STAGE_OUT", "SIGNALING",
                                                  "STOPPED"};
  if (std::find(std::begin(kWaiting), std::end(kWaiting), state) != std::end(kWaiting)) {
    return SlurmTaskPhase::kWaiting;
  }
  if (std::find(std::begin(kRunning), std::end(kRunning), state) != std::end(kRunning)) {
    return SlurmTaskPhase::kRunning;
  }
  return SlurmTaskPhase::kEnded;
}

std::vector<std::string> SqueueArguments(std::string_view job_name) {
  return {"squeue",
          "--noheader",
          "--array",
          "--states=all",
          fmt::format("--name={}", job_name),
          "--format=%i|%T|%r|%N"};
}

std::vector<std::string> SacctArguments(std::string_view job_name) {
  return {"sacct",
          "--noheader",
          "--parsable2",
          "--allocations",
          fmt::format("--name={}", job_name),
          "--format=JobID,State,ExitCode,NodeList"};
}

Result<std::vector<SlurmTaskLine>> ParseSqueueOutput(std::string_view text) {
  return ParseTaskListing(text, "squeue", "ID|STATE|REASON|NODES",
                          [](const std::vector<std::string_view>& fields, SlurmTaskLine& task) {
                            task.reason = std::string(fields[2]);
                          });
}

Result<std::vector<SlurmTaskLine>> ParseSacctOutput(std::string_view text) {
  return ParseTaskListing(text, "sacct", "JobID|State|ExitCode|NodeList",
                          [](const std::vector<std::string_view>& fields, SlurmTaskLine& task) {
                            size_t colon = fields[2].find(':');
                            if (colon == std::string_view::npos) return;
                            task.exit_code = ParseSmallInteger(fields[2].substr(0, colon));
                            std::optional<int> signal = ParseSmallInteger(fields[2].substr(colon + 1));
                            if (signal.has_value() && *signal != 0) task.exit_signal = signal;
                          });
}

Result<std::string> ParseSbatchJobId(std::string_view text) {
  std::string_view trimmed = text;
  while (!trimmed.empty() && (trimmed.back() == '\n' || trimmed.back() == '\r' || trimmed.back() == ' ')) {
    trimmed.remove_suffix(1);
  }
  std::string_view id = trimmed.substr(0, trimmed.find(';'));
  if (!IsDigits(id)) {
    return InvalidInput(
        fmt::format("sbatch --parsable: expected a job id, got '{}'", std::string(trimmed.substr(0, 200))));
  }
  return std::string(id);
}

}  // namespace kopt::suite
