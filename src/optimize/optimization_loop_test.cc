// The loop end to end on the CPU: the real MeasureSession and command runner
// with the golden tests' stand-ins for nvcc and kopt-runner
// (tests/golden/fake_tools/bench/: a candidate's "// FAKE_RUNNER: <behaviour>"
// line says how its child behaves, e.g. timed_40 = verified at 40 µs), the
// scripted generator, a fake profiler and a fake clock.
#include "optimize/optimization_loop.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "agents/llm_generator.h"
#include "agents/prompt_template.h"
#include "agents/scripted_generator.h"
#include "analysis/tool_test_support.h"
#include "core/file_io.h"
#include "core/sha256.h"
#include "core/subprocess.h"
#include "llm/client_factory.h"
#include "llm/local_llm_server_test_util.h"
#include "search/run_state_store.h"
#include "store/search_memory.h"
#include "store/workspace.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string RepositoryPath(const std::string& relative) {
  return (fs::path(KOPT_FIXTURE_DIR) / "../.." / relative).lexically_normal().string();
}

std::string Candidate(const std::string& behaviour) {
  // The behaviour is also in the code: transpositions ignore comments.
  return "// FAKE_RUNNER: " + behaviour + "\nstatic const char kBehaviour[] = \"" + behaviour +
         "\";\n#include <cuda_runtime.h>\n__global__ void k() {}\n"
         "extern \"C\" void saxpy(const float* x, const float* y, float* z, int n, float a, cudaStream_t s) "
         "{}\n";
}

// A generator whose answers are given in the test, one per call, by mode.
class ListGenerator : public agents::CandidateGenerator {
 public:
  explicit ListGenerator(std::vector<std::string> behaviours) : behaviours_(std::move(behaviours)) {}
  agents::GeneratorKind kind() const override { return agents::GeneratorKind::kScripted; }
  Result<agents::GeneratedCandidate> Generate(const agents::GenerationRequest& request) override {
    requests.push_back(request);
    agents::GeneratedCandidate candidate;
    if (next_ >= behaviours_.size()) {
      candidate.outcome = agents::GenerationOutcome::kExhausted;
      candidate.message = "no more";
      return candidate;
    }
    std::string behaviour = behaviours_[next_];
    candidate.answer_id = std::to_string(next_++);
    if (behaviour == "unavailable") return Unavailable("http://127.0.0.1:9/v1: connection refused");
    if (behaviour == "no_code") {
      candidate.outcome = agents::GenerationOutcome::kNoCode;
      candidate.message = "the answer has no code block";
      return candidate;
    }
    candidate.outcome = agents::GenerationOutcome::kSource;
    candidate.source = Candidate(behaviour) + "static int answer_" + candidate.answer_id + ";\n";
    if (behaviour.rfind("same:", 0) == 0) candidate.source = Candidate(behaviour.substr(5));
    candidate.reason = "test answer " + candidate.answer_id + " (" + behaviour + ")";
    return candidate;
  }
  void MarkServed(const std::string& answer_id) override {
    next_ = std::max(next_, std::stoul(answer_id) + 1);
  }

  std::vector<agents::GenerationRequest> requests;

 private:
  std::vector<std::string> behaviours_;
  size_t next_ = 0;
};

// The system runner, with the workspace copied before and after every child:
// each copy is the workspace as a kill -9 at that instant would leave it
// (during a compile, during a measurement, after either finished but before
// the loop recorded it).
class CrashImageRunner : public CommandRunner {
 public:
  CrashImageRunner(std::unique_ptr<CommandRunner> inner, std::string workspace)
      : inner_(std::move(inner)), workspace_(std::move(workspace)) {}
  Result<CommandResult> Run(const CommandSpec& spec) override {
    Copy();
    Result<CommandResult> result = inner_->Run(spec);
    Copy();
    return result;
  }
  std::string FindProgram(const std::string& program) override { return inner_->FindProgram(program); }
  std::vector<std::string> images;

 private:
  void Copy() {
    if (!fs::exists(workspace_)) return;
    std::string image = workspace_ + ".crash" + std::to_string(images.size());
    fs::remove_all(image);
    fs::copy(workspace_, image, fs::copy_options::recursive);
    images.push_back(image);
  }
  std::unique_ptr<CommandRunner> inner_;
  std::string workspace_;
};

class OptimizationLoopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    workspace_ =
        (fs::temp_directory_path() / ("kopt_loop_test_" + std::to_string(::getpid()) + "_" +
                                      ::testing::UnitTest::GetInstance()->current_test_info()->name()))
            .string();
    fs::remove_all(workspace_);
    log_ = workspace_ + ".log";
    fs::remove(log_);
    ::setenv("KOPT_NVCC", RepositoryPath("tests/golden/fake_tools/bench/nvcc").c_str(), 1);
    ::setenv("FAKE_RUNNER_LOG", log_.c_str(), 1);
    runner_ = MakeSystemCommandRunner();
    environment_.measure.command_runner = runner_.get();
    environment_.measure.runner_program = RepositoryPath("tests/golden/fake_tools/bench/kopt-runner");
    environment_.now_seconds = [this] { return clock_ += 1.0; };
    settings_.task_directory = RepositoryPath("tests/golden/inputs/bench_task");
    settings_.measure.workspace = workspace_;
    settings_.measure.arch = "sm_90a";
    settings_.measure.seeds = 2;
    settings_.measure.timeout_seconds = 5;
    settings_.seed = 7;
    settings_.profile = false;
    settings_.search = SearchPolicyKind::kGreedy;
  }
  void TearDown() override {
    ::unsetenv("FAKE_RUNNER_LOG");
    ::unsetenv("KOPT_NVCC");  // later tests (RealNvccTest) look nvcc up through it
    fs::remove_all(workspace_);
    fs::remove(log_);
  }
  int ChildrenRun(const std::string& behaviour) {
    std::ifstream in(log_);
    int count = 0;
    for (std::string line; std::getline(in, line);) count += line == behaviour;
    return count;
  }
  Result<RunState> Run(agents::CandidateGenerator& generator) {
    environment_.generator = &generator;
    return RunOptimization(settings_, environment_);
  }

  std::string workspace_;
  std::string log_;
  double clock_ = 0;
  std::unique_ptr<CommandRunner> runner_;
  OptimizeEnvironment environment_;
  OptimizeSettings settings_;
};

TEST_F(OptimizationLoopTest, FindsTheFastestCandidateAndWritesBestCu) {
  ListGenerator generator({"timed_80", "timed_40", "timed_60", "timed_30"});
  settings_.budget.max_evaluations = 4;
  Result<RunState> state = Run(generator);
  ASSERT_TRUE(state.ok()) << state.status().message();
  EXPECT_EQ(state->status, RunStatus::kFinished);
  EXPECT_THAT(state->stop_reason, HasSubstr("max_evaluations"));
  EXPECT_EQ(state->usage.evaluations, 4);
  EXPECT_DOUBLE_EQ(state->reference_time_s, 100e-6);
  std::optional<NodeId> best = state->tree.BestNode();
  ASSERT_TRUE(best.has_value());
  EXPECT_DOUBLE_EQ(state->tree.node(*best).time_s, 30e-6);
  Result<std::string> best_source =
      ReadWholeFile(workspace_ + "/runs/" + std::to_string(state->run_id) + "/best.cu");
  ASSERT_TRUE(best_source.ok());
  EXPECT_THAT(*best_source, HasSubstr("timed_30"));
  // Greedy: the first child is an initial candidate; later ones optimize the best so far.
  ASSERT_EQ(generator.requests.size(), 4u);
  EXPECT_EQ(generator.requests[0].mode, GenerationMode::kInitial);
  EXPECT_EQ(generator.requests[1].mode, GenerationMode::kOptimize);
  EXPECT_EQ(generator.requests[1].parent_id, 1);
  ASSERT_TRUE(generator.requests[1].parent_time_seconds.has_value());
  EXPECT_DOUBLE_EQ(*generator.requests[1].parent_time_seconds, 80e-6);
}

// The system runner, recording which candidate each nvcc run compiled (the last quoted
// #include of the wrapper it was given).
class NvccRecordingRunner : public CommandRunner {
 public:
  explicit NvccRecordingRunner(std::unique_ptr<CommandRunner> inner) : inner_(std::move(inner)) {}
  Result<CommandResult> Run(const CommandSpec& spec) override {
    if (!spec.argv.empty() && fs::path(spec.argv[0]).filename() == "nvcc") {
      for (const std::string& argument : spec.argv) {
        if (!argument.ends_with(".cu")) continue;
        std::ifstream wrapper(argument);
        std::string included;
        for (std::string line; std::getline(wrapper, line);) {
          if (line.starts_with("#include \"")) included = line;
        }
        std::lock_guard lock(mutex_);
        compiled.push_back(included);
      }
    }
    return inner_->Run(spec);
  }
  std::string FindProgram(const std::string& program) override { return inner_->FindProgram(program); }
  std::vector<std::string> Compiled() {
    std::lock_guard lock(mutex_);
    return compiled;
  }
  std::vector<std::string> compiled;

 private:
  std::mutex mutex_;
  std::unique_ptr<CommandRunner> inner_;
};

// A generator that names its next answer as one to compile ahead, then serves it.
class AheadGenerator : public agents::CandidateGenerator {
 public:
  agents::GeneratorKind kind() const override { return agents::GeneratorKind::kBuiltin; }
  Result<agents::GeneratedCandidate> Generate(const agents::GenerationRequest&) override {
    agents::GeneratedCandidate candidate;
    candidate.outcome = agents::GenerationOutcome::kSource;
    candidate.answer_id = std::to_string(served_);
    if (served_++ == 0) {
      candidate.source = Candidate("timed_80");
      candidate.compile_ahead = {next_source};
    } else {
      candidate.source = next_source;
      // What nvcc had compiled of it by the time it is served (its file name is its hash).
      std::string hash = Sha256Hex(next_source);
      for (int wait = 0; wait < 200 && CompiledCount(hash) == 0; ++wait) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      compiled_before_served = CompiledCount(hash);
    }
    return candidate;
  }
  size_t CompiledCount(const std::string& hash) const {
    size_t count = 0;
    for (const std::string& compiled : runner->Compiled()) count += compiled.find(hash) != std::string::npos;
    return count;
  }
  NvccRecordingRunner* runner = nullptr;
  size_t compiled_before_served = 0;
  const std::string next_source = Candidate("timed_40") + "static int compiled_ahead;\n";

