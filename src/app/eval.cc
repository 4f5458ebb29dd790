#include "app/eval.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "agents/evidence_digest.h"
#include "agents/explanation_agent.h"
#include "agents/explanation_feedback.h"
#include "agents/mcq_scorer.h"
#include "analysis/diagnose.h"
#include "analysis/mcq_benchmark.h"
#include "core/file_io.h"
#include "core/quantity_format.h"
#include "core/toml_document.h"
#include "explain/explain.h"
#include "explain/llm_session.h"
#include "explain/profile_request.h"
#include "report/raw_metrics_renderer.h"
#include "report/renderer.h"
#include "report/report_output.h"
#include "report/text_document.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

inline constexpr const char* kEvalMcqSchema = "kopt.eval.mcq/1";
constexpr std::array<ReportFormat, 4> kEvalFormats = {ReportFormat::kTerminal, ReportFormat::kMarkdown,
                                                      ReportFormat::kJson, ReportFormat::kHtml};

struct Labelled {
  std::string path, set, label, kernel_regex;
  std::optional<double> event_median_us;
};

Result<Labelled> ReadLabel(const fs::path& directory, const std::string& set) {
  std::string file = (directory / "expected.toml").string();
  KOPT_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(file));
  KOPT_ASSIGN_OR_RETURN(toml::table parsed, ParseTomlDocument(text, file));
  Labelled labelled{directory.string(), set, parsed["primary_bottleneck"].value_or(std::string()),
                    parsed["kernel_regex"].value_or(std::string()), std::nullopt};
  if (labelled.label.empty()) return InvalidInput(file + ": expected primary_bottleneck = \"<finding id>\"");
  if (std::optional<double> median = parsed["event_median_us"].value<double>())
    labelled.event_median_us = median;
  return labelled;
}

Result<std::vector<Labelled>> FindLabelled(const std::vector<std::string>& directories) {
  std::vector<Labelled> found;
  for (const std::string& directory : directories) {
    std::vector<fs::path> members;
    std::error_code error;
    for (const fs::directory_entry& entry : fs::directory_iterator(directory, error)) {
      if (entry.is_directory() && fs::exists(entry.path() / "expected.toml")) members.push_back(entry.path());
    }
    if (error) return NotFound(fmt::format("{}: {}", directory, error.message()));
    std::sort(members.begin(), members.end());
    for (const fs::path& member : members) {
      KOPT_ASSIGN_OR_RETURN(Labelled labelled, ReadLabel(member, fs::path(directory).filename().string()));
      found.push_back(std::move(labelled));
    }
  }
  if (found.empty())
    return InvalidInput("kopt eval mcq: no subdirectory with an expected.toml in the given sets");
  return found;
}

struct Tally {
  size_t asked = 0, correct = 0;
};

json TallyJson(const Tally& tally) {
  Interval interval = WilsonInterval(tally.correct, tally.asked);
  return {
      {"questions", tally.asked},
      {"correct", tally.correct},
      {"accuracy", tally.asked ? static_cast<double>(tally.correct) / static_cast<double>(tally.asked) : 0.0},
      {"wilson95_low", interval.low},
      {"wilson95_high", interval.high}};
}

// The LLM-free check of one explanation: its numbers traced to evidence, its limiter named.
struct ExplanationCheck {
  size_t narratives = 0, claims = 0, supported = 0, names_label = 0;
};

bool NamesLabel(const Narrative& narrative, const Labelled& labelled, const Diagnosis& diagnosis) {
  std::string text = narrative.text;
  size_t section = text.find("What limits it");
  size_t end = section == std::string::npos ? std::string::npos : text.find("\n## ", section + 1);
  std::string limits = section == std::string::npos ? text : text.substr(section, end - section);
  std::string lower = limits;
  std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
  if (lower.find(labelled.label) != std::string::npos) return true;
  std::string spaced = labelled.label;
  std::replace(spaced.begin(), spaced.end(), '_', ' ');
  if (lower.find(spaced) != std::string::npos) return true;
  for (const KernelDiagnosis& kernel : diagnosis.kernels) {
    for (const Finding& finding : kernel.findings) {
      if (finding.tool != labelled.label) continue;
      std::string title = finding.title.substr(0, finding.title.find(':'));
      std::transform(title.begin(), title.end(), title.begin(), ::tolower);
      if (!title.empty() && lower.find(title) != std::string::npos) return true;
    }
  }
  return false;
}

