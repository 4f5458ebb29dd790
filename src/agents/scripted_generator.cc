#include "agents/scripted_generator.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <filesystem>

#include "agents/code_extraction.h"
#include "agents/generator_table.h"
#include "core/file_io.h"
#include "core/toml_document.h"
#include "harness/task_spec.h"

namespace kopt::agents {
namespace {

namespace fs = std::filesystem;

std::string Where(const std::string& file, const toml::node& node) {
  return fmt::format("{}:{}", file, node.source().begin.line);
}

Result<std::optional<GenerationMode>> ReadMode(const std::string& file, const toml::table& answer) {
  const toml::node* node = answer.get("mode");
  if (node == nullptr) return std::optional<GenerationMode>();
  std::optional<std::string> text = node->value<std::string>();
  if (!text) return InvalidInput(fmt::format("{}: answer.mode: expected a string", Where(file, *node)));
  if (*text == "any") return std::optional<GenerationMode>();
  std::optional<GenerationMode> mode = ParseGenerationMode(*text);
  if (!mode.has_value()) {
    return InvalidInput(
        fmt::format("{}: answer.mode: \"{}\" is not a mode; expected initial, repair, "
                    "optimize or any",
                    Where(file, *node), *text));
  }
  return std::optional<GenerationMode>(*mode);
}

Result<ScriptedAnswer> ReadAnswer(const std::string& directory, const std::string& file,
                                  const toml::table& answer) {
  for (const auto& [key, value] : answer) {
    if (key != "mode" && key != "file" && key != "response" && key != "reason") {
      return InvalidInput(fmt::format("{}: answer.{}: unknown key; expected mode, file, response or reason",
                                      Where(file, value), key.str()));
    }
  }
  ScriptedAnswer result;
  KOPT_ASSIGN_OR_RETURN(result.mode, ReadMode(file, answer));
  std::optional<std::string> source_file = answer["file"].value<std::string>();
  std::optional<std::string> response_file = answer["response"].value<std::string>();
  if (source_file.has_value() == response_file.has_value()) {
    return InvalidInput(
        fmt::format("{}: answer: expected exactly one of file = \"x.cu\" or "
                    "response = \"x.md\"",
                    Where(file, answer)));
  }
  result.is_response = response_file.has_value();
  result.path = (fs::path(directory) / (source_file ? *source_file : *response_file)).string();
  KOPT_ASSIGN_OR_RETURN(result.text, ReadWholeFile(result.path));
  result.reason = answer["reason"].value_or(std::string());
  return result;
}

Result<std::vector<ScriptedAnswer>> LoadManifest(const std::string& directory, const std::string& file) {
  KOPT_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(file));
  KOPT_ASSIGN_OR_RETURN(toml::table root, ParseTomlDocument(text, file));
  const toml::array* answers = root["answer"].as_array();
  if (answers == nullptr) {
    return InvalidInput(
        fmt::format("{}: expected [[answer]] tables (docs/optimize.md, \"Scripted runs\")", file));
  }
  std::vector<ScriptedAnswer> result;
  for (const toml::node& node : *answers) {
    const toml::table* answer = node.as_table();
    if (answer == nullptr)
      return InvalidInput(fmt::format("{}: answer: expected a table", Where(file, node)));
    KOPT_ASSIGN_OR_RETURN(ScriptedAnswer read, ReadAnswer(directory, file, *answer));
    result.push_back(std::move(read));
  }
  return result;
}

Result<std::vector<ScriptedAnswer>> LoadSourceFiles(const std::string& directory) {
  std::vector<std::string> paths;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory)) {
    if (entry.is_regular_file() && entry.path().extension() == ".cu") paths.push_back(entry.path().string());
  }
  std::sort(paths.begin(), paths.end());
  std::vector<ScriptedAnswer> result;
  for (const std::string& path : paths) {
    ScriptedAnswer answer;
    answer.path = path;
    KOPT_ASSIGN_OR_RETURN(answer.text, ReadWholeFile(path));
    result.push_back(std::move(answer));
  }
  return result;
}

bool Accepts(const ScriptedAnswer& answer, GenerationMode mode) {
  return !answer.mode.has_value() || *answer.mode == mode;
}

}  // namespace

Result<std::vector<ScriptedAnswer>> LoadScript(const std::string& directory) {
  std::error_code error;
  if (!fs::is_directory(directory, error)) {
    return NotFound(
        fmt::format("{}: not a directory (--script expects a directory of .cu files or a "
                    "script.toml)",
                    directory));
  }
  std::string manifest = (fs::path(directory) / "script.toml").string();
  Result<std::vector<ScriptedAnswer>> answers =
      fs::exists(manifest) ? LoadManifest(directory, manifest) : LoadSourceFiles(directory);
  if (!answers.ok()) return answers.status();
  if (answers->empty()) {
    return InvalidInput(
        fmt::format("{}: no answers: expected *.cu files or a script.toml with [[answer]] "
                    "tables",
                    directory));
  }
  return answers;
}

ScriptedGenerator::ScriptedGenerator(std::vector<ScriptedAnswer> answers, std::string entry_point)
    : answers_(std::move(answers)), served_(answers_.size(), false), entry_point_(std::move(entry_point)) {}

size_t ScriptedGenerator::remaining() const {
  std::lock_guard lock(mutex_);
  return static_cast<size_t>(std::count(served_.begin(), served_.end(), false));
}

void ScriptedGenerator::MarkServed(const std::string& answer_id) {
  std::lock_guard lock(mutex_);
  for (size_t index = 0; index < answers_.size(); ++index) {
    if (!served_[index] && answers_[index].path == answer_id) {
      served_[index] = true;
      return;
    }
  }
}

Result<GeneratedCandidate> ScriptedGenerator::Generate(const GenerationRequest& request) {
  std::lock_guard lock(mutex_);
  GeneratedCandidate result;
  for (size_t index = 0; index < answers_.size(); ++index) {
    if (served_[index] || !Accepts(answers_[index], request.mode)) continue;
    served_[index] = true;
    const ScriptedAnswer& answer = answers_[index];
    std::string file_name = std::filesystem::path(answer.path).filename().string();
    result.reason = answer.reason.empty() ? "scripted: " + file_name : answer.reason;
    result.answer_id = answer.path;
    if (!answer.is_response) {
      result.outcome = GenerationOutcome::kSource;
      result.source = answer.text;
      return result;
    }
    result.response_text = answer.text;
    ExtractedCode code = ExtractCode(answer.text, "stop", entry_point_);
    if (!code.usable()) {
      result.outcome = GenerationOutcome::kNoCode;
      result.message = fmt::format("{}: {}", file_name, code.message);
      return result;
    }
    result.outcome = GenerationOutcome::kSource;
    result.source = std::move(code.source);
    return result;
  }
  result.outcome = GenerationOutcome::kExhausted;
  result.message = fmt::format("the script has no answer left for mode {}", GenerationModeName(request.mode));
  return result;
}

Status MakeScriptedGeneratorParts(const GeneratorInputs& inputs, GeneratorParts& parts) {
  if (inputs.script_directory.empty()) {
    return InvalidInput(
        "--generator scripted needs --script DIR (a directory of .cu files or a script.toml; "
        "docs/optimize.md)");
  }
  KOPT_ASSIGN_OR_RETURN(std::vector<ScriptedAnswer> answers, LoadScript(inputs.script_directory));
  parts.generator = std::make_unique<ScriptedGenerator>(std::move(answers), inputs.task->entry);
  return Status::Ok();
}

}  // namespace kopt::agents
