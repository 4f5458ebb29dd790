// The measurement engine with scripted children: a fake nvcc that "compiles"
// by copying the candidate's text into the library, and a fake kopt-runner
// that answers from that text (REFERENCE / FAST: timings; no GPU needed).
#include "measure/measure.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>
#include <vector>

#include "core/file_io.h"
#include "hw/gpu_spec.h"
#include "measure/bench_verdict.h"
#include "runner_protocol/output_frames.h"
#include "runner_protocol/runner_request.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string ExampleTask(const std::string& name) {
  return std::string(KOPT_FIXTURE_DIR) + "/../../examples/tasks/" + name;
}

std::string Timing(int median_microseconds) {
  std::string m = std::to_string(median_microseconds);
  return R"({"event":"timing","samples":25,"median_s":)" + m + R"(e-6,"q1_s":)" + m + R"(e-6,"q3_s":)" + m +
         R"(e-6,"mean_s":)" + m + R"(e-6,"min_s":)" + m + R"(e-6,"max_s":)" + m +
         R"(e-6,"relative_stdev":0.004,"gpu_seconds":0.05,"stop_reason":"noise","cold":true,"input_sets":1,)"
         R"("device_wide_median_s":)" +
         m + R"(e-6,"sm_clock_mean_mhz":1980,"throttled_samples_discarded":0})";
}

