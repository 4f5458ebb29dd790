#include "harness/compiler.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/file_io.h"
#include "core/interrupt.h"
#include "core/nvcc.h"
#include "core/sha256.h"
#include "core/text.h"
#include "harness/candidate_flags.h"
#include "harness/wrapper_source.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr std::string_view kResultSchema = "kopt.compile/1";

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

bool IsWordCharacter(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// `word` occurs in `line` as a whole identifier.
bool ContainsWord(std::string_view line, std::string_view word) {
  for (size_t at = line.find(word); at != std::string_view::npos; at = line.find(word, at + 1)) {
    bool left = at == 0 || !IsWordCharacter(line[at - 1]);
    size_t end = at + word.size();
    bool right = end >= line.size() || !IsWordCharacter(line[end]);
    if (left && right) return true;
  }
  return false;
}

nlohmann::json ResultToJson(const CompileResult& result, const Compiler& compiler) {
  return {{"schema", kResultSchema},
          {"outcome", CompileOutcomeName(result.outcome)},
          {"message", result.message},
          {"command_line", result.command_line},
          {"compile_seconds", result.compile_seconds},
          {"cache_key", result.cache_key},
          {"architecture", compiler.options().architecture}};
}

// Reads a cache entry; nullopt when it is absent or incomplete (then it is rebuilt).
std::optional<CompileResult> ReadCacheEntry(const std::string& entry) {
  auto text = ReadWholeFile(entry + "/result.json", 1 << 20);
  if (!text.ok()) return std::nullopt;
  nlohmann::json json = nlohmann::json::parse(*text, nullptr, false);
  if (!json.is_object() || json.value("schema", "") != kResultSchema) return std::nullopt;
  CompileResult result;
  std::string outcome = json.value("outcome", "");
  if (outcome == "ok") {
    result.outcome = CompileOutcome::kOk;
  } else if (outcome == "missing_entry_point") {
    result.outcome = CompileOutcome::kMissingEntryPoint;
  } else if (outcome != "compile_error") {
    return std::nullopt;
  }
  auto output = ReadWholeFile(entry + "/compiler_output.txt");
  if (!output.ok()) return std::nullopt;
  result.compiler_output = std::move(output).value();
  result.message = json.value("message", "");
  result.command_line = json.value("command_line", "");
  result.compile_seconds = json.value("compile_seconds", 0.0);
  if (result.Ok()) {
    result.library_path = entry + "/candidate.so";
    std::error_code error;
    if (!fs::is_regular_file(result.library_path, error)) return std::nullopt;
  }
  return result;
}

// A fresh directory beside the cache entries for one compile.
Result<std::string> MakeTemporaryDirectory(const std::string& cache_directory, const std::string& key) {
  static std::atomic<uint64_t> counter{0};
  std::string path = fmt::format("{}/.tmp-{}-{}-{}", cache_directory, key.substr(0, 16), getpid(), counter++);
  std::error_code error;
  fs::remove_all(path, error);
  if (!fs::create_directories(path, error) || error) {
    return InvalidInput(fmt::format("compile cache {}: cannot create the directory {}: {}", cache_directory,
                                    path, error.message()));
  }
  return path;
}

// Removes temporary directories that interrupted compiles left behind (older than an hour, so a
// compile running in another process is not disturbed).
void RemoveStaleTemporaryDirectories(const std::string& cache_directory) {
  std::error_code error;
  auto now = fs::file_time_type::clock::now();
  for (fs::directory_iterator it(cache_directory, error), end; !error && it != end; it.increment(error)) {
    if (it->path().filename().string().rfind(".tmp-", 0) != 0) continue;
    std::error_code time_error;
    auto modified = fs::last_write_time(it->path(), time_error);
    if (!time_error && now - modified > std::chrono::hours(1)) fs::remove_all(it->path(), time_error);
  }
}

}  // namespace

std::string_view CompileOutcomeName(CompileOutcome outcome) {
  switch (outcome) {
    case CompileOutcome::kOk: return "ok";
    case CompileOutcome::kMissingEntryPoint: return "missing_entry_point";
    default: return "compile_error";
  }
}

std::vector<std::string> IncludeFlags(const std::vector<std::string>& directories) {
  std::vector<std::string> flags;
  for (const std::string& directory : directories) flags.push_back("-I" + directory);
  return flags;
}

