// Simulation of a kopt suite under the Slurm executor (docs/slurm.md): P problems, one job-array
// task each (1 GPU), at most G GPUs held at once (8 per node), with queue waits, time limits,
// preemptions and node failures drawn from stated rates. A task that is stopped (time limit,
// preemption) or lost (node failure) is continued in a new task after a new queue wait and
// loses only the evaluation in progress (the run state is journaled after every evaluation);
// a problem lost with its node more than max_node_failures times is failed.
//
// Prints the wall time, the GPU-hours held and the useful ones (finished evaluations), the
// utilisation of what was held and of the G-GPU quota, and the counts of each interruption.
//
// usage: slurm_suite_simulation [--problems 250] [--gpus 64] [--evaluations 100]
//   [--evaluation-seconds 30] [--queue-wait-seconds 600] [--time-limit-hours 4]
//   [--preemptions-per-gpu-day 0.5] [--node-failures-per-node-day 0.03] [--repair-hours 4]
//   [--task-start-seconds 75] [--max-node-failures 2] [--seed 1] [--runs 20]
// The defaults: KernelBench's 250 problems, 100 evaluations each of 30 s on average (compile,
// verify, time, profile; log-normal, sigma 0.6), a 10-minute mean queue wait per submission, a
// 4 h limit, one preemption per GPU every 2 days, a node failure every 33 node-days (8 GPUs
// each), 4 h repairs, and a task's fixed cost of 75 s (sbatch-to-start 1 s as measured on the
// local Slurm plus the squeue poll of 10 s, module load and kopt start 4 s, the reference
// measured again on resume 60 s).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <queue>
#include <random>
#include <string>
#include <vector>

namespace {

struct Parameters {
  int problems = 250;
  int gpus = 64;
  int gpus_per_node = 8;
  int evaluations = 100;
  double evaluation_seconds = 30;
  double evaluation_sigma = 0.6;
  double queue_wait_seconds = 600;
  double time_limit_seconds = 4 * 3600.0;
  double preemptions_per_gpu_day = 0.5;
  double node_failures_per_node_day = 0.03;
  double repair_seconds = 4 * 3600.0;
  double task_start_seconds = 75;
  int max_node_failures = 2;
  unsigned seed = 1;
  int runs = 20;
};

struct Outcome {
  double wall_seconds = 0;
  double held_gpu_seconds = 0;
  double useful_gpu_seconds = 0;
  int time_limits = 0, preemptions = 0, node_losses = 0, failed_problems = 0, tasks = 0;
};

enum class EventKind { kEligible, kTaskEnd, kNodeFailure, kNodeRepair };
struct Event {
  double time;
  EventKind kind;
  int subject;     // problem (eligible), gpu (task end), node (failure, repair)
  int generation;  // a task end is stale when its gpu's generation moved on
  bool operator>(const Event& other) const { return time > other.time; }
};

struct Gpu {
  int problem = -1;  // running problem, -1: free
  double start = 0;
  int generation = 0;
  bool preempted = false;  // the scheduled end is a preemption (else a time limit or the finish)
};

class Simulation {
 public:
  Simulation(const Parameters& parameters, unsigned seed) : p_(parameters), random_(seed) {}

  Outcome Run() {
    std::lognormal_distribution<double> evaluation(
        std::log(p_.evaluation_seconds) - p_.evaluation_sigma * p_.evaluation_sigma / 2, p_.evaluation_sigma);
    durations_.assign(p_.problems, {});
    for (auto& problem : durations_) {
      for (int i = 0; i < p_.evaluations; ++i) problem.push_back(evaluation(random_));
    }
    done_.assign(p_.problems, 0);
    losses_.assign(p_.problems, 0);
    gpus_.assign(p_.gpus, {});
    nodes_ = (p_.gpus + p_.gpus_per_node - 1) / p_.gpus_per_node;
    node_up_.assign(nodes_, true);
    remaining_ = p_.problems;
    for (int problem = 0; problem < p_.problems; ++problem) Submit(problem, 0);
    for (int node = 0; node < nodes_; ++node) ScheduleNodeFailure(node, 0);
    double now = 0;
    while (remaining_ > 0 && !events_.empty()) {
      Event event = events_.top();
      events_.pop();
      now = event.time;
      switch (event.kind) {
        case EventKind::kEligible: eligible_.push_back(event.subject); break;
        case EventKind::kTaskEnd:
          if (gpus_[event.subject].generation == event.generation) EndTask(event.subject, now, false);
          break;
        case EventKind::kNodeFailure: FailNode(event.subject, now); break;
        case EventKind::kNodeRepair:
          node_up_[event.subject] = true;
          ScheduleNodeFailure(event.subject, now);
          break;
      }
      StartTasks(now);
    }
    outcome_.wall_seconds = now;
    return outcome_;
  }