// nvcc and kopt-runner, scripted. Thread-safe: compiles run on pool threads.
class ScriptedChildren : public CommandRunner {
 public:
  Result<CommandResult> Run(const CommandSpec& spec) override {
    {
      std::lock_guard lock(mutex_);
      commands_.push_back(spec.argv);
    }
    CommandResult result;
    result.exit_code = 0;
    if (fs::path(spec.argv[0]).filename() == "nvcc") return Nvcc(spec);
    nlohmann::json request = nlohmann::json::parse(*ReadWholeFile(spec.argv[1]));
    bool reference = request.value("role", "candidate") == "reference";
    std::string library =
        *ReadWholeFile(request[reference ? "reference_library" : "candidate_library"].get<std::string>());
    // Protocol 2 (docs/harness-protocol.md §3): events carry the run token and
    // sequence numbers; outputs go as frames whose bytes depend on the round's
    // seed only, so every child's equal the reference child's.
    std::string token;
    for (const auto& [name, value] : spec.environment)
      if (name == "KOPT_RUN_TOKEN") token = value;
    int sequence = 0;
    std::string out;
    auto emit = [&](nlohmann::json event) {
      event["seq"] = sequence++;
      event["token"] = token;
      event["elapsed_s"] = 0.1;
      out += event.dump() + "\n";
    };
    auto send = [&](const std::string& round, int64_t index, uint64_t seed, int variant = -1) {
      nlohmann::json names = nlohmann::json::array();
      for (const nlohmann::json& tensor : request["task"]["tensors"]) {
        if (tensor["role"] == "input") continue;
        int64_t count = 1;
        nlohmann::json shape = tensor["shape"];
        if (variant >= 0)
          shape = request["check_variants"][variant]
                      .value("shapes", nlohmann::json::object())
                      .value(tensor["name"].get<std::string>(), shape);
        for (int64_t dimension : shape) count *= dimension;
        std::string dtype = tensor["dtype"];
        int64_t size = dtype == "f64" || dtype == "i64"   ? 8
                       : dtype == "f32" || dtype == "i32" ? 4
                       : dtype == "u8"                    ? 1
                                                          : 2;
        std::vector<std::byte> payload(count * size, std::byte(seed % 100 + 1));
        result.channel_bytes += EncodeFrame({round, index, tensor["name"]}, payload);
        names.push_back(tensor["name"]);
      }
      return names;
    };
    emit(nlohmann::json::parse(
        R"({"event":"device","name":"NVIDIA H200","compute_capability":"9.0","l2_bytes":52428800,)"
        R"("memory_bytes":150754820096,"sm_clock_max_mhz":1980,"nvml":false})"));
    if (request["check"].get<bool>()) {
      for (size_t i = 0; i < request["seeds"].size(); ++i) {
        uint64_t seed = request["seeds"][i];
        emit({{"event", "outputs"},
              {"round", "check"},
              {"index", i},
              {"seed", seed},
              {"tensors", send("check", i, seed)}});
      }
      for (size_t i = 0; i < request["check_variants"].size(); ++i) {
        emit({{"event", "outputs"},
              {"round", "variant"},
              {"index", i},
              {"seed", 1000 + i},
              {"tensors", send("variant", i, 1000 + i, static_cast<int>(i))}});
      }
    }
    if (!request["timing"].is_null()) {
      Result<runner::RunnerRequest> parsed = runner::RunnerRequestFromJson(request, "request");
      if (!parsed.ok()) return parsed.status();
      int64_t sets = ExpectedInputSets(*parsed, 52428800);
      if (reference) {
        for (int64_t k = 0; k < sets; ++k)
          emit({{"event", "outputs"},
                {"round", "set"},
                {"index", k},
                {"seed", 2000 + k},
                {"tensors", send("set", k, 2000 + k)}});
      }
      send("timed", 0, 2000);
      nlohmann::json timing =
          nlohmann::json::parse(Timing(library.find("FAST") != std::string::npos ? 50 : 100));
      timing["input_sets"] = sets;
      timing["cold"] = parsed->timing->cold;
      timing["verified"] = {{{"sample", 3}, {"set", 0}, {"seconds", timing["median_s"]}}};
      emit(timing);
      emit({{"event", "outputs"},
            {"round", "fresh"},
            {"index", 0},
            {"seed", 3000},
            {"tensors", send("fresh", 0, 3000)}});
    }
    emit({{"event", "done"}, {"ok", true}});
    result.stdout_text = out;
    if (spec.channel_pull && request.value("output_pull", false) != true) {
      return Internal("a pulled channel without output_pull");
    }
    if (spec.channel_pull && library.find("PULLREFUSED") != std::string::npos) {
      // A kernel that refuses kopt's reads of a child's memory (core/channel_pull.h).
      result.channel_bytes.clear();
      result.channel_error = "cannot read the child's memory (process_vm_readv: Operation not permitted)";
      result.channel_refused = true;
    }
    if (spec.channel_pull && library.find("PULLTORN") != std::string::npos) {
      // A child that named memory it does not have: the stream ends at the last whole record.
      result.channel_bytes.resize(result.channel_bytes.size() / 2);
      result.channel_error = "the output channel named memory the child does not have (Bad address)";
    }
    if (spec.channel_memory_fd >= 0) {
      // Channel memory (core/channel_memory.h): the same frames, written where the child would write them.
      {
        std::lock_guard lock(mutex_);
        ++memory_children_;
        if (request.value("output_memory", false) != true)
          return Internal("channel memory without output_memory");
      }
      if (pwrite(spec.channel_memory_fd, result.channel_bytes.data(), result.channel_bytes.size(), 0) !=
          static_cast<ssize_t>(result.channel_bytes.size())) {
        return Internal("fake child: pwrite into the channel memory failed");
      }
      // Hostile children: a process they leave behind keeps a writable
      // mapping (KEEPMAP), or holds the descriptor and overwrites the outputs
      // when told to, after the parent has judged them (WRITELATE).
      if (library.find("KEEPMAP") != std::string::npos) LeaveBehind(spec.channel_memory_fd, true);
      if (library.find("WRITELATE") != std::string::npos) LeaveBehind(spec.channel_memory_fd, false);
      result.channel_bytes.clear();
    }
    return result;
  }
  // A process left behind by a hostile child (see KEEPMAP / WRITELATE above).
  struct LeftBehind {
    pid_t pid = -1;
    int go = -1;  // write a byte: it tries to overwrite the outputs, exits 0 when it could not
  };
  std::vector<LeftBehind> left_behind() {
    std::lock_guard lock(mutex_);
    return left_behind_;
  }
  // Tells every process left behind to act, and returns how many could not write (exit 0).
  int ReleaseLeftBehind() {
    int refused = 0;
    for (const LeftBehind& process : left_behind()) {
      (void)!write(process.go, "x", 1);
      close(process.go);
      int status = 0;
      waitpid(process.pid, &status, 0);
      if (WIFEXITED(status) && WEXITSTATUS(status) == 0) ++refused;
    }
    std::lock_guard lock(mutex_);
    left_behind_.clear();
    return refused;
  }
  std::string FindProgram(const std::string& program) override { return "/fake/bin/" + program; }
  void LeaveBehind(int memory_fd, bool keep_mapping) {
    int go[2], ready[2];
    if (pipe(go) != 0 || pipe(ready) != 0) return;
    pid_t pid = fork();
    if (pid == 0) {
      // Only async-signal-safe calls from here (the test process has threads).
      close(go[1]);
      close(ready[0]);
      void* mapping =
          keep_mapping ? mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, memory_fd, 0) : nullptr;
      (void)!write(ready[1], "r", 1);  // in place before the child "ends"
      char byte;
      (void)!read(go[0], &byte, 1);
      if (mapping == MAP_FAILED) _exit(2);
      if (keep_mapping) _exit(0);
      // Overwrite the first payload byte of every frame it can see: the outputs are all 1..100.
      static const char zeros[4096] = {};
      bool wrote = false;
      for (off_t offset = 0; offset < (off_t{1} << 20); offset += 4096) {
        if (pwrite(memory_fd, zeros, sizeof zeros, offset) > 0) wrote = true;
      }
      _exit(wrote ? 1 : 0);
    }
    close(go[0]);
    close(ready[1]);
    char byte;
    (void)!read(ready[0], &byte, 1);
    close(ready[0]);
    std::lock_guard lock(mutex_);
    left_behind_.push_back({pid, go[1]});
  }
  size_t memory_children() {
    std::lock_guard lock(mutex_);
    return memory_children_;
  }

  size_t RunnerCallsFor(const std::string& stem) {
    std::lock_guard lock(mutex_);
    return std::count_if(commands_.begin(), commands_.end(), [&](const std::vector<std::string>& argv) {
      return argv.size() == 2 && fs::path(argv[1]).filename() == stem + ".request.json";
    });
  }
  std::vector<std::vector<std::string>> Compiles() {
    std::lock_guard lock(mutex_);
    std::vector<std::vector<std::string>> compiles;
    for (const std::vector<std::string>& argv : commands_) {
      if (std::find(argv.begin(), argv.end(), "-shared") != argv.end()) compiles.push_back(argv);
    }
    return compiles;
  }
  size_t CompileCount() {
    std::lock_guard lock(mutex_);
    return std::count_if(commands_.begin(), commands_.end(), [](const std::vector<std::string>& argv) {
      return std::find(argv.begin(), argv.end(), "-shared") != argv.end();
    });
  }

 private:
  // `--version`, or a compile: the wrapper's #include names the candidate;
  // its text becomes the library, unless it says BROKEN.
  Result<CommandResult> Nvcc(const CommandSpec& spec) {
    CommandResult result;
    result.exit_code = 0;
    if (std::find(spec.argv.begin(), spec.argv.end(), "--version") != spec.argv.end()) {
      result.stdout_text = "Cuda compilation tools, release 13.0, V13.0.88\n";
      return result;
    }
    std::string wrapper = *ReadWholeFile(spec.argv.back());
    std::smatch include;
    std::regex_search(wrapper, include, std::regex("#include \"([^\"]+)\""));
    std::string source = *ReadWholeFile(include[1].str());
    if (std::find(spec.argv.begin(), spec.argv.end(), "-arch=sm_999") != spec.argv.end()) {
      result.exit_code = 1;
      result.stderr_text = "nvcc fatal   : Unsupported gpu architecture 'sm_999'\n";
      return result;
    }
    if (source.find("BROKEN") != std::string::npos) {
      result.exit_code = 1;
      result.stderr_text = "candidate.cu(1): error: identifier \"BROKEN\" is undefined\n";
      return result;
    }
    auto output = std::find(spec.argv.begin(), spec.argv.end(), "-o");
    std::ofstream(*(output + 1)) << source;
    return result;
  }

  std::mutex mutex_;
  std::vector<std::vector<std::string>> commands_;
  size_t memory_children_ = 0;
  std::vector<LeftBehind> left_behind_;
};

class MeasureSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    workspace_ = fs::path(::testing::TempDir()) / ("kopt_measure_" + std::to_string(getpid()));
    fs::remove_all(workspace_);
    settings_.workspace = workspace_.string();
    settings_.arch = "sm_90a";
    settings_.seeds = 1;
    settings_.seed = 7;
    settings_.jobs = 2;
    environment_.command_runner = &children_;
    environment_.query_gpus = [] { return Result<std::vector<GpuSpec>>(Unavailable("no GPU (test)")); };
    environment_.runner_program = "/fake/bin/kopt-runner";
    environment_.progress = [this](const MeasureProgress& progress) { progress_.push_back(progress.text); };
  }
  void TearDown() override { fs::remove_all(workspace_); }

  std::unique_ptr<MeasureSession> Open() {
    Result<MeasureTask> task = LoadMeasureTask(ExampleTask("saxpy"));
    EXPECT_TRUE(task.ok()) << task.status().message();
    Result<std::unique_ptr<MeasureSession>> session = MeasureSession::Open(settings_, environment_, *task);
    EXPECT_TRUE(session.ok()) << session.status().message();
    return std::move(session).value();
  }

  fs::path workspace_;
  MeasureSettings settings_;
  MeasureEnvironment environment_;
  ScriptedChildren children_;
  std::vector<std::string> progress_;
};

