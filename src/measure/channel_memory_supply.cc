#include "measure/channel_memory_supply.h"

#include <algorithm>
#include <chrono>
#include <utility>

namespace kopt {

ChannelMemorySupply::~ChannelMemorySupply() {
  DropPending();
  if (releasing_ && releasing_->valid()) releasing_->wait();
}

void ChannelMemorySupply::DropPending() {
  cancel_ = true;
  for (auto& pending : pending_) {
    if (pending.valid()) pending.wait();
  }
  pending_.clear();  // memory finished before the cancel is freed here
  cancel_ = false;
  pending_bytes_ = 0;
}

void ChannelMemorySupply::Start(size_t bytes) {
  pending_bytes_ = bytes;
  pending_.push_back(
      std::async(std::launch::async, [this, bytes] { return ChannelMemory::Create(bytes, &cancel_); }));
}

void ChannelMemorySupply::Prepare(size_t bytes) {
  if (!available_ || bytes == 0) return;
  if (!pending_.empty() && pending_bytes_ == bytes) return;
  DropPending();
  Start(bytes);
}

Result<ChannelMemory> ChannelMemorySupply::Take(size_t bytes, size_t prepare_next, double* waited_seconds) {
  if (waited_seconds != nullptr) *waited_seconds = 0;
  if (!available_) return Unavailable("channel memory is not available here");
  const auto started = std::chrono::steady_clock::now();
  Prepare(bytes);
  Result<ChannelMemory> memory = pending_.front().get();
  pending_.pop_front();
  if (waited_seconds != nullptr) {
    *waited_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }
  if (!memory.ok()) {
    if (memory.status().kind() == ErrorKind::kUnavailable) available_ = false;
    DropPending();
    return memory;
  }
  if (pending_.empty()) pending_bytes_ = 0;
  if (prepare_next > 0 && pending_.empty()) pending_bytes_ = bytes;
  while (pending_.size() < std::min(ahead_, prepare_next)) Start(bytes);
  return memory;
}

void ChannelMemorySupply::Release(std::shared_ptr<void> discard) {
  if (!discard) return;
  if (releasing_ && releasing_->valid()) releasing_->wait();
  releasing_ = std::async(std::launch::async, [discard = std::move(discard)]() mutable { discard.reset(); });
}

}  // namespace kopt
