// The Slurm executor against a real Slurm (tests/slurm/run_slurm_tests.sh starts a one-node
// cluster and runs this with SLURM_CONF set): submission as one job array, a task requeued
// mid-run, a task cancelled mid-run, the node drained and then set down under a running task,
// and a driver killed with SIGKILL and re-attached. The works are fake_optimize.sh (a resumable
// run of N evaluations with a journal); every scenario checks that each problem's journal holds
// evaluations 1..N exactly once (none lost, none finished twice) and that no two jobs of a
// problem ran at once. Ends by measuring the scheduler's overhead per problem and per srun step.
//
// usage: slurm_cluster_check FAKE_OPTIMIZE WORK_DIRECTORY NODE
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <thread>

#include "core/subprocess.h"
#include "suite/slurm_executor.h"

namespace {

using kopt::suite::Executor;
using kopt::suite::ProblemWork;
using kopt::suite::WorkState;
using kopt::suite::WorkStatus;

std::string fake_optimize;
std::string root;
std::string node;
std::unique_ptr<kopt::CommandRunner> runner;
int failures = 0;

void Expect(bool condition, const std::string& what) {
  if (!condition) {
    ++failures;
    std::fprintf(stderr, "FAILED: %s\n", what.c_str());
  }
}

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string Run(const std::vector<std::string>& argv) {
  kopt::CommandSpec spec;
  spec.argv = argv;
  spec.timeout_seconds = 30;
  auto result = runner->Run(spec);
  if (!result.ok() || !result->Succeeded()) {
    std::fprintf(stderr, "command failed: %s: %s\n", argv[0].c_str(),
                 result.ok() ? result->stderr_text.c_str() : result.status().message().c_str());
    return "";
  }
  return result->stdout_text;
}

std::vector<std::string> Lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string SuiteDirectory(const std::string& name) {
  std::string directory = root + "/" + name;
  std::filesystem::remove_all(directory);
  std::filesystem::create_directories(directory + "/problems");
  return directory;
}

std::unique_ptr<Executor> MakeExecutor(const std::string& suite) {
  kopt::suite::SlurmExecutorSettings settings;
  settings.suite_directory = suite;
  settings.slurm.gpus_per_task = 1;  // the fake gres of local_cluster.sh
  settings.slurm.max_node_failures = 2;
  auto executor = kopt::suite::MakeSlurmExecutor(settings, *runner);
  if (!executor.ok()) {
    std::fprintf(stderr, "%s\n", executor.status().message().c_str());
    std::exit(1);
  }
  return std::move(*executor);
}

ProblemWork Work(const std::string& suite, const std::string& key, int evaluations, double seconds) {
  ProblemWork work;
  work.key = key;
  work.command = {fake_optimize, suite + "/problems/" + key + ".journal", std::to_string(evaluations),
                  fmt::format("{}", seconds)};
  work.log_path = suite + "/problems/" + key + ".log";
  return work;
}

// Polls until every work ended or `limit` seconds passed; `during` runs after each poll.
std::vector<WorkStatus> PollUntilEnded(
    Executor& executor, double limit,
    const std::function<void(const std::vector<WorkStatus>&)>& during = {}) {
  double start = Now();
  std::vector<WorkStatus> statuses;
  while (Now() - start < limit) {
    auto polled = executor.Poll();
    if (!polled.ok()) {
      std::fprintf(stderr, "poll: %s\n", polled.status().message().c_str());
    } else {
      statuses = *polled;
      if (during) during(statuses);
      bool all_ended = !statuses.empty();
      for (const WorkStatus& status : statuses) all_ended &= kopt::suite::IsEnded(status.state);
      if (all_ended) return statuses;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  Expect(false, fmt::format("works ended within {} s", limit));
  return statuses;
}

// Each problem's journal holds 1..N once; no concurrent run; returns evaluations started.
int CheckJournals(const std::string& suite, const std::map<std::string, int>& evaluations,
                  const std::vector<WorkStatus>& statuses) {
  int started = 0;
  for (const auto& [key, count] : evaluations) {
    std::string journal = suite + "/problems/" + key + ".journal";
    std::vector<std::string> lines = Lines(journal);
    std::vector<std::string> expected;
    for (int evaluation = 1; evaluation <= count; ++evaluation)
      expected.push_back(std::to_string(evaluation));
    Expect(lines == expected, fmt::format("{}: journal holds evaluations 1..{} once each (has {} lines)", key,
                                          count, lines.size()));
    Expect(!std::filesystem::exists(journal + ".concurrent"), key + ": no two jobs of the problem at once");
    started += static_cast<int>(Lines(journal + ".started").size());
    for (const WorkStatus& status : statuses) {
      if (status.key == key) {
        Expect(status.state == WorkState::kSucceeded,
               fmt::format("{} succeeded (is {}: {})", key, kopt::suite::WorkStateName(status.state),
                           status.detail));
      }
    }
  }
  return started;
}

std::string TaskId(const WorkStatus& status) {
  // placement "job 12_3 on node" or "job 12_3"
  std::istringstream words(status.placement);
  std::string job, id;
  words >> job >> id;
  return id;
}

void ArraySubmission() {
  std::string suite = SuiteDirectory("array");
  auto executor = MakeExecutor(suite);
  std::map<std::string, int> evaluations;
  for (int problem = 0; problem < 4; ++problem) {
    std::string key = fmt::format("level1/p{}", problem);
    std::filesystem::create_directories(suite + "/problems/level1");
    evaluations[key] = 3;
    Expect(executor->Submit(Work(suite, key, 3, 0.2)).ok(), "submit " + key);
  }
  auto statuses = PollUntilEnded(*executor, 60);
  int started = CheckJournals(suite, evaluations, statuses);
  Expect(started == 12, fmt::format("array: 12 evaluations ran (ran {})", started));
  int submissions = 0;
  for (const auto& entry : std::filesystem::directory_iterator(suite + "/slurm")) {
    submissions +=
        entry.path().filename().string().rfind("submission-", 0) == 0 && entry.path().extension() == ".sh";
  }
  Expect(submissions == 1, fmt::format("array: one sbatch for 4 problems ({})", submissions));
  std::printf("array: 4 problems x 3 evaluations in one job array: ok\n");
}

// Interrupts the running task with `interrupt` (its task id) once 2 evaluations are in the journal.
void InterruptedMidRun(const std::string& name, const std::function<void(const std::string&)>& interrupt) {
  std::string suite = SuiteDirectory(name);
  auto executor = MakeExecutor(suite);
  Expect(executor->Submit(Work(suite, "p", 8, 0.3)).ok(), name + ": submit");
  bool interrupted = false;
  auto statuses = PollUntilEnded(*executor, 120, [&](const std::vector<WorkStatus>& current) {
    if (interrupted || current.empty() || current[0].state != WorkState::kRunning) return;
    if (Lines(suite + "/problems/p.journal").size() < 2) return;
    interrupt(TaskId(current[0]));
    interrupted = true;
  });
  Expect(interrupted, name + ": the task was interrupted mid-run");
  Expect(std::filesystem::exists(suite + "/slurm/work/0/attempt-2.sh"),
         name + ": continued in a second attempt");
  Expect(!std::filesystem::exists(suite + "/slurm/work/0/attempt-3.sh"), name + ": in one more attempt only");
  int started = CheckJournals(suite, {{"p", 8}}, statuses);
  // An evaluation interrupted mid-way is run again (it was never recorded): at most one.
  Expect(started >= 8 && started <= 9, fmt::format("{}: 8 or 9 evaluations started ({})", name, started));
  std::printf("%s: %s; %d evaluations started for 8 recorded: ok\n", name.c_str(),
              statuses.empty() ? "" : statuses[0].detail.c_str(), started);
}

// kill -9 of the node's slurmd while a task runs, slurmd started again 2 s later: the task's
// slurmstepd carries on, the problem ends once with every evaluation once.
void KilledNodeDaemon() {
  std::string suite = SuiteDirectory("slurmd_killed");
  auto executor = MakeExecutor(suite);
  Expect(executor->Submit(Work(suite, "p", 8, 0.3)).ok(), "slurmd_killed: submit");
  std::string configuration = getenv("SLURM_CONF") ? getenv("SLURM_CONF") : "";
  std::string pid_file = std::filesystem::path(configuration).parent_path().string() + "/slurmd.pid";
  bool killed = false;
  auto statuses = PollUntilEnded(*executor, 120, [&](const std::vector<WorkStatus>&) {
    if (killed || Lines(suite + "/problems/p.journal").size() < 2) return;
    std::vector<std::string> pid = Lines(pid_file);
    if (pid.empty()) return;
    kill(std::atoi(pid[0].c_str()), SIGKILL);
    killed = true;
    std::this_thread::sleep_for(std::chrono::seconds(2));
    // In a session of its own (setsid -w: the session first, then slurmd, waited for): a daemon
    // started through a CommandRunner is otherwise killed with the group of the child that
    // started it when that child ends (core/subprocess.h).
    Run({"setsid", "-w", "slurmd", "-f", configuration});
  });
  Expect(killed, "slurmd_killed: slurmd was killed mid-run");
  int started = CheckJournals(suite, {{"p", 8}}, statuses);
  Expect(started >= 8 && started <= 9,
         fmt::format("slurmd_killed: 8 or 9 evaluations started ({})", started));
  std::printf(
      "slurmd_killed: kill -9 of slurmd mid-run, restarted: %d evaluations started for 8 recorded: ok\n",
      started);
}

void DrainedNode() {
  std::string suite = SuiteDirectory("drain");
  auto executor = MakeExecutor(suite);
  Run({"scontrol", "update", "nodename=" + node, "state=drain", "reason=kopt-test"});
  Expect(executor->Submit(Work(suite, "p", 3, 0.2)).ok(), "drain: submit");
  bool saw_pending = false;
  double start = Now();
  while (Now() - start < 5) {
    auto statuses = executor->Poll();
    if (statuses.ok() && !statuses->empty() && (*statuses)[0].state == WorkState::kQueued &&
        (*statuses)[0].detail.find("PENDING") != std::string::npos) {
      saw_pending = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  Expect(saw_pending, "drain: the task waits while the node is drained");
  Run({"scontrol", "update", "nodename=" + node, "state=resume"});
  auto statuses = PollUntilEnded(*executor, 60);
  CheckJournals(suite, {{"p", 3}}, statuses);
  std::printf("drain: pending while drained, ran after resume: ok\n");
}

void KilledDriverReattaches() {
  std::string suite = SuiteDirectory("reattach");
  std::map<std::string, int> evaluations = {{"a", 6}, {"b", 6}};
  pid_t driver = fork();
  if (driver == 0) {
    auto executor = MakeExecutor(suite);
    for (const auto& [key, count] : evaluations) (void)executor->Submit(Work(suite, key, count, 0.3));
    while (true) {
      (void)executor->Poll();
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
  }
  double start = Now();
  while (Now() - start < 30 && Lines(suite + "/problems/a.journal").size() < 1) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  kill(driver, SIGKILL);
  waitpid(driver, nullptr, 0);
  auto executor = MakeExecutor(suite);
  auto attached = executor->Attach(suite);
  Expect(attached.ok() && attached->size() == 2,
         fmt::format("reattach: the two works are found again ({})",
                     attached.ok() ? std::to_string(attached->size()) : attached.status().message()));
  for (const auto& [key, count] : evaluations) {
    Expect(!executor->Submit(Work(suite, key, count, 0.3)).ok(), "reattach: no second submission of " + key);
  }
  auto statuses = PollUntilEnded(*executor, 60);
  int started = CheckJournals(suite, evaluations, statuses);
  Expect(started == 12, fmt::format("reattach: 12 evaluations ran ({})", started));
  std::printf("reattach: driver killed with SIGKILL, the second driver attached to its jobs: ok\n");
}

// Seconds from Submit to the end of a work that does nothing, through Slurm; and per srun step.
void MeasureOverhead() {
  std::string suite = SuiteDirectory("overhead");
  auto executor = MakeExecutor(suite);
  const int problems = 4;
  double start = Now();
  for (int problem = 0; problem < problems; ++problem) {
    (void)executor->Submit(Work(suite, fmt::format("p{}", problem), 0, 0));
  }
  PollUntilEnded(*executor, 60);
  double slurm_seconds = Now() - start;
  start = Now();
  for (int problem = 0; problem < problems; ++problem) {
    Run({fake_optimize, suite + "/problems/local.journal", "0", "0"});
  }
  double local_seconds = Now() - start;
  std::string script = suite + "/steps.sh";
  std::ofstream(script)
      << "#!/bin/bash\nstart=$(date +%s.%N)\nfor i in $(seq 10); do srun --ntasks=1 true; done\n"
         "end=$(date +%s.%N)\necho \"$start $end\" > "
      << suite << "/steps.txt\n";
  Run({"sbatch", "--wait", "--quiet", "--output=/dev/null", script});
  double step_seconds = 0;
  {
    std::ifstream in(suite + "/steps.txt");
    double step_start = 0, step_end = 0;
    in >> step_start >> step_end;
    step_seconds = (step_end - step_start) / 10;
  }
  std::printf(
      "overhead: per problem through Slurm (sbatch array, squeue every 0.25 s, records): %.2f s; "
      "local fork+exec: %.3f s; one srun step in an allocation: %.3f s\n",
      (slurm_seconds) / problems, local_seconds / problems, step_seconds);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: slurm_cluster_check FAKE_OPTIMIZE WORK_DIRECTORY NODE\n");
    return 2;
  }
  fake_optimize = argv[1];
  root = std::filesystem::absolute(argv[2]).string();
  node = argv[3];
  runner = kopt::MakeSystemCommandRunner();
  std::string only = getenv("KOPT_SLURM_SCENARIO") ? getenv("KOPT_SLURM_SCENARIO") : "";
  auto wanted = [&](const char* name) { return only.empty() || only == name; };
  if (wanted("array")) ArraySubmission();
  if (wanted("requeue")) {
    InterruptedMidRun("requeue", [](const std::string& task) { Run({"scontrol", "requeue", task}); });
  }
  if (wanted("cancel")) InterruptedMidRun("cancel", [](const std::string& task) { Run({"scancel", task}); });
  if (wanted("node_down")) {
    InterruptedMidRun("node_down", [](const std::string&) {
      Run({"scontrol", "update", "nodename=" + node, "state=down", "reason=kopt-test"});
      Run({"scontrol", "update", "nodename=" + node, "state=resume"});
    });
  }
  if (wanted("killed")) {
    // SIGKILL to every process of the task (batch shell included): no exit record, as when the
    // node dies; retried as a lost task.
    InterruptedMidRun("killed", [](const std::string& task) {
      Run({"scancel", "--signal=KILL", "--full", task});
    });
  }
  if (wanted("slurmd_killed")) KilledNodeDaemon();
  if (wanted("drain")) DrainedNode();
  if (wanted("reattach")) KilledDriverReattaches();
  if (wanted("overhead")) MeasureOverhead();
  std::printf("%d passed, %d failed\n", failures == 0 ? 1 : 0, failures == 0 ? 0 : 1);
  return failures == 0 ? 0 : 1;
}
