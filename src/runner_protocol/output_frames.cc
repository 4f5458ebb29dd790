#include "runner_protocol/output_frames.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

namespace kopt {
namespace {

template <typename T>
void AppendLittleEndian(std::string& out, T value) {
  for (size_t byte = 0; byte < sizeof(T); ++byte) {
    out.push_back(static_cast<char>((static_cast<uint64_t>(value) >> (8 * byte)) & 0xff));
  }
}

template <typename T>
T ReadLittleEndian(std::string_view bytes) {
  uint64_t value = 0;
  for (size_t byte = 0; byte < sizeof(T); ++byte) {
    value |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[byte])) << (8 * byte);
  }
  return static_cast<T>(value);
}

// Writes every byte at `offset` of `descriptor`, retrying on EINTR and short writes.
Status WriteAllAt(int descriptor, const void* data, size_t bytes, uint64_t offset) {
  const char* next = static_cast<const char*>(data);
  while (bytes > 0) {
    ssize_t written = pwrite(descriptor, next, bytes, static_cast<off_t>(offset));
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) {
      return WorkFailed(std::string("output channel memory: write failed: ") +
                        (written < 0 ? std::strerror(errno) : "no progress"));
    }
    next += written;
    bytes -= static_cast<size_t>(written);
    offset += static_cast<uint64_t>(written);
  }
  return Status::Ok();
}

}  // namespace

