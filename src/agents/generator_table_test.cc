#include "agents/generator_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "core/file_io.h"
#include "harness/task_spec.h"
#include "llm/chat.h"

namespace kopt::agents {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// Every row's name parses back to that row, and the row of its kind is the row itself.
TEST(GeneratorTableTest, EveryNameRoundTrips) {
  for (const GeneratorEntry& entry : GeneratorTable()) {
    Result<GeneratorKind> parsed = ParseGeneratorKind(entry.name);
    ASSERT_TRUE(parsed.ok()) << entry.name;
    EXPECT_EQ(*parsed, entry.kind);
    EXPECT_EQ(&GeneratorEntryOf(entry.kind), &entry);
    EXPECT_EQ(GeneratorKindName(entry.kind), entry.name);
  }
}

// The table holds every GeneratorKind value once, each row with a distinct
// name, a help line and a factory.
TEST(GeneratorTableTest, TheTableHoldsEveryKindOnce) {
  std::set<GeneratorKind> kinds;
  std::set<std::string_view> names;
  for (const GeneratorEntry& entry : GeneratorTable()) {
    kinds.insert(entry.kind);
    names.insert(entry.name);
    EXPECT_FALSE(entry.help.empty()) << entry.name;
    EXPECT_NE(entry.make, nullptr) << entry.name;
  }
  EXPECT_EQ(kinds.size(), GeneratorTable().size());
  EXPECT_EQ(names.size(), GeneratorTable().size());
  EXPECT_EQ(kinds.size(), 3u);  // GeneratorKind's values
  EXPECT_EQ(GeneratorEntryOf(GeneratorKind::kBuiltin).default_search, SearchPolicyKind::kGreedy);
  EXPECT_EQ(GeneratorEntryOf(GeneratorKind::kLlm).default_search, SearchPolicyKind::kMcts);
}

// The list --help shows and the error for an unknown name both name every row.
TEST(GeneratorTableTest, HelpAndErrorsListEveryRow) {
  EXPECT_EQ(GeneratorNameList(), "scripted, llm or builtin");
  Result<GeneratorKind> unknown = ParseGeneratorKind("gpt");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().kind(), ErrorKind::kInvalidInput);
  EXPECT_EQ(unknown.status().message(),
            "--generator: \"gpt\" is not a generator; expected scripted, llm or builtin");
  for (const GeneratorEntry& entry : GeneratorTable()) {
    EXPECT_THAT(GeneratorNameList(), HasSubstr(std::string(entry.name)));
    EXPECT_THAT(unknown.status().message(), HasSubstr(std::string(entry.name)));
  }
}

class GeneratorFactoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = fs::temp_directory_path() /
                 ("kopt_generator_table_" +
                  std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(directory_);
    fs::create_directories(directory_ / "task");
    task_.directory = (directory_ / "task").string();
    task_.entry = "f";
    inputs_.task = &task_;
    inputs_.open_client = [](std::string_view needed_by) -> Result<llm::ChatClient*> {
      return Unavailable(std::string(needed_by) + ": no client in this test");
    };
    inputs_.prompt_directory = []() -> Result<std::string> { return std::string("prompts"); };
  }
  void TearDown() override { fs::remove_all(directory_); }
  void Write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    ASSERT_TRUE(WriteFileAtomically(path.string(), text).ok());
  }
  fs::path directory_;
  TaskSpec task_;
  GeneratorInputs inputs_;
};

// Each row's factory makes a generator of its own kind from what it needs.
TEST_F(GeneratorFactoryTest, EveryFactoryMakesItsOwnKind) {
  Write(directory_ / "script" / "a.cu", "extern \"C\" void f() {}\n");
  inputs_.script_directory = (directory_ / "script").string();
  Write(directory_ / "task" / "tunable" / "k.cu",
        "// kopt:tune BLOCK values=64,128 role=block_size\n#ifndef BLOCK\n#define BLOCK 64\n#endif\n"
        "extern \"C\" void f() { (void)BLOCK; }\n");
  for (GeneratorKind kind : {GeneratorKind::kScripted, GeneratorKind::kBuiltin}) {
    Result<GeneratorParts> parts = MakeGenerator(kind, inputs_);
    ASSERT_TRUE(parts.ok()) << GeneratorKindName(kind) << ": " << parts.status().message();
    ASSERT_NE(parts->generator, nullptr);
    EXPECT_EQ(parts->generator->kind(), kind);
  }
}

// What a factory lacks is its error: no --script, no tunable candidate, no client.
TEST_F(GeneratorFactoryTest, AMissingInputIsTheFactorysError) {
  Result<GeneratorParts> scripted = MakeGenerator(GeneratorKind::kScripted, inputs_);
  ASSERT_FALSE(scripted.ok());
  EXPECT_THAT(scripted.status().message(), HasSubstr("--generator scripted needs --script DIR"));
  Result<GeneratorParts> builtin = MakeGenerator(GeneratorKind::kBuiltin, inputs_);
  ASSERT_FALSE(builtin.ok());
  EXPECT_THAT(builtin.status().message(), HasSubstr("no tunable candidate"));
  Result<GeneratorParts> llm = MakeGenerator(GeneratorKind::kLlm, inputs_);
  ASSERT_FALSE(llm.ok());
  EXPECT_EQ(llm.status().kind(), ErrorKind::kUnavailable);
  EXPECT_THAT(llm.status().message(), HasSubstr("--generator llm: no client in this test"));
}

}  // namespace
}  // namespace kopt::agents
