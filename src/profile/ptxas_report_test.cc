#include "profile/ptxas_report.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "fixture_reader.h"

namespace kopt {
namespace {

// The reference sample of ../shared/reference/ncu_sass_gpus.md §4 (CUDA 13.0).
constexpr const char* kCuda13Sample =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function '_Z1kPKfPfii' for 'sm_90'\n"
    "ptxas info    : Function properties for _Z1kPKfPfii\n"
    "    640 bytes stack frame, 824 bytes spill stores, 1664 bytes spill loads\n"
    "ptxas info    : Used 24 registers, used 1 barriers, 640 bytes cumulative stack size, 4096 bytes smem\n"
    "ptxas info    : Compile time = 54.317 ms\n";

TEST(PtxasReport, ParsesCuda13Fields) {
  auto report = ParsePtxasReport(kCuda13Sample, "k.log");
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(report->functions.size(), 1u);
  const PtxasFunctionReport& function = report->functions[0];
  EXPECT_EQ(function.mangled_name, "_Z1kPKfPfii");
  EXPECT_EQ(function.demangled_name, "k(float const*, float*, int, int)");
  EXPECT_EQ(function.architecture, "sm_90");
  EXPECT_EQ(function.registers, 24);
  EXPECT_EQ(function.barriers, 1);
  EXPECT_EQ(function.shared_memory_bytes, 4096);
  EXPECT_EQ(function.constant_memory_bytes, 0);
  EXPECT_EQ(function.stack_frame_bytes, 640);
  EXPECT_EQ(function.cumulative_stack_bytes, 640);
  EXPECT_EQ(function.spill_store_bytes, 824);
  EXPECT_EQ(function.spill_load_bytes, 1664);
  EXPECT_TRUE(function.HasSpills());
  EXPECT_EQ(report->global_memory_bytes, 0);
  EXPECT_TRUE(report->warnings.empty());
  EXPECT_EQ(FindPtxasFunction(*report, "k"), &function);
  EXPECT_EQ(FindPtxasFunction(*report, "k(const float *, float *, int, int)"), &function);
  EXPECT_EQ(FindPtxasFunction(*report, "_Z1kPKfPfii"), &function);
  EXPECT_EQ(FindPtxasFunction(*report, "other"), nullptr);
}

TEST(PtxasReport, OlderToolkitsWithCmemAndLmem) {
  auto report = ParsePtxasReport(ReadFixture("ptxas/legacy_hand_written.txt"), "legacy_hand_written.txt");
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(report->functions.size(), 2u);
  const PtxasFunctionReport& kernel = report->functions[0];
  EXPECT_EQ(kernel.architecture, "sm_70");
  EXPECT_EQ(kernel.registers, 48);
  EXPECT_EQ(kernel.shared_memory_bytes, 4096);
  EXPECT_EQ(kernel.constant_memory_bytes, 372);
  EXPECT_EQ(kernel.barriers, 0);
  const PtxasFunctionReport& old = report->functions[1];
  EXPECT_EQ(old.architecture, "sm_35");
  EXPECT_EQ(old.registers, 4);
  EXPECT_EQ(old.stack_frame_bytes, 8);      // "8+0 bytes lmem"
  EXPECT_EQ(old.shared_memory_bytes, 20);   // "4+16 bytes smem"
  EXPECT_EQ(old.constant_memory_bytes, 0);  // cmem[1] is not cmem[0]
  ASSERT_EQ(report->warnings.size(), 1u);   // the nvcc front-end warning is not a ptxas line
  EXPECT_EQ(
      report->warnings[0],
      "ptxas /tmp/tmpxft_00001234_00000000-6_x.ptx, line 32; warning : Double is not supported. Demoting "
      "to float");
}

TEST(PtxasReport, RealH200ProbeReport) {
  auto report = ParsePtxasReport(ReadFixture("probe/ptxas.txt"), "ptxas.txt");
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->global_memory_bytes, 24);
  ASSERT_EQ(report->functions.size(), 2u);
  const PtxasFunctionReport* strided = FindPtxasFunction(*report, "strided");
  ASSERT_NE(strided, nullptr);
  EXPECT_EQ(strided->registers, 20);
  EXPECT_EQ(strided->stack_frame_bytes, 32);
  EXPECT_EQ(strided->cumulative_stack_bytes, 32);
  EXPECT_FALSE(strided->HasSpills());
  const PtxasFunctionReport* saxpy = FindPtxasFunction(*report, "saxpy");
  ASSERT_NE(saxpy, nullptr);
  EXPECT_EQ(saxpy->registers, 10);
  EXPECT_EQ(saxpy->shared_memory_bytes, 0);
  EXPECT_EQ(saxpy->architecture, "sm_90");
}

TEST(PtxasReport, SpillsUnderMaxrregcountWithWarnSpills) {
  auto report = ParsePtxasReport(ReadFixture("ptxas/sm90a_maxrregcount16_warn_spills.txt"), "spills.txt");
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->global_memory_bytes, 256);
  ASSERT_EQ(report->warnings.size(), 2u);
  EXPECT_NE(report->warnings[1].find("Registers are spilled"), std::string::npos);
  const PtxasFunctionReport* spilling = FindPtxasFunction(*report, "many_live_values");
  ASSERT_NE(spilling, nullptr);
  EXPECT_EQ(spilling->architecture, "sm_90a");
  EXPECT_EQ(spilling->registers, 24);
  EXPECT_EQ(spilling->stack_frame_bytes, 112);
  EXPECT_EQ(spilling->spill_store_bytes, 120);
  EXPECT_EQ(spilling->spill_load_bytes, 160);
  const PtxasFunctionReport* bounded = FindPtxasFunction(*report, "bounded");
  ASSERT_NE(bounded, nullptr);
  EXPECT_EQ(bounded->registers, 31);
  EXPECT_EQ(bounded->barriers, 1);
  EXPECT_EQ(bounded->shared_memory_bytes, 4096);
  EXPECT_EQ(bounded->stack_frame_bytes, 64);
  EXPECT_FALSE(bounded->HasSpills());
  // The non-inlined device function has properties but no "Used" line.
  const PtxasFunctionReport* helper = FindPtxasFunction(*report, "helper");
  ASSERT_NE(helper, nullptr);
  EXPECT_EQ(helper->registers, 0);
  EXPECT_EQ(helper->architecture, "sm_90a");
}

