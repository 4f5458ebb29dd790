// A pulled output channel with real processes: this test binary runs itself
// as the child (ChannelPullTest.Child, only with KOPT_PULL_TEST_CHILD set),
// which writes records to descriptor 3 as kopt-runner does; the parent side is
// SystemCommandRunner with CommandSpec::channel_pull. An honest child's bytes
// arrive whole, in order, over reused storage; a child naming memory it does
// not have or sending a bad record breaks the channel; the parent's bound holds.
#include "core/channel_pull.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/subprocess.h"

namespace kopt {
namespace {

constexpr int kChannel = 3;

void SendAll(const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t sent = send(kChannel, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (sent <= 0) _exit(20);
    done += static_cast<size_t>(sent);
  }
}

// Reads acks until one says at least `offset`; exits 21 when the parent went away.
void WaitForAck(uint64_t offset) {
  uint64_t acknowledged = 0;
  while (acknowledged < offset) {
    uint64_t ack = 0;
    size_t got = 0;
    while (got < sizeof ack) {
      ssize_t bytes = read(kChannel, reinterpret_cast<char*>(&ack) + got, sizeof ack - got);
      if (bytes <= 0) _exit(21);
      got += static_cast<size_t>(bytes);
    }
    acknowledged = ack;
  }
}

std::string Pattern(size_t bytes) {
  std::string pattern(bytes, '\0');
  for (size_t index = 0; index < bytes; ++index) pattern[index] = static_cast<char>((index * 131 + 7) % 251);
  return pattern;
}

// The child: what it sends depends on KOPT_PULL_TEST_CHILD.
TEST(ChannelPullTest, Child) {
  const char* mode_text = std::getenv("KOPT_PULL_TEST_CHILD");
  if (mode_text == nullptr) GTEST_SKIP() << "runs only as the child of the tests below";
  std::string mode = mode_text;
  std::string payload = Pattern(size_t{20} << 20);
  if (mode == "honest") {
    SendAll(EncodeInlineRecord(4) + "HEAD");
    SendAll(EncodePullRecord(payload.data(), payload.size() / 2));
    WaitForAck(4 + payload.size() / 2);
    SendAll(EncodePullRecord(payload.data() + payload.size() / 2, payload.size() / 2));
    WaitForAck(4 + payload.size());
    SendAll(EncodeInlineRecord(4) + "TAIL");
  } else if (mode == "bad_address") {
    SendAll(EncodeInlineRecord(4) + "HEAD");
    SendAll(EncodePullRecord(reinterpret_cast<const void*>(uintptr_t{16}), 4096));
    WaitForAck(4 + 4096);  // never comes: the parent stops reading
  } else if (mode == "bad_record") {
    SendAll(EncodeInlineRecord(4) + "HEAD");
    SendAll(std::string(kPullRecordBytes, '\x7f'));
  } else if (mode == "oversized") {
    SendAll(EncodePullRecord(payload.data(), payload.size()));
    WaitForAck(payload.size());  // acked in full though only the bound is kept
  }
  _exit(0);
}

CommandResult RunChild(const std::string& mode, std::string* storage = nullptr, size_t max_bytes = 0) {
  CommandSpec spec{{"/proc/self/exe", "--gtest_filter=ChannelPullTest.Child"}};
  // The child runs only its one test, whatever shard of the suite this is (ctest's GTEST_* variables).
  spec.environment = {
      {"KOPT_PULL_TEST_CHILD", mode}, {"GTEST_TOTAL_SHARDS", "1"}, {"GTEST_SHARD_INDEX", "0"}};
  spec.channel_fd = kChannel;
  spec.channel_pull = true;
  spec.channel_storage = storage;
  if (max_bytes > 0) spec.max_channel_bytes = max_bytes;
  spec.timeout_seconds = 30;
  spec.kill_grace_seconds = 1;
  Result<CommandResult> result = MakeSystemCommandRunner()->Run(spec);
  EXPECT_TRUE(result.ok()) << result.status().message();
  return result.ok() ? std::move(result).value() : CommandResult{};
}

TEST(ChannelPullTest, AnHonestChildsBytesArriveWholeOverReusedStorage) {
  std::string storage(size_t{30} << 20, 'x');  // a previous child's bytes: overwritten, then cut to size
  CommandResult result = RunChild("honest", &storage);
  if (result.channel_refused)
    GTEST_SKIP() << "this kernel refuses process_vm_readv: " << result.channel_error;
  EXPECT_EQ(result.exit_code, 0) << result.stderr_text;
  EXPECT_EQ(result.channel_error, "");
  EXPECT_FALSE(result.channel_truncated);
  EXPECT_TRUE(storage.empty());  // moved into the result
  ASSERT_EQ(result.channel_bytes.size(), 4 + (size_t{20} << 20) + 4);
  EXPECT_EQ(result.channel_bytes.substr(0, 4), "HEAD");
  EXPECT_TRUE(result.channel_bytes.compare(4, size_t{20} << 20, Pattern(size_t{20} << 20)) == 0);
  EXPECT_EQ(result.channel_bytes.substr(result.channel_bytes.size() - 4), "TAIL");
}

TEST(ChannelPullTest, AnHonestChildsBytesGrowEmptyStorage) {
  std::string storage;
  CommandResult result = RunChild("honest", &storage);
  if (result.channel_refused)
    GTEST_SKIP() << "this kernel refuses process_vm_readv: " << result.channel_error;
  EXPECT_EQ(result.channel_error, "");
  ASSERT_EQ(result.channel_bytes.size(), 4 + (size_t{20} << 20) + 4);
  EXPECT_TRUE(result.channel_bytes.compare(4, size_t{20} << 20, Pattern(size_t{20} << 20)) == 0);
}

TEST(ChannelPullTest, MemoryTheChildDoesNotHaveBreaksTheChannel) {
  CommandResult result = RunChild("bad_address");
  if (result.channel_refused)
    GTEST_SKIP() << "this kernel refuses process_vm_readv: " << result.channel_error;
  EXPECT_NE(result.channel_error, "");
  EXPECT_EQ(result.channel_bytes, "HEAD");  // ends at the last whole record
  EXPECT_EQ(result.exit_code, 21);          // the parent stopped reading: no ack came
}

TEST(ChannelPullTest, AnUnknownRecordBreaksTheChannel) {
  CommandResult result = RunChild("bad_record");
  EXPECT_NE(result.channel_error.find("unknown kind"), std::string::npos) << result.channel_error;
  EXPECT_FALSE(result.channel_refused);
  EXPECT_EQ(result.channel_bytes, "HEAD");
}

TEST(ChannelPullTest, BytesPastTheBoundAreDroppedButAcknowledged) {
  CommandResult result = RunChild("oversized", nullptr, size_t{1} << 20);
  if (result.channel_refused)
    GTEST_SKIP() << "this kernel refuses process_vm_readv: " << result.channel_error;
  EXPECT_EQ(result.exit_code, 0) << result.stderr_text;
  EXPECT_TRUE(result.channel_truncated);
  EXPECT_EQ(result.channel_error, "");
  ASSERT_EQ(result.channel_bytes.size(), size_t{1} << 20);
  EXPECT_TRUE(result.channel_bytes == Pattern(size_t{20} << 20).substr(0, size_t{1} << 20));
}

// A record naming far more than the bound (2^62 bytes) ends at once: what
// does not fit is dropped without being stepped through, and acknowledged.
TEST(ChannelPullTest, ARecordFarPastTheBoundEndsAtOnce) {
  std::string source = Pattern(size_t{1} << 16);
  std::string sink;
  PullReceiver receiver(getpid(), sink, source.size(), -1, 2);
  std::string record = EncodePullRecord(source.data(), uint64_t{1} << 62);
  receiver.Consume(std::span<const char>(record.data(), record.size()));
  if (receiver.failure() == PullFailure::kEnvironment) GTEST_SKIP() << receiver.failure_message();
  EXPECT_EQ(receiver.failure(), PullFailure::kNone) << receiver.failure_message();
  EXPECT_TRUE(receiver.truncated());
  ASSERT_EQ(receiver.filled(), source.size());
  EXPECT_EQ(sink.substr(0, receiver.filled()), source);
}

TEST(ChannelPullTest, PullFromProcessCopiesThisProcessesMemoryOnSeveralThreads) {
  std::string source = Pattern(size_t{9} << 20);
  std::vector<std::byte> destination(source.size());
  Status pulled = PullFromProcess(getpid(), reinterpret_cast<uintptr_t>(source.data()), source.size(),
                                  destination.data(), 4);
  if (pulled.kind() == ErrorKind::kUnavailable) GTEST_SKIP() << pulled.message();
  ASSERT_TRUE(pulled.ok()) << pulled.message();
  EXPECT_EQ(std::memcmp(destination.data(), source.data(), source.size()), 0);
}

}  // namespace
}  // namespace kopt
