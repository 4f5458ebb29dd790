#include "app/optimize.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <map>

#include "agents/cutlass_gemm_seed.h"
#include "agents/explanation_feedback.h"
#include "agents/generator_table.h"
#include "agents/prompt_template.h"
#include "analysis/profile_comparison.h"
#include "core/file_io.h"
#include "harness/compiler.h"
#include "harness/cutlass_tree.h"
#include "harness/gemm_operation.h"
#include "harness/task_baselines.h"
#include "llm/client_factory.h"
#include "llm/config.h"
#include "optimize/optimization_loop.h"
#include "report/comparison_renderer.h"
#include "report/optimize_renderer.h"
#include "report/raw_metrics_renderer.h"
#include "report/renderer.h"
#include "store/workspace.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;

// What the command builds once and the loop borrows.
struct CommandParts {
  std::optional<CutlassTree> cutlass;  // --cutlass / --cutlass-dir, resolved
  std::unique_ptr<llm::ChatClient> client;
  agents::GeneratorParts generator;  // borrows the client
  std::vector<std::string> notes;
  // The builtin generator's GEMM path (docs/tuning.md "GEMM tasks"): the
  // CUTLASS seed emitted for a recognised GEMM task, tuned before TASK/tunable/.
  std::optional<agents::CutlassGemmSeed> gemm_seed;
};

// The builtin generator's GEMM path: a GEMM-class task (harness/gemm_operation.h)
// run with --generator builtin and no seed on the command line gets a CUTLASS
// seed (agents/cutlass_gemm_seed.h), compiled against the nvidia-cutlass
// wheel unless --cutlass / --cutlass-dir / --include-dir name a tree; the
// sm90 family's TMA descriptors come through the driver entry point
// (cudaGetDriverEntryPointByVersion), so dynamic_loading is allowed for that
// run (the seed is kopt's own code; the f32 family imports no such symbol). A task that is not a
// GEMM, or an operation the families do not cover (a note says why), keeps
// today's path.
Status PrepareGemmPath(OptimizeSettings& settings, const TaskSpec& task, CommandParts& parts) {
  if (settings.generator != agents::GeneratorKind::kBuiltin || !settings.seed_candidate_paths.empty()) {
    return Status::Ok();
  }
  KOPT_ASSIGN_OR_RETURN(std::optional<GemmOperation> operation, RecognizeGemmTask(task));
  if (!operation) return Status::Ok();
  agents::CutlassSeedOptions options;
  if (!settings.measure.arch.empty()) options.architecture = settings.measure.arch;
  Result<agents::CutlassGemmSeed> seed = agents::EmitCutlassGemmSeed(task, *operation, options);
  if (!seed.ok()) {
    parts.notes.push_back(fmt::format("builtin generator: {}; no CUTLASS seed: {}", operation->Describe(),
                                      seed.status().message()));
    return Status::Ok();
  }
  if (settings.measure.cutlass.empty() && settings.measure.include_directories.empty()) {
    settings.measure.cutlass = kCutlassFromPip;
  }
  if (seed->family == agents::CutlassGemmFamily::kSm90TmaWgmma) {
    settings.measure.policy_allow.insert(PolicyConstruct::kDynamicLoading);
  }
  for (const std::string& note : seed->notes) parts.notes.push_back(note);
  parts.gemm_seed = std::move(*seed);
  return Status::Ok();
}

// The run's LLM client (the programmer's and the explainer's), made once.
Status OpenClient(const OptimizeSettings& settings, std::string_view needed_by, CommandParts& parts) {
  if (parts.client) return Status::Ok();
  Result<llm::LlmConfig> config =
      llm::LoadLlmConfig(settings.llm_config_path, llm::ProcessEnvironment(),
                         llm::TranscriptOverrides(settings.llm_record_path, settings.llm_replay_path));
  if (!config.ok()) return config.status().WithContext(std::string(needed_by) + ": LLM configuration");
  KOPT_ASSIGN_OR_RETURN(parts.client, llm::MakeChatClient(*config, llm::ClientDependencies{}));
  return Status::Ok();
}

Result<std::string> PromptDirectory(const OptimizeSettings& settings) {
  if (!settings.prompt_directory.empty()) return settings.prompt_directory;
  return agents::FindPromptDirectory();
}

// --feedback explanation / diagnosis+explanation: the explanation agent over
// the run's client (any generator), its calls counted in the run's usage.
Status SetExplainer(const OptimizeSettings& settings, CommandParts& parts, OptimizeEnvironment& loop) {
  if (!FeedbackExplains(settings.feedback)) return Status::Ok();
  std::string needed_by = "--feedback " + std::string(FeedbackModeName(settings.feedback));
  KOPT_RETURN_IF_ERROR(OpenClient(settings, needed_by, parts));
  agents::ExplanationOptions options;
  KOPT_ASSIGN_OR_RETURN(options.prompt_directory, PromptDirectory(settings));
  llm::ChatClient* client = parts.client.get();
  loop.explain_profile = [client, options](const Profile& profile, const Diagnosis& diagnosis,
                                           const agents::ExplainedSource& source) {
    return agents::ExplainForProgrammer(*client, options, profile, diagnosis, source);
  };
  return Status::Ok();
}

