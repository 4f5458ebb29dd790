#include "suite/suite_plan.h"

#include <fmt/format.h>
#include <glob.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/file_io.h"
#include "core/text.h"

namespace kopt::suite {
namespace {

namespace fs = std::filesystem;

bool IsTaskDirectory(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(path / "task.toml", error);
}

bool IsGlob(std::string_view text) {
  return text.find_first_of("*?[") != std::string_view::npos;
}

std::string LevelOf(const fs::path& task_directory) {
  Result<std::string> text = ReadWholeFile((task_directory / "kernelbench.json").string(), size_t{16} << 20);
  if (text.ok()) {
    nlohmann::json document = nlohmann::json::parse(*text, nullptr, false);
    if (document.is_object() && document.contains("level")) {
      const nlohmann::json& level = document["level"];
      if (level.is_number_integer()) return LevelName(level.get<int>());
      if (level.is_string()) return level.get<std::string>();
    }
  }
  std::string parent = task_directory.parent_path().filename().string();
  if (StartsWith(parent, "level") && ParseInteger(parent.substr(5))) return parent;
  return "-";
}

class Expansion {
 public:
  Status AddArgument(const std::string& argument, const fs::path& base, bool through_glob) {
    fs::path path = fs::path(argument).is_absolute() ? fs::path(argument) : base / argument;
    std::error_code error;
    if (!through_glob && IsGlob(argument) && !fs::exists(path, error)) return AddGlob(argument, path);
    if (IsTaskDirectory(path)) return AddTask(path);
    if (fs::is_directory(path, error)) return AddLevel(argument, path);
    if (fs::is_regular_file(path, error)) {
      if (through_glob) return Status::Ok();  // a glob's file matches are not list files
      return AddList(argument, path);
    }
    return NotFound(
        fmt::format("{}: no such task directory, level directory, list file or glob match", argument));
  }

  Result<std::vector<SuiteProblem>> Take() {
    if (problems_.empty()) return InvalidInput("no task directory found in the arguments");
    return std::move(problems_);
  }

 private:
  Status AddGlob(const std::string& argument, const fs::path& pattern) {
    glob_t matches{};
    int code = glob(pattern.string().c_str(), 0, nullptr, &matches);
    std::vector<std::string> paths(matches.gl_pathv, matches.gl_pathv + (code == 0 ? matches.gl_pathc : 0));
    globfree(&matches);
    if (paths.empty()) return NotFound(fmt::format("{}: the glob matches nothing", argument));
    std::sort(paths.begin(), paths.end());
    for (const std::string& match : paths) KOPT_RETURN_IF_ERROR(AddArgument(match, "/", true));
    return Status::Ok();
  }

  Status AddLevel(const std::string& argument, const fs::path& directory) {
    std::vector<fs::path> tasks;
    std::error_code error;
    for (const fs::directory_entry& entry : fs::directory_iterator(directory, error)) {
      if (IsTaskDirectory(entry.path())) tasks.push_back(entry.path());
    }
    if (tasks.empty())
      return NotFound(
          fmt::format("{}: a directory without task.toml and without task directories", argument));
    std::sort(tasks.begin(), tasks.end());
    for (const fs::path& task : tasks) KOPT_RETURN_IF_ERROR(AddTask(task));
    return Status::Ok();
  }

  Status AddList(const std::string& argument, const fs::path& file) {
    KOPT_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(file.string(), size_t{16} << 20));
    fs::path base = file.parent_path();
    size_t line_number = 0;
    for (std::string_view line : SplitLines(text)) {
      ++line_number;
      std::string_view entry = TrimWhitespace(line.substr(0, line.find('#')));
      if (entry.empty()) continue;
      Status added = AddArgument(std::string(entry), base, false);
      if (!added.ok()) return added.WithContext(fmt::format("{}:{}", argument, line_number));
    }
    return Status::Ok();
  }

  Status AddTask(const fs::path& path) {
    fs::path normal = fs::weakly_canonical(fs::absolute(path));
    std::string directory = normal.string();
    if (!seen_.insert(directory).second) return Status::Ok();
    std::string key = normal.filename().string();
    bool safe = !key.empty() && key[0] != '.' && std::all_of(key.begin(), key.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    });
    if (!safe)
      return InvalidInput(
          fmt::format("{}: a problem's directory name may hold only letters, digits, '.', '_' "
                      "and '-' (it names files and jobs)",
                      directory));
    auto [place, inserted] = keys_.emplace(key, directory);
    if (!inserted)
      return InvalidInput(
          fmt::format("two problems named {}: {} and {} (a suite's problems need distinct "
                      "directory names)",
                      key, place->second, directory));
    problems_.push_back(SuiteProblem{key, directory, LevelOf(normal)});
    return Status::Ok();
  }

  std::vector<SuiteProblem> problems_;
  std::set<std::string> seen_;
  std::map<std::string, std::string> keys_;
};

}  // namespace

std::string LevelName(int level) {
  return level > 0 ? fmt::format("level{}", level) : "-";
}

Result<std::vector<SuiteProblem>> ExpandSuiteTasks(const std::vector<std::string>& arguments) {
  Expansion expansion;
  fs::path here = fs::current_path();
  for (const std::string& argument : arguments)
    KOPT_RETURN_IF_ERROR(expansion.AddArgument(argument, here, false));
  return expansion.Take();
}

}  // namespace kopt::suite
