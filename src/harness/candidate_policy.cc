#include "harness/candidate_policy.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>

#include "core/enum_names.h"
#include "core/text.h"
#include "profile/cuda_source.h"

namespace kopt {
namespace {

constexpr EnumNameTable<PolicyEvidence, 3> kEvidenceNames = {{
    {PolicyEvidence::kSource, "source"},
    {PolicyEvidence::kImports, "imports"},
    {PolicyEvidence::kInstructions, "sass"},
}};

// How a source pattern is looked for.
enum class SourceMatch {
  kName,     // an identifier (or qualified name) on its own: "std::thread", "PROT_EXEC"
  kCall,     // a free-function call: the name then '(' (not a member: no '.' or "->" before)
  kLiteral,  // a substring of the text with comments removed (string literals kept)
};

struct SourcePattern {
  PolicyConstruct construct;
  SourceMatch match;
  std::string_view text;
};

struct ImportPattern {
  PolicyConstruct construct;
  std::string_view name;
  bool prefix = false;  // a mangled C++ name's prefix ("_ZNSt6thread")
};

const std::vector<PolicyRule> kRules = {
    {PolicyConstruct::kThreads, "threads",
     "source: pthread_create, thrd_create, std::thread, std::jthread, std::async; imports: the same",
     "a thread keeps running after the entry point returns: it can do the work outside the timed bracket, "
     "watch the harness's memory, or patch it while the harness measures",
     "do the work in kernels on the given stream; a host thread pool is never needed to enqueue work"},
    {PolicyConstruct::kDynamicLoading, "dynamic_loading",
     "source and imports: dlopen, dlsym, dlvsym, dladdr, dl_iterate_phdr, cuGetProcAddress, "
     "cudaGetDriverEntryPoint",
     "finds the harness's own functions (timers, the copy that feeds verification) to call or overwrite them",
     "link against the CUDA runtime as usual; a driver entry point (TMA descriptors) is honest: allow it"},
    {PolicyConstruct::kMemoryProtection, "memory_protection",
     "source: mprotect, pkey_mprotect, PROT_EXEC; imports: mprotect",
     "makes the harness's code writable to patch its timers or checks",
     "a kernel never needs it; allow it only for a JIT that maps its own code"},
    {PolicyConstruct::kProcessControl, "process_control",
     "source and imports: fork, vfork, clone, ptrace, exec*, posix_spawn, system, popen, kill, exit, _exit, "
     "quick_exit, syscall, prctl",
     "a helper process outlives the child or writes the parent; exit ends the run with forged results",
     "return from the entry point; report errors through CUDA errors"},
    {PolicyConstruct::kProcFilesystem, "proc_filesystem", "source: a \"/proc\" string",
     "/proc/<pid>/mem and maps read or write the parent's and the runner's memory",
     "the device's properties come from cudaGetDeviceProperties"},
    {PolicyConstruct::kProcessMemory, "process_memory",
     "source and imports: process_vm_readv, process_vm_writev; source: a \"/dev/mem\" string",
     "reads or writes another process's memory: the parent's expected outputs or verdict",
     "never honest in a kernel candidate"},
    {PolicyConstruct::kFileDescriptors, "file_descriptors",
     "source and imports: open, openat, creat, fopen, freopen, fdopen, write, pwrite, writev, dup, dup2, "
     "dup3, socket, connect, std::ofstream, std::fstream",
     "writes the runner's result channel or descriptors directly: forged events, forged outputs",
     "print diagnostics with printf / fprintf(stderr, ...); read lookup tables from constants"},
    {PolicyConstruct::kEnvironment, "environment",
     "source and imports: getenv, secure_getenv, setenv, putenv, environ",
     "reads the run's token or the harness's settings to forge or recognise its runs",
     "take sizes and options from the entry point's arguments; allow it for an honest tuning knob"},
    {PolicyConstruct::kUnjoinedStream, "unjoined_stream",
     "source: cudaStreamCreate* / cuStreamCreate* with no cudaStreamWaitEvent(<the entry's stream>, ...) and "
     "no "
     "captured graph launched on it; imports: a stream created, cudaStreamWaitEvent and graphs never used",
     "work on a private stream that never joins the harness's stream runs outside the timed bracket",
     "record an event on your stream after its work and cudaStreamWaitEvent(stream, event) before "
     "returning (tests/adversarial/legit_fork_join.cu)"},
    {PolicyConstruct::kDeviceClock, "device_clock",
     "source: clock64(), clock(), \"%globaltimer\" / \"%clock\" asm operands; SASS: SR_CLOCKLO/HI, "
     "SR_GLOBALTIMER",
     "a kernel that reads the clock can tell timed samples from checked ones, or pad itself to a target time",
     "remove timing code from the candidate; allow it for an honest spin-wait with a bound"},
    {PolicyConstruct::kHostClock, "host_clock",
     "source: clock_gettime, gettimeofday, time(), std::chrono, __rdtsc, cudaEventElapsedTime; imports: the "
     "same",
     "the host side can tell timed samples from checked ones by how fast the harness calls",
     "time kernels with kopt bench, not inside the candidate"},
    {PolicyConstruct::kHostWait, "host_wait",
     "source and imports: cudaEventQuery, cudaStreamQuery, cudaDeviceSynchronize, cudaStreamSynchronize, "
     "cudaEventSynchronize, cudaHostGetDevicePointer, sched_yield, usleep, nanosleep, std::this_thread",
     "the host blocks or polls until its own work is done, so work is hidden from the device-side bracket "
     "or a device flag tells the host when a sample is timed",
     "enqueue on the given stream and return; the harness synchronizes"},
    {PolicyConstruct::kSignalHandler, "signal_handler",
     "source and imports: signal, sigaction, sigset, sigaltstack",
     "a handler survives a crash or a watchdog signal and forges the end of the run",
     "never needed by a kernel candidate"},
    {PolicyConstruct::kStaticConstructor, "static_constructor",
     "source: __attribute__((constructor/destructor)), [[gnu::constructor]], \".init_array\" sections",
     "runs when the library is loaded, before the harness starts checking: forges events, patches the runner",
     "initialise lazily on the first call of the entry point"},
};

const std::vector<SourcePattern> kSourcePatterns = [] {
  std::vector<SourcePattern> patterns;
  auto add = [&](PolicyConstruct construct, SourceMatch match,
                 std::initializer_list<std::string_view> texts) {
    for (std::string_view text : texts) patterns.push_back({construct, match, text});
  };
  using C = PolicyConstruct;
  using M = SourceMatch;
  add(C::kThreads, M::kName, {"pthread_create", "thrd_create", "std::thread", "std::jthread", "std::async"});
  add(C::kDynamicLoading, M::kName,
      {"dlopen", "dlsym", "dlvsym", "dlmopen", "dladdr", "dladdr1", "dl_iterate_phdr", "dlinfo",
       "cuGetProcAddress", "cuGetProcAddress_v2", "cudaGetDriverEntryPoint",
       "cudaGetDriverEntryPointByVersion"});
  add(C::kMemoryProtection, M::kName, {"mprotect", "pkey_mprotect", "PROT_EXEC"});
  add(C::kProcessControl, M::kName,
      {"clone3", "ptrace", "execve", "execv", "execvp", "execvpe", "execl", "execlp", "execle", "fexecve",
       "posix_spawn", "posix_spawnp", "popen", "tgkill", "_exit", "_Exit", "quick_exit", "prctl"});
  add(C::kProcessControl, M::kCall, {"fork", "vfork", "clone", "system", "kill", "exit", "syscall"});
  add(C::kProcFilesystem, M::kLiteral, {"/proc"});
  add(C::kProcessMemory, M::kName, {"process_vm_readv", "process_vm_writev"});
  add(C::kProcessMemory, M::kLiteral, {"/dev/mem"});
  add(C::kFileDescriptors, M::kName,
      {"openat", "creat", "fopen", "fopen64", "freopen", "fdopen", "pwrite", "writev", "dup2", "dup3",
       "socket", "std::ofstream", "std::fstream"});
  add(C::kFileDescriptors, M::kCall, {"open", "open64", "write", "dup", "connect"});
  add(C::kEnvironment, M::kName, {"getenv", "secure_getenv", "setenv", "putenv", "environ", "__environ"});
  add(C::kUnjoinedStream, M::kName,
      {"cudaStreamCreate", "cudaStreamCreateWithFlags", "cudaStreamCreateWithPriority", "cuStreamCreate",
       "cuStreamCreateWithPriority"});
  add(C::kDeviceClock, M::kCall, {"clock64", "clock", "__clock64"});
  add(C::kDeviceClock, M::kLiteral, {"%globaltimer", "%clock"});
  add(C::kHostClock, M::kName,
      {"clock_gettime", "gettimeofday", "timespec_get", "std::chrono", "__rdtsc", "__rdtscp", "_rdtsc",
       "cudaEventElapsedTime", "cuEventElapsedTime"});
  add(C::kHostClock, M::kCall, {"time"});
  add(C::kHostWait, M::kName,
      {"cudaEventQuery", "cudaStreamQuery", "cuEventQuery", "cuStreamQuery", "cudaDeviceSynchronize",
       "cudaStreamSynchronize", "cudaEventSynchronize", "cuCtxSynchronize", "cuStreamSynchronize",
       "cuEventSynchronize", "cudaHostGetDevicePointer", "cudaHostAllocMapped", "sched_yield", "usleep",
       "nanosleep", "clock_nanosleep", "std::this_thread"});
  add(C::kSignalHandler, M::kName, {"sigaction", "sigset", "bsd_signal", "sigaltstack"});
  add(C::kSignalHandler, M::kCall, {"signal"});
  add(C::kStaticConstructor, M::kLiteral, {".init_array", ".fini_array", ".ctors"});
  return patterns;
}();

const std::vector<ImportPattern> kImportPatterns = [] {
  std::vector<ImportPattern> patterns;
  auto add = [&](PolicyConstruct construct, std::initializer_list<std::string_view> names,
                 bool prefix = false) {
    for (std::string_view name : names) patterns.push_back({construct, name, prefix});
  };
  using C = PolicyConstruct;
  add(C::kThreads, {"pthread_create", "thrd_create"});
  add(C::kThreads, {"_ZNSt6thread", "_ZNSt13__future_base"}, true);
  add(C::kDynamicLoading, {"dlopen", "dlsym", "dlvsym", "dlmopen", "dladdr", "dladdr1", "dl_iterate_phdr",
                           "dlinfo", "cuGetProcAddress", "cuGetProcAddress_v2", "cudaGetDriverEntryPoint",
                           "cudaGetDriverEntryPointByVersion"});
  add(C::kMemoryProtection, {"mprotect", "pkey_mprotect"});
  add(C::kProcessControl,
      {"fork",   "vfork",  "clone",  "clone3",  "ptrace",      "execve",       "execv",  "execvp", "execvpe",
       "execl",  "execlp", "execle", "fexecve", "posix_spawn", "posix_spawnp", "system", "popen",  "kill",
       "tgkill", "exit",   "_exit",  "_Exit",   "quick_exit",  "syscall",      "prctl"});
  add(C::kProcessMemory, {"process_vm_readv", "process_vm_writev"});
  add(C::kFileDescriptors,
      {"open", "open64", "openat", "openat64", "creat", "creat64", "fopen", "fopen64", "freopen", "fdopen",
       "write", "pwrite", "pwrite64", "writev", "dup", "dup2", "dup3", "socket", "connect"});
  add(C::kEnvironment, {"getenv", "secure_getenv", "setenv", "putenv", "environ", "__environ"});
  add(C::kHostClock,
      {"clock_gettime", "gettimeofday", "time", "clock", "timespec_get", "cudaEventElapsedTime",
       "cudaEventElapsedTime_v2", "cuEventElapsedTime", "cuEventElapsedTime_v2"});
  add(C::kHostClock, {"_ZNSt6chrono"}, true);
  add(C::kHostWait, {"cudaEventQuery", "cudaStreamQuery", "cuEventQuery", "cuStreamQuery",
                     "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
                     "cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize",
                     "cudaHostGetDevicePointer", "sched_yield", "usleep", "nanosleep", "clock_nanosleep"});
  add(C::kHostWait, {"_ZNSt11this_thread"}, true);
  add(C::kSignalHandler, {"signal", "sigaction", "sigset", "bsd_signal", "__sysv_signal", "sigaltstack"});
  return patterns;
}();

constexpr std::string_view kStreamCreations[] = {"cudaStreamCreate", "cudaStreamCreateWithFlags",
                                                 "cudaStreamCreateWithPriority", "cuStreamCreate",
                                                 "cuStreamCreateWithPriority"};
constexpr std::string_view kStreamJoins[] = {"cudaStreamWaitEvent", "cuStreamWaitEvent", "cudaGraphLaunch",
                                             "cuGraphLaunch"};

bool Allowed(const PolicyAllowance& allowed, PolicyConstruct construct) {
  return allowed.count(construct) > 0;
}

// The previous non-space character before `offset`, or '\0'.
char PreviousNonSpace(std::string_view code, size_t offset) {
  while (offset > 0) {
    char c = code[--offset];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return c;
  }
  return '\0';
}

// The identifier that ends before `offset` (spaces skipped), or "".
std::string_view PreviousWord(std::string_view code, size_t offset) {
  size_t end = offset;
  while (end > 0 && std::isspace(static_cast<unsigned char>(code[end - 1]))) --end;
  size_t begin = end;
  while (begin > 0 && IsIdentifierChar(code[begin - 1])) --begin;
  return code.substr(begin, end - begin);
}

// The offset of the first match of `pattern` in `code` at or after `from`, or npos.
size_t FindPattern(std::string_view code, const SourcePattern& pattern, size_t from = 0) {
  for (size_t at = code.find(pattern.text, from); at != std::string_view::npos;
       at = code.find(pattern.text, at + 1)) {
    if (pattern.match == SourceMatch::kLiteral) return at;
    size_t end = at + pattern.text.size();
    bool starts_word = at == 0 || !IsIdentifierChar(code[at - 1]);
    if (!starts_word || (end < code.size() && IsIdentifierChar(code[end]))) continue;
    if (pattern.match == SourceMatch::kName) return at;
    size_t next = code.find_first_not_of(" \t\r\n", end);
    char before = PreviousNonSpace(code, at);
    bool member = before == '.' || (before == '>' && at >= 2 && PreviousNonSpace(code, at - 1) == '-');
    if (next == std::string_view::npos || code[next] != '(' || member) continue;
    if (IsIdentifierChar(before) && PreviousWord(code, at) != "return")
      continue;  // a declaration: `void open()`
    return at;
  }
  return std::string_view::npos;
}

// The entry point's cudaStream_t parameter name ("stream" when not found).
std::string StreamParameter(std::string_view code, std::string_view entry_point) {
  if (!entry_point.empty()) {
    std::regex signature(fmt::format(R"(\b{}\s*\(([^)]*)\))", std::string(entry_point)));
    std::regex parameter(R"(cudaStream_t\s+(\w+))");
    std::string text(code);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), signature); it != std::sregex_iterator();
         ++it) {
      std::string parameters = (*it)[1].str();
      std::smatch found;
      if (std::regex_search(parameters, found, parameter)) return found[1].str();
    }
  }
  return "stream";
}

