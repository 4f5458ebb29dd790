#include "agents/scripted_generator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "core/file_io.h"

namespace kopt::agents {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class ScriptedGeneratorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = fs::temp_directory_path() /
                 ("kopt_scripted_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(directory_);
    fs::create_directories(directory_);
  }
  void TearDown() override { fs::remove_all(directory_); }
  void Write(const std::string& name, const std::string& text) {
    ASSERT_TRUE(WriteFileAtomically((directory_ / name).string(), text).ok());
  }
  GenerationRequest Request(GenerationMode mode) {
    GenerationRequest request;
    request.mode = mode;
    return request;
  }
  fs::path directory_;
};

TEST_F(ScriptedGeneratorTest, WithoutAScriptEveryCuFileIsServedInNameOrder) {
  Write("b.cu", "extern \"C\" void f() {}\n");
  Write("a.cu", "extern \"C\" void f() { /* a */ }\n");
  Write("notes.txt", "ignored");
  Result<std::vector<ScriptedAnswer>> answers = LoadScript(directory_.string());
  ASSERT_TRUE(answers.ok()) << answers.status().message();
  ScriptedGenerator generator(*answers, "f");
  Result<GeneratedCandidate> first = generator.Generate(Request(GenerationMode::kRepair));
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->outcome, GenerationOutcome::kSource);
  EXPECT_THAT(first->source, HasSubstr("/* a */"));
  EXPECT_EQ(first->reason, "scripted: a.cu");
  Result<GeneratedCandidate> second = generator.Generate(Request(GenerationMode::kOptimize));
  ASSERT_TRUE(second.ok());
  EXPECT_THAT(second->reason, HasSubstr("b.cu"));
  Result<GeneratedCandidate> third = generator.Generate(Request(GenerationMode::kOptimize));
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->outcome, GenerationOutcome::kExhausted);
  EXPECT_THAT(third->message, HasSubstr("optimize"));
}

TEST_F(ScriptedGeneratorTest, AManifestServesAnswersByMode) {
  Write("fix.cu", "extern \"C\" void f() { /* fix */ }\n");
  Write("fast.cu", "extern \"C\" void f() { /* fast */ }\n");
  Write("prose.md", "I would rather not write code today.");
  Write("script.toml",
        "[[answer]]\nmode = \"optimize\"\nfile = \"fast.cu\"\nreason = \"vectorized\"\n\n"
        "[[answer]]\nmode = \"repair\"\nfile = \"fix.cu\"\n\n"
        "[[answer]]\nresponse = \"prose.md\"\n");
  Result<std::vector<ScriptedAnswer>> answers = LoadScript(directory_.string());
  ASSERT_TRUE(answers.ok()) << answers.status().message();
  ScriptedGenerator generator(*answers, "f");
  Result<GeneratedCandidate> repair = generator.Generate(Request(GenerationMode::kRepair));
  ASSERT_TRUE(repair.ok());
  EXPECT_THAT(repair->source, HasSubstr("/* fix */"));
  Result<GeneratedCandidate> optimize = generator.Generate(Request(GenerationMode::kOptimize));
  ASSERT_TRUE(optimize.ok());
  EXPECT_EQ(optimize->reason, "vectorized");
  Result<GeneratedCandidate> prose = generator.Generate(Request(GenerationMode::kOptimize));
  ASSERT_TRUE(prose.ok());
  EXPECT_EQ(prose->outcome, GenerationOutcome::kNoCode);
  EXPECT_THAT(prose->message, HasSubstr("prose.md"));
  EXPECT_EQ(generator.remaining(), 0u);
}

TEST_F(ScriptedGeneratorTest, MarkServedSkipsWhatAnEarlierRunServed) {
  Write("a.cu", "extern \"C\" void f() { /* a */ }\n");
  Write("b.cu", "extern \"C\" void f() { /* b */ }\n");
  Result<std::vector<ScriptedAnswer>> answers = LoadScript(directory_.string());
  ASSERT_TRUE(answers.ok());
  ScriptedGenerator generator(*answers, "f");
  generator.MarkServed((directory_ / "a.cu").string());
  Result<GeneratedCandidate> next = generator.Generate(Request(GenerationMode::kInitial));
  ASSERT_TRUE(next.ok());
  EXPECT_THAT(next->source, HasSubstr("/* b */"));
}

TEST_F(ScriptedGeneratorTest, ABadScriptNamesTheFileLineAndKey) {
  Write("script.toml", "[[answer]]\nmode = \"optimise\"\nfile = \"x.cu\"\n");
  Result<std::vector<ScriptedAnswer>> bad_mode = LoadScript(directory_.string());
  ASSERT_FALSE(bad_mode.ok());
  EXPECT_THAT(bad_mode.status().message(), HasSubstr("script.toml:1: answer.mode: \"optimise\" is not a mode"));

  Write("script.toml", "[[answer]]\nfile = \"x.cu\"\nresponse = \"y.md\"\n");
  Result<std::vector<ScriptedAnswer>> both = LoadScript(directory_.string());
  ASSERT_FALSE(both.ok());
  EXPECT_THAT(both.status().message(), HasSubstr("exactly one of file"));

  Write("script.toml", "[[answer]]\nfiles = \"x.cu\"\n");
  Result<std::vector<ScriptedAnswer>> unknown = LoadScript(directory_.string());
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(), HasSubstr("answer.files: unknown key"));

  Write("script.toml", "[[answer]]\nfile = \"missing.cu\"\n");
  Result<std::vector<ScriptedAnswer>> missing = LoadScript(directory_.string());
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("missing.cu"));

  Write("script.toml", "[[answer]\n");
  Result<std::vector<ScriptedAnswer>> syntax = LoadScript(directory_.string());
  ASSERT_FALSE(syntax.ok());
  EXPECT_THAT(syntax.status().message(), HasSubstr("script.toml:1"));
}

TEST_F(ScriptedGeneratorTest, AnEmptyOrMissingDirectoryIsBadInput) {
  Result<std::vector<ScriptedAnswer>> empty = LoadScript(directory_.string());
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().kind(), ErrorKind::kInvalidInput);
  Result<std::vector<ScriptedAnswer>> missing = LoadScript((directory_ / "nope").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().kind(), ErrorKind::kNotFound);
}

}  // namespace
}  // namespace kopt::agents
