#include "harness/candidate_policy.h"

#include <gtest/gtest.h>
#include <toml++/toml.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "core/file_io.h"
#include "harness/kernelbench_resources.h"
#include "harness/task_spec.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;

std::string PolicyRepositoryRoot() {
  return fs::path(KOPT_FIXTURE_DIR).parent_path().parent_path().string();
}

std::vector<std::string> PolicyIds(const std::vector<PolicyViolation>& violations) {
  std::vector<std::string> ids;
  for (const PolicyViolation& violation : violations)
    ids.emplace_back(PolicyConstructName(violation.construct));
  return ids;
}

std::string DescribePolicy(const std::vector<PolicyViolation>& violations) {
  std::string text;
  for (const PolicyViolation& violation : violations) text += PolicyViolationMessage(violation) + "\n";
  return text;
}

TEST(CandidatePolicyTest, TheTableNamesEveryConstructOnceInOrder) {
  ASSERT_EQ(PolicyRules().size(), static_cast<size_t>(PolicyConstruct::kStaticConstructor) + 1);
  for (size_t index = 0; index < PolicyRules().size(); ++index) {
    const PolicyRule& rule = PolicyRules()[index];
    EXPECT_EQ(static_cast<size_t>(rule.construct), index);
    EXPECT_EQ(ParsePolicyConstruct(rule.id), rule.construct);
    EXPECT_FALSE(rule.matches.empty() || rule.why.empty() || rule.help.empty()) << rule.id;
  }
  EXPECT_EQ(ParsePolicyConstruct("thread"), std::nullopt);
  EXPECT_NE(PolicyConstructList().find("threads, dynamic_loading"), std::string::npos);
}

TEST(CandidatePolicyTest, FindsConstructsInCodeWithLinesAndIgnoresComments) {
  const std::string source =
      "// std::thread in a comment, fork() too\n"
      "#include <thread>\n"
      "extern \"C\" void saxpy(const float* x, float* y, int n, cudaStream_t s) {\n"
      "  std::thread worker([] {});\n"
      "  void* f = dlsym(RTLD_DEFAULT, \"cudaEventElapsedTime\");\n"
      "  int fd = open(\"/proc/self/mem\", 2);\n"
      "}\n";
  auto violations = ScreenSource(source, "k.cu", "saxpy", {});
  EXPECT_EQ(PolicyIds(violations),
            (std::vector<std::string>{"threads", "dynamic_loading", "proc_filesystem", "file_descriptors"}))
      << DescribePolicy(violations);
  EXPECT_EQ(violations[0].line, 4);
  EXPECT_EQ(violations[0].matched, "std::thread");
  EXPECT_EQ(violations[2].line, 6);
}

TEST(CandidatePolicyTest, AllowedConstructsAreNotReported) {
  const std::string source = "void f() { std::thread t([]{}); t.join(); fork(); }\n";
  auto violations = ScreenSource(source, "k.cu", "f", {PolicyConstruct::kThreads});
  EXPECT_EQ(PolicyIds(violations), (std::vector<std::string>{"process_control"}));
}

TEST(CandidatePolicyTest, MemberCallsAndLongerNamesAreNotFreeFunctionCalls) {
  const std::string source =
      "struct File { void write(int); void open(); };\n"
      "void g(File& f, File* p) { f.write(1); p->open(); int exit_code = 0; float timer = 0; }\n"
      "__device__ float time_step(float t) { return t; }\n";
  EXPECT_TRUE(ScreenSource(source, "k.cu", "g", {}).empty())
      << DescribePolicy(ScreenSource(source, "k.cu", "g", {}));
  EXPECT_EQ(PolicyIds(ScreenSource("void g() { ::exit(0); }", "k.cu", "g", {})),
            (std::vector<std::string>{"process_control"}));
  EXPECT_EQ(PolicyIds(ScreenSource("int g() { return system(\"ls\"); }", "k.cu", "g", {})),
            (std::vector<std::string>{"process_control"}));
  EXPECT_EQ(PolicyIds(ScreenSource("void g() { std::exit (0); }", "k.cu", "g", {})),
            (std::vector<std::string>{"process_control"}));
}

