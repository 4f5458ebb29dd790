#include "cli/help_documents.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>

#include "core/text.h"

namespace kopt {
namespace {

std::vector<const CLI::App*> Subcommands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App*) { return true; });
}

std::vector<const CLI::Option*> Options(const CLI::App& app) {
  return app.get_options([](const CLI::Option*) { return true; });
}

// "-f --format" of an option (nothing for a positional argument).
std::vector<std::string> OptionWords(const CLI::Option& option) {
  std::vector<std::string> words;
  for (const std::string& name : option.get_snames()) words.push_back("-" + name);
  for (const std::string& name : option.get_lnames()) words.push_back("--" + name);
  return words;
}

std::string Join(const std::vector<std::string>& words, std::string_view separator) {
  std::string text;
  for (const std::string& word : words) text += (text.empty() ? "" : std::string(separator)) + word;
  return text;
}

// The options of a command, as completion words.
std::string OptionWordsOf(const CLI::App& command) {
  std::vector<std::string> words;
  for (const CLI::Option* option : Options(command)) {
    for (std::string& word : OptionWords(*option)) words.push_back(std::move(word));
  }
  return Join(words, " ");
}

// The names of a command's own subcommands ("status" of suite).
std::string SubcommandNamesOf(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::App* subcommand : Subcommands(command)) names.push_back(subcommand->get_name());
  return Join(names, " ");
}

// A word for man(7): backslashes escaped, '-' as a hyphen (no line handling).
std::string RoffWord(std::string_view text) {
  std::string escaped;
  for (char c : text) {
    if (c == '\\') {
      escaped += "\\e";
    } else if (c == '-') {
      escaped += "\\-";
    } else {
      escaped += c;
    }
  }
  return escaped;
}

// man(7) text lines: RoffWord, and a line starting with '.' or '\'' kept literal.
std::string Roff(std::string_view text) {
  std::string escaped = RoffWord(text);
  std::string out;
  for (std::string_view line : SplitLines(escaped)) {
    if (!line.empty() && (line.front() == '.' || line.front() == '\'')) out += "\\&";
    out += std::string(line) + "\n";
  }
  return out;
}

void ManOptions(const CLI::App& command, std::string& out) {
  for (const CLI::Option* option : Options(command)) {
    if (option == command.get_help_ptr()) continue;  // every command's -h, --help: said once, in SYNOPSIS
    std::vector<std::string> words = OptionWords(*option);
    std::string value = option->get_type_size() != 0 ? option->get_type_name() : "";
    std::string head;
    if (words.empty()) {
      head = "\\fI" + RoffWord(option->get_name()) + "\\fR";
    } else {
      for (const std::string& word : words)
        head += (head.empty() ? "" : ", ") + ("\\fB" + RoffWord(word) + "\\fR");
      if (!value.empty()) head += " \\fI" + RoffWord(value) + "\\fR";
    }
    std::string description = option->get_description();
    if (!option->get_default_str().empty()) description += " (default: " + option->get_default_str() + ")";
    out += ".TP\n" + head + "\n" + Roff(description);
  }
}

}  // namespace