TEST_F(MeasureSessionTest, CandidatesGivenAsSourceOneAtATimeShareOneReference) {
  std::unique_ptr<MeasureSession> session = Open();
  Result<MeasurementEntry> reference = session->MeasureReference();
  ASSERT_TRUE(reference.ok()) << reference.status().message();
  EXPECT_EQ(reference->status, MeasureStatus::kOk);
  EXPECT_EQ(reference->role, EntryRole::kReference);
  ASSERT_TRUE(reference->timing.has_value());
  EXPECT_DOUBLE_EQ(reference->timing->median_s, 100e-6);

  Result<MeasurementEntry> fast = session->MeasureCandidate("// FAST\n", "fast");
  ASSERT_TRUE(fast.ok()) << fast.status().message();
  EXPECT_EQ(fast->status, MeasureStatus::kOk);
  EXPECT_EQ(fast->role, EntryRole::kCandidate);
  EXPECT_EQ(fast->path, "");
  EXPECT_EQ(fast->compile, CompileOutcome::kOk);
  EXPECT_EQ(fast->checks_passed, fast->checks_total);
  EXPECT_GT(fast->checks_total, 0u);
  ASSERT_TRUE(fast->speedup.has_value());
  EXPECT_DOUBLE_EQ(*fast->speedup, 2.0);

  Result<MeasurementEntry> broken = session->MeasureCandidate("BROKEN\n", "broken");
  ASSERT_TRUE(broken.ok()) << broken.status().message();
  EXPECT_EQ(broken->status, MeasureStatus::kFailed);
  EXPECT_EQ(broken->failure, FailureKind::kCompileError);
  EXPECT_EQ(broken->compile, CompileOutcome::kCompileError);
  EXPECT_THAT(broken->detail, HasSubstr("identifier \"BROKEN\" is undefined"));
  EXPECT_THAT(broken->message, HasSubstr("error"));

  EXPECT_EQ(session->MeasureCandidate("// again\n", "fast").status().kind(), ErrorKind::kInvalidInput)
      << "names are unique within a session";

  Result<MeasurementReport> report = session->Finish();
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(children_.RunnerCallsFor("reference"), 1u) << "one reference measurement for every candidate";
  EXPECT_EQ(children_.RunnerCallsFor("reference_end"), 1u);
  EXPECT_EQ(children_.RunnerCallsFor("fast.candidate"), 1u);
  EXPECT_EQ(children_.RunnerCallsFor("broken.candidate"), 0u);
  ASSERT_EQ(report->candidates.size(), 2u);
  EXPECT_EQ(report->candidates[0].name, "fast");
  EXPECT_EQ(report->candidates[1].name, "broken");
  EXPECT_EQ(report->gpu, "NVIDIA H200");
  ASSERT_TRUE(report->reference_end.has_value());
  EXPECT_EQ(report->reference_end->role, EntryRole::kReferenceAgain);
  EXPECT_FALSE(report->reference_end->speedup.has_value());
  ASSERT_TRUE(report->reference_drift.has_value());
  EXPECT_DOUBLE_EQ(*report->reference_drift, 0.0);
  EXPECT_THAT(progress_, ::testing::Contains("measuring fast"));
  EXPECT_TRUE(ReferenceVerdict(*report).ok());
}

// A source compiled ahead (a generator's guess of its next candidate) is in
// the compile cache when it is measured: one nvcc run for it, none repeated.
TEST_F(MeasureSessionTest, ASourceCompiledAheadIsACacheHitWhenMeasured) {
  settings_.jobs = 3;  // two guesses at once, a thread kept for real candidates
  std::unique_ptr<MeasureSession> session = Open();
  ASSERT_TRUE(session->MeasureReference().ok());
  size_t before = children_.CompileCount();
  session->CompileAhead({"// FAST ahead 1\n", "// FAST ahead 2\n", "// FAST ahead 1\n"});
  for (int wait = 0; wait < 1000 && children_.CompileCount() < before + 2; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(children_.CompileCount(), before + 2) << "the repeated source is sent once";
  // The compile's cache entry appears when its nvcc run has finished.
  fs::path cache = workspace_ / "compile-cache";
  auto entries = [&] {
    size_t count = 0;
    std::error_code error;
    for (const fs::directory_entry& entry : fs::directory_iterator(cache, error)) {
      count += entry.is_directory() && entry.path().filename().string().size() == 64;
    }
    return count;
  };
  for (int wait = 0; wait < 1000 && entries() < 3; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  Result<MeasurementEntry> measured = session->MeasureCandidate("// FAST ahead 2\n", "n2");
  ASSERT_TRUE(measured.ok()) << measured.status().message();
  EXPECT_EQ(measured->status, MeasureStatus::kOk);
  EXPECT_TRUE(measured->compile_cached);
  EXPECT_EQ(children_.CompileCount(), before + 2) << "measuring it compiled nothing";
}

TEST_F(MeasureSessionTest, CandidatesWriteIntoSealedChannelMemoryAndThePulledChannelStaysTheDefault) {
  settings_.output_channel = MeasureSettings::OutputChannel::kMemory;
  std::unique_ptr<MeasureSession> session = Open();
  ASSERT_TRUE(session->MeasureReference().ok());
  Result<MeasurementEntry> first = session->MeasureCandidate("// FAST 1\n", "first");
  Result<MeasurementEntry> second = session->MeasureCandidate("// FAST 2\n", "second");
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->status, MeasureStatus::kOk) << first->message;
  EXPECT_EQ(second->status, MeasureStatus::kOk) << second->message;
  EXPECT_EQ(children_.memory_children(), 2u)
      << "each candidate child in its own memory; the reference: a pipe";
  ASSERT_TRUE(second->phases.has_value());
  EXPECT_EQ(second->phases->channel, "memory");
  EXPECT_GE(second->phases->judge, 0.0);
  ASSERT_TRUE(session->Finish().ok());

  settings_.output_channel = MeasureSettings{}.output_channel;
  settings_.rerun = true;
  std::unique_ptr<MeasureSession> piped = Open();
  ASSERT_TRUE(piped->MeasureReference().ok());
  Result<MeasurementEntry> again = piped->MeasureCandidate("// FAST 1\n", "first");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->status, MeasureStatus::kOk) << again->message;
  ASSERT_TRUE(again->phases.has_value());
  EXPECT_EQ(again->phases->channel, "pull");
  EXPECT_EQ(children_.memory_children(), 2u) << "the default: the pulled channel";
}