 private:
  int served_ = 0;
};

// The loop compiles what the generator expects to serve next while it measures the current
// candidate: when that source's turn comes, its compile is a cache hit.
TEST_F(OptimizationLoopTest, WhatTheGeneratorNamesIsCompiledAheadIntoTheCache) {
  AheadGenerator generator;
  auto recording = std::make_unique<NvccRecordingRunner>(std::move(runner_));
  NvccRecordingRunner* runner = recording.get();
  generator.runner = runner;
  runner_ = std::move(recording);
  environment_.measure.command_runner = runner_.get();
  settings_.budget.max_evaluations = 2;
  settings_.measure.jobs = 3;  // two threads for guesses, one kept for real candidates
  Result<RunState> state = Run(generator);
  ASSERT_TRUE(state.ok()) << state.status().message();
  ASSERT_EQ(state->usage.evaluations, 2);
  EXPECT_EQ(state->tree.node(2).status, NodeStatus::kVerified);
  std::string hash = state->record(2).source_hash;
  ASSERT_FALSE(hash.empty());
  // nvcc ran once for node 2's source (ahead of its turn); its own compile was a cache hit.
  size_t runs = 0;
  for (const std::string& compiled : runner->compiled) runs += compiled.find(hash) != std::string::npos;
  EXPECT_EQ(runs, 1u) << "node 2 was compiled ahead, not when served";
  EXPECT_EQ(generator.compiled_before_served, 1u) << "compiled while node 1 was measured";
}

TEST_F(OptimizationLoopTest, NoGpuFailsBeforeTheWorkspaceIsCreated) {
  ListGenerator generator({"timed_80"});
  settings_.measure.arch.clear();
  environment_.measure.query_gpus = []() -> Result<std::vector<GpuSpec>> {
    return Unavailable("no NVIDIA driver");
  };
  Result<RunState> state = Run(generator);
  EXPECT_EQ(state.status().kind(), ErrorKind::kUnavailable);
  EXPECT_THAT(state.status().message(), HasSubstr("no NVIDIA GPU found"));
  EXPECT_FALSE(fs::exists(workspace_));
}

TEST_F(OptimizationLoopTest, FailuresBecomeRepairsWithTheFailureText) {
  ListGenerator generator({"compile_error", "timed_50", "wrong_output", "timed_45"});
  settings_.budget.max_evaluations = 4;
  Result<RunState> state = Run(generator);
  ASSERT_TRUE(state.ok()) << state.status().message();
  EXPECT_EQ(state->tree.node(1).status, NodeStatus::kFailedCompile);
  ASSERT_GE(generator.requests.size(), 2u);
  EXPECT_EQ(generator.requests[1].mode, GenerationMode::kRepair);
  ASSERT_TRUE(generator.requests[1].compiler_output.has_value());
  EXPECT_THAT(*generator.requests[1].compiler_output, HasSubstr("undefined_thing"));
  EXPECT_EQ(state->tree.node(2).status, NodeStatus::kVerified);
  // The fix is remembered for the next run of the task.
  Result<std::unique_ptr<SearchMemory>> memory = SearchMemory::Open(workspace_ + "/kopt.db");
  ASSERT_TRUE(memory.ok());
  Result<std::vector<MemoryNote>> notes = (*memory)->Notes("tiny_saxpy", "", 4000);
  ASSERT_TRUE(notes.ok());
  bool fix_noted = false;
  for (const MemoryNote& note : *notes)
    fix_noted = fix_noted || note.kind == MemoryNoteKind::kCompileErrorFix;
  EXPECT_TRUE(fix_noted);
}

// An LLM-like generator: a plain first answer, then one whose prose names its change, whose
// source adds float4 and CuTe, and whose generation looked the CuTe tree up.
class AnnotatedGenerator : public agents::CandidateGenerator {
 public:
  agents::GeneratorKind kind() const override { return agents::GeneratorKind::kLlm; }
  Result<agents::GeneratedCandidate> Generate(const agents::GenerationRequest& request) override {
    requests.push_back(request);
    agents::GeneratedCandidate candidate;
    candidate.answer_id = std::to_string(served_);
    candidate.reason = "llm answer " + candidate.answer_id;
    if (served_ == 0) {
      candidate.outcome = agents::GenerationOutcome::kSource;
      candidate.source = Candidate("timed_80");
    } else if (served_ == 1) {
      candidate.outcome = agents::GenerationOutcome::kSource;
      candidate.source = Candidate("timed_40") +
                         "__device__ float4 load(const float4* p) { return p[0]; }\n" +
                         "static auto layout = cute::make_layout(4);\n";
      candidate.response_text =
          "Vectorized the loads with float4. It halves the load count.\n\n```cuda\n...\n```";
      candidate.source_lookups = {"search_source \"make_layout\"", "read_source include/cute/layout.hpp"};
    } else {
      candidate.outcome = agents::GenerationOutcome::kExhausted;
      candidate.message = "no more";
    }
    ++served_;
    return candidate;
  }
  std::vector<agents::GenerationRequest> requests;

 private:
  size_t served_ = 0;
};

