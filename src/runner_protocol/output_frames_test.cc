#include "runner_protocol/output_frames.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <memory>
#include <vector>

#include "core/channel_memory.h"

namespace kopt {
namespace {

std::vector<std::byte> Bytes(std::initializer_list<int> values) {
  std::vector<std::byte> bytes;
  for (int value : values) bytes.push_back(static_cast<std::byte>(value));
  return bytes;
}

TEST(OutputFramesTest, ParsesWhatWasEncoded) {
  std::vector<std::byte> first = Bytes({1, 2, 3}), second = Bytes({});
  std::string channel = EncodeFrame({"check", 0, "z"}, first) + EncodeFrame({"timed", 1, "z"}, second);
  Result<OutputFrames> frames = OutputFrames::Parse(channel);
  ASSERT_TRUE(frames.ok()) << frames.status().message();
  EXPECT_EQ(frames->size(), 2u);
  auto found = frames->Find({"check", 0, "z"});
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(std::vector<std::byte>(found->begin(), found->end()), first);
  EXPECT_TRUE(frames->Find({"timed", 1, "z"})->empty());
  EXPECT_FALSE(frames->Find({"check", 1, "z"}).has_value());
  OutputFrames moved = std::move(frames).value();  // payload views survive a move
  EXPECT_EQ(moved.Find({"check", 0, "z"})->size(), 3u);
  EXPECT_TRUE(OutputFrames::Parse("").ok());
  std::string released = moved.ReleaseChannel();
  EXPECT_EQ(released, channel) << "the channel's memory, for the next child";
  EXPECT_EQ(moved.size(), 0u);
  EXPECT_FALSE(moved.Find({"check", 0, "z"}).has_value());
}

TEST(OutputFramesTest, RejectsGarbageTruncationOversizedHeadersAndDuplicates) {
  std::vector<std::byte> payload = Bytes({9, 9});
  std::string frame = EncodeFrame({"check", 0, "z"}, payload);
  EXPECT_FALSE(OutputFrames::Parse("hello").ok());
  EXPECT_FALSE(OutputFrames::Parse(frame.substr(0, frame.size() - 1)).ok());
  // A child killed while writing its last frame: the frames before it count.
  Result<OutputFrames> cut = OutputFrames::Parse(frame + frame.substr(0, 5), true);
  ASSERT_TRUE(cut.ok()) << cut.status().message();
  EXPECT_EQ(cut->size(), 1u);
  EXPECT_TRUE(OutputFrames::Parse(frame + EncodeFrame({"check", 1, "z"}, payload).substr(0, 30), true).ok());
  EXPECT_FALSE(OutputFrames::Parse(frame + "garbage", true).ok());
  Result<OutputFrames> twice = OutputFrames::Parse(frame + frame);
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("twice"), std::string::npos);
  std::string huge = frame;
  huge[8] = static_cast<char>(0xff);  // header length 255+ with a short header
  huge[9] = static_cast<char>(0xff);
  EXPECT_FALSE(OutputFrames::Parse(huge).ok());
  std::string bad_header =
      std::string(kFrameMagic) + std::string("\x02\x00\x00\x00", 4) + "{}" + std::string(8, '\0');
  EXPECT_FALSE(OutputFrames::Parse(bad_header).ok());
}

// Channel memory: what a MemoryFrameWriter wrote, sealed and parsed in place.
class MemoryFramesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<ChannelMemory> created = ChannelMemory::Create(1 << 16);
    ASSERT_TRUE(created.ok()) << created.status().message();
    memory_ = std::move(created).value();
  }
  Result<OutputFrames> SealAndParse() {
    Result<std::shared_ptr<const SealedBytes>> sealed = memory_.Seal(1 << 20);
    if (!sealed.ok()) return sealed.status();
    return OutputFrames::ParseMemory(std::move(sealed).value());
  }
  ChannelMemory memory_;
};