// True when a created stream is joined back: some cudaStreamWaitEvent makes
// a stream other than the created ones (the harness's, under any name a
// helper gives it) wait, or a graph is launched. A wait only on created
// streams (the fork without the join) is not one.
bool JoinsBack(std::string_view code) {
  static const std::regex creation(R"(\bcu(da)?StreamCreate\w*\s*\(\s*&\s*([^,)]+?)\s*[,)])");
  static const std::regex wait(R"(\bcu(da)?StreamWaitEvent\s*\(\s*([^,]+?)\s*,)");
  static const std::regex graph(R"(\bcu(da)?GraphLaunch\s*\()");
  std::string text(code);
  if (std::regex_search(text, graph)) return true;
  std::set<std::string> created;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), creation); it != std::sregex_iterator();
       ++it) {
    created.insert((*it)[2].str());
  }
  for (auto it = std::sregex_iterator(text.begin(), text.end(), wait); it != std::sregex_iterator(); ++it) {
    if (!created.count((*it)[2].str())) return true;
  }
  return false;
}

int LineOf(std::string_view text, size_t offset) {
  return static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(offset), '\n')) + 1;
}

// __attribute__((constructor)) and friends, in code without comments or literals.
std::optional<std::pair<size_t, std::string>> FindStaticConstructor(std::string_view code) {
  static const std::regex pattern(
      R"((__attribute__\s*\(\([^;{]*\b(constructor|destructor)\b)|(\[\[\s*gnu::(constructor|destructor)))");
  std::string text(code);
  std::smatch found;
  if (!std::regex_search(text, found, pattern)) return std::nullopt;
  return std::make_pair(static_cast<size_t>(found.position(0)), found.str(0));
}

}  // namespace