TEST_F(MeasureSessionTest, WhereTheKernelRefusesPullsTheChildRunsAgainThroughThePipeAndSoDoLaterOnes) {
  std::unique_ptr<MeasureSession> session = Open();
  ASSERT_TRUE(session->MeasureReference().ok());
  Result<MeasurementEntry> refused = session->MeasureCandidate("// FAST PULLREFUSED\n", "refused");
  Result<MeasurementEntry> later = session->MeasureCandidate("// FAST 2\n", "later");
  ASSERT_TRUE(refused.ok() && later.ok());
  EXPECT_EQ(refused->status, MeasureStatus::kOk) << refused->message;
  ASSERT_TRUE(refused->phases.has_value());
  EXPECT_EQ(refused->phases->channel, "pipe");
  EXPECT_EQ(later->status, MeasureStatus::kOk) << later->message;
  ASSERT_TRUE(later->phases.has_value());
  EXPECT_EQ(later->phases->channel, "pipe");
  Result<MeasurementReport> report = session->Finish();
  ASSERT_TRUE(report.ok());
  EXPECT_THAT(testing::PrintToString(report->notes), HasSubstr("outputs sent through the pipe"));
}

TEST_F(MeasureSessionTest, APulledChannelTheChildBrokeIsAProtocolViolation) {
  std::unique_ptr<MeasureSession> session = Open();
  ASSERT_TRUE(session->MeasureReference().ok());
  Result<MeasurementEntry> broken = session->MeasureCandidate("// FAST PULLTORN\n", "broken");
  ASSERT_TRUE(broken.ok());
  EXPECT_EQ(broken->status, MeasureStatus::kFailed);
  EXPECT_EQ(broken->failure, FailureKind::kProtocolViolation);
  EXPECT_THAT(broken->message, HasSubstr("output channel"));
}

TEST_F(MeasureSessionTest, AChildThatLeavesAWritableMappingOfItsOutputsBehindIsRejected) {
  settings_.output_channel = MeasureSettings::OutputChannel::kMemory;
  std::unique_ptr<MeasureSession> session = Open();
  ASSERT_TRUE(session->MeasureReference().ok());
  Result<MeasurementEntry> hostile = session->MeasureCandidate("// FAST KEEPMAP\n", "hostile");
  Result<MeasurementEntry> honest = session->MeasureCandidate("// FAST\n", "honest");
  children_.ReleaseLeftBehind();
  ASSERT_TRUE(hostile.ok() && honest.ok());
  EXPECT_EQ(hostile->status, MeasureStatus::kFailed);
  EXPECT_EQ(hostile->failure, FailureKind::kProtocolViolation);
  EXPECT_THAT(hostile->message, HasSubstr("still holds a writable mapping"));
  EXPECT_EQ(honest->status, MeasureStatus::kOk) << honest->message;
}

TEST_F(MeasureSessionTest, NothingCanChangeACandidatesOutputsAfterTheParentSealedThem) {
  settings_.output_channel = MeasureSettings::OutputChannel::kMemory;
  std::unique_ptr<MeasureSession> session = Open();
  ASSERT_TRUE(session->MeasureReference().ok());
  Result<MeasurementEntry> late = session->MeasureCandidate("// FAST WRITELATE\n", "late");
  ASSERT_TRUE(late.ok());
  EXPECT_EQ(late->status, MeasureStatus::kOk) << "its outputs as they were when sealed: " << late->message;
  EXPECT_EQ(children_.ReleaseLeftBehind(), 1) << "the process left behind could not write after the seal";
}

TEST_F(MeasureSessionTest, OneShotMeasureReportsInTheOrderGivenAndReusesStoredResults) {
  std::vector<CandidateSource> candidates = {{"fast", "", "// FAST\n"}, {"plain", "", "// plain\n"}};
  Result<MeasureTask> task = LoadMeasureTask(ExampleTask("saxpy"));
  ASSERT_TRUE(task.ok());
  Result<MeasurementReport> first = Measure(settings_, environment_, *task, candidates);
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_EQ(first->candidates.size(), 2u);
  EXPECT_EQ(first->candidates[0].name, "fast");
  EXPECT_EQ(first->candidates[1].name, "plain");
  EXPECT_DOUBLE_EQ(first->candidates[1].speedup.value_or(0), 1.0);

  // The GPU is known from the first run only through the runner: with a live
  // GPU the second run reports every candidate from the store.
  environment_.query_gpus = [] {
    GpuSpec gpu = *FindGpu("h200");
    gpu.name = "NVIDIA H200";
    gpu.device_index = 0;
    return Result<std::vector<GpuSpec>>(std::vector<GpuSpec>{gpu});
  };
  Result<MeasurementReport> again = Measure(settings_, environment_, *task, candidates);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->candidates[0].resumed_from_run, first->run_id);
  EXPECT_EQ(again->reference.resumed_from_run, first->run_id);
  EXPECT_FALSE(again->reference_end.has_value()) << "nothing measured now: no drift check";
  EXPECT_EQ(children_.RunnerCallsFor("fast.candidate"), 1u);
}

