#include "harness/compiler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <set>

#include "core/fake_command_runner_test_util.h"
#include "core/file_io.h"
#include "core/interrupt.h"
#include "harness/parallel_compiler.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr std::string_view kTaskToml = R"([task]
name = "scale"
entry = "scale"

[[scalar]]
name = "n"
type = "i32"
value = 1024

[[tensor]]
name = "x"
dtype = "f32"
shape = ["n"]
role = "input"

[[tensor]]
name = "y"
dtype = "f32"
shape = ["n"]
role = "output"
)";

constexpr std::string_view kGoodCandidate = R"(
__global__ void scale_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2 * x[i];
}
extern "C" void scale(const float* x, float* y, int n, cudaStream_t stream) {
  scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
)";

// Real nvcc 13.0 / GNU ld output, captured for the three ways an entry point goes wrong.
constexpr std::string_view kEdgCLinkageConflict =
    "/tmp/nvt/mistyped.cu(2): error: more than one instance of overloaded function \"scale\" has \"C\" "
    "linkage\n"
    "  extern \"C\" void scale(float* x, float* y, int n, cudaStream_t stream) { k<<<(n + 255) / 256, 256, "
    "0, "
    "stream>>>(x, y, n); }\n"
    "                  ^\n\n"
    "1 error detected in the compilation of \"w_mistyped.cu\".\n";
constexpr std::string_view kEdgReturnTypeConflict =
    "/tmp/nvt/mistyped2.cu(2): error: cannot overload functions distinguished by return type alone\n"
    "  extern \"C\" int scale(const float* x, float* y, int n, cudaStream_t stream) { return 0; }\n"
    "                 ^\n\n"
    "1 error detected in the compilation of \"w_mistyped2.cu\".\n";
constexpr std::string_view kLdUndefinedReference =
    "/usr/bin/ld: /tmp/tmpxft_00002c80_00000000-13_w_missing.o: in function `kopt_launch':\n"
    "tmpxft_00002c80_00000000-6_w_missing.compute_90a.cudafe1.cpp:(.text+0x140): undefined reference to "
    "`scale'\n"
    "collect2: error: ld returned 1 exit status\n";
constexpr std::string_view kGccConflictingDeclaration =
    "c.cpp:2:17: error: conflicting declaration of C function \xe2\x80\x98void scale(float*, "
    "int)\xe2\x80\x99\n";
constexpr std::string_view kEdgSyntaxError =
    "/tmp/nvt/syntax.cu(1): error: identifier \"foo\" is undefined\n"
    "  extern \"C\" void scale(const float* x, float* y, int n, cudaStream_t stream) { foo bar; }\n"
    "                                                                                ^\n\n"
    "1 error detected in the compilation of \"w_syntax.cu\".\n";

TEST(MissingEntryPointTest, RecognisesRealCompilerMessages) {
  EXPECT_TRUE(OutputShowsMissingEntryPoint(kEdgCLinkageConflict, "scale"));
  EXPECT_TRUE(OutputShowsMissingEntryPoint(kEdgReturnTypeConflict, "scale"));
  EXPECT_TRUE(OutputShowsMissingEntryPoint(kLdUndefinedReference, "scale"));
  EXPECT_TRUE(OutputShowsMissingEntryPoint(kGccConflictingDeclaration, "scale"));
  EXPECT_TRUE(OutputShowsMissingEntryPoint("dlopen: undefined symbol: scale\n", "scale"));
  EXPECT_FALSE(OutputShowsMissingEntryPoint(kEdgSyntaxError, "scale"));
  EXPECT_FALSE(OutputShowsMissingEntryPoint(kLdUndefinedReference, "scal"));  // whole words only
  EXPECT_FALSE(OutputShowsMissingEntryPoint("undefined reference to `helper'\n", "scale"));
}

