#include "harness/cutlass_tree.h"

#include <fmt/format.h>

#include <filesystem>
#include <regex>

#include "core/file_io.h"
#include "core/text.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;

bool IsFile(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(path, error);
}

// CUTLASS_MAJOR / MINOR / PATCH of include/cutlass/version.h.
std::string VersionOf(const fs::path& root) {
  Result<std::string> text = ReadWholeFile((root / "include/cutlass/version.h").string(), 1 << 20);
  if (!text.ok()) return "";
  std::string parts[3];
  const char* names[3] = {"CUTLASS_MAJOR", "CUTLASS_MINOR", "CUTLASS_PATCH"};
  for (int i = 0; i < 3; ++i) {
    std::smatch match;
    std::regex pattern(std::string("#define\\s+") + names[i] + "\\s+([0-9]+)");
    if (!std::regex_search(*text, match, pattern)) return "";
    parts[i] = match[1];
  }
  return fmt::format("{}.{}.{}", parts[0], parts[1], parts[2]);
}

Result<CutlassTree> TreeAt(const fs::path& given, const std::string& what) {
  std::error_code error;
  fs::path root = given;
  if (!IsFile(root / "include/cutlass/cutlass.h")) {
    if (IsFile(root / "cutlass/cutlass.h")) {
      root = root.parent_path();
    } else {
      return NotFound(fmt::format(
          "{}: not a CUTLASS tree (expected {}/include/cutlass/cutlass.h, or a CUTLASS include directory "
          "holding cutlass/cutlass.h)",
          what, given.string()));
    }
  }
  fs::path canonical = fs::canonical(root, error);
  if (error) return NotFound(fmt::format("{}: {}: {}", what, root.string(), error.message()));
  CutlassTree tree;
  tree.root = canonical.string();
  tree.include_directories.push_back((canonical / "include").string());
  if (fs::is_directory(canonical / "tools/util/include", error)) {
    tree.include_directories.push_back((canonical / "tools/util/include").string());
  }
  tree.version = VersionOf(canonical);
  return tree;
}

}  // namespace

Result<CutlassTree> LocateCutlass(const std::string& where, CommandRunner& runner) {
  if (where != kCutlassFromPip) return TreeAt(fs::path(where), "--cutlass-dir " + where);
  constexpr const char* kInstall =
      "install it with `pip install nvidia-cutlass` (scripts/install_dependencies.sh does) or give "
      "--cutlass-dir DIR";
  std::string python = runner.FindProgram("python3");
  if (python.empty()) return NotFound(fmt::format("--cutlass: python3 is not on PATH; {}", kInstall));
  CommandSpec spec;
  spec.argv = {python, "-c",
               "import importlib.util as u; s = u.find_spec('cutlass_library'); "
               "print(s.submodule_search_locations[0] if s and s.submodule_search_locations else '')"};
  spec.timeout_seconds = 60;
  spec.max_output_bytes = 1 << 16;
  Result<CommandResult> result = runner.Run(spec);
  if (!result.ok()) return NotFound(fmt::format("--cutlass: {}; {}", result.status().message(), kInstall));
  std::string package(TrimWhitespace(result->stdout_text));
  if (!result->Succeeded() || package.empty()) {
    return NotFound(
        fmt::format("--cutlass: python3 ({}) has no cutlass_library package (the nvidia-cutlass "
                    "wheel); {}",
                    python, kInstall));
  }
  return TreeAt(fs::path(package) / "source", "--cutlass (the nvidia-cutlass wheel at " + package + ")");
}

std::string DescribeCutlassTree(const CutlassTree& tree) {
  return fmt::format("the CUTLASS{} / CuTe source tree", tree.version.empty() ? "" : " " + tree.version);
}

}  // namespace kopt
