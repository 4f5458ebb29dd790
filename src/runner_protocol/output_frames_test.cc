#include "runner_protocol/output_frames.h"

#include <gtest/gtest.h>

#include <vector>

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

}  // namespace
}  // namespace kopt