bool OutputShowsMissingEntryPoint(std::string_view compiler_output, std::string_view entry) {
  std::vector<std::string_view> lines = SplitLines(compiler_output);
  for (size_t index = 0; index < lines.size(); ++index) {
    std::string_view line = lines[index];
    bool names_entry = ContainsWord(line, entry);
    if (names_entry && (Contains(line, "undefined reference") || Contains(line, "undefined symbol")))
      return true;
    if (names_entry && (Contains(line, "\"C\" linkage") || Contains(line, "conflicting declaration") ||
                        Contains(line, "incompatible"))) {
      return true;
    }
    // EDG names no function here; the next line echoes the offending source line.
    if (Contains(line, "cannot overload functions distinguished by return type alone") &&
        index + 1 < lines.size() && ContainsWord(lines[index + 1], entry)) {
      return true;
    }
  }
  return false;
}

Compiler::Compiler(CommandRunner& runner, CompilerOptions options, std::string nvcc_path,
                   std::string nvcc_version)
    : runner_(runner),
      options_(std::move(options)),
      nvcc_path_(std::move(nvcc_path)),
      nvcc_version_(std::move(nvcc_version)) {
  flags_ = {"-O3",     "-std=c++17", "-lineinfo",  NvccArchitectureFlag(options_.architecture),
            "-cudart", "shared",     "-Xcompiler", "-fPIC",
            "-shared", "-Xlinker",   "-z,defs"};
  flags_.insert(flags_.end(), options_.extra_flags.begin(), options_.extra_flags.end());
}

Result<std::unique_ptr<Compiler>> Compiler::Create(CommandRunner& runner, CompilerOptions options) {
  if (options.architecture.empty() || options.cache_directory.empty()) {
    return Internal("Compiler::Create: architecture and cache_directory are required");
  }
  std::string nvcc = options.nvcc_path;
  if (nvcc.empty()) {
    KOPT_ASSIGN_OR_RETURN(nvcc, FindNvcc(runner, std::getenv("KOPT_NVCC")));
  }
  KOPT_ASSIGN_OR_RETURN(std::string version, QueryNvccVersion(runner, nvcc));
  std::error_code error;
  options.cache_directory = fs::absolute(options.cache_directory, error).lexically_normal().string();
  fs::create_directories(options.cache_directory, error);
  if (error) {
    return InvalidInput(
        fmt::format("compile cache {}: cannot create it: {}", options.cache_directory, error.message()));
  }
  RemoveStaleTemporaryDirectories(options.cache_directory);
  return std::unique_ptr<Compiler>(new Compiler(runner, std::move(options), nvcc, std::move(version)));
}

std::string Compiler::CacheKey(const std::string& wrapper, const std::string& candidate,
                               const std::vector<std::string>& flags) const {
  Sha256 hasher;
  hasher.UpdateField("wrapper", wrapper);
  hasher.UpdateField("candidate", candidate);
  std::string joined;
  for (const std::string& flag : flags) joined += flag + '\0';
  hasher.UpdateField("flags", joined);
  hasher.UpdateField("nvcc_version", nvcc_version_);
  hasher.UpdateField("architecture", options_.architecture);
  return hasher.FinishHex();
}

Result<CompileResult> Compiler::Compile(const TaskSpec& task, const std::string& candidate_path) const {
  Clock::time_point start = Clock::now();
  std::error_code error;
  std::string absolute = fs::absolute(candidate_path, error).lexically_normal().string();
  KOPT_ASSIGN_OR_RETURN(std::string candidate, ReadWholeFile(absolute, size_t{64} << 20));
  Result<std::vector<std::string>> requested = CandidateCompileFlags(candidate, absolute);
  if (!requested.ok()) {  // the candidate's fault: its verdict, not a harness error
    CompileResult rejected;
    rejected.outcome = CompileOutcome::kCompileError;
    rejected.message = requested.status().message();
    rejected.compiler_output = rejected.message + "\n";
    rejected.seconds = SecondsSince(start);
    return rejected;
  }
  std::vector<std::string> flags = flags_;
  flags.insert(flags.end(), requested->begin(), requested->end());
  KOPT_ASSIGN_OR_RETURN(std::string wrapper, GenerateWrapperSource(task, absolute));
  std::string key = CacheKey(wrapper, candidate, flags);
  std::string entry = options_.cache_directory + "/" + key;
  if (std::optional<CompileResult> cached = ReadCacheEntry(entry)) {
    cached->cache_key = key;
    cached->cache_entry = entry;
    cached->cache_hit = true;
    cached->seconds = SecondsSince(start);
    return *cached;
  }
  fs::remove_all(entry, error);  // an incomplete entry from an interrupted run
  KOPT_ASSIGN_OR_RETURN(CompileResult result, RunNvcc(task, wrapper, key, flags));
  result.seconds = SecondsSince(start);
  return result;
}

