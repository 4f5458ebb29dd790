#include "app/diff.h"

#include <fmt/format.h>

#include "analysis/profile_comparison.h"
#include "analysis/tool_config.h"
#include "app/explain_llm.h"
#include "core/file_io.h"
#include "llm/config.h"
#include "profile/profile_loader.h"
#include "report/comparison_renderer.h"

namespace kopt {

Result<Profile> LoadSelectedProfile(const std::string& target, const std::string& kernel_regex,
                                    CommandRunner& runner, std::vector<std::string>& notes) {
  ProfileSources sources;
  sources.target = target;
  sources.kernel_regex = kernel_regex;
  KOPT_ASSIGN_OR_RETURN(Profile profile, LoadProfile(sources, runner, notes));
  KOPT_RETURN_IF_ERROR(SelectLaunches(sources, profile));
  return profile;
}

Result<DiagnoseOptions> DiagnoseOptionsFor(const std::string& gpu_name, const std::string& config_path) {
  DiagnoseOptions options;
  if (!gpu_name.empty()) {
    options.gpu = FindGpu(gpu_name);
    if (!options.gpu)
      return InvalidInput(fmt::format("--gpu \"{}\": not in the GPU table (kopt gpus lists it)", gpu_name));
  }
  if (!config_path.empty()) {
    KOPT_ASSIGN_OR_RETURN(options.tools, LoadToolConfig(config_path));
  }
  return options;
}

ExplainOptions LlmOptionsOf(bool verbose, const std::string& config, const std::string& record,
                            const std::string& replay) {
  ExplainOptions options;
  options.llm = true;
  options.verbose = verbose;
  options.llm_config_path = config;
  options.llm_record_path = record;
  options.llm_replay_path = replay;
  return options;
}

Status WriteReport(const std::string& rendered, const std::string& output_path, std::ostream& out) {
  if (output_path.empty()) {
    out << rendered;
    return Status::Ok();
  }
  return WriteFileAtomically(output_path, rendered);
}

Status RunDiff(const DiffOptions& options, CommandRunner& runner, std::ostream& out, std::ostream& log) {
  KOPT_ASSIGN_OR_RETURN(ReportFormat format, ResolveReportFormat(options.format, options.output_path, kComparisonFormats));
  KOPT_RETURN_IF_ERROR(CheckOutputIsNotAnInput(
      options.output_path, {options.before, options.after, options.config_path, options.llm_config_path,
                            options.llm_record_path, options.llm_replay_path}));
  if (options.llm) {
    KOPT_RETURN_IF_ERROR(
        llm::CheckLlmConfig(options.llm_config_path, options.llm_record_path, options.llm_replay_path));
  }
  ComparisonOptions comparison_options;
  KOPT_ASSIGN_OR_RETURN(comparison_options.diagnose, DiagnoseOptionsFor(options.gpu, options.config_path));
  comparison_options.moved_metric_limit = options.moved_metrics;
  for (const std::string& pair : options.pairs) {
    KOPT_ASSIGN_OR_RETURN(KernelPairSpec spec, ParseKernelPairSpec(pair));
    comparison_options.pairs.push_back(spec);
  }
  std::vector<std::string> notes;
  KOPT_ASSIGN_OR_RETURN(Profile before,
                        LoadSelectedProfile(options.before, options.kernel_regex, runner, notes));
  KOPT_ASSIGN_OR_RETURN(Profile after,
                        LoadSelectedProfile(options.after, options.kernel_regex, runner, notes));
  KOPT_RETURN_IF_ERROR(CheckOutputIsNotAnInput(options.output_path, InputPathsOf({&before, &after})));
  KOPT_ASSIGN_OR_RETURN(ProfileComparison comparison, CompareProfiles(before, after, comparison_options));
  comparison.notes.insert(comparison.notes.end(), notes.begin(), notes.end());
  if (options.llm) {
    StreamLogSink log_sink(log);
    LlmSession session = LlmSession::Open(LlmOptionsOf(options.verbose, options.llm_config_path,
                                                       options.llm_record_path, options.llm_replay_path),
                                          options.verbose ? &log_sink : nullptr);
    comparison.narrative =
        NarrateDigest(session, "diff", RenderComparison(comparison, ReportFormat::kMarkdown));
  }
  return WriteReport(RenderComparison(comparison, format), options.output_path, out);
}

}  // namespace kopt
