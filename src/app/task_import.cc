#include "app/task_import.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "core/file_io.h"

namespace kopt {
namespace fs = std::filesystem;

namespace {

Result<std::vector<std::string>> ProblemFiles(const std::vector<std::string>& paths, bool& from_directory) {
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    std::error_code error;
    if (fs::is_directory(path, error)) {
      from_directory = true;
      std::vector<std::string> found;
      for (const auto& item : fs::directory_iterator(path, error)) {
        if (item.path().extension() == ".py" && item.path().filename() != "__init__.py") {
          found.push_back(item.path().string());
        }
      }
      if (found.empty()) return NotFound(path + ": no problem files (*.py) in this directory");
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::exists(path, error)) {
      files.push_back(path);
    } else {
      return NotFound(path + ": no such file or directory");
    }
  }
  return files;
}

// InvalidInput when `directory` holds one of `files` with other contents.
Status RefuseOverwrite(const fs::path& directory,
                       const std::vector<std::pair<std::string, std::string>>& files,
                       const std::string& problem_path) {
  for (const auto& [name, contents] : files) {
    fs::path existing = directory / name;
    std::error_code error;
    if (!fs::exists(existing, error)) continue;
    Result<std::string> text = ReadWholeFile(existing.string(), contents.size() + 1);
    if (text.ok() && *text == contents) continue;
    return InvalidInput(fmt::format(
        "{}: {} already exists and differs from what this import would write (an edited task, or an "
        "import with other settings): pass --force to replace it, or --out another directory",
        problem_path, existing.string()));
  }
  return Status::Ok();
}

Result<std::string> ImportOne(const std::string& path, const TaskImportOptions& options,
                              CommandRunner& runner) {
  KOPT_ASSIGN_OR_RETURN(std::string source, ReadWholeFile(path, size_t{4} << 20));
  KOPT_ASSIGN_OR_RETURN(KernelBenchProblem problem, ProbeKernelBenchProblem(path, runner, options.import));
  KOPT_ASSIGN_OR_RETURN(auto files, KernelBenchTaskFiles(problem, source, options.import));
  fs::path directory = fs::path(options.output_directory) / KernelBenchTaskName(problem);
  if (!options.force) KOPT_RETURN_IF_ERROR(RefuseOverwrite(directory, files, path));
  std::error_code error;
  fs::create_directories(directory, error);
  if (error)
    return InvalidInput(
        fmt::format("{}: cannot create the directory: {}", directory.string(), error.message()));
  for (const auto& [name, contents] : files) {
    KOPT_RETURN_IF_ERROR(WriteFileAtomically((directory / name).string(), contents));
  }
  size_t tensors = 0, scalars = 0;
  for (const KernelBenchArgument& argument : problem.arguments)
    (argument.role == "scalar" ? scalars : tensors)++;
  return fmt::format("{}  <- {}  ({} tensors, {} scalars; shapes from {})", directory.string(), path, tensors,
                     scalars, problem.shapes_from);
}

}  // namespace

Status RunTaskImportKernelBench(const TaskImportOptions& given, CommandRunner& runner, std::ostream& out) {
  TaskImportOptions options = given;
  if (!options.protocol.empty())
    KOPT_RETURN_IF_ERROR(ApplyKernelBenchProtocol(options.protocol, options.import));
  if (!(options.import.timeout_seconds > 0)) {
    return InvalidInput("--timeout: expected a positive number of seconds per problem");
  }
  if (options.paths.empty())
    return InvalidInput("import-kernelbench: give a problem file or a level directory");
  if (options.import.inputs != "exercise" && options.import.inputs != "kernelbench") {
    return InvalidInput("--inputs: \"" + options.import.inputs + "\": expected exercise or kernelbench");
  }
  if (options.import.tolerance != "kernelbench" && options.import.tolerance != "verified" &&
      options.import.tolerance != "kopt") {
    return InvalidInput("--tolerance: \"" + options.import.tolerance +
                        "\": expected kernelbench, verified or kopt");
  }
  bool from_directory = false;
  KOPT_ASSIGN_OR_RETURN(std::vector<std::string> files, ProblemFiles(options.paths, from_directory));
  std::vector<std::string> failures;
  for (const std::string& file : files) {
    Result<std::string> imported = ImportOne(file, options, runner);
    if (imported.ok()) {
      out << "imported " << imported.value() << "\n";
      continue;
    }
    if (!from_directory && files.size() == 1) return imported.status();
    if (imported.status().kind() == ErrorKind::kUnavailable) return imported.status();
    failures.push_back(imported.status().message());
    out << "failed   " << imported.status().message() << "\n";
  }
  if (!failures.empty()) {
    return WorkFailed(
        fmt::format("{} of {} problems could not be imported (listed above)", failures.size(), files.size()));
  }
  return Status::Ok();
}

}  // namespace kopt
