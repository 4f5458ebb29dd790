#include "agents/prompt_template.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace kopt::agents {
namespace {

const std::string kRepositoryPrompts = std::string(KOPT_FIXTURE_DIR) + "/../../prompts";

// A fresh directory under the system temp dir, removed at destruction.
class TemporaryDirectory {
 public:
  TemporaryDirectory() {
    static int counter = 0;
    path_ = std::filesystem::temp_directory_path() /
            ("kopt_prompt_test_" + std::to_string(getpid()) + "_" + std::to_string(counter++));
    std::filesystem::create_directories(path_);
  }
  ~TemporaryDirectory() {
    std::error_code error;
    std::filesystem::remove_all(path_, error);
  }
  std::string path() const { return path_.string(); }
  void Write(const std::string& relative, const std::string& text) const {
    std::filesystem::create_directories((path_ / relative).parent_path());
    std::ofstream(path_ / relative, std::ios::binary) << text;
  }

 private:
  std::filesystem::path path_;
};

TEST(PromptTemplate, ParsesHeaderBodyAndPlaceholders) {
  auto parsed = ParsePromptTemplate(
      "<!-- kopt-prompt: id=group/name version=3 -->\nHello {{who}}, {{what}} and {{who}} again.\n", "t.md");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->id, "group/name");
  EXPECT_EQ(parsed->version, 3);
  EXPECT_EQ(parsed->body, "Hello {{who}}, {{what}} and {{who}} again.\n");
  EXPECT_EQ(parsed->placeholders, (std::vector<std::string>{"who", "what"}));
  EXPECT_EQ(parsed->template_sha256.size(), 64u);
}

TEST(PromptTemplate, RejectsBadHeaders) {
  for (const char* text :
       {"no header\nbody", "<!-- kopt-prompt: id=a/b -->\n", "<!-- kopt-prompt: version=1 -->\n",
        "<!-- kopt-prompt: id=a/b version=0 -->\n", "<!-- kopt-prompt: id=a/b version=x -->\n",
        "<!-- kopt-prompt: id=a/b version=1 color=red -->\n", ""}) {
    auto parsed = ParsePromptTemplate(text, "bad.md");
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_NE(parsed.status().message().find("bad.md:1"), std::string::npos) << parsed.status().message();
  }
}

TEST(PromptTemplate, HeaderIdMustMatchFile) {
  auto parsed = ParsePromptTemplate("<!-- kopt-prompt: id=a/b version=1 -->\n", "x.md", "a/c");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("'a/b'"), std::string::npos);
}

TEST(PromptTemplate, MalformedPlaceholderNamesTheLine) {
  auto parsed = ParsePromptTemplate("<!-- kopt-prompt: id=a/b version=1 -->\nfine\n{{ spaced }}\n", "m.md");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("m.md:3"), std::string::npos) << parsed.status().message();
}

TEST(PromptTemplate, RendersInOnePassWithoutRescanningValues) {
  auto parsed = ParsePromptTemplate("<!-- kopt-prompt: id=a/b version=2 -->\n[{{code}}] {{n}}", "r.md");
  ASSERT_TRUE(parsed.ok());
  auto rendered = RenderPrompt(*parsed, {{"code", "int a[2][2] = {{1, 2}, {3, 4}}; {{n}}"}, {"n", "7"}});
  ASSERT_TRUE(rendered.ok()) << rendered.status().message();
  EXPECT_EQ(rendered->text, "[int a[2][2] = {{1, 2}, {3, 4}}; {{n}}] 7");
  EXPECT_EQ(rendered->record.id, "a/b");
  EXPECT_EQ(rendered->record.version, 2);
  EXPECT_EQ(rendered->record.text_sha256, Sha256Hex(rendered->text));
  EXPECT_EQ(rendered->record.template_sha256, parsed->template_sha256);
}