// A note says what changed (the answer's own sentence and the diff) and what it did; a verified
// candidate found through the CuTe tree leaves an api_pattern note that every task is offered.
TEST_F(OptimizationLoopTest, MemoryNotesSayWhatChangedAndRememberApiPatterns) {
  AnnotatedGenerator generator;
  settings_.budget.max_evaluations = 2;
  Result<RunState> state = Run(generator);
  ASSERT_TRUE(state.ok()) << state.status().message();
  ASSERT_EQ(state->tree.node(2).status, NodeStatus::kVerified);
  EXPECT_EQ(state->record(2).stated_change, "Vectorized the loads with float4.");
  Result<std::unique_ptr<SearchMemory>> memory = SearchMemory::Open(workspace_ + "/kopt.db");
  ASSERT_TRUE(memory.ok());
  Result<std::vector<MemoryNote>> notes = (*memory)->AllNotes();
  ASSERT_TRUE(notes.ok());
  std::string helped, pattern;
  for (const MemoryNote& note : *notes) {
    if (note.kind == MemoryNoteKind::kHelped && note.text.find("float4") != std::string::npos)
      helped = note.text;
    if (note.kind == MemoryNoteKind::kApiPattern) pattern = note.text;
  }
  EXPECT_THAT(helped, HasSubstr("Vectorized the loads with float4. [+4 -2 lines; new: __device__, float4, "
                                "cute::make_layout]: 2.00x vs its parent"));
  EXPECT_THAT(pattern, HasSubstr("cute::make_layout compiled and verified on tiny_saxpy; found by "
                                 "search_source \"make_layout\"; read_source include/cute/layout.hpp"));
  // Another task is offered the pattern.
  Result<std::vector<MemoryNote>> other = (*memory)->Notes("another_task", "", 4000);
  ASSERT_TRUE(other.ok());
  bool offered = false;
  for (const MemoryNote& note : *other) offered = offered || note.kind == MemoryNoteKind::kApiPattern;
  EXPECT_TRUE(offered);
}

TEST_F(OptimizationLoopTest, AResultBelowTheRooflineFloorIsRejectedNeverBest) {
  ListGenerator generator({"too_fast", "timed_90"});
  settings_.budget.max_evaluations = 2;
  Result<RunState> state = Run(generator);
  ASSERT_TRUE(state.ok()) << state.status().message();
  EXPECT_EQ(state->tree.node(1).status, NodeStatus::kRejected);
  EXPECT_TRUE(state->record(1).suspect);
  std::optional<NodeId> best = state->tree.BestNode();
  ASSERT_TRUE(best.has_value());
  EXPECT_NE(*best, 1);
  ASSERT_GE(generator.requests.size(), 2u);
  EXPECT_EQ(generator.requests[1].mode, GenerationMode::kRepair);
  ASSERT_TRUE(generator.requests[1].correctness_failure.has_value());
  EXPECT_EQ(generator.requests[1].correctness_failure->kind, "suspect_fast");
}

TEST_F(OptimizationLoopTest, TheSameSourceTwiceIsMeasuredOnce) {
  ListGenerator generator({"same:timed_70", "same:timed_70", "timed_65"});
  settings_.budget.max_evaluations = 3;
  Result<RunState> state = Run(generator);
  ASSERT_TRUE(state.ok()) << state.status().message();
  EXPECT_EQ(state->tree.node(2).status, NodeStatus::kDuplicate);
  EXPECT_EQ(ChildrenRun("timed_70"), 1);
}

TEST_F(OptimizationLoopTest, ResumeContinuesTheSameTreeWithoutMeasuringAgain) {
  ListGenerator first({"timed_80", "timed_40", "timed_60", "timed_30"});
  settings_.budget.max_evaluations = 2;
  Result<RunState> stopped = Run(first);
  ASSERT_TRUE(stopped.ok()) << stopped.status().message();
  EXPECT_EQ(stopped->tree.size(), 3);
  ListGenerator second({"timed_80", "timed_40", "timed_60", "timed_30"});
  settings_.resume_run = stopped->run_id;
  settings_.budget.max_evaluations = 4;
  Result<RunState> resumed = Run(second);
  ASSERT_TRUE(resumed.ok()) << resumed.status().message();
  EXPECT_EQ(resumed->run_id, stopped->run_id);
  EXPECT_EQ(resumed->usage.evaluations, 4);
  EXPECT_EQ(resumed->tree.size(), 5);
  EXPECT_EQ(second.requests.size(), 2u) << "the first two answers were served before the stop";
  EXPECT_EQ(ChildrenRun("timed_80"), 1);
  EXPECT_EQ(ChildrenRun("timed_30"), 1);
}