// The generator of --generator, from its row of agents::GeneratorTable().
Status MakeGenerator(const OptimizeSettings& settings, const TaskSpec& task, CommandParts& parts) {
  agents::GeneratorInputs inputs;
  inputs.task = &task;
  inputs.script_directory = settings.script_directory;
  inputs.seed_candidate_paths = settings.seed_candidate_paths;
  inputs.seed = settings.seed;
  inputs.objective = settings.objective;
  inputs.architecture = settings.measure.arch;
  inputs.gemm_seed = parts.gemm_seed ? &*parts.gemm_seed : nullptr;
  inputs.cutlass = parts.cutlass ? &*parts.cutlass : nullptr;
  inputs.open_client = [&](std::string_view needed_by) -> Result<llm::ChatClient*> {
    KOPT_RETURN_IF_ERROR(OpenClient(settings, needed_by, parts));
    return parts.client.get();
  };
  inputs.prompt_directory = [&] { return PromptDirectory(settings); };
  KOPT_ASSIGN_OR_RETURN(parts.generator, agents::MakeGenerator(settings.generator, inputs));
  for (const std::string& note : parts.generator.notes) parts.notes.push_back(note);
  return Status::Ok();
}

// The ncu profiler when ncu is on PATH, made once the architecture is known.
void SetProfilerFactory(const OptimizeSettings& settings, const OptimizeCommandEnvironment& environment,
                        const TaskSpec& task, CommandParts& parts, OptimizeEnvironment& loop) {
  if (!settings.profile || settings.feedback == FeedbackMode::kNone) return;
  if (environment.measure.command_runner->FindProgram(environment.ncu).empty()) {
    parts.notes.push_back(fmt::format(
        "{} not found on PATH: no profiles, so optimize children get no feedback", environment.ncu));
    return;
  }
  CommandRunner* command_runner = environment.measure.command_runner;
  std::string runner_program = environment.measure.runner_program;
  std::string workspace = settings.measure.workspace;
  std::string task_directory = task.directory;
  std::vector<std::string> include_directories = settings.measure.include_directories;
  loop.make_profiler = [=](const std::string& architecture) -> Result<std::unique_ptr<CandidateProfiler>> {
    NcuProfilerSettings profiler;
    profiler.task_directory = task_directory;
    profiler.work_directory = (fs::path(workspace) / "profiles").string();
    profiler.cache_directory = (fs::path(workspace) / "compile-cache").string();
    profiler.architecture = architecture;
    profiler.extra_flags = IncludeFlags(include_directories);
    profiler.runner_program = runner_program;
    profiler.collection.section_set = "full";  // ncu's full set into a report, with its source page
    if (profiler.runner_program.empty()) {
      KOPT_ASSIGN_OR_RETURN(profiler.runner_program, FindRunnerProgram());
    }
    return MakeNcuCandidateProfiler(profiler, *command_runner);
  };
}

// The sources on the best path, read back from the workspace.
std::map<NodeId, std::string> PathSources(const RunState& state, const std::string& workspace) {
  std::map<NodeId, std::string> sources;
  for (NodeId id : BestPath(state)) {
    if (id == 0) {
      Result<TaskSpec> task = LoadTask(state.task_directory);
      if (task.ok()) sources[id] = task->reference_source;
      continue;
    }
    const std::string& hash = state.record(id).source_hash;
    Result<std::string> text = ReadWholeFile((fs::path(workspace) / "candidates" / (hash + ".cu")).string());
    if (text.ok()) sources[id] = *text;
  }
  return sources;
}

// The workspace's directory and database: never a report's output.
std::vector<std::string> WorkspacePaths(const std::string& workspace) {
  return {workspace, (fs::path(workspace) / "kopt.db").string()};
}

Status WriteReport(const RunState& state, const std::string& workspace, const std::string& format_name,
                   const std::string& output_path, bool color, std::ostream& out) {
  KOPT_ASSIGN_OR_RETURN(ReportFormat format, ParseReportFormat(format_name));
  OptimizeReportInput input;
  input.state = &state;
  input.sources = PathSources(state, workspace);
  // Checked before the run started (RunOptimize); a document changed since then is left out, not fatal.
  Result<std::optional<TaskBaselines>> baselines = ReadTaskBaselines(state.task_directory);
  if (baselines.ok()) input.pytorch_baselines = std::move(baselines).value();
  if (std::optional<NodeId> best = state.tree.BestNode(); best && *best != 0) {
    input.best_path = (fs::path(workspace) / fmt::format("runs/{}/best.cu", state.run_id)).string();
  }
  RenderOptions render;
  render.color = color;
  KOPT_ASSIGN_OR_RETURN(std::string text, RenderOptimizeReport(input, format, render));
  if (output_path.empty()) {
    out << text;
    return Status::Ok();
  }
  return WriteFileAtomically(output_path, text);
}

}  // namespace