TEST(CandidatePolicyTest, DeviceClockReadsInCallsAndAsmOperands) {
  EXPECT_EQ(PolicyIds(ScreenSource("__global__ void k(long* t) { *t = clock64(); }", "k.cu", "k", {})),
            (std::vector<std::string>{"device_clock"}));
  auto asm_read = ScreenSource(
      "__device__ unsigned long long now() {\n unsigned long long t;\n"
      " asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t));\n return t;\n}\n",
      "k.cu", "k", {});
  ASSERT_EQ(PolicyIds(asm_read), (std::vector<std::string>{"device_clock"}));
  EXPECT_EQ(asm_read[0].line, 3);
}

TEST(CandidatePolicyTest, AStreamJoinedIntoTheEntryStreamPassesAnUnjoinedOneDoesNot) {
  const std::string joined =
      "extern \"C\" void gelu(const float* x, float* y, int n, cudaStream_t harness) {\n"
      "  static cudaStream_t side; static cudaEvent_t e;\n"
      "  cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);\n"
      "  cudaEventRecord(e, side);\n"
      "  cudaStreamWaitEvent(harness, e, 0);\n"
      "}\n";
  EXPECT_TRUE(ScreenSource(joined, "k.cu", "gelu", {}).empty());
  std::string fork_only = joined;
  fork_only.replace(fork_only.find("cudaStreamWaitEvent(harness"), 27, "cudaStreamWaitEvent(side   ");
  auto violations = ScreenSource(fork_only, "k.cu", "gelu", {});
  ASSERT_EQ(PolicyIds(violations), (std::vector<std::string>{"unjoined_stream"}));
  EXPECT_EQ(violations[0].line, 3);
  EXPECT_NE(violations[0].matched.find("cudaStreamWaitEvent(harness, ...)"), std::string::npos);
  const std::string graph =
      "extern \"C\" void gelu(const float* x, float* y, int n, cudaStream_t stream) {\n"
      "  static cudaStream_t capture; cudaStreamCreate(&capture);\n"
      "  cudaGraphLaunch(graphs[i].exec, stream);\n}\n";
  EXPECT_TRUE(ScreenSource(graph, "k.cu", "gelu", {}).empty());
  const std::string helper =
      "void join(cudaStream_t into, cudaEvent_t e) { cudaStreamWaitEvent(into, e, 0); }\n"
      "extern \"C\" void gelu(const float* x, float* y, int n, cudaStream_t stream) {\n"
      "  static cudaStream_t side[2]; cudaStreamCreateWithFlags(&side[0], cudaStreamNonBlocking);\n"
      "  join(stream, done);\n}\n";
  EXPECT_TRUE(ScreenSource(helper, "k.cu", "gelu", {}).empty());
}

TEST(CandidatePolicyTest, StaticConstructorsInEveryForm) {
  for (const char* source :
       {"__attribute__((constructor)) static void init() {}",
        "__attribute__ ((used, constructor(101))) void init() {}", "[[gnu::constructor]] void init() {}",
        "__attribute__((section(\".init_array\"))) void (*p)() = init;"}) {
    EXPECT_EQ(PolicyIds(ScreenSource(source, "k.cu", "f", {})),
              (std::vector<std::string>{"static_constructor"}))
        << source;
  }
}