std::string_view PolicyEvidenceName(PolicyEvidence evidence) {
  return EnumName(kEvidenceNames, evidence);
}

const std::vector<PolicyRule>& PolicyRules() {
  return kRules;
}

const PolicyRule& PolicyRuleOf(PolicyConstruct construct) {
  return kRules[static_cast<size_t>(construct)];
}

std::string_view PolicyConstructName(PolicyConstruct construct) {
  return PolicyRuleOf(construct).id;
}

std::optional<PolicyConstruct> ParsePolicyConstruct(std::string_view name) {
  for (const PolicyRule& rule : kRules) {
    if (rule.id == name) return rule.construct;
  }
  return std::nullopt;
}

std::string PolicyConstructList() {
  std::string list;
  for (const PolicyRule& rule : kRules) list += (list.empty() ? "" : ", ") + std::string(rule.id);
  return list;
}

std::vector<PolicyViolation> ScreenSource(std::string_view source, std::string_view file_name,
                                          std::string_view entry_point, const PolicyAllowance& allowed) {
  const std::string code = BlankCommentsAndLiterals(source);
  const std::string with_literals = BlankComments(source);
  std::vector<PolicyViolation> found;
  auto record = [&](PolicyConstruct construct, size_t offset, std::string matched) {
    for (PolicyViolation& earlier : found) {
      if (earlier.construct != construct) continue;
      int line = LineOf(source, offset);
      if (line < earlier.line) earlier.line = line, earlier.matched = std::move(matched);
      return;
    }
    found.push_back({construct, PolicyEvidence::kSource, std::string(file_name), LineOf(source, offset),
                     std::move(matched)});
  };
  const std::string stream = StreamParameter(code, entry_point);
  const bool joined = JoinsBack(code);
  for (const SourcePattern& pattern : kSourcePatterns) {
    if (Allowed(allowed, pattern.construct)) continue;
    if (pattern.construct == PolicyConstruct::kUnjoinedStream && joined) continue;
    std::string_view text = pattern.match == SourceMatch::kLiteral ? with_literals : code;
    size_t at = FindPattern(text, pattern);
    if (at == std::string_view::npos) continue;
    std::string matched(pattern.text);
    if (pattern.construct == PolicyConstruct::kUnjoinedStream) {
      matched += " without cudaStreamWaitEvent(" + stream + ", ...)";
    }
    record(pattern.construct, at, std::move(matched));
  }
  if (!Allowed(allowed, PolicyConstruct::kStaticConstructor)) {
    if (auto constructor = FindStaticConstructor(code)) {
      std::string matched = constructor->second;
      matched.erase(std::unique(matched.begin(), matched.end(),
                                [](char a, char b) {
                                  return std::isspace(static_cast<unsigned char>(a)) &&
                                         std::isspace(static_cast<unsigned char>(b));
                                }),
                    matched.end());
      record(PolicyConstruct::kStaticConstructor, constructor->first, matched);
    }
  }
  std::sort(found.begin(), found.end(),
            [](const PolicyViolation& a, const PolicyViolation& b) { return a.line < b.line; });
  return found;
}