TEST(FindNvccTest, EnvironmentThenPathThenDefault) {
  FakeCommandRunner runner;
  runner.AddProgram("/opt/cuda/bin/nvcc");
  EXPECT_EQ(*FindNvcc(runner, "/opt/cuda/bin/nvcc"), "/opt/cuda/bin/nvcc");
  EXPECT_EQ(*FindNvcc(runner, nullptr), "/fake/bin/nvcc");
  runner.RemoveProgram("nvcc");
  Result<std::string> missing = FindNvcc(runner, "");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().kind(), ErrorKind::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("KOPT_NVCC, PATH, /usr/local/cuda/bin/nvcc"));
  EXPECT_THAT(FindNvcc(runner, "/nowhere/nvcc").status().message(), HasSubstr("KOPT_NVCC=/nowhere/nvcc"));
}

class CompilerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) / ("kopt_compiler_" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    task_ = *ParseTaskToml(kTaskToml, "task.toml");
    candidate_ = (root_ / "candidate.cu").string();
    WriteCandidate(kGoodCandidate);
    runner_.OnCommand("nvcc", {"--version"},
                      ExitedWith(0, "Cuda compilation tools, release 13.0, V13.0.88\n"));
    SucceedCompiles();
  }
  void TearDown() override { fs::remove_all(root_); }

  void WriteCandidate(std::string_view text) { std::ofstream(candidate_) << text; }

  // nvcc "compiles": writes the -o file and prints a warning.
  void SucceedCompiles() {
    runner_.OnCommand("nvcc", {"-shared"}, ExitedWith(0, "", "warning: fake\n"), [](const CommandSpec& spec) {
      auto output = std::find(spec.argv.begin(), spec.argv.end(), "-o");
      std::ofstream(*(output + 1)) << "ELF";
    });
  }

  std::unique_ptr<Compiler> MakeCompiler(std::string architecture = "sm_90a",
                                         std::vector<std::string> extra = {}) {
    CompilerOptions options;
    options.architecture = std::move(architecture);
    options.extra_flags = std::move(extra);
    options.cache_directory = (root_ / "cache").string();
    options.nvcc_path = "/usr/local/cuda/bin/nvcc";
    Result<std::unique_ptr<Compiler>> compiler = Compiler::Create(runner_, options);
    EXPECT_TRUE(compiler.ok()) << compiler.status().message();
    return std::move(compiler).value();
  }

  size_t CompileCount() const { return runner_.CommandsOf("nvcc").size() - version_queries_; }

  fs::path root_;
  TaskSpec task_;
  std::string candidate_;
  FakeCommandRunner runner_;
  size_t version_queries_ = 1;
};

TEST_F(CompilerTest, BuildsTheProtocolCommandAndWrapper) {
  std::string wrapper_text;
  runner_.OnCommand("nvcc", {"-shared"}, ExitedWith(0, "out\n", "err\n"), [&](const CommandSpec& spec) {
    wrapper_text = *ReadWholeFile(spec.argv.back());
    std::ofstream(spec.argv[spec.argv.size() - 2]) << "ELF";
  });
  std::unique_ptr<Compiler> compiler = MakeCompiler("sm_90a", {"-DFAST=1"});
  Result<CompileResult> result = compiler->Compile(task_, candidate_);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->outcome, CompileOutcome::kOk);
  EXPECT_EQ(result->compiler_output, "out\nerr\n");
  EXPECT_FALSE(result->cache_hit);
  EXPECT_EQ(result->cache_key.size(), 64u);
  EXPECT_EQ(result->library_path, (root_ / "cache" / result->cache_key / "candidate.so").string());
  EXPECT_TRUE(fs::is_regular_file(result->library_path));
  CommandSpec spec = runner_.CommandsOf("nvcc").back();
  std::vector<std::string> flags(spec.argv.begin() + 1, spec.argv.end() - 3);
  EXPECT_THAT(flags, ElementsAre("-O3", "-std=c++17", "-lineinfo",
                                 "-gencode=arch=compute_90a,code=[sm_90a,compute_90a]", "-cudart", "shared",
                                 "-Xcompiler", "-fPIC", "-shared", "-Xlinker", "-z,defs", "-DFAST=1"));
  EXPECT_EQ(spec.argv[spec.argv.size() - 3], "-o");
  EXPECT_THAT(spec.argv.back(), HasSubstr("/wrapper.cu"));
  EXPECT_EQ(runner_.CommandsOf("nvcc")[0].argv,
            (std::vector<std::string>{"/usr/local/cuda/bin/nvcc", "--version"}));
  EXPECT_THAT(wrapper_text, HasSubstr("#include \"" + candidate_ + "\"\n"));
  EXPECT_THAT(wrapper_text, HasSubstr(EntryPrototype(task_)));
  // The entry keeps the wrapper, the output and the verdict.
  fs::path entry = root_ / "cache" / result->cache_key;
  EXPECT_EQ(*ReadWholeFile((entry / "wrapper.cu").string()), wrapper_text);
  EXPECT_EQ(*ReadWholeFile((entry / "compiler_output.txt").string()), "out\nerr\n");
  EXPECT_THAT(*ReadWholeFile((entry / "result.json").string()), HasSubstr("\"outcome\": \"ok\""));
}