TEST_F(OptimizationLoopTest, AKillAtEveryChildResumesToTheSameTreeWithNothingCountedTwice) {
  const std::vector<std::string> answers = {"timed_80", "compile_error", "timed_40", "timed_60"};
  settings_.budget.max_evaluations = 4;
  auto crashing = std::make_unique<CrashImageRunner>(MakeSystemCommandRunner(), workspace_);
  CrashImageRunner* images = crashing.get();
  runner_ = std::move(crashing);
  environment_.measure.command_runner = runner_.get();
  ListGenerator whole_generator(answers);
  Result<RunState> whole = Run(whole_generator);
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  std::vector<std::string> crash_images = std::move(images->images);
  ASSERT_GE(crash_images.size(), 8u);
  runner_ = MakeSystemCommandRunner();
  environment_.measure.command_runner = runner_.get();
  settings_.resume_run = whole->run_id;
  for (const std::string& image : crash_images) {
    fs::remove_all(workspace_);
    fs::copy(image, workspace_, fs::copy_options::recursive);
    fs::remove_all(image);
    if (!fs::exists(workspace_ + "/" + RunStatePath(whole->run_id))) continue;  // before the first save
    ListGenerator generator(answers);
    Result<RunState> resumed = Run(generator);
    ASSERT_TRUE(resumed.ok()) << image << ": " << resumed.status().message();
    EXPECT_EQ(resumed->usage.evaluations, 4) << image;
    ASSERT_EQ(resumed->tree.size(), whole->tree.size()) << image;
    for (NodeId node = 0; node < whole->tree.size(); ++node) {
      EXPECT_EQ(resumed->tree.node(node).status, whole->tree.node(node).status) << image << " n" << node;
      EXPECT_EQ(resumed->tree.node(node).time_s, whole->tree.node(node).time_s) << image << " n" << node;
      EXPECT_EQ(resumed->tree.node(node).visits, whole->tree.node(node).visits) << image << " n" << node;
    }
    // What the files say equals what the run returned.
    Result<RunState> stored = LoadRunState(workspace_, whole->run_id);
    ASSERT_TRUE(stored.ok()) << stored.status().message();
    EXPECT_EQ(RunStateToJson(*stored).dump(), RunStateToJson(*resumed).dump()) << image;
  }
}

TEST_F(OptimizationLoopTest, AnUnavailableEndpointPausesAndTheRunResumes) {
  ListGenerator first({"timed_80", "unavailable"});
  settings_.budget.max_evaluations = 3;
  Result<RunState> paused = Run(first);
  ASSERT_TRUE(paused.ok()) << paused.status().message();
  EXPECT_EQ(paused->status, RunStatus::kPaused);
  EXPECT_THAT(paused->stop_reason, HasSubstr("--resume " + std::to_string(paused->run_id)));
  EXPECT_EQ(paused->tree.pending_count(), 1);
  ListGenerator second({"timed_80", "skipped", "timed_50", "timed_45"});
  second.MarkServed("1");
  settings_.resume_run = paused->run_id;
  Result<RunState> resumed = Run(second);
  ASSERT_TRUE(resumed.ok()) << resumed.status().message();
  EXPECT_EQ(resumed->status, RunStatus::kFinished);
  EXPECT_EQ(resumed->tree.pending_count(), 0);
  EXPECT_EQ(resumed->usage.evaluations, 3);
  EXPECT_EQ(resumed->tree.node(2).status, NodeStatus::kVerified);
}

TEST_F(OptimizationLoopTest, AGeneratorThatNeverWritesCodeEndsTheRunCleanly) {
  std::vector<std::string> answers(50, "no_code");
  ListGenerator generator(answers);
  settings_.budget.max_evaluations = 60;
  settings_.search = SearchPolicyKind::kMcts;
  Result<RunState> state = Run(generator);
  ASSERT_TRUE(state.ok()) << state.status().message();
  EXPECT_EQ(state->status, RunStatus::kFinished);
  for (const SearchNode& node : state->tree.nodes()) {
    if (node.parent) EXPECT_EQ(node.status, NodeStatus::kFailedGenerate);
  }
  EXPECT_EQ(state->tree.BestNode(), std::optional<NodeId>(0));
}

TEST_F(OptimizationLoopTest, TwoDevicesEvaluateConcurrentlyAndNothingIsLostOrRepeated) {
  std::vector<std::string> answers;
  for (int index = 0; index < 8; ++index) answers.push_back("timed_" + std::to_string(90 - 5 * index));
  ListGenerator generator(answers);
  settings_.devices = {0, 1};
  settings_.search = SearchPolicyKind::kRandom;
  settings_.budget.max_evaluations = 8;
  Result<RunState> state = Run(generator);
  ASSERT_TRUE(state.ok()) << state.status().message();
  EXPECT_EQ(state->usage.evaluations, 8);
  EXPECT_EQ(state->tree.pending_count(), 0);
  std::set<int> devices;
  std::set<std::string> hashes;
  for (const NodeRecord& record : state->records) {
    if (record.id == 0) continue;
    devices.insert(record.device);
    EXPECT_TRUE(hashes.insert(record.source_hash).second) << "n" << record.id << " measured twice";
  }
  EXPECT_TRUE(devices.count(0) || devices.count(1));
  for (int device : devices) EXPECT_TRUE(device == 0 || device == 1) << device;
  int measured = 0;
  for (int index = 0; index < 8; ++index) measured += ChildrenRun("timed_" + std::to_string(90 - 5 * index));
  EXPECT_EQ(measured, 8) << "every answer measured exactly once";
}

// The matched-speed A/B in miniature: two candidates at the same 40 µs (inside
// the fake's 1.25 % timing noise), the second using less dynamic energy per
// launch, and a third that is slower with the least energy.
const std::vector<std::string> kEqualSpeedAnswers = {"energy_40_900", "energy_40_700", "energy_60_100"};