std::vector<PolicyViolation> ScreenImports(const std::vector<std::string>& symbols,
                                           std::string_view file_name, const PolicyAllowance& allowed) {
  std::vector<PolicyViolation> found;
  auto imported = [&](std::string_view name) {
    return std::find(symbols.begin(), symbols.end(), name) != symbols.end();
  };
  for (const std::string& symbol : symbols) {
    for (const ImportPattern& pattern : kImportPatterns) {
      bool matches = pattern.prefix ? StartsWith(symbol, pattern.name) : symbol == pattern.name;
      if (!matches || Allowed(allowed, pattern.construct)) continue;
      found.push_back({pattern.construct, PolicyEvidence::kImports, std::string(file_name), 0, symbol});
    }
  }
  if (!Allowed(allowed, PolicyConstruct::kUnjoinedStream) &&
      std::none_of(std::begin(kStreamJoins), std::end(kStreamJoins), imported)) {
    for (std::string_view creation : kStreamCreations) {
      if (!imported(creation)) continue;
      found.push_back({PolicyConstruct::kUnjoinedStream, PolicyEvidence::kImports, std::string(file_name), 0,
                       std::string(creation) + " without cudaStreamWaitEvent or a graph launch"});
      break;
    }
  }
  return FirstViolationPerConstruct(std::move(found));
}

