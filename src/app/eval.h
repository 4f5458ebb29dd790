// `kopt eval mcq SET_DIR...`: the multiple-choice benchmark (docs/eval.md).
// Every subdirectory of a SET_DIR with an expected.toml (primary_bottleneck,
// optional kernel_regex and event_median_us) is a labelled profile; they are
// loaded, diagnosed, the questions generated (analysis/mcq_benchmark.h), and
// each asked once per context (none, raw metrics, kopt's diagnosis, the
// explanation agent's narrative) through the configured LLM. Reports accuracy
// per context and per kind with Wilson 95 % intervals, tokens and dollars,
// and the LLM-free check of the explanations used as context: the share of
// their numbers supported by the evidence, and the share whose "What limits
// it" section names the labelled bottleneck. JSON `kopt.eval.mcq/1`, html
// (bars with the intervals), term, md.
//
// Errors: no labelled profile (InvalidInput naming the directories), a bad
// expected.toml (InvalidInput naming it), no LLM (Unavailable).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/subprocess.h"

namespace kopt {

struct EvalMcqOptions {
  std::vector<std::string> set_directories;
  std::vector<std::string> contexts = {"none", "raw", "diagnosis", "explanation"};
  uint64_t seed = 1;
  size_t max_questions = 0;  // 0: all generated
  std::string format;        // term | md | json | html; empty: from output_path, else term
  std::string output_path;
  bool verbose = false;
  std::string llm_config_path;
  std::string llm_record_path;
  std::string llm_replay_path;
};

Status RunEvalMcq(const EvalMcqOptions& options, CommandRunner& runner, std::ostream& out, std::ostream& log);

}  // namespace kopt
