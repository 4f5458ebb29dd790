// The options and checks several commands share, each command's own file
// (command_<name>.cc) adding them to its CLI11 subcommand. The values land in
// the command's options struct (app/<command>.h); nothing here runs a command.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "core/status.h"

namespace kopt {
struct CollectionSettings;  // analysis/collection_settings.h
struct LlmSettings;         // explain/llm_session.h
struct MeasureSettings;     // measure/measure.h
}  // namespace kopt

namespace kopt::cli {

// CLI11's NonNegativeNumber prints its range up to DBL_MAX (a 300-digit number); this says it plainly.
CLI::Validator NonNegative();

// -o FILE of a command that writes one report: "-" (or leaving it out) is stdout.
void AddReportOutputOption(CLI::App& command, std::string& output_path);

// --color WHEN of the commands that colour a terminal report: auto (the default) colours when stdout is
// a terminal and NO_COLOR is unset or empty (no-color.org); always and never override both.
void AddColorOption(CLI::App& command, std::string& when);

// --quiet of the commands that draw a progress line on stderr: no progress (errors are still printed).
void AddQuietOption(CLI::App& command, bool& quiet);

// The columns of the terminal on stdout; 100 when stdout is no terminal (a file or pipe gets the same
// report wherever it is made).
int TerminalWidth();

// Whether a terminal report is coloured under --color WHEN (auto: stdout is a terminal and NO_COLOR is
// unset or empty).
bool ColorWanted(const std::string& when);

// --llm (its help names what the numbers are checked against), --llm-config,
// --llm-record and --llm-replay: the narrative options explain, diff and plan
// share (docs/llm.md). --verbose stays each command's own.
void AddLlmNarrativeOptions(CLI::App& command, LlmSettings& llm, const std::string& llm_help);

// The configuration and transcript options mean nothing without --llm.
Status CheckLlmOptionsNeedLlm(const LlmSettings& llm);

// The live-collection options `kopt explain` and `kopt diff` share (analysis/collection_settings.h).
void AddCollectionOptions(CLI::App& command, CollectionSettings& settings);

// The harness options `kopt bench` and `kopt optimize` share (measure/measure.h).
void AddMeasureOptions(CLI::App& command, MeasureSettings& settings);

// Parses the comma-separated --devices list ("0,1") of `kopt optimize` and `kopt suite`.
Result<std::vector<int>> ParseDevices(const std::string& text);

}  // namespace kopt::cli