 private:
  double Exponential(double mean) { return std::exponential_distribution<double>(1.0 / mean)(random_); }

  void Submit(int problem, double now) {
    events_.push({now + (p_.queue_wait_seconds > 0 ? Exponential(p_.queue_wait_seconds) : 0),
                  EventKind::kEligible, problem, 0});
  }

  void ScheduleNodeFailure(int node, double now) {
    if (p_.node_failures_per_node_day <= 0) return;
    events_.push(
        {now + Exponential(86400.0 / p_.node_failures_per_node_day), EventKind::kNodeFailure, node, 0});
  }

  // Evaluations of `problem` finished by `until` in a task started at `start`; advances done_.
  void Progress(int problem, double start, double until) {
    double time = start + p_.task_start_seconds;
    while (done_[problem] < p_.evaluations && time + durations_[problem][done_[problem]] <= until) {
      time += durations_[problem][done_[problem]];
      outcome_.useful_gpu_seconds += durations_[problem][done_[problem]];
      ++done_[problem];
    }
  }

  void StartTasks(double now) {
    for (int gpu = 0; gpu < p_.gpus && !eligible_.empty(); ++gpu) {
      if (gpus_[gpu].problem >= 0 || !node_up_[gpu / p_.gpus_per_node]) continue;
      int problem = eligible_.front();
      eligible_.erase(eligible_.begin());
      Gpu& slot = gpus_[gpu];
      slot.problem = problem;
      slot.start = now;
      ++slot.generation;
      ++outcome_.tasks;
      // When it would finish uninterrupted, against the time limit and a preemption.
      double finish = now + p_.task_start_seconds;
      for (int i = done_[problem]; i < p_.evaluations; ++i) finish += durations_[problem][i];
      double limit = now + p_.time_limit_seconds;
      double preemption =
          p_.preemptions_per_gpu_day > 0 ? now + Exponential(86400.0 / p_.preemptions_per_gpu_day) : INFINITY;
      double end = std::min({finish, limit, preemption});
      slot.preempted = end == preemption && preemption < std::min(finish, limit);
      events_.push({end, EventKind::kTaskEnd, gpu, slot.generation});
    }
  }

  void EndTask(int gpu, double now, bool lost) {
    Gpu& slot = gpus_[gpu];
    int problem = slot.problem;
    Progress(problem, slot.start, now);
    outcome_.held_gpu_seconds += now - slot.start;
    slot.problem = -1;
    ++slot.generation;
    if (done_[problem] == p_.evaluations) {
      --remaining_;
      return;
    }
    if (lost) {
      ++outcome_.node_losses;
      if (++losses_[problem] > p_.max_node_failures) {
        ++outcome_.failed_problems;
        --remaining_;
        return;
      }
    } else if (slot.preempted) {
      ++outcome_.preemptions;
    } else {
      ++outcome_.time_limits;
    }
    Submit(problem, now);
  }

  void FailNode(int node, double now) {
    node_up_[node] = false;
    for (int gpu = node * p_.gpus_per_node; gpu < std::min(p_.gpus, (node + 1) * p_.gpus_per_node); ++gpu) {
      if (gpus_[gpu].problem >= 0) EndTask(gpu, now, true);
    }
    events_.push({now + p_.repair_seconds, EventKind::kNodeRepair, node, 0});
  }

