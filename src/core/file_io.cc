#include "core/file_io.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <thread>

namespace kopt {

namespace {

// Reads `stream` to its end, stopping with InvalidInput past `max_bytes` (a
// FIFO or stdin may never end).
Result<std::string> ReadBounded(std::istream& stream, const std::string& name, size_t max_bytes) {
  std::string text;
  char buffer[1 << 16];
  while (stream) {
    stream.read(buffer, sizeof buffer);
    size_t count = static_cast<size_t>(stream.gcount());
    if (text.size() + count > max_bytes) {
      return InvalidInput(fmt::format("{}: more than the {} bytes kopt reads", name, max_bytes));
    }
    text.append(buffer, count);
  }
  if (stream.bad()) return InvalidInput(fmt::format("{}: read error: {}", name, std::strerror(errno)));
  return text;
}

}  // namespace

Result<std::string> ReadWholeFile(const std::string& path, size_t max_bytes) {
  if (path == "-") {
    std::cin.tie(nullptr);
    return ReadBounded(std::cin, "- (standard input)", max_bytes);
  }
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return NotFound(fmt::format("{}: no such file", path));
    return InvalidInput(fmt::format("{}: cannot be read: {}", path, std::strerror(errno)));
  }
  if (S_ISDIR(status.st_mode)) {
    return InvalidInput(fmt::format("{}: is a directory; expected a file", path));
  }
  if (S_ISCHR(status.st_mode) || S_ISBLK(status.st_mode) || S_ISSOCK(status.st_mode)) {
    return InvalidInput(fmt::format("{}: is a device or socket, not a file; expected a file", path));
  }
  if (S_ISREG(status.st_mode) && static_cast<uint64_t>(status.st_size) > max_bytes) {
    return InvalidInput(
        fmt::format("{}: {} bytes, more than the {} bytes kopt reads", path, status.st_size, max_bytes));
  }
  std::ifstream stream(path, std::ios::binary);
  if (!stream) return InvalidInput(fmt::format("{}: cannot be read: {}", path, std::strerror(errno)));
  return ReadBounded(stream, path, max_bytes);
}

namespace {

// Opens `path` for writing and writes `contents` into it, in place: a device
// such as /dev/null or /dev/full, a FIFO or a socket keeps its kind. Blocks
// on a FIFO until a reader opens it, as a shell's `>` does.
Status WriteInPlace(const std::string& path, const std::string& contents) {
  int descriptor = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0666);
  if (descriptor < 0) {
    return InvalidInput(fmt::format("{}: cannot be written: {}", path, std::strerror(errno)));
  }
  size_t written = 0;
  while (written < contents.size()) {
    ssize_t step = ::write(descriptor, contents.data() + written, contents.size() - written);
    if (step < 0 && errno == EINTR) continue;
    if (step <= 0) {
      int cause = step < 0 ? errno : EIO;
      ::close(descriptor);
      return InvalidInput(fmt::format("{}: write failed: {}", path, std::strerror(cause)));
    }
    written += static_cast<size_t>(step);
  }
  if (::close(descriptor) != 0) {
    return InvalidInput(fmt::format("{}: write failed: {}", path, std::strerror(errno)));
  }
  return Status::Ok();
}

// Writes `contents` to a temporary beside the regular file (or new name)
// `path`, then renames it into place.
Status ReplaceRegularFile(const std::string& path, const std::string& contents) {
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

}  // namespace

Status WriteFileAtomically(const std::string& path, const std::string& contents) {
  std::string target = path;
  struct stat link_status {};
  if (::lstat(path.c_str(), &link_status) == 0 && S_ISLNK(link_status.st_mode)) {
    // The link stays; what it names is written. A dangling link creates its target, as `>` does.
    char resolved[PATH_MAX];
    if (::realpath(path.c_str(), resolved) == nullptr) return WriteInPlace(path, contents);
    target = resolved;
  }
  struct stat target_status {};
  if (::stat(target.c_str(), &target_status) != 0 || S_ISREG(target_status.st_mode)) {
    return ReplaceRegularFile(target, contents);
  }
  if (S_ISDIR(target_status.st_mode)) {
    return InvalidInput(fmt::format("{}: is a directory; name a file to write", path));
  }
  return WriteInPlace(target, contents);
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
