#include "core/file_io.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

namespace kopt {

Result<std::string> ReadWholeFile(const std::string& path, size_t max_bytes) {
  std::error_code error;
  auto status = std::filesystem::status(path, error);
  if (error || !std::filesystem::exists(status)) {
    return NotFound(fmt::format("{}: no such file", path));
  }
  if (std::filesystem::is_directory(status)) {
    return InvalidInput(fmt::format("{}: is a directory; expected a file", path));
  }
  std::ifstream stream(path, std::ios::binary);
  if (!stream) return InvalidInput(fmt::format("{}: cannot be read: {}", path, std::strerror(errno)));
  auto size = std::filesystem::file_size(path, error);
  if (!error && size > max_bytes) {
    return InvalidInput(
        fmt::format("{}: {} bytes, more than the {} bytes kopt reads", path, size, max_bytes));
  }
  std::ostringstream buffer;
  buffer << stream.rdbuf();
  if (stream.bad()) return InvalidInput(fmt::format("{}: read error: {}", path, std::strerror(errno)));
  return buffer.str();
}

Status WriteFileAtomically(const std::string& path, const std::string& contents) {
  // Unique per process, thread and call: concurrent writers of one path
  // (the LLM response cache, parallel compiles) never share a temporary.
  static std::atomic<uint64_t> counter{0};
  std::string temporary = fmt::format("{}.tmp.{}.{}.{}", path, static_cast<long>(getpid()),
                                      std::hash<std::thread::id>{}(std::this_thread::get_id()), counter++);
  {
    std::ofstream stream(temporary, std::ios::binary | std::ios::trunc);
    if (!stream) {
      return InvalidInput(fmt::format("{}: cannot be written: {}", path, std::strerror(errno)));
    }
    stream << contents;
    stream.flush();
    if (!stream) {
      std::remove(temporary.c_str());
      return InvalidInput(fmt::format("{}: write failed: {}", path, std::strerror(errno)));
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::remove(temporary.c_str());
    return InvalidInput(fmt::format("{}: cannot be written: {}", path, error.message()));
  }
  return Status::Ok();
}

Status CheckOutputIsNotAnInput(const std::string& output_path, const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  if (output_path.empty()) return Status::Ok();
  std::error_code error;
  fs::path output = fs::weakly_canonical(fs::absolute(output_path, error), error);
  for (const std::string& input : inputs) {
    if (input.empty()) continue;
    std::error_code input_error;
    fs::path path = fs::weakly_canonical(fs::absolute(input, input_error), input_error);
    std::error_code same_error;
    bool same = (!error && !input_error && output == path) || fs::equivalent(output_path, input, same_error);
    if (same) {
      return InvalidInput(
          fmt::format("-o {}: that is an input of this command ({}); it would be overwritten. "
                      "Name another output file",
                      output_path, input));
    }
  }
  return Status::Ok();
}

}  // namespace kopt