std::vector<PolicyViolation> ScreenSass(std::string_view sass, std::string_view file_name,
                                        const PolicyAllowance& allowed) {
  if (Allowed(allowed, PolicyConstruct::kDeviceClock)) return {};
  for (std::string_view line : SplitLines(sass)) {
    if (line.find("SR_CLOCK") == std::string_view::npos &&
        line.find("SR_GLOBALTIMER") == std::string_view::npos &&
        line.find("%globaltimer") == std::string_view::npos) {
      continue;
    }
    // "/*0050*/  CS2R R2, SR_CLOCKLO ;  /* 0x... */" -> "CS2R R2, SR_CLOCKLO"
    size_t address_end = line.find("*/");
    std::string_view instruction =
        address_end == std::string_view::npos ? line : line.substr(address_end + 2);
    instruction = instruction.substr(0, instruction.find(';'));
    return {{PolicyConstruct::kDeviceClock, PolicyEvidence::kInstructions, std::string(file_name), 0,
             std::string(TrimWhitespace(instruction))}};
  }
  return {};
}

std::vector<PolicyViolation> FirstViolationPerConstruct(std::vector<PolicyViolation> violations) {
  std::vector<PolicyViolation> kept;
  for (PolicyViolation& violation : violations) {
    bool seen = std::any_of(kept.begin(), kept.end(), [&](const PolicyViolation& earlier) {
      return earlier.construct == violation.construct;
    });
    if (!seen) kept.push_back(std::move(violation));
  }
  return kept;
}

std::string PolicyViolationMessage(const PolicyViolation& violation) {
  const PolicyRule& rule = PolicyRuleOf(violation.construct);
  std::string where =
      violation.evidence == PolicyEvidence::kSource
          ? fmt::format("at {}:{}", violation.file, violation.line)
          : fmt::format("in the {} of {}",
                        violation.evidence == PolicyEvidence::kImports ? "imported symbols" : "SASS",
                        violation.file);
  return fmt::format(
      "uses {} ({}) {}: {}; {}. If it is honest, allow it: --allow {} or [policy] allow = [\"{}\"] "
      "in task.toml",
      rule.id, violation.matched, where, rule.why, rule.help, rule.id, rule.id);
}

}  // namespace kopt