TEST_F(CompilerTest, SecondCompileIsACacheHit) {
  std::unique_ptr<Compiler> compiler = MakeCompiler();
  CompileResult first = *compiler->Compile(task_, candidate_);
  CompileResult second = *compiler->Compile(task_, candidate_);
  EXPECT_EQ(CompileCount(), 1u);
  EXPECT_TRUE(second.cache_hit);
  EXPECT_EQ(second.outcome, CompileOutcome::kOk);
  EXPECT_EQ(second.cache_key, first.cache_key);
  EXPECT_EQ(second.library_path, first.library_path);
  EXPECT_EQ(second.compiler_output, first.compiler_output);
  // No temporary directories are left behind.
  size_t entries = std::distance(fs::directory_iterator(root_ / "cache"), fs::directory_iterator());
  EXPECT_EQ(entries, 1u);
}

TEST_F(CompilerTest, KeyChangesWithSourceArchitectureFlagsAndNvccVersion) {
  std::set<std::string> keys;
  keys.insert(MakeCompiler()->Compile(task_, candidate_)->cache_key);
  WriteCandidate(std::string(kGoodCandidate) + "// changed\n");
  keys.insert(MakeCompiler()->Compile(task_, candidate_)->cache_key);
  keys.insert(MakeCompiler("sm_80")->Compile(task_, candidate_)->cache_key);
  keys.insert(MakeCompiler("sm_90a", {"-G"})->Compile(task_, candidate_)->cache_key);
  runner_.OnCommand("nvcc", {"--version"}, ExitedWith(0, "Cuda compilation tools, release 13.1\n"));
  keys.insert(MakeCompiler()->Compile(task_, candidate_)->cache_key);
  EXPECT_EQ(keys.size(), 5u);
  version_queries_ = 5;
  EXPECT_EQ(CompileCount(), 5u);
}

TEST_F(CompilerTest, ACandidatesKoptNvccFlagsAreAppendedForItAlone) {
  std::unique_ptr<Compiler> compiler = MakeCompiler("sm_90a", {"-DFAST=1"});
  std::string plain_key = compiler->Compile(task_, candidate_)->cache_key;
  WriteCandidate("// kopt:nvcc -use_fast_math -Xptxas -dlcm=cg\n" + std::string(kGoodCandidate));
  Result<CompileResult> flagged = compiler->Compile(task_, candidate_);
  ASSERT_TRUE(flagged.ok()) << flagged.status().message();
  EXPECT_EQ(flagged->outcome, CompileOutcome::kOk);
  EXPECT_NE(flagged->cache_key, plain_key);
  CommandSpec spec = runner_.CommandsOf("nvcc").back();
  std::vector<std::string> flags(spec.argv.begin() + 1, spec.argv.end() - 3);
  EXPECT_THAT(flags, ElementsAre("-O3", "-std=c++17", "-lineinfo",
                                 "-gencode=arch=compute_90a,code=[sm_90a,compute_90a]", "-cudart", "shared",
                                 "-Xcompiler", "-fPIC", "-shared", "-Xlinker", "-z,defs", "-DFAST=1",
                                 "-use_fast_math", "-Xptxas=-dlcm=cg"));
  EXPECT_THAT(flagged->command_line, HasSubstr("-use_fast_math"));
  // The compiler's own flags are unchanged for the next candidate.
  EXPECT_EQ(compiler->flags().size(), 12u);
}

