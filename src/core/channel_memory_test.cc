// Channel memory with real processes: an honest writer's bytes arrive sealed;
// a writer that keeps a writable mapping, seals the memory itself or grows
// it past the limit is caught; nothing can write after the seal.
#include "core/channel_memory.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include "core/subprocess.h"

namespace kopt {
namespace {

std::string Text(const SealedBytes& sealed, size_t bytes) {
  return std::string(reinterpret_cast<const char*>(sealed.bytes().data()), bytes);
}

ChannelMemory Create(size_t bytes) {
  Result<ChannelMemory> memory = ChannelMemory::Create(bytes);
  EXPECT_TRUE(memory.ok()) << memory.status().message();
  return memory.ok() ? std::move(memory).value() : ChannelMemory();
}

// Runs `script` under /bin/sh with the memory at descriptor 3 (as kopt-runner gets it).
CommandResult RunWithMemory(const std::string& script, const ChannelMemory& memory) {
  CommandSpec spec{{"/bin/sh", "-c", script}};
  spec.channel_fd = 3;
  spec.channel_memory_fd = memory.descriptor();
  spec.timeout_seconds = 20;
  Result<CommandResult> result = MakeSystemCommandRunner()->Run(spec);
  EXPECT_TRUE(result.ok()) << result.status().message();
  return result.ok() ? std::move(result).value() : CommandResult{};
}

TEST(ChannelMemoryTest, AnHonestChildsBytesArriveSealedAndZerosAfterThem) {
  ChannelMemory memory = Create(1 << 20);
  CommandResult result = RunWithMemory("printf 'KOPTOUT1 hello' >&3", memory);
  EXPECT_EQ(result.exit_code, 0) << result.stderr_text;
  EXPECT_TRUE(result.channel_bytes.empty());  // nothing crossed a pipe
  Result<std::shared_ptr<const SealedBytes>> sealed = memory.Seal(size_t{1} << 30);
  ASSERT_TRUE(sealed.ok()) << sealed.status().message();
  ASSERT_EQ((*sealed)->bytes().size(), size_t{1} << 20);
  EXPECT_EQ(Text(**sealed, 14), "KOPTOUT1 hello");
  EXPECT_EQ((*sealed)->bytes()[14], std::byte{0});
  EXPECT_EQ(memory.descriptor(), -1);  // closed by Seal
}

TEST(ChannelMemoryTest, NothingCanWriteAfterTheSeal) {
  ChannelMemory memory = Create(4096);
  int spare = dup(memory.descriptor());  // as a lingering grandchild would hold it
  ASSERT_GE(spare, 0);
  ASSERT_EQ(pwrite(spare, "before", 6, 0), 6);
  Result<std::shared_ptr<const SealedBytes>> sealed = memory.Seal(1 << 20);
  ASSERT_TRUE(sealed.ok()) << sealed.status().message();
  EXPECT_EQ(pwrite(spare, "after!", 6, 0), -1);
  EXPECT_EQ(errno, EPERM);
  EXPECT_EQ(mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, spare, 0), MAP_FAILED);
  EXPECT_NE(ftruncate(spare, 0), 0);
  EXPECT_NE(ftruncate(spare, 1 << 20), 0);
  EXPECT_NE(fcntl(spare, F_ADD_SEALS, 0), 0) << "F_SEAL_SEAL";  // nothing can be unsealed or re-sealed
  EXPECT_EQ(Text(**sealed, 6), "before");
  close(spare);
}

TEST(ChannelMemoryTest, AGrandchildKeepingAWritableMappingIsCaught) {
  ChannelMemory memory = Create(4096);
  std::string ready = ::testing::TempDir() + "/kopt_channel_memory_grandchild." + std::to_string(getpid());
  std::remove(ready.c_str());
  // The child starts a grandchild in its own session (out of the child's
  // process group) that maps the memory writable, says so and stays; the
  // child exits as soon as the mapping is there.
  CommandResult result = RunWithMemory(
      "setsid python3 -c 'import mmap, os, sys, time\n"
      "m = mmap.mmap(3, 4096); m[0:5] = b\"early\"\n"
      "open(sys.argv[1] + \".tmp\", \"w\").write(str(os.getpid())); os.rename(sys.argv[1] + \".tmp\", "
      "sys.argv[1])\n"
      "time.sleep(30)' " +
          ready +
          " </dev/null >/dev/null 2>&1 &\n"
          "while [ ! -e " +
          ready + " ]; do sleep 0.05; done",
      memory);
  EXPECT_EQ(result.exit_code, 0) << result.stderr_text;
  Result<std::shared_ptr<const SealedBytes>> sealed = memory.Seal(1 << 20);
  std::ifstream pid_file(ready);
  pid_t grandchild = 0;
  pid_file >> grandchild;
  if (grandchild > 0) kill(grandchild, SIGKILL);
  std::remove(ready.c_str());
  ASSERT_FALSE(sealed.ok());
  EXPECT_NE(sealed.status().message().find("writable mapping"), std::string::npos)
      << sealed.status().message();
}

TEST(ChannelMemoryTest, AMappingTheWriterDroppedBeforeItEndedIsFine) {
  ChannelMemory memory = Create(4096);
  CommandResult result = RunWithMemory(
      "python3 -c 'import mmap; m = mmap.mmap(3, 4096); m[0:6] = b\"mapped\"; m.close()'", memory);
  EXPECT_EQ(result.exit_code, 0) << result.stderr_text;
  Result<std::shared_ptr<const SealedBytes>> sealed = memory.Seal(1 << 20);
  ASSERT_TRUE(sealed.ok()) << sealed.status().message();
  EXPECT_EQ(Text(**sealed, 6), "mapped");
}

TEST(ChannelMemoryTest, AWriterThatSealsItFirstIsCaught) {
  ChannelMemory memory = Create(4096);
  ASSERT_EQ(fcntl(memory.descriptor(), F_ADD_SEALS, F_SEAL_SEAL), 0);  // what a hostile child can do
  Result<std::shared_ptr<const SealedBytes>> sealed = memory.Seal(1 << 20);
  ASSERT_FALSE(sealed.ok());
  EXPECT_NE(sealed.status().message().find("F_SEAL_SEAL"), std::string::npos) << sealed.status().message();
}

TEST(ChannelMemoryTest, MemoryGrownPastTheLimitIsCaught) {
  ChannelMemory memory = Create(4096);
  ASSERT_EQ(ftruncate(memory.descriptor(), 1 << 20), 0);
  Result<std::shared_ptr<const SealedBytes>> sealed = memory.Seal(65536);
  ASSERT_FALSE(sealed.ok());
  EXPECT_NE(sealed.status().message().find("grown to 1048576 bytes"), std::string::npos)
      << sealed.status().message();
}

TEST(ChannelMemoryTest, CreationCanBeCancelledAndZeroBytesIsInvalid) {
  std::atomic<bool> cancel{true};
  Result<ChannelMemory> cancelled = ChannelMemory::Create(1 << 20, &cancel);
  ASSERT_FALSE(cancelled.ok());
  EXPECT_EQ(cancelled.status().kind(), ErrorKind::kUnavailable);
  EXPECT_FALSE(ChannelMemory::Create(0).ok());
}

}  // namespace
}  // namespace kopt