  Parameters p_;
  std::mt19937_64 random_;
  std::vector<std::vector<double>> durations_;
  std::vector<int> done_, losses_;
  std::vector<Gpu> gpus_;
  int nodes_ = 0;
  std::vector<bool> node_up_;
  std::vector<int> eligible_;
  int remaining_ = 0;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  Outcome outcome_;
};

bool ReadFlag(int argc, char** argv, int& i, const char* name, double& value) {
  if (std::strcmp(argv[i], name) != 0 || i + 1 >= argc) return false;
  value = std::atof(argv[++i]);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Parameters p;
  for (int i = 1; i < argc; ++i) {
    double value = 0;
    if (ReadFlag(argc, argv, i, "--problems", value))
      p.problems = static_cast<int>(value);
    else if (ReadFlag(argc, argv, i, "--gpus", value))
      p.gpus = static_cast<int>(value);
    else if (ReadFlag(argc, argv, i, "--evaluations", value))
      p.evaluations = static_cast<int>(value);
    else if (ReadFlag(argc, argv, i, "--evaluation-seconds", value))
      p.evaluation_seconds = value;
    else if (ReadFlag(argc, argv, i, "--queue-wait-seconds", value))
      p.queue_wait_seconds = value;
    else if (ReadFlag(argc, argv, i, "--time-limit-hours", value))
      p.time_limit_seconds = value * 3600;
    else if (ReadFlag(argc, argv, i, "--preemptions-per-gpu-day", value))
      p.preemptions_per_gpu_day = value;
    else if (ReadFlag(argc, argv, i, "--node-failures-per-node-day", value))
      p.node_failures_per_node_day = value;
    else if (ReadFlag(argc, argv, i, "--repair-hours", value))
      p.repair_seconds = value * 3600;
    else if (ReadFlag(argc, argv, i, "--task-start-seconds", value))
      p.task_start_seconds = value;
    else if (ReadFlag(argc, argv, i, "--max-node-failures", value))
      p.max_node_failures = static_cast<int>(value);
    else if (ReadFlag(argc, argv, i, "--seed", value))
      p.seed = static_cast<unsigned>(value);
    else if (ReadFlag(argc, argv, i, "--runs", value))
      p.runs = std::max(1, static_cast<int>(value));
    else {
      std::fprintf(stderr,
                   "slurm_suite_simulation: unknown or incomplete option '%s' (see the file's header)\n",
                   argv[i]);
      return 2;
    }
  }
  if (p.problems < 1 || p.gpus < 1 || p.evaluations < 1 || p.evaluation_seconds <= 0 ||
      p.time_limit_seconds <= 0) {
    std::fprintf(stderr, "slurm_suite_simulation: problems, gpus, evaluations, times must be positive\n");
    return 2;
  }
  std::printf(
      "suite: %d problems x %d evaluations (mean %.0f s, log-normal sigma %.1f) on at most %d GPUs (%d per "
      "node)\n"
      "rates: queue wait mean %.0f s per submission; time limit %.1f h; %.2f preemptions per GPU-day; "
      "%.3f node failures per node-day (repair %.1f h); task start %.0f s; max node failures %d; %d runs\n",
      p.problems, p.evaluations, p.evaluation_seconds, p.evaluation_sigma, p.gpus, p.gpus_per_node,
      p.queue_wait_seconds, p.time_limit_seconds / 3600, p.preemptions_per_gpu_day,
      p.node_failures_per_node_day, p.repair_seconds / 3600, p.task_start_seconds, p.max_node_failures,
      p.runs);
  std::vector<Outcome> outcomes;
  for (int run = 0; run < p.runs; ++run) outcomes.push_back(Simulation(p, p.seed + run).Run());
  auto mean = [&](auto field) {
    double sum = 0;
    for (const Outcome& outcome : outcomes) sum += field(outcome);
    return sum / outcomes.size();
  };
  double ideal_hours = p.problems * p.evaluations * p.evaluation_seconds / p.gpus / 3600;
  double wall = mean([](const Outcome& o) { return o.wall_seconds; }) / 3600;
  double held = mean([](const Outcome& o) { return o.held_gpu_seconds; }) / 3600;
  double useful = mean([](const Outcome& o) { return o.useful_gpu_seconds; }) / 3600;
  std::printf("wall time: %.2f h (mean of %d runs; the work alone on %d GPUs: %.2f h)\n", wall, p.runs,
              p.gpus, ideal_hours);
  std::printf("GPU-hours held: %.1f; useful (finished evaluations): %.1f\n", held, useful);
  std::printf(
      "GPU utilisation: %.1f %% of the GPU-hours held; %.1f %% of the %d-GPU quota over the wall time\n",
      100 * useful / held, 100 * useful / (p.gpus * wall), p.gpus);
  std::printf(
      "per run: %.0f tasks, %.1f time limits, %.1f preemptions, %.1f tasks lost with a node, %.2f problems "
      "failed\n",
      mean([](const Outcome& o) { return o.tasks; }), mean([](const Outcome& o) { return o.time_limits; }),
      mean([](const Outcome& o) { return o.preemptions; }),
      mean([](const Outcome& o) { return o.node_losses; }),
      mean([](const Outcome& o) { return o.failed_problems; }));
  return 0;
}
