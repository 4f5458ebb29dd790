#include "harness/parallel_compiler.h"

#include <algorithm>

namespace kopt {

ParallelCompiler::ParallelCompiler(const Compiler& compiler, size_t threads) : compiler_(compiler) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  for (size_t index = 0; index < threads; ++index) workers_.emplace_back([this] { WorkLoop(); });
}

ParallelCompiler::~ParallelCompiler() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

std::future<Result<CompileResult>> ParallelCompiler::Submit(const TaskSpec& task, std::string candidate_path,
                                                            Callback on_done) {
  Job job{std::make_shared<const TaskSpec>(task), std::move(candidate_path), std::move(on_done), {}};
  std::future<Result<CompileResult>> future = job.promise.get_future();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(job));
  }
  work_ready_.notify_one();
  return future;
}

void ParallelCompiler::WaitAll() {
  std::unique_lock<std::mutex> lock(mutex_);
  all_done_.wait(lock, [this] { return queue_.empty() && running_ == 0; });
}

void ParallelCompiler::WorkLoop() {
  while (true) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      // Finish queued work even when stopping, so no future is left broken.
      work_ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      job = std::move(queue_.front());
      queue_.pop_front();
      ++running_;
    }
    Result<CompileResult> result = compiler_.Compile(*job.task, job.candidate_path);
    if (job.on_done) job.on_done(job.candidate_path, result);
    job.promise.set_value(std::move(result));
    {
      std::lock_guard<std::mutex> lock(mutex_);
      --running_;
    }
    all_done_.notify_all();
  }
}

}  // namespace kopt