TEST_F(CompilerTest, ARefusedCandidateFlagIsACompileErrorWithoutNvcc) {
  WriteCandidate(std::string(kGoodCandidate) + "// kopt:nvcc -Xcompiler -fplugin=/tmp/evil.so\n");
  std::unique_ptr<Compiler> compiler = MakeCompiler();
  Result<CompileResult> result = compiler->Compile(task_, candidate_);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->outcome, CompileOutcome::kCompileError);
  EXPECT_THAT(result->message, HasSubstr("kopt:nvcc -Xcompiler: not an accepted flag"));
  EXPECT_THAT(result->message, HasSubstr("candidate.cu:"));
  EXPECT_EQ(CompileCount(), 0u);
}

TEST_F(CompilerTest, FailedCompileIsCachedWithItsOutput) {
  runner_.OnCommand("nvcc", {"-shared"}, ExitedWith(2, "", std::string(kEdgSyntaxError)));
  std::unique_ptr<Compiler> compiler = MakeCompiler();
  CompileResult first = *compiler->Compile(task_, candidate_);
  EXPECT_EQ(first.outcome, CompileOutcome::kCompileError);
  EXPECT_EQ(first.compiler_output, kEdgSyntaxError);
  EXPECT_EQ(first.library_path, "");
  EXPECT_THAT(first.message, HasSubstr("nvcc failed (exit code 2)"));
  CompileResult second = *compiler->Compile(task_, candidate_);
  EXPECT_TRUE(second.cache_hit);
  EXPECT_EQ(second.outcome, CompileOutcome::kCompileError);
  EXPECT_EQ(second.compiler_output, kEdgSyntaxError);
  EXPECT_EQ(second.message, first.message);
  EXPECT_EQ(CompileCount(), 1u);
}

TEST_F(CompilerTest, MissingEntryPointStatesThePrototype) {
  for (std::string_view output : {kEdgCLinkageConflict, kEdgReturnTypeConflict, kLdUndefinedReference}) {
    runner_.OnCommand("nvcc", {"-shared"}, ExitedWith(1, "", std::string(output)));
    WriteCandidate(std::string(kGoodCandidate) + "// " + std::string(output.substr(0, 20)) + "\n");
    CompileResult result = *MakeCompiler()->Compile(task_, candidate_);
    EXPECT_EQ(result.outcome, CompileOutcome::kMissingEntryPoint) << output;
    EXPECT_EQ(CompileOutcomeName(result.outcome), "missing_entry_point");
    EXPECT_THAT(result.message,
                HasSubstr("expected: extern \"C\" void scale(const float* x, float* y, int n, "
                          "cudaStream_t stream);"));
    EXPECT_EQ(result.compiler_output, output);
  }
}

TEST_F(CompilerTest, TimeoutIsReportedAndNotCached) {
  runner_.OnCommand("nvcc", {"-shared"}, TimedOutResult("", "partial\n"));
  std::unique_ptr<Compiler> compiler = MakeCompiler();
  CompileResult first = *compiler->Compile(task_, candidate_);
  EXPECT_EQ(first.outcome, CompileOutcome::kCompileError);
  EXPECT_THAT(first.message, HasSubstr("nvcc did not finish (timed out"));
  EXPECT_EQ(first.compiler_output, "partial\n");
  CompileResult second = *compiler->Compile(task_, candidate_);
  EXPECT_FALSE(second.cache_hit);
  EXPECT_EQ(CompileCount(), 2u);
  EXPECT_FALSE(fs::exists(root_ / "cache" / first.cache_key));
}