TEST_F(MeasureSessionTest, TheReferenceCacheServesALaterRunItsSeedsAndExpectedOutputs) {
  environment_.query_gpus = [] {
    GpuSpec gpu = *FindGpu("h200");
    gpu.name = "NVIDIA H200";
    gpu.device_index = 0;
    return Result<std::vector<GpuSpec>>(std::vector<GpuSpec>{gpu});
  };
  settings_.seed.reset();  // random seeds: the second run must take the first run's
  settings_.seeds = 3;
  settings_.rerun = true;  // measure the candidate again each time
  settings_.reference_cache = MeasureSettings::ReferenceCache::kOn;
  Result<MeasureTask> task = LoadMeasureTask(ExampleTask("saxpy"));
  ASSERT_TRUE(task.ok());
  std::vector<CandidateSource> candidates = {{"fast", "", "// FAST\n"}};
  Result<MeasurementReport> first = Measure(settings_, environment_, *task, candidates);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(children_.RunnerCallsFor("reference"), 1u);
  EXPECT_EQ(children_.RunnerCallsFor("reference_end"), 1u);
  EXPECT_TRUE(fs::is_directory(workspace_ / "reference-cache"));

  Result<MeasurementReport> warm = Measure(settings_, environment_, *task, candidates);
  ASSERT_TRUE(warm.ok()) << warm.status().message();
  EXPECT_EQ(children_.RunnerCallsFor("reference"), 1u) << "the reference child did not run again";
  EXPECT_EQ(children_.RunnerCallsFor("reference_end"), 1u) << "a cached reference is not re-timed";
  EXPECT_EQ(children_.RunnerCallsFor("fast.candidate"), 2u);
  EXPECT_EQ(warm->seeds, first->seeds);
  EXPECT_EQ(warm->reference.resumed_from_run, first->run_id);
  ASSERT_EQ(warm->candidates.size(), 1u);
  EXPECT_EQ(warm->candidates[0].status, MeasureStatus::kOk);
  EXPECT_EQ(warm->candidates[0].checks_passed, warm->candidates[0].checks_total);
  EXPECT_EQ(warm->candidates[0].checks_total, first->candidates[0].checks_total);
  EXPECT_GE(warm->candidates[0].checks_total, 3u)
      << "the three check rounds, judged against the cached frames";
  EXPECT_DOUBLE_EQ(warm->candidates[0].speedup.value_or(0), 2.0);
  EXPECT_THAT(testing::PrintToString(warm->notes), HasSubstr("reference cache"));

  // The candidate is judged against the cached frames: one byte changed there fails it.
  fs::path entry = fs::directory_iterator(workspace_ / "reference-cache")->path();
  std::string frames = *ReadWholeFile((entry / "frames.bin").string());
  frames.back() = static_cast<char>(frames.back() ^ 0x55);
  ASSERT_TRUE(WriteFileAtomically((entry / "frames.bin").string(), frames).ok());
  Result<MeasurementReport> tampered = Measure(settings_, environment_, *task, candidates);
  ASSERT_TRUE(tampered.ok()) << tampered.status().message();
  EXPECT_EQ(children_.RunnerCallsFor("reference"), 1u);
  EXPECT_EQ(tampered->candidates[0].status, MeasureStatus::kFailed);

  // Off: the reference runs, with fresh seeds.
  settings_.reference_cache = MeasureSettings::ReferenceCache::kOff;
  Result<MeasurementReport> off = Measure(settings_, environment_, *task, candidates);
  ASSERT_TRUE(off.ok()) << off.status().message();
  EXPECT_EQ(children_.RunnerCallsFor("reference"), 2u);
  EXPECT_NE(off->seeds, first->seeds);
  // Auto: saxpy has no kernelbench.json, so no cache.
  settings_.reference_cache = MeasureSettings::ReferenceCache::kAuto;
  ASSERT_TRUE(Measure(settings_, environment_, *task, candidates).ok());
  EXPECT_EQ(children_.RunnerCallsFor("reference"), 3u);
}