TEST(PromptTemplate, UnfilledAndUnknownPlaceholdersAreErrorsNamingThem) {
  auto parsed = ParsePromptTemplate("<!-- kopt-prompt: id=a/b version=1 -->\n{{x}} {{y}}", "u.md");
  ASSERT_TRUE(parsed.ok());
  auto unfilled = RenderPrompt(*parsed, {{"x", "1"}});
  ASSERT_FALSE(unfilled.ok());
  EXPECT_NE(unfilled.status().message().find("a/b"), std::string::npos);
  EXPECT_NE(unfilled.status().message().find("{{y}}"), std::string::npos);
  auto unknown = RenderPrompt(*parsed, {{"x", "1"}, {"y", "2"}, {"z", "3"}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("{{z}}"), std::string::npos);
}

TEST(PromptTemplate, Sha256KnownAnswer) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(PromptDirectory, PrefersEnvironmentThenInstalledThenSource) {
  TemporaryDirectory root;
  root.Write("share/kopt/prompts/a/b.md", "<!-- kopt-prompt: id=a/b version=1 -->\n");
  root.Write("bin/kopt", "");
  root.Write("src/prompts/a/b.md", "<!-- kopt-prompt: id=a/b version=1 -->\n");
  std::string installed = root.path() + "/share/kopt/prompts";
  std::string source = root.path() + "/src/prompts";

  auto from_environment = FindPromptDirectory({source, root.path() + "/bin/kopt", ""});
  ASSERT_TRUE(from_environment.ok());
  EXPECT_EQ(*from_environment, source);
  auto from_installed = FindPromptDirectory({"", root.path() + "/bin/kopt", source});
  ASSERT_TRUE(from_installed.ok());
  EXPECT_EQ(*from_installed, installed);
  auto from_source = FindPromptDirectory({"", "/nonexistent/bin/kopt", source});
  ASSERT_TRUE(from_source.ok());
  EXPECT_EQ(*from_source, source);

  auto missing_environment = FindPromptDirectory({root.path() + "/missing", "", source});
  ASSERT_FALSE(missing_environment.ok());
  EXPECT_NE(missing_environment.status().message().find("KOPT_PROMPT_DIR"), std::string::npos);
  auto none = FindPromptDirectory({"", "/nonexistent/bin/kopt", "/nonexistent/prompts"});
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("/nonexistent/prompts"), std::string::npos);
}

TEST(PromptDirectory, DefaultFindsTheRepositoryPrompts) {
  PromptDirectoryCandidates candidates = DefaultPromptDirectoryCandidates();
  candidates.environment_value.clear();
  candidates.executable_path.clear();
  auto found = FindPromptDirectory(candidates);
  ASSERT_TRUE(found.ok()) << found.status().message();
  EXPECT_TRUE(std::filesystem::exists(*found + "/programmer/contract.md")) << *found;
}

TEST(PromptDirectory, LoadAndListTemplates) {
  TemporaryDirectory root;
  root.Write("g/one.md", "<!-- kopt-prompt: id=g/one version=1 -->\n{{a}}");
  root.Write("g/two.md", "<!-- kopt-prompt: id=g/two version=4 -->\nno placeholders");
  root.Write("g/notes.txt", "ignored: not a template");
  auto loaded = LoadPromptTemplate(root.path(), "g/two");
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->version, 4);
  EXPECT_FALSE(LoadPromptTemplate(root.path(), "g/three").ok());
  EXPECT_FALSE(LoadPromptTemplate(root.path(), "../g/two").ok());

  auto listed = ListPromptTemplates(root.path());
  ASSERT_TRUE(listed.ok()) << listed.status().message();
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].id, "g/one");
  EXPECT_EQ((*listed)[1].id, "g/two");

  root.Write("g/wrong.md", "<!-- kopt-prompt: id=g/other version=1 -->\n");
  auto mismatched = ListPromptTemplates(root.path());
  ASSERT_FALSE(mismatched.ok());
  EXPECT_NE(mismatched.status().message().find("wrong.md"), std::string::npos);
}

TEST(PromptDirectory, EveryRepositoryTemplateParses) {
  auto listed = ListPromptTemplates(kRepositoryPrompts);
  ASSERT_TRUE(listed.ok()) << listed.status().message();
  std::vector<std::string> ids;
  for (const PromptTemplate& prompt : *listed) ids.push_back(prompt.id);
  for (const char* expected :
       {"programmer/contract", "programmer/generate_system", "programmer/generate_user",
        "programmer/repair_system", "programmer/repair_user", "programmer/optimize_system",
        "programmer/optimize_user", "programmer/tools", "programmer/kernelbench_problem",
        "programmer/reference_source", "hypotheses/system", "hypotheses/user"}) {
    EXPECT_NE(std::find(ids.begin(), ids.end(), expected), ids.end()) << expected;
  }
}

}  // namespace
}  // namespace kopt::agents
