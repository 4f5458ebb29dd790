#include "explain/diff.h"

#include "explain/explain.h"
#include "profile/profile_loader.h"
#include "report/comparison_renderer.h"

namespace kopt {

Result<ProfilePair> LoadPair(const ProfileRequest& profile, const std::string& before,
                             const std::string& after, CommandRunner& runner) {
  ProfilePair pair;
  KOPT_ASSIGN_OR_RETURN(pair.before,
                        LoadSelectedProfile(RequestForTarget(profile, before), runner, pair.notes));
  KOPT_ASSIGN_OR_RETURN(pair.after,
                        LoadSelectedProfile(RequestForTarget(profile, after), runner, pair.notes));
  return pair;
}

Result<ProfileComparison> ExplainDiff(const DiffSettings& settings, CommandRunner& runner,
                                      llm::LogSink* llm_log, const InputCheck& check_inputs) {
  ComparisonOptions comparison_options;
  KOPT_ASSIGN_OR_RETURN(comparison_options.diagnose,
                        ResolveDiagnoseOptions(settings.gpu, settings.config_path));
  comparison_options.moved_metric_limit = settings.moved_metrics;
  for (const std::string& pair : settings.pairs) {
    KOPT_ASSIGN_OR_RETURN(KernelPairSpec spec, ParseKernelPairSpec(pair));
    comparison_options.pairs.push_back(spec);
  }
  // Two profiles that are read: options of live collection would be silently ignored.
  ProfileRequest before = RequestForTarget(settings.profile, settings.before);
  if (!IsLiveRequest(before) && !IsLiveRequest(RequestForTarget(settings.profile, settings.after)))
    KOPT_RETURN_IF_ERROR(CheckCollectionOptionsApply(before));
  KOPT_ASSIGN_OR_RETURN(ProfilePair pair,
                        LoadPair(settings.profile, settings.before, settings.after, runner));
  if (check_inputs) KOPT_RETURN_IF_ERROR(check_inputs(InputPathsOf({&pair.before, &pair.after})));
  KOPT_ASSIGN_OR_RETURN(ProfileComparison comparison,
                        CompareProfiles(pair.before, pair.after, comparison_options));
  comparison.notes.insert(comparison.notes.end(), pair.notes.begin(), pair.notes.end());
  if (settings.llm.narrative) {
    LlmSession session = LlmSession::Open(settings.llm, settings.llm.verbose ? llm_log : nullptr);
    comparison.narrative =
        NarrateDigest(session, "diff", RenderComparison(comparison, ReportFormat::kMarkdown));
  }
  return comparison;
}

}  // namespace kopt