TEST_F(MeasureSessionTest, APyTorchBridgeReferenceIsNotRetimedAtTheEnd) {
  // The saxpy task as if imported from KernelBench: a kernelbench.json beside its task.toml.
  fs::path imported = workspace_.parent_path() / ("kopt_measure_bridge_" + std::to_string(getpid()));
  fs::remove_all(imported);
  fs::copy(ExampleTask("saxpy"), imported, fs::copy_options::recursive);
  ASSERT_TRUE(WriteFileAtomically((imported / "kernelbench.json").string(), "{}\n").ok());
  Result<MeasureTask> task = LoadMeasureTask(imported.string());
  ASSERT_TRUE(task.ok()) << task.status().message();
  Result<MeasurementReport> report = Measure(settings_, environment_, *task, {{"fast", "", "// FAST\n"}});
  fs::remove_all(imported);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(children_.RunnerCallsFor("reference"), 1u);
  EXPECT_EQ(children_.RunnerCallsFor("reference_end"), 0u);
  EXPECT_FALSE(report->reference_end.has_value());
  EXPECT_FALSE(report->reference_drift.has_value());
  EXPECT_THAT(testing::PrintToString(report->notes), HasSubstr("not re-timed at the end"));
  EXPECT_EQ(report->candidates[0].status, MeasureStatus::kOk);
}

TEST_F(MeasureSessionTest, CompileOnlyRunsNothing) {
  settings_.compile_only = true;
  environment_.runner_program.clear();
  Result<MeasureTask> task = LoadMeasureTask(ExampleTask("saxpy"));
  ASSERT_TRUE(task.ok());
  Result<MeasurementReport> report = Measure(settings_, environment_, *task, {{"broken", "", "BROKEN"}});
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->reference.status, MeasureStatus::kCompiled);
  EXPECT_EQ(report->candidates[0].status, MeasureStatus::kFailed);
  EXPECT_TRUE(report->compile_only);
  EXPECT_EQ(children_.CompileCount(), 2u);
  EXPECT_EQ(children_.RunnerCallsFor("reference"), 0u);
}

TEST_F(MeasureSessionTest, APolicyViolationFailsBeforeItRunsAndAnAllowanceLetsItRun) {
  Result<MeasureTask> task = LoadMeasureTask(ExampleTask("saxpy"));
  ASSERT_TRUE(task.ok());
  const std::string threaded =
      "// FAST\n#include <thread>\nvoid helper() {\n  std::thread([] {}).detach();\n}\n";
  Result<MeasurementReport> report =
      Measure(settings_, environment_, *task, {{"threaded", "", threaded}, {"fast", "", "// FAST\n"}});
  ASSERT_TRUE(report.ok()) << report.status().message();
  const MeasurementEntry& screened = report->candidates[0];
  EXPECT_EQ(screened.status, MeasureStatus::kFailed);
  EXPECT_EQ(screened.failure, FailureKind::kPolicyViolation);
  EXPECT_EQ(screened.KindName(), "policy_violation");
  EXPECT_THAT(screened.message, HasSubstr("uses threads (std::thread) at "));
  EXPECT_THAT(screened.message, HasSubstr(".cu:4: "));
  EXPECT_THAT(screened.message, HasSubstr("--allow threads or [policy] allow = [\"threads\"] in task.toml"));
  EXPECT_EQ(children_.RunnerCallsFor("threaded"), 0u);
  EXPECT_EQ(report->candidates[1].status, MeasureStatus::kOk);

  settings_.policy_allow = {PolicyConstruct::kThreads};
  settings_.rerun = true;
  Result<MeasurementReport> allowed = Measure(settings_, environment_, *task, {{"threaded", "", threaded}});
  ASSERT_TRUE(allowed.ok()) << allowed.status().message();
  EXPECT_EQ(allowed->candidates[0].status, MeasureStatus::kOk) << allowed->candidates[0].message;
}

TEST_F(MeasureSessionTest, TheInputScaleChangesTheTasksInitialisersAndTheResumeKey) {
  Result<MeasureTask> task = LoadMeasureTask(ExampleTask("saxpy"));
  ASSERT_TRUE(task.ok());
  Result<MeasurementReport> declared = Measure(settings_, environment_, *task, {{"fast", "", "// FAST\n"}});
  settings_.inputs.scale = -3;
  Result<MeasurementReport> scaled = Measure(settings_, environment_, *task, {{"fast", "", "// FAST\n"}});
  ASSERT_TRUE(declared.ok() && scaled.ok());
  EXPECT_NE(declared->settings_hash, scaled->settings_hash);
  EXPECT_FALSE(scaled->candidates[0].resumed_from_run.has_value());
  settings_.inputs.scale = 0;
  EXPECT_THAT(Measure(settings_, environment_, *task, {}).status().message(), HasSubstr("--input-scale"));
}