TEST(PtxasReport, TwoArchitecturesKeepSeparateEntries) {
  auto report = ParsePtxasReport(ReadFixture("ptxas/sm80_sm90_two_architectures.txt"), "two.txt");
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(report->functions.size(), 8u);  // 4 functions × 2 architectures
  EXPECT_EQ(report->global_memory_bytes, 256);
  const PtxasFunctionReport* first = FindPtxasFunction(*report, "many_live_values");
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->architecture, "sm_80");
  EXPECT_EQ(first->registers, 40);
  EXPECT_EQ(first->constant_memory_bytes, 372);
  const PtxasFunctionReport& last = report->functions.back();
  EXPECT_EQ(last.mangled_name, "_Z16many_live_valuesPKfPfi");
  EXPECT_EQ(last.architecture, "sm_90");
  EXPECT_EQ(last.constant_memory_bytes, 0);
}

TEST(PtxasReport, MixedKernelsReport) {
  auto report = ParsePtxasReport(ReadFixture("ptxas/sm90a_mix.txt"), "sm90a_mix.txt");
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->functions.size(), 8u);
  const PtxasFunctionReport* local = FindPtxasFunction(*report, "local_array");
  ASSERT_NE(local, nullptr);
  EXPECT_EQ(local->stack_frame_bytes, 256);
  EXPECT_FALSE(local->HasSpills());
  const PtxasFunctionReport* atomics = FindPtxasFunction(*report, "atomics");
  ASSERT_NE(atomics, nullptr);
  EXPECT_EQ(atomics->shared_memory_bytes, 1024);
  EXPECT_EQ(atomics->barriers, 1);
  ASSERT_NE(FindPtxasFunction(*report, "ns::shuffle_reduce<4>"), nullptr);
}

TEST(PtxasReport, SpillWarningAloneFillsSpills) {
  auto report = ParsePtxasReport(
      "ptxas info    : Compiling entry function '_Z1kPf' for 'sm_90'\n"
      "ptxas info    : Used 24 registers\n"
      "ptxas warning : Registers are spilled to local memory in function '_Z1kPf', 492 bytes spill stores, "
      "852 bytes spill loads\n",
      "k.log");
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->functions[0].spill_store_bytes, 492);
  EXPECT_EQ(report->functions[0].spill_load_bytes, 852);
}

TEST(PtxasReport, PropertiesLineWinsOverSpillWarning) {
  std::string text =
      std::string(
          "ptxas warning : Registers are spilled to local memory in function '_Z1kPKfPfii', 492 "
          "bytes spill stores, 852 bytes spill loads\n") +
      kCuda13Sample;
  auto report = ParsePtxasReport(text, "k.log");
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->functions[0].spill_store_bytes, 824);
  EXPECT_EQ(report->functions[0].spill_load_bytes, 1664);
  EXPECT_EQ(report->warnings.size(), 1u);
}