// Issue 19: Ctrl-C during a compile. nvcc catches the SIGTERM and exits 255 ("nvcc: Terminated"); that
// is no verdict on the candidate and must not be cached, or the resumed run reports a compile error.
TEST_F(CompilerTest, ACompileEndedByAnInterruptIsNotCached) {
  runner_.OnCommand("nvcc", {"-shared"}, ExitedWith(255, "", "nvcc: Terminated\n"));
  std::unique_ptr<Compiler> compiler = MakeCompiler();
  std::optional<CompileResult> interrupted;
  {
    InterruptCleanup during(
        [&] { interrupted = *compiler->Compile(task_, candidate_); });  // runs mid-interrupt
    RunInterruptCleanupsForTest(SIGINT);
  }
  ASSERT_TRUE(interrupted.has_value());
  EXPECT_FALSE(fs::exists(root_ / "cache" / interrupted->cache_key));
  for (const fs::directory_entry& entry : fs::directory_iterator(root_ / "cache"))
    EXPECT_EQ(entry.path().filename().string().rfind(".tmp-", 0), std::string::npos) << entry.path();
  SucceedCompiles();
  CompileResult resumed = *compiler->Compile(task_, candidate_);
  EXPECT_FALSE(resumed.cache_hit);
  EXPECT_TRUE(resumed.Ok()) << resumed.message;
}

TEST_F(CompilerTest, SuccessWithoutALibraryIsACompileError) {
  runner_.OnCommand("nvcc", {"-shared"}, ExitedWith(0, ""));
  CompileResult result = *MakeCompiler()->Compile(task_, candidate_);
  EXPECT_EQ(result.outcome, CompileOutcome::kCompileError);
  EXPECT_THAT(result.message, HasSubstr("wrote no shared object"));
}

TEST_F(CompilerTest, HarnessProblemsAreStatuses) {
  EXPECT_EQ(MakeCompiler()->Compile(task_, (root_ / "absent.cu").string()).status().kind(),
            ErrorKind::kNotFound);
  runner_.OnCommand("nvcc", {"-shared"},
                    FakeCommandRunner::Response{CommandResult{}, NotFound("nvcc vanished"), nullptr});
  EXPECT_THAT(MakeCompiler()->Compile(task_, candidate_).status().message(), HasSubstr("nvcc vanished"));
  runner_.OnCommand("nvcc", {"--version"}, ExitedWith(1, "", "broken\n"));
  CompilerOptions options{"sm_90a", {}, (root_ / "cache").string(), 10, "/usr/local/cuda/bin/nvcc"};
  EXPECT_EQ(Compiler::Create(runner_, options).status().kind(), ErrorKind::kUnavailable);
}

TEST_F(CompilerTest, StaleTemporaryDirectoriesAreRemoved) {
  fs::create_directories(root_ / "cache" / ".tmp-old");
  fs::create_directories(root_ / "cache" / ".tmp-new");
  fs::last_write_time(root_ / "cache" / ".tmp-old", fs::file_time_type::clock::now() - std::chrono::hours(2));
  MakeCompiler();
  EXPECT_FALSE(fs::exists(root_ / "cache" / ".tmp-old"));
  EXPECT_TRUE(fs::exists(root_ / "cache" / ".tmp-new"));
}

TEST_F(CompilerTest, IncompleteCacheEntryIsRebuilt) {
  std::unique_ptr<Compiler> compiler = MakeCompiler();
  CompileResult first = *compiler->Compile(task_, candidate_);
  fs::remove(root_ / "cache" / first.cache_key / "candidate.so");
  CompileResult second = *compiler->Compile(task_, candidate_);
  EXPECT_FALSE(second.cache_hit);
  EXPECT_EQ(second.outcome, CompileOutcome::kOk);
  EXPECT_TRUE(fs::is_regular_file(second.library_path));
}

// A FakeCommandRunner that may be called from several threads.
class LockedRunner : public CommandRunner {
 public:
  explicit LockedRunner(FakeCommandRunner& inner) : inner_(inner) {}
  Result<CommandResult> Run(const CommandSpec& spec) override {
    std::lock_guard<std::mutex> lock(mutex_);
    return inner_.Run(spec);
  }
  std::string FindProgram(const std::string& program) override {
    std::lock_guard<std::mutex> lock(mutex_);
    return inner_.FindProgram(program);
  }

 private:
  FakeCommandRunner& inner_;
  std::mutex mutex_;
};

