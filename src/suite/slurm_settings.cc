#include "suite/slurm_settings.h"

#include <fmt/format.h>

#include <regex>

#include "core/toml_document.h"

namespace kopt::suite {

std::string_view GpuRequestName(GpuRequest request) {
  switch (request) {
    case GpuRequest::kGres: return "gres";
    case GpuRequest::kGpusPerTask: return "gpus-per-task";
  }
  return "gres";
}

Result<GpuRequest> ParseGpuRequest(std::string_view text) {
  for (GpuRequest request : {GpuRequest::kGres, GpuRequest::kGpusPerTask}) {
    if (text == GpuRequestName(request)) return request;
  }
  return InvalidInput(fmt::format("gpu_request: expected gres or gpus-per-task, got '{}'", text));
}

namespace {

// sbatch --time forms: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S.
bool IsSlurmTimeLimit(const std::string& text) {
  static const std::regex kForm(R"(^(\d+(:\d+){0,2}|\d+-\d+(:\d+){0,2})$)");
  return text == "UNLIMITED" || text == "INFINITE" || std::regex_match(text, kForm);
}

Status FieldError(std::string_view file_name, const toml::node& node, std::string_view key,
                  std::string_view expected) {
  return InvalidInput(
      fmt::format("{}:{}: [slurm] {}: expected {}", file_name, TomlLine(node), key, expected));
}

}  // namespace

Status ValidateSlurmSettings(const SlurmSettings& settings) {
  if (!settings.time_limit.empty() && !IsSlurmTimeLimit(settings.time_limit)) {
    return InvalidInput(fmt::format(
        "slurm time limit '{}': expected sbatch's form (MM, HH:MM:SS or D-HH:MM:SS)", settings.time_limit));
  }
  if (settings.gpus_per_task < 0) return InvalidInput("slurm gpus_per_task: expected 0 or more");
  if (settings.cpus_per_task < 0) return InvalidInput("slurm cpus_per_task: expected 0 or more");
  if (settings.max_node_failures < 0) return InvalidInput("slurm max_node_failures: expected 0 or more");
  if (settings.max_continuations < 0) return InvalidInput("slurm max_continuations: expected 0 or more");
  if (settings.max_array_tasks < 1) return InvalidInput("slurm max_array_tasks: expected 1 or more");
  if (!(settings.poll_seconds > 0)) return InvalidInput("slurm poll_seconds: expected more than 0 s");
  for (const std::string& option : settings.extra_sbatch_options) {
    if (option.empty() || option[0] != '-') {
      return InvalidInput(
          fmt::format("slurm extra sbatch option '{}': expected an option starting with '-'", option));
    }
  }
  return Status::Ok();
}

Status ReadSlurmTable(const toml::table& document, std::string_view file_name, SlurmSettings& settings) {
  const toml::node* table_node = document.get("slurm");
  if (table_node == nullptr) return Status::Ok();
  const toml::table* table = table_node->as_table();
  if (table == nullptr) return FieldError(file_name, *table_node, "", "a table");
  SlurmSettings read = settings;
  for (const auto& [key_name, node] : *table) {
    const std::string key(key_name.str());
    auto text = [&](std::string& field) -> Status {
      auto value = node.value<std::string>();
      if (!value) return FieldError(file_name, node, key, "a string");
      field = *value;
      return Status::Ok();
    };
    auto integer = [&](int& field) -> Status {
      auto value = node.value<int64_t>();
      if (!value || *value < 0 || *value > 1'000'000)
        return FieldError(file_name, node, key, "an integer >= 0");
      field = static_cast<int>(*value);
      return Status::Ok();
    };
    Status status = Status::Ok();
    if (key == "partition") {
      status = text(read.partition);
    } else if (key == "account") {
      status = text(read.account);
    } else if (key == "qos") {
      status = text(read.qos);
    } else if (key == "time_limit") {
      status = text(read.time_limit);
    } else if (key == "environment_setup") {
      status = text(read.environment_setup);
    } else if (key == "gpus_per_task") {
      status = integer(read.gpus_per_task);
    } else if (key == "cpus_per_task") {
      status = integer(read.cpus_per_task);
    } else if (key == "max_node_failures") {
      status = integer(read.max_node_failures);
    } else if (key == "max_continuations") {
      status = integer(read.max_continuations);
    } else if (key == "max_array_tasks") {
      status = integer(read.max_array_tasks);
    } else if (key == "poll_seconds") {
      auto value = node.value<double>();
      if (!value || !(*value > 0)) return FieldError(file_name, node, key, "a number of seconds > 0");
      read.poll_seconds = *value;
    } else if (key == "gpu_request") {
      std::string name;
      status = text(name);
      if (status.ok()) {
        auto request = ParseGpuRequest(name);
        if (!request.ok()) return FieldError(file_name, node, key, "\"gres\" or \"gpus-per-task\"");
        read.gpu_request = *request;
      }
    } else if (key == "extra_sbatch_options") {
      const toml::array* options = node.as_array();
      if (options == nullptr) return FieldError(file_name, node, key, "an array of strings");
      read.extra_sbatch_options.clear();
      for (const toml::node& option : *options) {
        auto value = option.value<std::string>();
        if (!value) return FieldError(file_name, option, key, "an array of strings");
        read.extra_sbatch_options.push_back(*value);
      }
    } else {
      return FieldError(file_name, node, key,
                        "one of partition, account, qos, time_limit, gpus_per_task, gpu_request, "
                        "cpus_per_task, extra_sbatch_options, environment_setup, max_node_failures, "
                        "max_continuations, max_array_tasks, poll_seconds");
    }
    if (!status.ok()) return status;
  }
  Status valid = ValidateSlurmSettings(read);
  if (!valid.ok()) return InvalidInput(fmt::format("{}: {}", file_name, valid.message()));
  settings = std::move(read);
  return Status::Ok();
}

std::vector<std::string> SbatchOptions(const SlurmSettings& settings, std::string_view job_name,
                                       int task_count, std::string_view output_pattern) {
  std::vector<std::string> options = {
      "--parsable",
      fmt::format("--job-name={}", job_name),
      fmt::format("--array=0-{}", task_count - 1),
      // Requeue is allowed (preemption with PreemptMode=REQUEUE, scontrol
      // requeue): the requeued task continues the problem's run state.
      "--requeue",
      // SIGTERM to the batch shell 60 s before the time limit: the work
      // stops cleanly (kopt optimize saves its state on SIGTERM).
      "--signal=B:TERM@60",
      fmt::format("--output={}", output_pattern),
  };
  if (!settings.partition.empty()) options.push_back("--partition=" + settings.partition);
  if (!settings.account.empty()) options.push_back("--account=" + settings.account);
  if (!settings.qos.empty()) options.push_back("--qos=" + settings.qos);
  if (!settings.time_limit.empty()) options.push_back("--time=" + settings.time_limit);
  if (settings.gpus_per_task > 0) {
    options.push_back(settings.gpu_request == GpuRequest::kGres
                          ? fmt::format("--gres=gpu:{}", settings.gpus_per_task)
                          : fmt::format("--gpus-per-task={}", settings.gpus_per_task));
  }
  if (settings.cpus_per_task > 0)
    options.push_back(fmt::format("--cpus-per-task={}", settings.cpus_per_task));
  options.insert(options.end(), settings.extra_sbatch_options.begin(), settings.extra_sbatch_options.end());
  return options;
}

}  // namespace kopt::suite
