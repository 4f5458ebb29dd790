#include "app/ask.h"

#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "agents/ask_agent.h"
#include "analysis/diagnose.h"
#include "analysis/profile_comparison.h"
#include "analysis/program_plan.h"
#include "core/file_io.h"
#include "explain/explain.h"
#include "explain/llm_session.h"
#include "explain/profile_request.h"
#include "explain/program_set.h"
#include "report/comparison_renderer.h"
#include "report/program_plan_renderer.h"
#include "report/report_format.h"
#include "report/report_output.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

inline constexpr const char* kAskSchema = "kopt.ask/1";
constexpr std::array<ReportFormat, 3> kAskFormats = {ReportFormat::kTerminal, ReportFormat::kMarkdown,
                                                     ReportFormat::kJson};

// The evidence and everything it borrows.
struct LoadedEvidence {
  std::vector<DiagnosedProgram> programs;
  agents::AskEvidence evidence;
};

Status AddSource(const AskCommandOptions& options, const std::vector<std::string>& targets,
                 agents::AskEvidence& evidence) {
  std::string source = options.source_path;
  if (source.empty() && targets.size() == 1 && fs::path(targets.front()).extension() == ".cu")
    source = targets.front();
  if (source.empty()) return Status::Ok();
  KOPT_ASSIGN_OR_RETURN(evidence.source_text, ReadWholeFile(source));
  evidence.source_file = fs::path(source).filename().string();
  return Status::Ok();
}

// One or two profiles (before and after); with --plan, programs and their plan.
Result<LoadedEvidence> LoadEvidence(const AskCommandOptions& options, const std::vector<std::string>& targets,
                                    CommandRunner& runner) {
  LoadedEvidence loaded;
  KOPT_ASSIGN_OR_RETURN(DiagnoseOptions diagnose, ResolveDiagnoseOptions(options.gpu, ""));
  std::vector<std::string> profiles = targets;
  if (options.plan) {
    KOPT_ASSIGN_OR_RETURN(profiles, ExpandProgramTargets(targets, "kopt ask --plan"));
  }
  KOPT_ASSIGN_OR_RETURN(loaded.programs, DiagnosePrograms(profiles, options.kernel_regex, diagnose, runner));
  if (options.plan) {
    std::vector<const Diagnosis*> diagnoses;
    for (const DiagnosedProgram& program : loaded.programs) diagnoses.push_back(&program.diagnosis);
    loaded.evidence.plan =
        RenderProgramPlan(BuildProgramPlan(diagnoses, PlanOptions{}), ReportFormat::kMarkdown);
  } else if (profiles.size() == 2) {
    ComparisonOptions comparison_options;
    comparison_options.diagnose = diagnose;
    Result<ProfileComparison> comparison =
        CompareProfiles(loaded.programs[0].profile, loaded.programs[1].profile, comparison_options);
    if (comparison.ok()) loaded.evidence.comparison = ComparisonDigest(*comparison, 12);
  }
  const char* labels[] = {"before", "after"};
  for (DiagnosedProgram& program : loaded.programs) {
    std::string label = options.plan           ? "program"
                        : profiles.size() == 2 ? labels[loaded.evidence.profiles.size()]
                                               : "profile";
    loaded.evidence.profiles.push_back({label, &program.profile, &program.diagnosis});
  }
  KOPT_RETURN_IF_ERROR(AddSource(options, targets, loaded.evidence));
  return loaded;
}

json AnswerJson(const agents::AskAnswer& answer) {
  json claims = json::array();
  for (const NumericClaim& claim : answer.answer.claims) {
    json entry = {{"text", claim.text}, {"supported", claim.supported}};
    if (claim.supported)
      entry["evidence"] = {
          {"label", claim.evidence_label}, {"value", claim.evidence_value}, {"unit", claim.evidence_unit}};
    claims.push_back(entry);
  }
  return {{"question", answer.question},
          {"answer", answer.answer.text},
          {"missing_reason", answer.answer.missing_reason},
          {"claims", claims},
          {"unsupported", answer.answer.UnsupportedCount()},
          {"regenerated", answer.answer.regenerated},
          {"tool_calls", answer.tool_calls},
          {"model", answer.answer.model},
          {"input_tokens", answer.answer.input_tokens},
          {"output_tokens", answer.answer.output_tokens},
          {"cost_usd", answer.cost_usd},
          {"cost_known", answer.cost_known},
          {"replayed", answer.answer.replayed}};
}