const std::vector<EnvironmentVariable>& EnvironmentVariables() {
  static const std::vector<EnvironmentVariable> kVariables = {
      {"NO_COLOR",
       "Set and not empty: no colour in terminal reports unless --color always (no-color.org). Colour is "
       "otherwise on when standard output is a terminal."},
      {"KOPT_CEILINGS_DIR",
       "Where kopt calibrate writes the measured ceilings and energy tables and where explain looks for "
       "them (default ~/.local/share/kopt/ceilings)."},
      {"KOPT_NO_GPU_QUERY", "1: do not query this machine's GPUs (as on a machine without one)."},
      {"KOPT_NVCC", "The nvcc to compile with (default: nvcc on PATH, then /usr/local/cuda/bin/nvcc)."},
      {"KOPT_PYTHON", "The Python 3 interpreter of KernelBench tasks' PyTorch references (default python3)."},
      {"KOPT_RUNNER", "The kopt-runner program of kopt bench and optimize (default: beside kopt)."},
      {"KOPT_RUNNER_SANDBOX",
       "kopt-runner's sandbox once candidate code is loaded: full, no-exec-lock, or off (the default; "
       "docs/harness-protocol.md)."},
      {"KOPT_OUTPUT_SPLICE",
       "0: kopt-runner sends outputs over its pipe without splice(2) (diagnosis only)."},
      {"KOPT_LAUNCHER",
       "The kopt-launcher program of live collection (default: beside kopt); none: build and profile one "
       "after the other."},
      {"KOPT_LAUNCHER_WARMUP", "0: kopt-launcher does not warm the GPU up before the profiled launches."},
      {"KOPT_LAUNCHER_WAIT_SECONDS", "How long kopt-launcher waits for the built library (default 900)."},
      {"KOPT_TIMELINE_LIBRARY",
       "The launch-timeline injection library, libkopt_timeline.so (default: beside kopt); none: no "
       "timeline."},
      {"KOPT_TIMELINE_API",
       "0: the timeline library leaves out host-side launch API records (less overhead)."},
      {"KOPT_PROMPT_DIR",
       "The LLM prompt templates (default: share/kopt/prompts beside the installed kopt)."},
      {"KOPT_LLM_PROVIDER",
       "LLM provider: openai (any OpenAI-compatible endpoint) or anthropic (docs/llm.md)."},
      {"KOPT_LLM_BASE_URL", "The LLM endpoint's base URL."},
      {"KOPT_LLM_MODEL", "The LLM model name."},
      {"KOPT_LLM_API_KEY", "The LLM API key; overrides OPENAI_API_KEY and ANTHROPIC_API_KEY."},
      {"OPENAI_API_KEY", "The API key of the openai provider when KOPT_LLM_API_KEY is unset."},
      {"ANTHROPIC_API_KEY", "The API key of the anthropic provider when KOPT_LLM_API_KEY is unset."},
      {"KOPT_TIMELINE_OUT",
       "Where the timeline library writes its records; set by kopt for the profiled program.", true},
      {"KOPT_RUN_TOKEN", "The token of one kopt-runner child; set by kopt, removed by the child at start.",
       true},
      {"KOPT_PARENT_PID", "The parent a child of kopt ends with; set by kopt.", true},
  };
  return kVariables;
}

std::string BashCompletionScript(const CLI::App& app) {
  std::string commands;
  std::string cases;
  for (const CLI::App* command : Subcommands(app)) {
    commands += (commands.empty() ? "" : " ") + command->get_name();
    cases += fmt::format("    {}) options=\"{}\"; subcommands=\"{}\" ;;\n", command->get_name(),
                         OptionWordsOf(*command), SubcommandNamesOf(*command));
    for (const CLI::App* subcommand : Subcommands(*command)) {
      cases += fmt::format("    {}/{}) options=\"{}\" ;;\n", command->get_name(), subcommand->get_name(),
                           OptionWordsOf(*subcommand));
    }
  }
  return fmt::format(
      R"(# bash completion for kopt; generated by `kopt completion bash`. cmake --install puts it in
# share/bash-completion/completions/kopt; or: kopt completion bash > ~/.local/share/bash-completion/completions/kopt
_kopt_words() {{
  options="" subcommands=""
  case $1 in
{}  esac
}}
_kopt() {{
  local cur=${{COMP_WORDS[COMP_CWORD]}} prev=${{COMP_WORDS[COMP_CWORD-1]}}
  local command="" path="" options subcommands i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case ${{COMP_WORDS[i]}} in
      --) return 0 ;;  # a program and its arguments follow
      -*) ;;
      *)
        if [[ -z $command ]]; then
          command=${{COMP_WORDS[i]}}
          path=$command
        elif [[ $path == "$command" ]]; then
          _kopt_words "$command"
          [[ " $subcommands " == *" ${{COMP_WORDS[i]}} "* ]] && path=$command/${{COMP_WORDS[i]}}
        fi ;;
    esac
  done
  case $prev in
    --color) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return 0 ;;
    --format|-f) COMPREPLY=($(compgen -W "term md json html feedback" -- "$cur")); return 0 ;;
  esac
  if [[ -z $command ]]; then
    COMPREPLY=($(compgen -W "{} --help --version" -- "$cur"))
    return 0
  fi
  if [[ $command == completion && $path == completion && $cur != -* ]]; then
    COMPREPLY=($(compgen -W "bash zsh" -- "$cur"))
    return 0
  fi
  _kopt_words "$path"
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$options" -- "$cur"))
  elif [[ $path == "$command" && -n $subcommands ]]; then
    COMPREPLY=($(compgen -W "$subcommands" -- "$cur") $(compgen -f -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}}
