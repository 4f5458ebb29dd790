// Asks an LLM one multiple-choice question of `kopt eval mcq`
// (analysis/mcq_benchmark.h) with a context (none, the raw metrics, kopt's
// diagnosis, or the explanation: the caller renders it) and reads the letter
// it chose. Prompts: prompts/eval/mcq_system.md, mcq_user.md ({{context}},
// {{question}}, {{options}}).
//
// Errors: a transport error or a missing template is the Status; an answer
// without a letter is an McqReply whose `chosen` is empty (scored wrong).
//
// Thread safety: as the client's.
#pragma once

#include <optional>
#include <string>

#include "analysis/mcq_benchmark.h"
#include "llm/chat.h"

namespace kopt::agents {

enum class McqContext { kNone, kRaw, kDiagnosis, kExplanation };
std::string_view McqContextName(McqContext context);  // "none", "raw", "diagnosis", "explanation"
Result<McqContext> ParseMcqContext(std::string_view text);

struct McqReply {
  std::optional<size_t> chosen;  // index into the options
  std::string text;              // the answer as written
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
  double cost_usd = 0;  // USD
  bool cost_known = true;
};

Result<McqReply> AskMcq(llm::ChatClient& client, const std::string& prompt_directory,
                        const McqQuestion& question, const std::string& context_text);

}  // namespace kopt::agents