TEST_F(OptimizationLoopTest, TimeEnergyPicksTheLowerEnergyAmongEqualTimes) {
  ListGenerator generator(kEqualSpeedAnswers);
  settings_.budget.max_evaluations = 3;
  settings_.objective =
      Objective::kTimeEnergy;  // turns energy on by itself (measure.energy stays false here)
  Result<RunState> state = Run(generator);
  ASSERT_TRUE(state.ok()) << state.status().message();
  ASSERT_TRUE(state->tree.node(1).energy_j.has_value()) << "time+energy measures energy";
  EXPECT_NEAR(*state->tree.node(1).energy_j, 900e-6, 1e-12);
  EXPECT_NEAR(*state->tree.node(2).energy_j, 700e-6, 1e-12);
  EXPECT_EQ(state->tree.BestNode(), std::optional<NodeId>(2));
  std::optional<SearchTree::BestChoice> choice = state->tree.ExplainBest();
  ASSERT_TRUE(choice.has_value());
  EXPECT_EQ(choice->runner_up, std::optional<NodeId>(1));
  EXPECT_EQ(choice->comparison.rule, CompareRule::kMeasuredEnergy);
  EXPECT_EQ(generator.requests.back().objective, Objective::kTimeEnergy);
  Result<std::string> best_source =
      ReadWholeFile(workspace_ + "/runs/" + std::to_string(state->run_id) + "/best.cu");
  ASSERT_TRUE(best_source.ok());
  EXPECT_THAT(*best_source, HasSubstr("energy_40_700"));
  EXPECT_EQ(state->settings["energy"], true);
}

TEST_F(OptimizationLoopTest, TimeAloneDoesNotPreferTheLowerEnergy) {
  ListGenerator generator(kEqualSpeedAnswers);
  settings_.budget.max_evaluations = 3;
  settings_.objective = Objective::kTime;
  settings_.measure.energy = true;  // measured and shown, never ranked
  Result<RunState> state = Run(generator);
  ASSERT_TRUE(state.ok()) << state.status().message();
  ASSERT_TRUE(state->tree.node(2).energy_j.has_value());
  EXPECT_EQ(state->tree.BestNode(), std::optional<NodeId>(1)) << "a tie in time: the first stays best";
  EXPECT_EQ(state->tree.ExplainBest()->comparison.rule, CompareRule::kTimeObjective);
}

TEST_F(OptimizationLoopTest, WithoutNvmlTimeEnergyKeepsTheTimesAndSaysWhy) {
  // The fake runner reports energy unavailable (no NVML) for timed_* candidates.
  ListGenerator generator({"timed_40", "timed_35"});
  settings_.budget.max_evaluations = 2;
  settings_.objective = Objective::kTimeEnergy;
  Result<RunState> state = Run(generator);
  ASSERT_TRUE(state.ok()) << state.status().message();
  EXPECT_EQ(state->status, RunStatus::kFinished);
  EXPECT_EQ(state->tree.node(2).status, NodeStatus::kVerified);
  EXPECT_DOUBLE_EQ(state->tree.node(2).time_s, 35e-6);
  EXPECT_EQ(state->tree.BestNode(), std::optional<NodeId>(2));
  EXPECT_FALSE(state->tree.node(2).energy_j.has_value());
  EXPECT_THAT(state->record(2).energy_note, HasSubstr("NVML unavailable"));
  std::string notes;
  for (const std::string& note : state->notes) notes += note + "\n";
  EXPECT_THAT(notes, HasSubstr("without a measured energy (the reference, n1, n2): NVML unavailable"));
  EXPECT_THAT(notes, HasSubstr("times are kept"));
}

// A profiler returning an H200 fixture: the first answer profiles as a DRAM copy
// (much DRAM traffic), every other one as an FMA loop (almost none).
class FixtureProfiler : public CandidateProfiler {
 public:
  Result<Profile> ProfileCandidate(const CandidateProfileRequest& request,
                                   std::vector<std::string>&) override {
    bool dram = request.source.find("answer_0;") != std::string::npos;
    return LoadFixture(dram ? "healthy_dram_copy" : "healthy_fp32_fma", kRawPageOnly);
  }
};

// Proxy-model coefficients for the fixtures' GPU: DRAM bytes only, so the
// prediction ranks by DRAM traffic.
std::string WriteDramOnlyCoefficients(const std::string& directory) {
  fs::create_directories(directory);
  std::string path = directory + "/nvidia-h200.energy.toml";
  std::ofstream(path) << "format = \"kopt.energy_model\"\nversion = 1\ngpu = \"NVIDIA H200\"\n"
                         "measured_at = \"2026-12-01T00:00:00Z\"\ntool = \"test\"\n\n"
                         "[fit]\nkernels = 2\nmape_percent = 0\n\n"
                         "[[coefficient]]\nterm = \"dram_bytes\"\njoules_per_unit = 1e-10\n"
                         "source = \"test: DRAM only\"\n";
  return path;
}

