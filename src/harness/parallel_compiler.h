// ParallelCompiler: runs up to N Compiler::Compile calls at once on a thread
// pool and hands each result over as soon as it is ready (a callback and a
// future), so the caller can measure one candidate on the GPU while others
// compile.
//
// Thread safety: Submit and WaitAll may be called from any thread. Callbacks
// run on pool threads, one at a time per job, possibly concurrently with
// each other; they must not call WaitAll or destroy the ParallelCompiler.
// The destructor waits for every submitted job.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "harness/compiler.h"

namespace kopt {

class ParallelCompiler {
 public:
  using Callback =
      std::function<void(const std::string& candidate_path, const Result<CompileResult>& result)>;

  // `compiler` must outlive this object. threads == 0: the hardware's thread count (at least 1).
  explicit ParallelCompiler(const Compiler& compiler, size_t threads = 0);
  ~ParallelCompiler();
  ParallelCompiler(const ParallelCompiler&) = delete;
  ParallelCompiler& operator=(const ParallelCompiler&) = delete;

  // Queues a compile of `candidate_path` for `task` (copied). `on_done`, when
  // set, runs on the pool thread before the future becomes ready.
  std::future<Result<CompileResult>> Submit(const TaskSpec& task, std::string candidate_path,
                                            Callback on_done = nullptr);

  // Blocks until every job submitted so far has finished.
  void WaitAll();

  size_t thread_count() const { return workers_.size(); }

 private:
  struct Job {
    std::shared_ptr<const TaskSpec> task;
    std::string candidate_path;
    Callback on_done;
    std::promise<Result<CompileResult>> promise;
  };
  void WorkLoop();

  const Compiler& compiler_;
  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable all_done_;
  std::deque<Job> queue_;
  size_t running_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace kopt
