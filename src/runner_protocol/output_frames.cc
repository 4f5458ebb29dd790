#include "runner_protocol/output_frames.h"

#include <fmt/format.h>

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
  std::string_view rest = *parsed.channel_;
  size_t offset = 0;
  auto error = [&](std::string_view what) {
    return InvalidInput(fmt::format("output channel: {} at byte {}", what, offset));
  };
  while (!rest.empty()) {
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
    if (payload_bytes > rest.size() - payload_offset) {
      if (allow_truncated_tail) break;
      return error("frame payload past the end");
    }
    FrameKey key{header["round"].get<std::string>(), header["index"].get<int64_t>(),
                 header["tensor"].get<std::string>()};
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

std::string OutputFrames::ReleaseChannel() {
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