TEST(PtxasReport, IgnoresNonPtxasLinesAndCrlf) {
  auto report = ParsePtxasReport(
      "x.cu(3): warning #177-D: variable \"y\" was declared but never referenced\r\n"
      "ptxas info    : Compiling entry function '_Z1kv' for 'sm_90a'\r\n"
      "ptxas info    : Used 8 registers, used 0 barriers, 16 bytes smem\r\n"
      "nvlink info    : used 99 registers\r\n",
      "k.log");
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(report->functions.size(), 1u);
  EXPECT_EQ(report->functions[0].architecture, "sm_90a");
  EXPECT_EQ(report->functions[0].registers, 8);
  EXPECT_EQ(report->functions[0].shared_memory_bytes, 16);
}

// Reports captured on the H200 (tests/fixtures/h200/<kernel>/ptxas.txt), when present.
TEST(PtxasReport, H200CapturedReports) {
  std::filesystem::path root = std::filesystem::path(KOPT_FIXTURE_DIR) / "h200";
  int parsed = 0;
  if (std::filesystem::is_directory(root)) {
    for (const auto& entry : std::filesystem::directory_iterator(root)) {
      std::string path = "h200/" + entry.path().filename().string() + "/ptxas.txt";
      if (!std::filesystem::is_regular_file(entry.path() / "ptxas.txt")) continue;
      auto report = ParsePtxasReport(ReadFixture(path), path);
      ASSERT_TRUE(report.ok()) << report.status().message();
      ASSERT_FALSE(report->functions.empty()) << path;
      int entries = 0;  // device functions (e.g. __internal_trig_reduction_slowpathd) have no "Used" line
      for (const PtxasFunctionReport& function : report->functions) {
        EXPECT_EQ(function.architecture, "sm_90a") << path;
        if (function.registers > 0) ++entries;
      }
      EXPECT_GT(entries, 0) << path;
      ++parsed;
    }
  }
  if (parsed == 0) GTEST_SKIP() << "no tests/fixtures/h200/*/ptxas.txt yet";
}

TEST(PtxasErrors, EmptyInput) {
  auto report = ParsePtxasReport("", "empty.log");
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().kind(), ErrorKind::kInvalidInput);
  EXPECT_NE(report.status().message().find("empty.log: the file is empty"), std::string::npos);
}

TEST(PtxasErrors, BinaryInput) {
  auto report = ParsePtxasReport(std::string("\x7f"
                                             "ELF\0\0\x01",
                                             7),
                                 "k.o");
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.status().message().find("k.o: binary data"), std::string::npos);
}

TEST(PtxasErrors, NoPtxasInfoLine) {
  auto report = ParsePtxasReport("nvcc fatal   : Unsupported gpu architecture 'compute_999'\n", "build.log");
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.status().message().find("build.log: no \"ptxas info\" line"), std::string::npos);
}

TEST(PtxasErrors, BadNumberNamesFileAndLine) {
  auto report = ParsePtxasReport(
      "ptxas info    : Compiling entry function '_Z1kv' for 'sm_90'\n"
      "ptxas info    : Used 99999999999999999999999 registers\n",
      "k.log");
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.status().message().find("k.log:2:"), std::string::npos) << report.status().message();
}

TEST(PtxasErrors, MalformedCompilingLine) {
  auto report = ParsePtxasReport("ptxas info    : Compiling entry function _Z1kv for sm_90\n", "k.log");
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.status().message().find("k.log:1:"), std::string::npos);
}

TEST(PtxasErrors, GarbageNeverCrashes) {
  const char* inputs[] = {"ptxas",
                          "ptxas info",
                          "ptxas info :",
                          "ptxas info : Used",
                          "ptxas info : Used , ,",
                          "ptxas info : Function properties for",
                          "ptxas info : Function properties for '",
                          "    1 bytes stack frame",
                          "ptxas warning : spilled to local memory in function '",
                          "ptxas info : Compiling entry function ''",
                          "ptxas info : 1+ bytes gmem",
                          "ptxas info : Function properties for x\n    -1 bytes stack frame"};
  for (const char* input : inputs) {
    auto report = ParsePtxasReport(input, "garbage");
    if (!report.ok()) EXPECT_FALSE(report.status().message().empty());
  }
}

}  // namespace
}  // namespace kopt