TEST_F(MemoryFramesTest, ParsesWhatTheWriterWroteInPieces) {
  MemoryFrameWriter writer(memory_.descriptor());
  std::vector<std::byte> payload(1000);
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<std::byte>(i * 7 + 1);
  ASSERT_TRUE(writer.Begin({"check", 0, "y"}, payload.size()).ok());
  ASSERT_TRUE(writer.Write(std::span(payload).first(300)).ok());
  ASSERT_TRUE(writer.Write(std::span(payload).subspan(300)).ok());
  ASSERT_TRUE(writer.Begin({"timed", 1, "y"}, 0).ok());  // an empty frame is whole at once
  ASSERT_TRUE(writer.Begin({"fresh", 0, "y"}, 2).ok());
  ASSERT_TRUE(writer.Write(Bytes({5, 6})).ok());
  EXPECT_FALSE(writer.Write(Bytes({7})).ok()) << "more than announced";
  Result<OutputFrames> frames = SealAndParse();
  ASSERT_TRUE(frames.ok()) << frames.status().message();
  EXPECT_EQ(frames->size(), 3u);
  auto check = frames->Find({"check", 0, "y"});
  ASSERT_TRUE(check.has_value());
  EXPECT_EQ(std::vector<std::byte>(check->begin(), check->end()), payload);
  EXPECT_TRUE(frames->Find({"timed", 1, "y"})->empty());
  EXPECT_EQ(frames->Find({"fresh", 0, "y"})->size(), 2u);
  OutputFrames moved = std::move(frames).value();  // the mapping lives as long as the frames
  EXPECT_EQ((*moved.Find({"check", 0, "y"}))[999], payload[999]);
  EXPECT_EQ(moved.ReleaseChannel(), "");
}

TEST_F(MemoryFramesTest, AFrameCutOffBeforeItsHeadIsNotThereAndTheOnesBeforeItAre) {
  MemoryFrameWriter writer(memory_.descriptor());
  ASSERT_TRUE(writer.Begin({"check", 0, "y"}, 4).ok());
  ASSERT_TRUE(writer.Write(Bytes({1, 2, 3, 4})).ok());
  ASSERT_TRUE(writer.Begin({"check", 1, "y"}, 4).ok());
  ASSERT_TRUE(writer.Write(Bytes({1, 2})).ok());  // the child died here: no head yet
  EXPECT_FALSE(writer.Begin({"check", 2, "y"}, 4).ok()) << "the previous frame is not complete";
  Result<OutputFrames> frames = SealAndParse();
  ASSERT_TRUE(frames.ok()) << frames.status().message();
  EXPECT_EQ(frames->size(), 1u);
  EXPECT_TRUE(frames->Find({"check", 0, "y"}).has_value());
  EXPECT_FALSE(frames->Find({"check", 1, "y"}).has_value());
}

TEST_F(MemoryFramesTest, AHeadWhosePayloadRunsPastTheMemoryIsNamed) {
  std::string head = EncodeFrameHead({"check", 3, "out"}, 1 << 20);  // 1 MiB promised, 64 KiB there
  ASSERT_EQ(pwrite(memory_.descriptor(), head.data(), head.size(), 0), static_cast<ssize_t>(head.size()));
  Result<OutputFrames> frames = SealAndParse();
  ASSERT_FALSE(frames.ok());
  EXPECT_NE(frames.status().message().find("frame (check, 3, out): payload of 1048576 bytes past the end"),
            std::string::npos)
      << frames.status().message();
}

TEST_F(MemoryFramesTest, GarbageAfterTheFramesIsRejected) {
  MemoryFrameWriter writer(memory_.descriptor());
  ASSERT_TRUE(writer.Begin({"check", 0, "y"}, 1).ok());
  ASSERT_TRUE(writer.Write(Bytes({1})).ok());
  ASSERT_EQ(pwrite(memory_.descriptor(), "junk", 4, writer.end_offset() + 2), 4);
  Result<OutputFrames> frames = SealAndParse();
  ASSERT_FALSE(frames.ok());
  EXPECT_NE(frames.status().message().find("output channel memory: not a frame"), std::string::npos)
      << frames.status().message();
}

TEST_F(MemoryFramesTest, AFrameThatDoesNotFitGrowsTheMemory) {
  MemoryFrameWriter writer(memory_.descriptor());
  std::vector<std::byte> payload(100000, std::byte{3});  // more than the 64 KiB created
  ASSERT_TRUE(writer.Begin({"check", 0, "y"}, payload.size()).ok());
  ASSERT_TRUE(writer.Write(payload).ok());
  Result<OutputFrames> frames = SealAndParse();
  ASSERT_TRUE(frames.ok()) << frames.status().message();
  EXPECT_EQ(frames->Find({"check", 0, "y"})->size(), payload.size());
}

}  // namespace
}  // namespace kopt