TEST(CandidatePolicyTest, ImportsAndTheirStreamJoin) {
  std::vector<std::string> symbols = {
      "cudaLaunchKernel",
      "__cxa_atexit",
      "dlsym",
      "mprotect",
      "_ZNSt6thread15_M_start_threadESt10unique_ptrINS_6_StateESt14default_deleteIS1_EEPFvvE",
      "cudaStreamCreateWithFlags"};
  auto violations = ScreenImports(symbols, "k.cu (compiled)", {});
  EXPECT_EQ(PolicyIds(violations),
            (std::vector<std::string>{"dynamic_loading", "memory_protection", "threads", "unjoined_stream"}));
  EXPECT_EQ(violations[0].evidence, PolicyEvidence::kImports);
  EXPECT_EQ(violations[0].line, 0);
  symbols.push_back("cudaStreamWaitEvent");
  EXPECT_EQ(PolicyIds(ScreenImports(symbols, "k", {PolicyConstruct::kThreads})),
            (std::vector<std::string>{"dynamic_loading", "memory_protection"}));
}

TEST(CandidatePolicyTest, SassClockReads) {
  const std::string sass =
      "        /*0040*/                   LDG.E R2, desc[UR4][R2.64] ;   /* 0x000fe2 */\n"
      "        /*0050*/                   CS2R R4, SR_CLOCKLO ;          /* 0x0000000000047805 */\n";
  auto violations = ScreenSass(sass, "k.cu (compiled)", {});
  ASSERT_EQ(PolicyIds(violations), (std::vector<std::string>{"device_clock"}));
  EXPECT_EQ(violations[0].matched, "CS2R R4, SR_CLOCKLO");
  EXPECT_EQ(violations[0].evidence, PolicyEvidence::kInstructions);
  EXPECT_TRUE(ScreenSass(sass, "k", {PolicyConstruct::kDeviceClock}).empty());
  EXPECT_TRUE(ScreenSass("S2R R0, SR_TID.X ;", "k", {}).empty());
}

TEST(CandidatePolicyTest, TheMessageSaysWhatWhereWhyAndHowToAllow) {
  PolicyViolation violation{PolicyConstruct::kThreads, PolicyEvidence::kSource, "k.cu", 12, "std::thread"};
  std::string message = PolicyViolationMessage(violation);
  EXPECT_EQ(message.rfind("uses threads (std::thread) at k.cu:12: ", 0), 0u) << message;
  EXPECT_NE(message.find("--allow threads or [policy] allow = [\"threads\"] in task.toml"),
            std::string::npos);
  violation.evidence = PolicyEvidence::kImports;
  EXPECT_NE(PolicyViolationMessage(violation).find("in the imported symbols of k.cu"), std::string::npos);
}

// ---- The repository's candidates: no honest one rejected, every expected catch made ----

struct PolicyCorpus {
  std::map<std::string, std::string> entries;  // task name -> entry point
  std::string EntryOf(const std::string& task) {
    if (!entries.count(task)) {
      auto spec = LoadTask(PolicyRepositoryRoot() + "/examples/tasks/" + task);
      entries[task] = spec.ok() ? spec->entry : "";
    }
    return entries[task];
  }
};

std::vector<PolicyViolation> ScreenCorpusFile(const fs::path& path, const std::string& entry) {
  auto text = ReadWholeFile(path.string());
  EXPECT_TRUE(text.ok()) << path;
  if (!text.ok()) return {};
  std::string source = *text;
  if (path.extension() == ".py") {
    // A ModelNew file: its load_inline sources are Python strings, compiled
    // with the torch shim. Screen them as code, with the shim.
    for (const char* quotes : {"\"\"\"", "'''"}) {
      for (size_t at = source.find(quotes); at != std::string::npos; at = source.find(quotes, at)) {
        source.replace(at, 3, "   ");
      }
    }
    source = std::string(KernelBenchTorchShim()) + "\n" + source;
  }
  return ScreenSource(source, path.filename().string(), entry, {});
}