Status RunOptimize(const OptimizeOptions& options, const OptimizeCommandEnvironment& environment,
                   std::ostream& out) {
  KOPT_RETURN_IF_ERROR(ValidateBudget(options.settings.budget));
  KOPT_ASSIGN_OR_RETURN(ReportFormat format, ParseReportFormat(options.format));
  if (format == ReportFormat::kFeedback) {
    return InvalidInput("--format feedback is for kopt explain; kopt optimize writes term, md, json or html");
  }
  OptimizeSettings settings = options.settings;
  if (settings.resume_run.has_value()) {
    KOPT_ASSIGN_OR_RETURN(RunState stored, LoadRunState(settings.measure.workspace, *settings.resume_run));
    if (settings.task_directory.empty()) settings.task_directory = stored.task_directory;
    // The tree was built for its objective: a resumed run keeps it (and measures energy when it ranks).
    settings.objective = stored.tree.objective();
    if (settings.objective == Objective::kTimeEnergy) settings.measure.energy = true;
  }
  if (settings.task_directory.empty())
    return InvalidInput("kopt optimize: expected TASK_DIR (or --resume RUN)");
  std::vector<std::string> inputs = {settings.task_directory,
                                     (fs::path(settings.task_directory) / "task.toml").string(),
                                     (fs::path(settings.task_directory) / "reference.cu").string(),
                                     settings.script_directory,
                                     settings.llm_config_path,
                                     settings.llm_replay_path,
                                     settings.prompt_directory,
                                     settings.energy_model_path};
  inputs.insert(inputs.end(), settings.seed_candidate_paths.begin(), settings.seed_candidate_paths.end());
  std::vector<std::string> workspace = WorkspacePaths(settings.measure.workspace);
  inputs.insert(inputs.end(), workspace.begin(), workspace.end());
  KOPT_RETURN_IF_ERROR(CheckOutputIsNotAnInput(options.output_path, inputs));
  KOPT_ASSIGN_OR_RETURN(TaskSpec task, LoadTask(settings.task_directory));
  // A malformed baselines.json stops the run before any GPU time is spent (the report divides by it).
  KOPT_RETURN_IF_ERROR(ReadTaskBaselines(settings.task_directory).status());
  CommandParts parts;
  KOPT_RETURN_IF_ERROR(PrepareGemmPath(settings, task, parts));
  KOPT_ASSIGN_OR_RETURN(parts.cutlass,
                        ResolveIncludeDirectories(settings.measure, *environment.measure.command_runner));
  KOPT_RETURN_IF_ERROR(MakeGenerator(settings, task, parts));
  OptimizeEnvironment loop;
  loop.measure = environment.measure;
  loop.generator = parts.generator.generator.get();
  SetProfilerFactory(settings, environment, task, parts, loop);
  KOPT_RETURN_IF_ERROR(SetExplainer(settings, parts, loop));
  loop.render_feedback = [](const Diagnosis& diagnosis) {
    return MakeRenderer(ReportFormat::kFeedback, RenderOptions{})->Render(diagnosis);
  };
  loop.render_raw_metrics = [](const Profile& profile) { return RenderRawMetricTable(profile); };
  loop.render_change = [](const Profile& parent, const Profile& node) {
    Result<ProfileComparison> comparison = CompareProfiles(parent, node, ComparisonOptions{});
    return comparison.ok() ? ComparisonDigest(*comparison, 6)
                           : "(no profile diff: " + comparison.status().message() + ")";
  };
  if (!options.quiet && environment.progress != nullptr) {
    std::ostream* progress = environment.progress;
    loop.progress = [progress](const OptimizeProgress& line) {
      *progress << FormatOptimizeProgressLine(*line.state, line.node, line.max_evaluations) << "\n"
                << std::flush;
    };
  }
  KOPT_ASSIGN_OR_RETURN(RunState state, RunOptimization(settings, loop));
  for (const std::string& note : parts.notes) state.notes.push_back(note);
  KOPT_RETURN_IF_ERROR(WriteReport(state, settings.measure.workspace, options.format, options.output_path,
                                   options.color, out));
  if (state.status == RunStatus::kPaused) return Unavailable(state.stop_reason);
  return Status::Ok();
}

Status RunReport(const ReportOptions& options, std::ostream& out) {
  int64_t run = 0;
  if (options.run.has_value()) {
    run = *options.run;
  } else {
    KOPT_ASSIGN_OR_RETURN(run, LatestOptimizeRun(options.workspace));
  }
  KOPT_ASSIGN_OR_RETURN(RunState state, LoadRunState(options.workspace, run));
  KOPT_RETURN_IF_ERROR(CheckOutputIsNotAnInput(options.output_path, WorkspacePaths(options.workspace)));
  return WriteReport(state, options.workspace, options.format, options.output_path, false, out);
}

}  // namespace kopt