TEST_F(CompilerTest, ParallelCompilerDeliversEveryResult) {
  LockedRunner locked(runner_);
  CompilerOptions options{"sm_90a", {}, (root_ / "cache").string(), 10, "/usr/local/cuda/bin/nvcc"};
  std::unique_ptr<Compiler> compiler = std::move(Compiler::Create(locked, options)).value();
  std::vector<std::string> paths;
  for (int index = 0; index < 8; ++index) {
    paths.push_back((root_ / ("candidate" + std::to_string(index) + ".cu")).string());
    std::ofstream(paths.back()) << kGoodCandidate << "// " << index << "\n";
  }
  std::atomic<int> callbacks{0};
  std::vector<std::future<Result<CompileResult>>> futures;
  {
    ParallelCompiler pool(*compiler, 3);
    EXPECT_EQ(pool.thread_count(), 3u);
    for (const std::string& path : paths) {
      futures.push_back(
          pool.Submit(task_, path, [&](const std::string& done, const Result<CompileResult>& result) {
            EXPECT_TRUE(result.ok() && result->Ok()) << done;
            ++callbacks;
          }));
    }
    pool.WaitAll();
    EXPECT_EQ(callbacks.load(), 8);
  }
  std::set<std::string> libraries;
  for (auto& future : futures) libraries.insert(future.get()->library_path);
  EXPECT_EQ(libraries.size(), 8u);
}

// Real nvcc (skipped when the CUDA toolkit is absent): nvcc compiles for sm_90a without a GPU.
class RealNvccTest : public CompilerTest {
 protected:
  void SetUp() override {
    CompilerTest::SetUp();
    std::unique_ptr<CommandRunner> system = MakeSystemCommandRunner();
    if (!FindNvcc(*system, std::getenv("KOPT_NVCC")).ok()) GTEST_SKIP() << "nvcc not installed";
    CompilerOptions options{"sm_90a", {}, (root_ / "cache").string(), 300, ""};
    system_ = std::move(system);
    compiler_ = std::move(Compiler::Create(*system_, options)).value();
  }
  CompileResult CompileText(std::string_view text) {
    WriteCandidate(text);
    Result<CompileResult> result = compiler_->Compile(task_, candidate_);
    EXPECT_TRUE(result.ok()) << result.status().message();
    return result.ok() ? *result : CompileResult{};
  }
  std::unique_ptr<CommandRunner> system_;
  std::unique_ptr<Compiler> compiler_;
};

TEST_F(RealNvccTest, CompilesAGoodCandidate) {
  CompileResult result = CompileText(kGoodCandidate);
  EXPECT_EQ(result.outcome, CompileOutcome::kOk) << result.compiler_output;
  EXPECT_TRUE(fs::is_regular_file(result.library_path));
  EXPECT_GT(result.compile_seconds, 0);
  CompileResult again = CompileText(kGoodCandidate);
  EXPECT_TRUE(again.cache_hit);
}

TEST_F(RealNvccTest, MistypedEntryIsMissingEntryPoint) {
  std::string mistyped(kGoodCandidate);
  mistyped.replace(mistyped.find("void scale(const float* x"), 25, "void scale(float* x");
  CompileResult result = CompileText(mistyped);
  EXPECT_EQ(result.outcome, CompileOutcome::kMissingEntryPoint) << result.compiler_output;
  EXPECT_THAT(result.compiler_output, HasSubstr("scale"));
}

TEST_F(RealNvccTest, AbsentEntryIsMissingEntryPoint) {
  std::string renamed(kGoodCandidate);
  renamed.replace(renamed.find("void scale("), 11, "void scale2(");
  CompileResult result = CompileText(renamed);
  EXPECT_EQ(result.outcome, CompileOutcome::kMissingEntryPoint) << result.compiler_output;
  EXPECT_THAT(result.compiler_output, HasSubstr("undefined reference"));
}

TEST_F(RealNvccTest, SyntaxErrorIsCompileError) {
  CompileResult result =
      CompileText("extern \"C\" void scale(const float* x, float* y, int n, cudaStream_t s) { foo; }");
  EXPECT_EQ(result.outcome, CompileOutcome::kCompileError) << result.compiler_output;
  EXPECT_THAT(result.compiler_output, HasSubstr("\"foo\" is undefined"));
}

}  // namespace
}  // namespace kopt