complete -o filenames -o bashdefault -F _kopt kopt
)",
      cases, commands);
}

std::string ZshCompletionScript(const CLI::App& app) {
  return "#compdef kopt\n# zsh completion for kopt; generated by `kopt completion zsh`: the bash script "
         "through "
         "bashcompinit.\nautoload -U +X bashcompinit && bashcompinit\n" +
         BashCompletionScript(app);
}

std::string ManPage(const CLI::App& app, std::string_view version) {
  std::string out = fmt::format(".TH KOPT 1 \"\" \"kopt {}\" \"User Commands\"\n", version);
  out += ".SH NAME\nkopt \\- explain and optimize CUDA kernels\n";
  out +=
      ".SH SYNOPSIS\n.B kopt\n\\fICOMMAND\\fR [\\fIOPTIONS\\fR] [\\fIARGUMENTS\\fR]\n.br\n.B kopt\n"
      "\\fB\\-\\-version\\fR | \\fB\\-\\-help\\fR\n";
  out +=
      ".SH DESCRIPTION\n" +
      Roff(
          "kopt reads a kernel's Nsight Compute profile the way a performance engineer does and says, with "
          "numbers, what limits it: the roofline placement, the bottleneck class, the warp stalls, and the "
          "findings of the micro-profiling tools ranked by estimated gain, each with its evidence, root "
          "cause "
          "and the change that fixes it. It verifies and times candidate kernels (bench) and searches for "
          "faster ones (optimize). `kopt COMMAND --help` describes each command; the documentation is in "
          "the docs/ folder of the source tree.");
  out += ".SH COMMANDS\n";
  for (const CLI::App* command : Subcommands(app)) {
    out += ".SS \"kopt " + command->get_name() + "\"\n" + Roff(command->get_description());
    ManOptions(*command, out);
    for (const CLI::App* subcommand : Subcommands(*command)) {
      out += ".PP\n\\fBkopt " + command->get_name() + " " + subcommand->get_name() +
             "\\fR: " + Roff(subcommand->get_description());
      ManOptions(*subcommand, out);
    }
    std::string footer = command->get_footer();
    if (!TrimWhitespace(footer).empty()) out += ".PP\n.nf\n" + Roff(TrimWhitespace(footer)) + ".fi\n";
  }
  out +=
      ".SH EXIT STATUS\n.TP\n0\nsuccess\n.TP\n1\nthe work failed (a candidate did not verify, a profile had "
      "no kernel)\n.TP\n2\nbad usage or bad input; the message names the file, the line or field, and what "
      "was expected\n";
  out +=
      ".PP\nWith \\fB\\-f json\\fR (or \\fB\\-o\\fR \\fIFILE\\fR\\fB.json\\fR) an error is one JSON "
      "object on standard error: {\"tool\": \"kopt\", \"error\": {\"kind\", \"exit_code\", \"message\"}} "
      "(docs/json-schema.md).\n";
  out += ".SH ENVIRONMENT\n";
  for (const EnvironmentVariable& variable : EnvironmentVariables()) {
    out += ".TP\n.B " + std::string(variable.name) + "\n" +
           Roff(std::string(variable.internal ? "(internal) " : "") + std::string(variable.meaning));
  }
  out +=
      ".SH FILES\n.TP\n.I .kopt/\nthe workspace of bench and optimize (\\fB\\-\\-workspace\\fR): a SQLite "
      "database and the artifacts of each run\n.TP\n.I ~/.local/share/kopt/ceilings/\nmeasured ceilings and "
      "energy tables of kopt calibrate (\\fBKOPT_CEILINGS_DIR\\fR)\n";
  out += ".SH SEE ALSO\n.BR ncu (1),\n.BR nvcc (1)\n";
  return out;
}

}  // namespace kopt