TEST_F(OptimizationLoopTest, WithoutMeasuredEnergyTheProxyRanksEqualTimesAgainstPredictionsOnly) {
  // No NVML (the fake runner's timed_* behaviours): both candidates at 40 µs,
  // no measured energy; under time+energy both are profiled and predicted.
  environment_.make_profiler = [](const std::string&) -> Result<std::unique_ptr<CandidateProfiler>> {
    return std::unique_ptr<CandidateProfiler>(std::make_unique<FixtureProfiler>());
  };
  settings_.profile = true;
  settings_.energy_model_path = WriteDramOnlyCoefficients(workspace_ + "_model");
  settings_.objective = Objective::kTimeEnergy;
  settings_.budget.max_evaluations = 2;
  ListGenerator generator({"timed_40", "timed_40"});
  Result<RunState> state = Run(generator);
  fs::remove_all(workspace_ + "_model");
  ASSERT_TRUE(state.ok()) << state.status().message();
  ASSERT_TRUE(state->tree.node(1).predicted_energy_j.has_value());
  ASSERT_TRUE(state->tree.node(2).predicted_energy_j.has_value());
  EXPECT_GT(*state->tree.node(1).predicted_energy_j, *state->tree.node(2).predicted_energy_j);
  EXPECT_FALSE(state->tree.node(1).energy_j.has_value());
  EXPECT_EQ(state->tree.BestNode(), std::optional<NodeId>(2)) << "the lower prediction wins the tie";
  EXPECT_EQ(state->tree.ExplainBest()->comparison.rule, CompareRule::kPredictedEnergy);
  EXPECT_THAT(state->record(2).energy_model, HasSubstr("nvidia-h200.energy.toml"));
  // The same run under time alone: a tie in time, the first stays best.
  settings_.objective = Objective::kTime;
  ListGenerator again({"timed_40", "timed_40"});
  Result<RunState> time_only = Run(again);
  ASSERT_TRUE(time_only.ok()) << time_only.status().message();
  EXPECT_EQ(time_only->tree.BestNode(), std::optional<NodeId>(1));
}

// An OpenAI-compatible client of `server`, priced at 2 / 8 USD per million tokens.
std::unique_ptr<llm::ChatClient> PricedClient(const llm::testing::LocalLlmServer& server) {
  llm::LlmConfig config;
  config.base_url = server.BaseUrl() + "/v1";
  config.model = "test-model";
  config.api_key = "sk-test";
  config.max_retries = 0;
  config.prices["test-model"] = llm::ModelPrice{2.0, 8.0};
  Result<std::unique_ptr<llm::ChatClient>> client = llm::MakeChatClient(config, llm::ClientDependencies{});
  EXPECT_TRUE(client.ok()) << client.status().message();
  return client.ok() ? std::move(client).value() : nullptr;
}

llm::testing::ScriptedResponse Answer(const std::string& content, int input_tokens, int output_tokens) {
  return {200, llm::testing::OpenAiTextBody(content, "test-model", input_tokens, output_tokens)};
}

// --feedback explanation over real HTTP: the explainer's narrative of node 1's
// profile reaches the LLM programmer's optimize request for node 2, and its
// tokens and dollars count in the run's usage.
TEST_F(OptimizationLoopTest, TheExplanationOfTheParentsProfileReachesTheProgrammer) {
  const char* kCompletions = "/v1/chat/completions";
  const std::string kNarrative =
      "## What limits it\nThe FMA pipe issues every cycle; memory is idle. Unroll less, fuse nothing.";
  llm::testing::LocalLlmServer programmer_server, explainer_server;
  for (const char* behaviour : {"timed_40", "timed_30"}) {
    programmer_server.Enqueue(kCompletions, Answer("```cuda\n" + Candidate(behaviour) + "```\n", 1000, 300));
  }
  explainer_server.Enqueue(kCompletions, Answer(kNarrative, 4000, 500));
  std::unique_ptr<llm::ChatClient> programmer_client = PricedClient(programmer_server);
  std::unique_ptr<llm::ChatClient> explainer_client = PricedClient(explainer_server);
  ASSERT_TRUE(programmer_client && explainer_client);
  Result<std::string> prompts = agents::FindPromptDirectory();
  ASSERT_TRUE(prompts.ok()) << prompts.status().message();
  agents::ProgrammerTask task;
  task.name = task.entry_point = "saxpy";
  task.entry_signature =
      "extern \"C\" void saxpy(const float* x, const float* y, float* z, int n, float a, cudaStream_t s);";
  task.task_toml = "[task]\nname = \"saxpy\"\n";
  task.reference_source = "// reference\n";
  task.architecture = "sm_90a";
  agents::LlmGenerator generator(*programmer_client, *prompts, task);

  environment_.make_profiler = [](const std::string&) -> Result<std::unique_ptr<CandidateProfiler>> {
    return std::unique_ptr<CandidateProfiler>(std::make_unique<FixtureProfiler>());
  };
  agents::ExplanationOptions options;
  options.prompt_directory = *prompts;
  environment_.explain_profile = [&](const Profile& profile, const Diagnosis& diagnosis,
                                     const agents::ExplainedSource& source) {
    return agents::ExplainForProgrammer(*explainer_client, options, profile, diagnosis, source);
  };
  environment_.render_feedback = [](const Diagnosis&) { return std::string("FINDINGS of the test"); };
  settings_.profile = true;
  settings_.feedback = FeedbackMode::kDiagnosisExplanation;
  settings_.budget.max_evaluations = 2;
  Result<RunState> state = Run(generator);
  ASSERT_TRUE(state.ok()) << state.status().message();

  std::vector<llm::testing::ReceivedRequest> explained = explainer_server.Requests();
  ASSERT_EQ(explained.size(), 1u) << "one narrative: node 1, the only optimize parent";
  EXPECT_THAT(explained[0].body, HasSubstr("kopt evidence digest"));
  std::vector<llm::testing::ReceivedRequest> programmed = programmer_server.Requests();
  ASSERT_EQ(programmed.size(), 2u);
  nlohmann::json optimize_request = nlohmann::json::parse(programmed[1].body);
  std::string prompt = optimize_request["messages"].back()["content"];
  EXPECT_THAT(prompt, HasSubstr("The FMA pipe issues every cycle; memory is idle."));
  EXPECT_THAT(prompt, HasSubstr("EXPLANATION"));
  EXPECT_THAT(prompt, HasSubstr("FINDINGS of the test")) << "diagnosis+explanation keeps the findings";
  EXPECT_EQ(programmed[0].body.find("FMA pipe issues"), std::string::npos);
  // Tokens: two generations (1,000 + 300 each) and one explanation (4,000 + 500).
  EXPECT_EQ(state->usage.llm_input_tokens, 6000);
  EXPECT_EQ(state->usage.llm_output_tokens, 1100);
  EXPECT_NEAR(state->usage.llm_cost_usd, (6000 * 2.0 + 1100 * 8.0) / 1e6, 1e-12);
  EXPECT_TRUE(state->usage.llm_cost_known);
  Result<std::string> artifact =
      ReadWholeFile(workspace_ + "/runs/" + std::to_string(state->run_id) + "/nodes/n1/explanation.txt");
  ASSERT_TRUE(artifact.ok()) << artifact.status().message();
  EXPECT_THAT(*artifact, HasSubstr("FMA pipe"));
}