std::string RenderText(const json& results, ReportFormat format) {
  TextDocument document(format);
  document.Title(fmt::format("kopt eval mcq · {} questions from {} labelled profiles",
                             results["questions"].size(), results["profiles"].get<size_t>()));
  document.Heading("Accuracy by context (Wilson 95 % interval)");
  TextTable table{{{"context", "questions", "correct", "accuracy", "95% interval"}},
                  {false, true, true, true, true}};
  std::string bars;
  for (const auto& [context, tally] : results["by_context"].items()) {
    table.rows.push_back({context, std::to_string(tally["questions"].get<size_t>()),
                          std::to_string(tally["correct"].get<size_t>()),
                          FormatFraction(tally["accuracy"].get<double>(), QuantityStyle::kTrimmed),
                          FormatFraction(tally["wilson95_low"].get<double>(), QuantityStyle::kTrimmed) +
                              " – " +
                              FormatFraction(tally["wilson95_high"].get<double>(), QuantityStyle::kTrimmed)});
  }
  document.Table(table);
  if (document.html()) {
    std::string svg =
        R"(<svg xmlns="http://www.w3.org/2000/svg" width="520" height="140" role="img" aria-label="accuracy by context">)";
    int row = 0;
    for (const auto& [context, tally] : results["by_context"].items()) {
      int y = 10 + 30 * row++;
      double accuracy = tally["accuracy"].get<double>();
      svg +=
          fmt::format(R"(<text x="100" y="{}" font-size="12" text-anchor="end">{}</text>)", y + 14, context);
      svg += fmt::format(R"(<rect x="106" y="{}" width="{:.1f}" height="18" fill="#4a7ab5"/>)", y,
                         accuracy * 360);
      svg += fmt::format(R"(<line x1="{:.1f}" x2="{:.1f}" y1="{}" y2="{}" stroke="black" stroke-width="2"/>)",
                         106 + tally["wilson95_low"].get<double>() * 360,
                         106 + tally["wilson95_high"].get<double>() * 360, y + 9, y + 9);
      svg += fmt::format(R"(<text x="{:.1f}" y="{}" font-size="11">{}</text>)", 110 + accuracy * 360, y + 14,
                         FormatFraction(accuracy, QuantityStyle::kTrimmed));
    }
    document.Chart(svg + "</svg>");
  }
  document.Heading("Accuracy by kind and context");
  TextTable kinds{{{"kind", "context", "questions", "accuracy"}}, {false, false, true, true}};
  for (const auto& [key, tally] : results["by_kind"].items()) {
    size_t split = key.find('|');
    kinds.rows.push_back({key.substr(0, split), key.substr(split + 1),
                          std::to_string(tally["questions"].get<size_t>()),
                          FormatFraction(tally["accuracy"].get<double>(), QuantityStyle::kTrimmed)});
  }
  document.Table(kinds);
  const json& check = results["explanation_check"];
  document.Heading("Explanations used as context, checked without an LLM");
  document.Paragraph(
      fmt::format("{} narratives; {} of {} numbers supported by the evidence; {} name the labelled "
                  "bottleneck in \"What limits it\".",
                  check["narratives"].get<size_t>(), check["supported_claims"].get<size_t>(),
                  check["claims"].get<size_t>(), check["names_label"].get<size_t>()));
  document.Paragraph(fmt::format("LLM usage: {} input + {} output tokens, {} USD{}.",
                                 results["input_tokens"].get<int64_t>(),
                                 results["output_tokens"].get<int64_t>(), results["cost_usd"].get<double>(),
                                 results["cost_known"].get<bool>() ? "" : " (some calls unpriced)"));
  return document.str();
}

// The labelled profiles loaded and diagnosed; `inputs` borrows the diagnoses.
struct LabelledSets {
  std::vector<Labelled> labelled;
  std::vector<Profile> profiles;
  std::vector<Diagnosis> diagnoses;
  std::vector<LabelledProfile> inputs;
};