TEST(CandidatePolicyCorpusTest, NoHonestCandidateOfTheRepositoryIsRejected) {
  const fs::path root = PolicyRepositoryRoot();
  if (!fs::is_directory(root / "examples/tasks")) GTEST_SKIP() << "no examples/tasks";
  PolicyCorpus corpus;
  size_t screened = 0;
  for (const auto& task : fs::directory_iterator(root / "examples/tasks")) {
    if (!fs::exists(task.path() / "task.toml")) continue;
    const std::string entry = corpus.EntryOf(task.path().filename().string());
    std::vector<fs::path> files = {task.path() / "reference.cu"};
    for (const char* folder : {"candidates", "tunable"}) {
      if (!fs::is_directory(task.path() / folder)) continue;
      for (const auto& file : fs::directory_iterator(task.path() / folder)) {
        if (file.path().extension() == ".cu") files.push_back(file.path());
      }
    }
    for (const fs::path& file : files) {
      EXPECT_TRUE(ScreenCorpusFile(file, entry).empty()) << file << "\n"
                                                         << DescribePolicy(ScreenCorpusFile(file, entry));
      ++screened;
    }
  }
  for (const char* folder : {"examples/kernelbench", "tests/adversarial/kernelbench"}) {
    if (!fs::is_directory(root / folder)) continue;
    for (const auto& file : fs::directory_iterator(root / folder)) {
      std::string name = file.path().filename().string();
      bool honest = folder == std::string("examples/kernelbench") || name.rfind("honest_", 0) == 0;
      bool candidate = file.path().extension() == ".cu" || name.find("_modelnew.py") != std::string::npos;
      if (!honest || !candidate) continue;
      EXPECT_TRUE(ScreenCorpusFile(file.path(), "model_forward").empty())
          << file.path() << "\n"
          << DescribePolicy(ScreenCorpusFile(file.path(), "model_forward"));
      ++screened;
    }
  }
  EXPECT_GE(screened, 50u);
}

// tests/adversarial/expected.toml (and its KernelBench sibling): a case with
// `policy = "ID"` must be screened out naming that construct (and only it
// and `also_policy` ones); every other case must pass the policy (the runtime
// checks catch it), so the table stays exact.
TEST(CandidatePolicyCorpusTest, TheAdversarialSuiteIsScreenedExactlyAsDeclared) {
  const fs::path root = PolicyRepositoryRoot();
  if (!fs::is_directory(root / "tests/adversarial")) GTEST_SKIP() << "no tests/adversarial";
  PolicyCorpus corpus;
  size_t caught = 0, cases = 0;
  for (const char* folder : {"tests/adversarial", "tests/adversarial/kernelbench"}) {
    toml::table table = toml::parse_file((root / folder / "expected.toml").string());
    for (const toml::node& node : *table["case"].as_array()) {
      const toml::table& entry = *node.as_table();
      const std::string file = entry["file"].value_or(std::string());
      const std::string task = entry["task"].value_or(std::string());
      std::vector<std::string> expected;
      if (auto policy = entry["policy"].value<std::string>()) expected.push_back(*policy);
      if (const toml::array* also = entry["also_policy"].as_array()) {
        for (const toml::node& id : *also) expected.push_back(id.value_or(std::string()));
      }
      std::sort(expected.begin(), expected.end());
      auto violations =
          ScreenCorpusFile(root / folder / file, task.empty() ? "model_forward" : corpus.EntryOf(task));
      std::vector<std::string> got = PolicyIds(violations);
      std::sort(got.begin(), got.end());
      EXPECT_EQ(got, expected) << folder << "/" << file << "\n" << DescribePolicy(violations);
      bool expects_policy_kind = false;
      for (const toml::node& kind : *entry["expect"].as_array()) {
        expects_policy_kind |= kind.value_or(std::string()) == "policy_violation";
      }
      EXPECT_EQ(expects_policy_kind, !expected.empty()) << file << ": expect must list policy_violation "
                                                        << "exactly when the policy catches it";
      caught += !expected.empty();
      ++cases;
    }
  }
  EXPECT_GE(cases, 40u);
  EXPECT_GE(caught, 5u);
}

}  // namespace
}  // namespace kopt
