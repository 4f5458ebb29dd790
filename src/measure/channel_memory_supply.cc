#include "measure/channel_memory_supply.h"

#include <chrono>
#include <utility>

namespace kopt {

ChannelMemorySupply::~ChannelMemorySupply() {
  cancel_ = true;
  Wait();
  if (releasing_ && releasing_->valid()) releasing_->wait();
}

void ChannelMemorySupply::Wait() {
  if (pending_ && pending_->valid()) pending_->wait();
}

void ChannelMemorySupply::Prepare(size_t bytes) {
  if (!available_ || bytes == 0) return;
  if (pending_ && pending_->valid() && pending_bytes_ == bytes) return;
  Wait();
  pending_bytes_ = bytes;
  pending_ = std::async(std::launch::async, [this, bytes] { return ChannelMemory::Create(bytes, &cancel_); });
}

Result<ChannelMemory> ChannelMemorySupply::Take(size_t bytes, bool prepare_next, double* waited_seconds) {
  if (waited_seconds != nullptr) *waited_seconds = 0;
  if (!available_) return Unavailable("channel memory is not available here");
  const auto started = std::chrono::steady_clock::now();
  Prepare(bytes);
  Result<ChannelMemory> memory = pending_->get();
  pending_.reset();
  pending_bytes_ = 0;
  if (waited_seconds != nullptr) {
    *waited_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }
  if (!memory.ok() && memory.status().kind() == ErrorKind::kUnavailable) available_ = false;
  if (memory.ok() && prepare_next) Prepare(bytes);
  return memory;
}

void ChannelMemorySupply::Release(std::shared_ptr<void> discard) {
  if (!discard) return;
  if (releasing_ && releasing_->valid()) releasing_->wait();
  releasing_ = std::async(std::launch::async, [discard = std::move(discard)]() mutable { discard.reset(); });
}

}  // namespace kopt