Result<LabelledSets> LoadLabelledSets(const std::vector<std::string>& directories, CommandRunner& runner) {
  LabelledSets sets;
  KOPT_ASSIGN_OR_RETURN(sets.labelled, FindLabelled(directories));
  sets.profiles.reserve(sets.labelled.size());
  sets.diagnoses.reserve(sets.labelled.size());
  for (const Labelled& entry : sets.labelled) {
    std::vector<std::string> notes;
    KOPT_ASSIGN_OR_RETURN(Profile profile,
                          LoadSelectedProfile(RequestFor(entry.path, entry.kernel_regex), runner, notes));
    sets.diagnoses.push_back(Diagnose(profile, DiagnoseOptions{}));
    sets.profiles.push_back(std::move(profile));
  }
  for (size_t i = 0; i < sets.labelled.size(); ++i) {
    const Labelled& entry = sets.labelled[i];
    sets.inputs.push_back({entry.path, entry.set, entry.label, entry.event_median_us, &sets.diagnoses[i]});
  }
  return sets;
}

// Every question asked in every context over one client: the context shown with a question (kernel
// names replaced by their aliases), the explanations made once per profile, the tallies and answers.
class McqScoring {
 public:
  McqScoring(const LabelledSets& sets, llm::ChatClient& client, std::string prompt_directory)
      : sets_(sets), client_(client), prompt_directory_(std::move(prompt_directory)) {}

  Status Ask(agents::McqContext context, const McqQuestion& question) {
    std::string context_name(agents::McqContextName(context));
    KOPT_ASSIGN_OR_RETURN(agents::McqReply reply, agents::AskMcq(client_, prompt_directory_, question,
                                                                 ContextText(context, question)));
    bool correct = reply.chosen && *reply.chosen == question.correct;
    for (Tally* tally : {&by_context_[context_name],
                         &by_kind_[std::string(McqKindName(question.kind)) + "|" + context_name]}) {
      ++tally->asked;
      tally->correct += correct ? 1 : 0;
    }
    answers_.push_back({{"question", question.id},
                        {"context", context_name},
                        {"chosen", reply.chosen ? json(*reply.chosen) : json(nullptr)},
                        {"correct", correct}});
    return Status::Ok();
  }

  // Answers, tallies by context and by kind, and the check of the explanations, into `results`.
  void AddTo(json& results) const {
    results["answers"] = answers_;
    results["by_context"] = json::object();
    for (const auto& [name, tally] : by_context_) results["by_context"][name] = TallyJson(tally);
    results["by_kind"] = json::object();
    for (const auto& [name, tally] : by_kind_) results["by_kind"][name] = TallyJson(tally);
    results["explanation_check"] = {{"narratives", check_.narratives},
                                    {"claims", check_.claims},
                                    {"supported_claims", check_.supported},
                                    {"names_label", check_.names_label}};
  }

 private:
  const Narrative& ExplanationOf(size_t index) {
    auto found = explanations_.find(index);
    if (found != explanations_.end()) return found->second;
    agents::ExplanationOptions explanation_options;
    explanation_options.prompt_directory = prompt_directory_;
    const Diagnosis& diagnosis = sets_.diagnoses[index];
    agents::DigestInputs digest{&diagnosis, agents::HotSpotsFromProfile(sets_.profiles[index], diagnosis), "",
                                ""};
    Narrative narrative = agents::ExplanationAgent(client_, explanation_options).Explain(digest);
    if (narrative.present()) {
      ++check_.narratives;
      check_.claims += narrative.claims.size();
      check_.supported += narrative.claims.size() - narrative.UnsupportedCount();
      check_.names_label += NamesLabel(narrative, sets_.labelled[index], diagnosis) ? 1 : 0;
    }
    return explanations_.emplace(index, std::move(narrative)).first->second;
  }