std::string AnswerText(const agents::AskAnswer& answer, ReportFormat format) {
  bool markdown = format == ReportFormat::kMarkdown;
  std::string out =
      markdown ? fmt::format("### {}\n\n", answer.question) : fmt::format("Q: {}\n", answer.question);
  out += answer.answer.present() ? (markdown ? "" : "A: ") + answer.answer.text + "\n"
                                 : "(no answer: " + answer.answer.missing_reason + ")\n";
  std::string bullet = markdown ? "- " : "  · ";
  out += markdown ? "\n" : "";
  for (const std::string& call : answer.tool_calls) out += bullet + "tool " + call + "\n";
  out += bullet +
         fmt::format("{} number(s) checked against the evidence read, {} unsupported{}; {} + {} tokens\n",
                     answer.answer.claims.size(), answer.answer.UnsupportedCount(),
                     answer.answer.regenerated ? " (answer regenerated once)" : "",
                     answer.answer.input_tokens, answer.answer.output_tokens);
  return out + "\n";
}

}  // namespace

Status RunAsk(const AskCommandOptions& options, CommandRunner& runner, std::istream& in, std::ostream& out,
              std::ostream& log) {
  KOPT_ASSIGN_OR_RETURN(ReportFormat format,
                        ResolveReportFormat(options.format, options.output_path, kAskFormats));
  std::vector<std::string> targets = options.arguments;
  std::string question;
  std::error_code error;
  if (!targets.empty() && !fs::exists(targets.back(), error)) {
    question = targets.back();
    targets.pop_back();
  }
  if (options.plan && targets.empty()) {
    return InvalidInput(
        "kopt ask --plan: expected programs (profiles or directories of them), then the question");
  }
  if (!options.plan && (targets.empty() || targets.size() > 2)) {
    return InvalidInput(
        "kopt ask: expected one or two profiles (or a .cu file), then the question in quotes (--plan: any "
        "number of programs)");
  }
  if (question.empty() && !options.interactive) {
    return InvalidInput("kopt ask: expected a question after the profile(s), or --interactive");
  }
  KOPT_ASSIGN_OR_RETURN(LoadedEvidence loaded, LoadEvidence(options, targets, runner));
  StreamLogSink log_sink(log);
  LlmSession session = LlmSession::Open(LlmSettings{true, options.verbose, options.llm_config_path,
                                                    options.llm_record_path, options.llm_replay_path},
                                        options.verbose ? &log_sink : nullptr);
  if (session.client() == nullptr) return Unavailable("kopt ask needs an LLM: " + session.failure());
  agents::AskOptions agent_options;
  agent_options.prompt_directory = session.prompt_directory();
  agent_options.max_tool_rounds = options.max_tool_rounds;
  agents::AskAgent agent(*session.client(), loaded.evidence, agent_options);

  json answers = json::array();
  std::string text;
  auto ask = [&](const std::string& asked) -> Status {
    KOPT_ASSIGN_OR_RETURN(agents::AskAnswer answer, agent.Ask(asked));
    answers.push_back(AnswerJson(answer));
    std::string rendered = AnswerText(answer, format);
    text += rendered;
    if (options.interactive && format != ReportFormat::kJson && options.output_path.empty()) {
      out << rendered << std::flush;
    }
    return Status::Ok();
  };
  if (!question.empty()) KOPT_RETURN_IF_ERROR(ask(question));
  if (options.interactive) {
    log << "kopt ask: follow-up questions, one per line (an empty line ends)\n> " << std::flush;
    for (std::string line; std::getline(in, line) && !line.empty(); log << "> " << std::flush) {
      KOPT_RETURN_IF_ERROR(ask(line));
    }
  }
  if (format == ReportFormat::kJson) {
    json document = {{"schema", kAskSchema}, {"targets", targets}, {"answers", answers}};
    return WriteReport(document.dump(2) + "\n", options.output_path, out);
  }
  if (options.interactive && options.output_path.empty()) return Status::Ok();
  return WriteReport(text, options.output_path, out);
}

}  // namespace kopt
