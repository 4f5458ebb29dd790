// See companion_file.h.
#include "core/companion_file.h"

#include <cstdlib>

namespace kopt {

std::string FindCompanionFile(const char* environment_variable,
                              std::initializer_list<std::filesystem::path> beside_executable) {
  if (const char* configured = std::getenv(environment_variable); configured && *configured) {
    return std::string(configured) == "none" ? "" : configured;
  }
  std::error_code error;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return "";
  for (const std::filesystem::path& relative : beside_executable) {
    std::filesystem::path candidate = (self.parent_path() / relative).lexically_normal();
    if (std::filesystem::is_regular_file(candidate, error)) return candidate.string();
  }
  return "";
}

}  // namespace kopt