  std::string ContextOf(agents::McqContext context, size_t index) {
    switch (context) {
      case agents::McqContext::kNone: return std::string();
      case agents::McqContext::kRaw: return RenderRawMetricTable(sets_.profiles[index]);
      case agents::McqContext::kDiagnosis:
        return MakeRenderer(ReportFormat::kFeedback, RenderOptions{})->Render(sets_.diagnoses[index]);
      case agents::McqContext::kExplanation: {
        const Narrative& narrative = ExplanationOf(index);
        return narrative.present() ? narrative.text : "(no explanation: " + narrative.missing_reason + ")";
      }
    }
    return std::string();
  }

  std::string ContextText(agents::McqContext context, const McqQuestion& question) {
    if (context == agents::McqContext::kNone) return std::string();
    std::string text;
    for (size_t p = 0; p < question.profiles.size(); ++p) {
      std::string heading =
          question.profiles.size() > 1 ? fmt::format("## Kernel {}\n", static_cast<char>('A' + p)) : "";
      text += heading + ContextOf(context, question.profiles[p]) + "\n";
    }
    for (size_t index : question.profiles) text = PseudonymiseKernelName(text, sets_.inputs[index], index);
    return text;
  }

  const LabelledSets& sets_;
  llm::ChatClient& client_;
  std::string prompt_directory_;
  std::map<size_t, Narrative> explanations_;
  ExplanationCheck check_;
  std::map<std::string, Tally> by_context_, by_kind_;
  json answers_ = json::array();
};

Result<std::vector<agents::McqContext>> ParseContexts(const std::vector<std::string>& names) {
  std::vector<agents::McqContext> contexts;
  for (const std::string& name : names) {
    KOPT_ASSIGN_OR_RETURN(agents::McqContext context, agents::ParseMcqContext(name));
    contexts.push_back(context);
  }
  return contexts;
}

json QuestionsJson(const std::vector<McqQuestion>& questions) {
  json list = json::array();
  for (const McqQuestion& question : questions) {
    list.push_back({{"id", question.id},
                    {"kind", McqKindName(question.kind)},
                    {"stem", question.stem},
                    {"options", question.options},
                    {"correct", question.correct}});
  }
  return list;
}

}  // namespace

Status RunEvalMcq(const EvalMcqOptions& options, CommandRunner& runner, std::ostream& out,
                  std::ostream& log) {
  KOPT_ASSIGN_OR_RETURN(ReportFormat format,
                        ResolveReportFormat(options.format, options.output_path, kEvalFormats));
  KOPT_ASSIGN_OR_RETURN(std::vector<agents::McqContext> contexts, ParseContexts(options.contexts));
  KOPT_ASSIGN_OR_RETURN(LabelledSets sets, LoadLabelledSets(options.set_directories, runner));
  McqGenerationOptions generation;
  generation.seed = options.seed;
  std::vector<McqQuestion> questions = GenerateMcqQuestions(sets.inputs, generation);
  if (options.max_questions > 0 && questions.size() > options.max_questions)
    questions.resize(options.max_questions);

  StreamLogSink log_sink(log);
  LlmSession session = LlmSession::Open(LlmSettings{true, options.verbose, options.llm_config_path,
                                                    options.llm_record_path, options.llm_replay_path},
                                        options.verbose ? &log_sink : nullptr);
  if (session.client() == nullptr) return Unavailable("kopt eval mcq needs an LLM: " + session.failure());
  agents::UsageCountingChatClient client(*session.client());  // every call's tokens and dollars
  McqScoring scoring(sets, client, session.prompt_directory());
  for (agents::McqContext context : contexts) {
    for (const McqQuestion& question : questions) KOPT_RETURN_IF_ERROR(scoring.Ask(context, question));
  }
  json results = {{"schema", kEvalMcqSchema},
                  {"profiles", sets.labelled.size()},
                  {"seed", options.seed},
                  {"input_tokens", client.input_tokens()},
                  {"output_tokens", client.output_tokens()},
                  {"cost_usd", client.cost_usd()},
                  {"cost_known", client.cost_known()}};
  results["questions"] = QuestionsJson(questions);
  scoring.AddTo(results);
  std::string rendered = format == ReportFormat::kJson ? results.dump(2) + "\n" : RenderText(results, format);
  return WriteReport(rendered, options.output_path, out);
}

}  // namespace kopt