namespace {

CompileResult ClassifyFinishedCompile(const TaskSpec& task, const CommandResult& run,
                                      const std::string& library) {
  CompileResult result;
  result.compiler_output = run.stdout_text + run.stderr_text;
  std::error_code error;
  if (run.Succeeded() && fs::is_regular_file(library, error)) {
    result.outcome = CompileOutcome::kOk;
    result.message = "compiled";
  } else if (OutputShowsMissingEntryPoint(result.compiler_output, task.entry)) {
    result.outcome = CompileOutcome::kMissingEntryPoint;
    result.message =
        fmt::format("the source does not define the entry point with the expected signature; expected: {}",
                    EntryPrototype(task));
  } else {
    result.outcome = CompileOutcome::kCompileError;
    result.message = run.Succeeded() ? "nvcc reported success but wrote no shared object"
                                     : fmt::format("nvcc failed ({})", DescribeCommandEnd(run, 0));
  }
  return result;
}

}  // namespace

Result<CompileResult> Compiler::RunNvcc(const TaskSpec& task, const std::string& wrapper,
                                        const std::string& key, const std::vector<std::string>& flags) const {
  KOPT_ASSIGN_OR_RETURN(std::string temporary, MakeTemporaryDirectory(options_.cache_directory, key));
  std::error_code error;
  auto discard = [&] { fs::remove_all(temporary, error); };
  InterruptCleanup on_interrupt([temporary] {  // Ctrl-C during nvcc leaves no .tmp-* behind
    std::error_code ignored;
    fs::remove_all(temporary, ignored);
  });
  Status written = WriteFileAtomically(temporary + "/wrapper.cu", wrapper);
  if (!written.ok()) {
    discard();
    return written;
  }
  CommandSpec spec;
  spec.argv = {nvcc_path_};
  spec.argv.insert(spec.argv.end(), flags.begin(), flags.end());
  spec.argv.insert(spec.argv.end(), {"-o", temporary + "/candidate.so", temporary + "/wrapper.cu"});
  spec.working_directory = temporary;
  spec.timeout_seconds = options_.timeout_seconds;
  spec.max_output_bytes = size_t{16} << 20;
  Result<NvccRun> nvcc_run = kopt::RunNvcc(runner_, spec);
  if (!nvcc_run.ok()) {
    discard();
    return nvcc_run.status().WithContext("running nvcc");
  }
  const CommandResult* run = &nvcc_run->result;
  std::string entry = options_.cache_directory + "/" + key;
  CompileResult result;
  // Not the candidate's verdict, so not cached: load or a crashed tool, or kopt interrupted (nvcc catches
  // the SIGTERM and exits 255, "nvcc: Terminated": that failure must not stand in for the compile).
  bool no_verdict = run->timed_out || run->signaled || InterruptRequested();
  if (no_verdict) {
    discard();
    result.compiler_output = run->stdout_text + run->stderr_text;
    result.message =
        fmt::format("nvcc did not finish ({})", DescribeCommandEnd(*run, options_.timeout_seconds));
  } else {
    result = ClassifyFinishedCompile(task, *run, temporary + "/candidate.so");
  }
  result.command_line = nvcc_run->command_line;
  result.compile_seconds = nvcc_run->seconds;
  result.cache_key = key;
  result.cache_entry = entry;
  if (no_verdict) return result;
  Status stored = WriteFileAtomically(temporary + "/compiler_output.txt", result.compiler_output);
  if (stored.ok())
    stored = WriteFileAtomically(temporary + "/result.json", ResultToJson(result, *this).dump(2));
  if (!stored.ok()) {
    discard();
    return stored.WithContext("compile cache");
  }
  fs::rename(temporary, entry, error);
  if (error) {  // another compile of the same key finished first: keep its entry
    discard();
    if (!ReadCacheEntry(entry)) {
      return InvalidInput(fmt::format("compile cache: cannot move {} to {}", temporary, entry));
    }
  }
  if (result.Ok()) result.library_path = entry + "/candidate.so";
  return result;
}

}  // namespace kopt
