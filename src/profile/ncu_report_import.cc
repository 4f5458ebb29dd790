// An .ncu-rep read through `ncu --import` (ncu_report_import.h).
#include "profile/ncu_report_import.h"

#include <regex>
#include <system_error>

#include "core/text.h"
#include "profile/collector_support.h"
#include "profile/ncu_csv.h"
#include "profile/ncu_source_page.h"

namespace kopt {
namespace collector {
namespace {

namespace fs = std::filesystem;

// ncu's own message lines ("==PROF== …", "==WARNING== …") that share stdout
// with the CSV: removed before parsing.
bool IsNcuMessageLine(std::string_view line) {
  static const std::regex pattern("^==[A-Z]+==");
  std::string text(line.substr(0, 16));
  return std::regex_search(text, pattern);
}

Status CheckReportFile(const std::string& report_path) {
  std::error_code error;
  if (!fs::exists(report_path, error)) {
    return NotFound("Nsight Compute report " + SingleQuoted(report_path) + " not found");
  }
  if (!fs::is_regular_file(report_path, error)) {
    return InvalidInput(SingleQuoted(report_path) +
                        " is not a file; expected an Nsight Compute report (.ncu-rep)");
  }
  if (fs::file_size(report_path, error) == 0) {
    return InvalidInput(SingleQuoted(report_path) +
                        " is empty; expected an Nsight Compute report (.ncu-rep)");
  }
  return Status::Ok();
}

Status NoKernelInReport(const std::string& report_path, std::string_view ncu_output) {
  return WorkFailed("the report " + SingleQuoted(report_path) +
                    " contains no kernel: ncu exported no profiled launch from it" +
                    ErrorLinesSection(ncu_output));
}

// Runs `ncu --import … --csv --page raw --print-units base` and returns the CSV text.
Result<std::string> ExportRawPage(const std::string& report_path, const CollectionOptions& options,
                                  CommandRunner& runner) {
  CommandSpec spec = ToolCommand(
      {options.ncu, "--import", report_path, "--csv", "--page", "raw", "--print-units", "base"}, options);
  Progress(options, "exporting the raw page (ncu --import)");
  PhaseTimer::Scope phase(options.phases, "raw page export (ncu --import)");
  KOPT_ASSIGN_OR_RETURN(CommandResult result, runner.Run(spec));
  phase.Stop();
  std::string output = CombinedOutput(result);
  if (result.timed_out) {
    return WorkFailed("ncu timed out after " + SecondsText(options.timeout_seconds) + " s reading " +
                      SingleQuoted(report_path));
  }
  if (!result.Succeeded()) {
    std::string detail = MarkedLines(output, "==ERROR==").empty()
                             ? Section("ncu said", LastLines(output, kOutputTailLines))
                             : ErrorLinesSection(output);
    return InvalidInput("ncu could not read the report " + SingleQuoted(report_path) + " (" +
                        DescribeCommandEnd(result, options.timeout_seconds) +
                        "); expected an Nsight Compute report that this ncu version can open" + detail);
  }
  std::string csv = StripNcuMessages(result.stdout_text);
  // A header and a units row with no launch row below them is an empty report too.
  if (NonBlankLineCount(csv) <= 2) return NoKernelInReport(report_path, output);
  return csv;
}

}  // namespace

std::string StripNcuMessages(std::string_view text) {
  std::string kept;
  kept.reserve(text.size());
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    size_t stop = end == std::string_view::npos ? text.size() : end + 1;
    std::string_view line = text.substr(start, stop - start);
    if (!IsNcuMessageLine(line)) kept.append(line);
    start = stop;
  }
  return kept;
}

// Exports and parses a report; when `bundle_directory` is set, keeps the CSV there as raw.csv.
Result<Profile> ReadReport(const std::string& report_path, const CollectionOptions& options,
                           CommandRunner& runner, const std::optional<fs::path>& bundle_directory) {
  KOPT_ASSIGN_OR_RETURN(std::string csv, ExportRawPage(report_path, options, runner));
  if (bundle_directory) KOPT_RETURN_IF_ERROR(WriteTextFile(*bundle_directory / "raw.csv", csv));
  KOPT_ASSIGN_OR_RETURN(std::vector<KernelLaunch> launches, ParseNcuRawCsv(csv, report_path));
  if (launches.empty()) return NoKernelInReport(report_path, "");
  Profile profile;
  profile.source = report_path;
  profile.launches = std::move(launches);
  profile.inputs.push_back({report_path, "report", bundle_directory ? "collected" : "given"});
  return profile;
}

// Exports the report's source page (per-SASS-instruction stall samples and
// sectors) to source.csv and attaches it; any failure is a note.
void AttachSourcePage(const std::string& report_path, const fs::path& work_directory,
                      const CollectionOptions& options, CommandRunner& runner, Profile& profile,
                      std::vector<std::string>& notes) {
  std::vector<std::string> argv = {options.ncu, "--import",       report_path, "--csv",         "--page",
                                   "source",    "--print-source", "sass",      "--print-units", "base"};
  Progress(options, "exporting the source page (ncu --import)");
  PhaseTimer::Scope phase(options.phases, "source page export (ncu --import)");
  Result<CommandResult> result = runner.Run(ToolCommand(argv, options));
  if (!result.ok() || !result->Succeeded()) {
    std::string why = result.ok() ? DescribeCommandEnd(*result, options.timeout_seconds) +
                                        Section("output", LastLines(CombinedOutput(*result), 5))
                                  : result.status().message();
    notes.push_back("`" + CommandLineForDisplay(argv) + "` failed (" + why +
                    "): no per-instruction source page");
    return;
  }
  std::string csv = StripNcuMessages(result->stdout_text);
  fs::path source_page_path = work_directory / "source.csv";
  Status written = WriteTextFile(source_page_path, csv);
  if (!written.ok()) notes.push_back(written.message());
  Result<std::vector<SourcePage>> pages = ParseNcuSourcePage(csv, source_page_path.string());
  if (pages.ok()) {
    profile.source_pages = std::move(pages).value();
    profile.inputs.push_back({source_page_path.string(), "source page", "collected"});
  } else {
    notes.push_back("no per-instruction source page: " + pages.status().message());
  }
}

}  // namespace collector

Result<Profile> ImportNcuReport(const std::string& report_path, const CollectionOptions& options,
                                CommandRunner& runner) {
  using namespace collector;
  KOPT_RETURN_IF_ERROR(CheckReportFile(report_path));
  if (runner.FindProgram(options.ncu).empty()) {
    return Unavailable("reading " + SingleQuoted(report_path) + " needs Nsight Compute's ncu on PATH (" +
                       SingleQuoted(options.ncu) +
                       " was not found); or export on the machine that has it: ncu --import " + report_path +
                       " --csv --page raw --print-units base > r.csv and run kopt explain r.csv. " +
                       NcuInstallAdvice() + ".");
  }
  return ReadReport(report_path, options, runner, std::nullopt);
}

}  // namespace kopt