std::string EncodeFrameHead(const FrameKey& key, uint64_t payload_bytes) {
  std::string header =
      nlohmann::json{{"round", key.round}, {"index", key.index}, {"tensor", key.tensor}}.dump(
          -1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string head(kFrameMagic);
  AppendLittleEndian<uint32_t>(head, static_cast<uint32_t>(header.size()));
  head += header;
  AppendLittleEndian<uint64_t>(head, payload_bytes);
  return head;
}

std::string EncodeFrame(const FrameKey& key, std::span<const std::byte> payload) {
  std::string frame = EncodeFrameHead(key, payload.size());
  frame.append(reinterpret_cast<const char*>(payload.data()), payload.size());
  return frame;
}

Result<OutputFrames> OutputFrames::Parse(std::string channel, bool allow_truncated_tail) {
  OutputFrames parsed;
  parsed.channel_ = std::make_unique<std::string>(std::move(channel));
  std::string_view bytes = *parsed.channel_;
  return ParseBytes(std::move(parsed), bytes, allow_truncated_tail, /*zero_ends=*/false);
}

Result<OutputFrames> OutputFrames::ParseArrived(std::string_view bytes) {
  return ParseBytes(OutputFrames(), bytes, /*allow_truncated_tail=*/true, /*zero_ends=*/false);
}

Result<OutputFrames> OutputFrames::ParseMemory(std::shared_ptr<const SealedBytes> memory) {
  if (memory == nullptr) return InvalidInput("output channel memory: none");
  OutputFrames parsed;
  std::span<const std::byte> span = memory->bytes();
  parsed.memory_ = std::move(memory);
  std::string_view bytes(reinterpret_cast<const char*>(span.data()), span.size());
  return ParseBytes(std::move(parsed), bytes, /*allow_truncated_tail=*/false, /*zero_ends=*/true);
}

Result<OutputFrames> OutputFrames::ParseBytes(OutputFrames parsed, std::string_view rest,
                                              bool allow_truncated_tail, bool zero_ends) {
  size_t offset = 0;
  auto error = [&](std::string_view what) {
    return InvalidInput(
        fmt::format("output channel{}: {} at byte {}", zero_ends ? " memory" : "", what, offset));
  };
  while (!rest.empty()) {
    if (zero_ends) {
      // The end of the frames: zeros where the next magic would be (or fewer
      // than 8 bytes left, all zero).
      std::string_view next = rest.substr(0, kFrameMagic.size());
      if (next.find_first_not_of('\0') == std::string_view::npos) break;
    }
    bool short_head = rest.size() < kFrameMagic.size() + 4;
    if (short_head && allow_truncated_tail &&
        kFrameMagic.substr(0, rest.size()) == rest.substr(0, kFrameMagic.size())) {
      break;
    }
    if (short_head || rest.substr(0, kFrameMagic.size()) != kFrameMagic) {
      return error("not a frame (bad magic or truncated head)");
    }
    uint32_t header_bytes = ReadLittleEndian<uint32_t>(rest.substr(kFrameMagic.size(), 4));
    size_t fixed = kFrameMagic.size() + 4;
    if (header_bytes > kMaxFrameHeaderBytes) return error("frame header too long");
    if (rest.size() < fixed + header_bytes + 8) {
      if (allow_truncated_tail) break;
      return error("frame header truncated");
    }
    nlohmann::json header = nlohmann::json::parse(rest.substr(fixed, header_bytes), nullptr, false);
    if (header.is_discarded() || !header.is_object() || !header.contains("round") ||
        !header["round"].is_string() || !header.contains("index") || !header["index"].is_number_integer() ||
        !header.contains("tensor") || !header["tensor"].is_string()) {
      return error("malformed frame header");
    }
    uint64_t payload_bytes = ReadLittleEndian<uint64_t>(rest.substr(fixed + header_bytes, 8));
    size_t payload_offset = fixed + header_bytes + 8;
    FrameKey key{header["round"].get<std::string>(), header["index"].get<int64_t>(),
                 header["tensor"].get<std::string>()};
    if (payload_bytes > rest.size() - payload_offset) {
      if (allow_truncated_tail) break;
      return error(fmt::format("frame ({}, {}, {}): payload of {} bytes past the end ({} there)", key.round,
                               key.index, key.tensor, payload_bytes, rest.size() - payload_offset));
    }
    auto payload = std::span<const std::byte>(
        reinterpret_cast<const std::byte*>(rest.data() + payload_offset), static_cast<size_t>(payload_bytes));
    if (!parsed.frames_.emplace(key, payload).second) {
      return error(fmt::format("frame ({}, {}, {}) sent twice", key.round, key.index, key.tensor));
    }
    size_t consumed = payload_offset + static_cast<size_t>(payload_bytes);
    rest.remove_prefix(consumed);
    offset += consumed;
  }
  return parsed;
}

Status MemoryFrameWriter::Begin(const FrameKey& key, uint64_t payload_bytes) {
  if (payload_left_ > 0 || !pending_head_.empty()) {
    return WorkFailed("output channel memory: a frame begun before the previous one was complete");
  }
  pending_head_ = EncodeFrameHead(key, payload_bytes);
  head_offset_ = next_offset_;
  next_offset_ += pending_head_.size() + payload_bytes;
  payload_left_ = payload_bytes;
  return payload_left_ == 0 ? CommitHead() : Status::Ok();
}

Status MemoryFrameWriter::Write(std::span<const std::byte> bytes) {
  if (bytes.size() > payload_left_) {
    return WorkFailed("output channel memory: more payload than the frame announced");
  }
  KOPT_RETURN_IF_ERROR(WriteAllAt(descriptor_, bytes.data(), bytes.size(), next_offset_ - payload_left_));
  payload_left_ -= bytes.size();
  return payload_left_ == 0 ? CommitHead() : Status::Ok();
}

Status MemoryFrameWriter::CommitHead() {
  std::string_view head = pending_head_;
  constexpr size_t kMagic = kFrameMagic.size();
  // Everything after the magic first, then the magic: a head with its magic is whole.
  KOPT_RETURN_IF_ERROR(
      WriteAllAt(descriptor_, head.data() + kMagic, head.size() - kMagic, head_offset_ + kMagic));
  KOPT_RETURN_IF_ERROR(WriteAllAt(descriptor_, head.data(), kMagic, head_offset_));
  pending_head_.clear();
  return Status::Ok();
}

std::string OutputFrames::ReleaseChannel() {
  memory_.reset();
  frames_.clear();
  std::string channel = channel_ ? std::move(*channel_) : std::string();
  channel_.reset();
  return channel;
}

std::optional<std::span<const std::byte>> OutputFrames::Find(const FrameKey& key) const {
  auto found = frames_.find(key);
  if (found == frames_.end()) return std::nullopt;
  return found->second;
}

}  // namespace kopt