TEST_F(OptimizationLoopTest, AnExplanationModeWithoutAnExplainerSaysSo) {
  environment_.make_profiler = [](const std::string&) -> Result<std::unique_ptr<CandidateProfiler>> {
    return std::unique_ptr<CandidateProfiler>(std::make_unique<FixtureProfiler>());
  };
  settings_.profile = true;
  settings_.feedback = FeedbackMode::kExplanation;
  settings_.budget.max_evaluations = 2;
  ListGenerator generator({"timed_40", "timed_30"});
  Result<RunState> state = Run(generator);
  ASSERT_TRUE(state.ok()) << state.status().message();
  ASSERT_EQ(generator.requests.size(), 2u);
  EXPECT_EQ(generator.requests[1].feedback_text, "(no explanation: no explainer configured)");
}

TEST(FeedbackModeTest, EveryModeParsesFromItsName) {
  for (FeedbackMode mode : {FeedbackMode::kDiagnosis, FeedbackMode::kRaw, FeedbackMode::kNone,
                            FeedbackMode::kExplanation, FeedbackMode::kDiagnosisExplanation}) {
    Result<FeedbackMode> parsed = ParseFeedbackMode(FeedbackModeName(mode));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, mode);
  }
  EXPECT_FALSE(ParseFeedbackMode("narrative").ok());
}

TEST_F(OptimizationLoopTest, AFailingReferenceIsWorkFailed) {
  settings_.task_directory = RepositoryPath("tests/golden/inputs/bench_task_bad_reference");
  ListGenerator generator({"timed_50"});
  Result<RunState> state = Run(generator);
  ASSERT_FALSE(state.ok());
  EXPECT_EQ(state.status().kind(), ErrorKind::kWorkFailed);
  EXPECT_THAT(state.status().message(), HasSubstr("reference failed"));
}

TEST_F(OptimizationLoopTest, ABudgetOfZeroIsRefused) {
  ListGenerator generator({"timed_50"});
  settings_.budget.max_evaluations = 0;
  Result<RunState> state = Run(generator);
  ASSERT_FALSE(state.ok());
  EXPECT_EQ(state.status().kind(), ErrorKind::kInvalidInput);
  EXPECT_THAT(state.status().message(), HasSubstr("--max-evaluations 0"));
}

TEST_F(OptimizationLoopTest, ACorruptedStateFileIsNamedOnResume) {
  ListGenerator generator({"timed_50"});
  settings_.budget.max_evaluations = 1;
  Result<RunState> state = Run(generator);
  ASSERT_TRUE(state.ok()) << state.status().message();
  std::string path = workspace_ + "/runs/" + std::to_string(state->run_id) + "/optimize.json";
  ASSERT_TRUE(
      WriteFileAtomically(path, "{\"schema\": \"kopt.optimize.run\", \"schema_version\": 1, \"tree\": 5")
          .ok());
  settings_.resume_run = state->run_id;
  Result<RunState> resumed = Run(generator);
  ASSERT_FALSE(resumed.ok());
  EXPECT_EQ(resumed.status().kind(), ErrorKind::kInvalidInput);
  EXPECT_THAT(resumed.status().message(), HasSubstr("optimize.json"));
}

}  // namespace
}  // namespace kopt