TEST_F(MeasureSessionTest, IncludeDirectoriesAndACutlassTreeReachEveryCompile) {
  settings_.compile_only = true;
  environment_.runner_program.clear();
  fs::path tree = fs::canonical(fs::path(KOPT_FIXTURE_DIR) / "source_tree");
  settings_.include_directories = {(tree / "examples").string()};
  settings_.cutlass = (tree / "include").string();  // a CUTLASS include directory names its tree
  Result<MeasureTask> task = LoadMeasureTask(ExampleTask("saxpy"));
  ASSERT_TRUE(task.ok());
  Result<MeasurementReport> report = Measure(settings_, environment_, *task, {{"plain", "", "// plain\n"}});
  ASSERT_TRUE(report.ok()) << report.status().message();
  std::vector<std::string> expected = {"-I" + (tree / "examples").string(),
                                       "-I" + (tree / "include").string(),
                                       "-I" + (tree / "tools/util/include").string()};
  ASSERT_EQ(children_.Compiles().size(), 2u);
  for (const std::vector<std::string>& argv : children_.Compiles()) {
    auto first = std::find(argv.begin(), argv.end(), expected[0]);
    ASSERT_NE(first, argv.end());
    EXPECT_TRUE(std::equal(expected.begin(), expected.end(), first));
  }
  EXPECT_THAT(report->settings["compiler"]["flags"].dump(), HasSubstr("tools/util/include"));

  settings_.include_directories = {(tree / "missing").string()};
  settings_.cutlass.clear();
  Result<MeasurementReport> missing = Measure(settings_, environment_, *task, {});
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("--include-dir"));
  settings_.include_directories.clear();
  settings_.cutlass = (tree / "examples").string();
  EXPECT_EQ(Measure(settings_, environment_, *task, {}).status().kind(), ErrorKind::kNotFound);
}

TEST(ReferenceVerdictTest, AFailedReferenceFailsTheCommand) {
  MeasurementReport report;
  report.reference.status = MeasureStatus::kFailed;
  report.reference.failure = FailureKind::kWrongOutput;
  report.reference.message = "z differs";
  Status status = ReferenceVerdict(report);
  EXPECT_EQ(status.kind(), ErrorKind::kWorkFailed);
  EXPECT_EQ(status.message(), "the reference failed (wrong_output): z differs");
  report.reference.failure = FailureKind::kDeviceUnavailable;
  EXPECT_EQ(ReferenceVerdict(report).kind(), ErrorKind::kUnavailable);
  report.compile_only = true;
  EXPECT_EQ(ReferenceVerdict(report).kind(), ErrorKind::kUnavailable)
      << "compile-only: a failure still fails";
  report.reference.status = MeasureStatus::kCompiled;
  EXPECT_TRUE(ReferenceVerdict(report).ok());
}

TEST_F(MeasureSessionTest, CompileOnlyWithABrokenReferenceExitsOne) {
  settings_.compile_only = true;
  environment_.runner_program.clear();
  Result<MeasureTask> task = LoadMeasureTask(ExampleTask("saxpy"));
  ASSERT_TRUE(task.ok());
  // The reference is compiled from its file: a broken one in place of the task's.
  fs::create_directories(workspace_);
  std::string broken = (workspace_ / "broken_reference.cu").string();
  ASSERT_TRUE(WriteFileAtomically(broken, "BROKEN\n").ok());
  task->spec.reference_path = broken;
  task->spec.reference_source = "BROKEN\n";
  Result<MeasurementReport> report = Measure(settings_, environment_, *task, {{"fine", "", "// fine\n"}});
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->reference.status, MeasureStatus::kFailed);
  Status verdict = ReferenceVerdict(*report);
  EXPECT_EQ(ExitCodeFor(verdict), 1) << verdict.message();
  EXPECT_THAT(verdict.message(), HasSubstr("BROKEN"));
}

TEST_F(MeasureSessionTest, CompileOnlyWithAnUnknownArchitectureExitsTwo) {
  settings_.compile_only = true;
  settings_.arch = "sm_999";
  environment_.runner_program.clear();
  Result<MeasureTask> task = LoadMeasureTask(ExampleTask("saxpy"));
  ASSERT_TRUE(task.ok());
  Result<MeasurementReport> report = Measure(settings_, environment_, *task, {{"fine", "", "// fine\n"}});
  ASSERT_TRUE(report.ok()) << report.status().message();
  Status verdict = ReferenceVerdict(*report);
  EXPECT_EQ(ExitCodeFor(verdict), 2) << verdict.message();
  EXPECT_THAT(verdict.message(), HasSubstr("--arch sm_999"));
  settings_.arch = "90a";
  EXPECT_EQ(ValidateMeasureSettings(settings_).kind(), ErrorKind::kInvalidInput);
}

TEST(MeasureSettingsTest, RangesAreChecked) {
  MeasureSettings settings;
  EXPECT_TRUE(ValidateMeasureSettings(settings).ok());
  settings.max_noise = 1.5;
  EXPECT_THAT(ValidateMeasureSettings(settings).message(), HasSubstr("--max-noise"));
}

TEST(LoadMeasureTaskTest, AMissingDirectoryIsNotFound) {
  Result<MeasureTask> task = LoadMeasureTask("/nonexistent/kopt-task");
  EXPECT_EQ(task.status().kind(), ErrorKind::kNotFound);
}

}  // namespace
}  // namespace kopt
