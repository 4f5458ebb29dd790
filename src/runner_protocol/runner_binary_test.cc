// Runs the kopt-runner binary on bad requests (no GPU needed: the request is
// refused before any CUDA call). The binary is found through $KOPT_RUNNER, or
// beside this test binary's build tree (<build>/tests/kopt_tests ->
// <build>/src/kopt-runner); the tests skip when it was not built (no CUDA
// toolkit).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/subprocess.h"

namespace kopt {
namespace {

std::string RunnerPath() {
  if (const char* from_environment = std::getenv("KOPT_RUNNER")) return from_environment;
  std::error_code error;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return "";
  std::filesystem::path candidate = self.parent_path().parent_path() / "src" / "kopt-runner";
  return std::filesystem::exists(candidate) ? candidate.string() : "";
}

class RunnerBinary : public ::testing::Test {
 protected:
  void SetUp() override {
    runner_ = RunnerPath();
    if (runner_.empty())
      GTEST_SKIP() << "kopt-runner not built (no CUDA toolkit); set KOPT_RUNNER to test it";
    directory_ = std::filesystem::temp_directory_path() / ("kopt_runner_test_" + std::to_string(getpid()));
    std::filesystem::create_directories(directory_);
  }
  void TearDown() override {
    std::error_code error;
    std::filesystem::remove_all(directory_, error);
  }
  CommandResult RunOn(const std::string& request_text,
                      std::vector<std::pair<std::string, std::string>> environment = {}) {
    std::string path = (directory_ / "request.json").string();
    std::ofstream(path) << request_text;
    CommandSpec spec;
    spec.argv = {runner_, path};
    spec.environment = std::move(environment);
    spec.timeout_seconds = 60;
    Result<CommandResult> result = MakeSystemCommandRunner()->Run(spec);
    EXPECT_TRUE(result.ok()) << result.status().message();
    return result.ok() ? *result : CommandResult{};
  }
  std::string runner_;
  std::filesystem::path directory_;
};

const char* kRequestWithBadDtype = R"({"schema": "kopt.runner.request/1",
  "task": {"name": "t", "entry": "f",
           "tensors": [{"name": "x", "dtype": "f32", "shape": [4], "role": "input", "init": {"kind": "ones"}},
                       {"name": "y", "dtype": "fp32", "shape": [4], "role": "output", "init": {"kind": "none"}}],
           "scalars": []},
  "candidate_library": "/nonexistent/c.so", "reference_library": "/nonexistent/r.so",
  "seeds": [1], "check": true, "timing": null, "energy": null, "device": 0})";

TEST_F(RunnerBinary, BadRequestExitsTwoNamingTheField) {
  CommandResult result = RunOn(kRequestWithBadDtype);
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.stderr_text.find("task.tensors[1].dtype: \"fp32\" is not a dtype; expected one of"),
            std::string::npos)
      << result.stderr_text;
  EXPECT_EQ(result.stdout_text, "");  // no events for a bad request
}

TEST_F(RunnerBinary, InvalidJsonAndMissingFileExitTwo) {
  CommandResult invalid = RunOn("{\"schema\": ");
  EXPECT_EQ(invalid.exit_code, 2);
  EXPECT_NE(invalid.stderr_text.find("not valid JSON"), std::string::npos) << invalid.stderr_text;
  CommandSpec spec;
  spec.argv = {runner_, (directory_ / "absent.json").string()};
  Result<CommandResult> missing = MakeSystemCommandRunner()->Run(spec);
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(missing->exit_code, 2);
  EXPECT_NE(missing->stderr_text.find("absent.json"), std::string::npos) << missing->stderr_text;
}

TEST_F(RunnerBinary, NoVisibleDeviceIsDeviceUnavailableExitFour) {
  std::string request = kRequestWithBadDtype;
  request.replace(request.find("\"fp32\""), 6, "\"f32\"");
  // No device visible: the same on a GPU machine and on one without a driver.
  CommandResult result = RunOn(request, {{"CUDA_VISIBLE_DEVICES", ""}, {"KOPT_RUN_TOKEN", "feedc0de"}});
  EXPECT_EQ(result.exit_code, 4) << result.stdout_text << result.stderr_text;
  std::vector<std::string> lines;
  for (size_t start = 0; start < result.stdout_text.size();) {
    size_t end = result.stdout_text.find('\n', start);
    lines.push_back(result.stdout_text.substr(start, end - start));
    start = end == std::string::npos ? end : end + 1;
  }
  ASSERT_EQ(lines.size(), 2u) << result.stdout_text;
  nlohmann::json failure = nlohmann::json::parse(lines[0]);
  EXPECT_EQ(failure["event"], "failure");
  EXPECT_EQ(failure["kind"], "device_unavailable");
  EXPECT_FALSE(failure["message"].get<std::string>().empty());
  nlohmann::json done = nlohmann::json::parse(lines[1]);
  // Every event carries the seconds since the runner started, in order.
  ASSERT_TRUE(failure["elapsed_s"].is_number()) << lines[0];
  EXPECT_GE(done["elapsed_s"].get<double>(), failure["elapsed_s"].get<double>());
  EXPECT_GE(failure["elapsed_s"].get<double>(), 0.0);
  done.erase("elapsed_s");
  // ... and is bound to the run: the parent's token and its sequence number (issue 12).
  EXPECT_EQ(failure["seq"], 0);
  EXPECT_EQ(failure["token"], "feedc0de");
  EXPECT_EQ(done, nlohmann::json::parse(R"({"event": "done", "ok": false, "seq": 1, "token": "feedc0de"})"));
}

TEST_F(RunnerBinary, ABadSandboxModeExitsTwoNamingTheVariable) {
  std::string request = kRequestWithBadDtype;
  request.replace(request.find("\"fp32\""), 6, "\"f32\"");
  CommandResult result = RunOn(request, {{"KOPT_RUNNER_SANDBOX", "partly"}});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.stderr_text.find("KOPT_RUNNER_SANDBOX"), std::string::npos) << result.stderr_text;
}

// The runner's relocations are all resolved at start and read-only afterwards
// (full RELRO, BIND_NOW), so candidate code finds no writable function pointer
// of the runner (docs/harness-protocol.md §3 "The runtime sandbox").
TEST_F(RunnerBinary, IsLinkedWithFullRelroAndImmediateBinding) {
  CommandSpec spec;
  spec.argv = {"readelf", "--wide", "--dynamic", "--program-headers", runner_};
  spec.timeout_seconds = 60;
  Result<CommandResult> result = MakeSystemCommandRunner()->Run(spec);
  if (!result.ok() || result->exit_code != 0) GTEST_SKIP() << "readelf (binutils) is not available";
  const std::string& text = result->stdout_text;
  EXPECT_NE(text.find("GNU_RELRO"), std::string::npos) << text;
  auto line_with = [&text](const std::string& tag) {
    size_t at = text.find(tag);
    if (at == std::string::npos) return std::string();
    return text.substr(at, text.find('\n', at) - at);
  };
  EXPECT_NE(line_with("(FLAGS)").find("BIND_NOW"), std::string::npos) << text;
  EXPECT_NE(line_with("(FLAGS_1)").find(" NOW"), std::string::npos) << text;
}

}  // namespace
}  // namespace kopt
