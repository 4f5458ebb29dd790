#include "optimize/optimization_loop.h"

#include <fmt/format.h>

#include <filesystem>

#include "core/text.h"
#include "optimize/optimization_run.h"
#include "search/run_state_store.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;

}  // namespace

std::string_view FeedbackModeName(FeedbackMode mode) {
  switch (mode) {
    case FeedbackMode::kDiagnosis: return "diagnosis";
    case FeedbackMode::kRaw: return "raw";
    case FeedbackMode::kNone: return "none";
    case FeedbackMode::kExplanation: return "explanation";
    case FeedbackMode::kDiagnosisExplanation: return "diagnosis+explanation";
  }
  return "unknown";
}

Result<FeedbackMode> ParseFeedbackMode(std::string_view text) {
  for (FeedbackMode mode : {FeedbackMode::kDiagnosis, FeedbackMode::kRaw, FeedbackMode::kNone,
                            FeedbackMode::kExplanation, FeedbackMode::kDiagnosisExplanation}) {
    if (text == FeedbackModeName(mode)) return mode;
  }
  return InvalidInput(
      fmt::format("--feedback: \"{}\" is not a feedback mode; expected diagnosis, raw, none, explanation or "
                  "diagnosis+explanation",
                  text));
}

Status ValidateBudget(const OptimizeBudget& budget) {
  auto refuse = [](const char* option, const std::string& value) {
    return InvalidInput(
        fmt::format("{} {}: a budget of zero or less allows nothing; give a positive limit or "
                    "leave the option out for no limit",
                    option, value));
  };
  if (budget.max_evaluations && *budget.max_evaluations <= 0)
    return refuse("--max-evaluations", std::to_string(*budget.max_evaluations));
  if (budget.max_seconds && !(*budget.max_seconds > 0))
    return refuse("--max-seconds", fmt::format("{:g}", *budget.max_seconds));
  if (budget.max_gpu_seconds && !(*budget.max_gpu_seconds > 0)) {
    return refuse("--max-gpu-seconds", fmt::format("{:g}", *budget.max_gpu_seconds));
  }
  if (budget.max_llm_cost_usd && !(*budget.max_llm_cost_usd > 0)) {
    return refuse("--max-llm-cost", fmt::format("{:g}", *budget.max_llm_cost_usd));
  }
  if (budget.max_llm_tokens && *budget.max_llm_tokens <= 0)
    return refuse("--max-llm-tokens", std::to_string(*budget.max_llm_tokens));
  return Status::Ok();
}

Result<RunState> RunOptimization(const OptimizeSettings& settings, const OptimizeEnvironment& environment) {
  KOPT_RETURN_IF_ERROR(ValidateBudget(settings.budget));
  if (environment.generator == nullptr) return Internal("RunOptimization: no generator");
  OptimizeSettings effective = settings;
  if (effective.objective == Objective::kTimeEnergy) effective.measure.energy = true;  // what energy ranks
  optimize_run::OptimizationRun run(effective, environment);
  KOPT_RETURN_IF_ERROR(run.Open());
  return run.Run();
}

Result<RunState> LoadRunState(const std::string& workspace_directory, int64_t run_id) {
  return LoadRunStateFiles(workspace_directory, run_id);
}

Result<int64_t> LatestOptimizeRun(const std::string& workspace_directory) {
  fs::path runs = fs::path(workspace_directory) / "runs";
  std::error_code error;
  int64_t latest = -1;
  if (fs::is_directory(runs, error)) {
    for (const fs::directory_entry& entry : fs::directory_iterator(runs, error)) {
      std::optional<long long> id = ParseInteger(entry.path().filename().string());
      if (id && fs::exists(entry.path() / "optimize.json", error)) latest = std::max<int64_t>(latest, *id);
    }
  }
  if (latest < 0)
    return NotFound(fmt::format("{}: no kopt optimize run in this workspace", workspace_directory));
  return latest;
}

}  // namespace kopt
