#include "report/bench_renderer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <sstream>

namespace kopt {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

runner::TimingEvent Timing(double median_seconds) {
  runner::TimingEvent timing;
  timing.samples = 20;
  timing.median_s = median_seconds;
  timing.q1_s = median_seconds * 0.99;
  timing.q3_s = median_seconds * 1.01;
  timing.relative_stdev = 0.004;
  timing.stop_reason = "noise";
  return timing;
}

MeasurementReport SampleReport() {
  MeasurementReport report;
  report.task = "saxpy";
  report.task_directory = "examples/tasks/saxpy";
  report.architecture = "sm_90a";
  report.gpu = "NVIDIA H200";
  report.workspace = ".kopt";
  report.run_id = 4;
  report.floor_seconds = 2.6e-6;
  report.task_min_bytes = 12582912;
  report.reference.name = "reference";
  report.reference.role = EntryRole::kReference;
  report.reference.status = MeasureStatus::kOk;
  report.reference.timing = Timing(100e-6);
  report.reference.speedup = 1.0;
  MeasurementEntry fast;
  fast.name = "fast";
  fast.status = MeasureStatus::kOk;
  fast.timing = Timing(50e-6);
  fast.speedup = 2.0;
  fast.energy = runner::EnergyEvent{true, "", 0.0021, 0.0001, 0.001, 90, 300, 310, 3, 1000};
  fast.resumed_from_run = 2;
  MeasurementEntry cheat = fast;
  cheat.name = "cheat";
  cheat.timing = Timing(1e-6);
  cheat.speedup = 100.0;
  cheat.suspect_fast = true;
  cheat.energy.reset();
  cheat.resumed_from_run.reset();
  MeasurementEntry wrong;
  wrong.name = "wrong|pipe";
  wrong.status = MeasureStatus::kFailed;
  wrong.failure = FailureKind::kWrongOutput;
  wrong.message = "z: 12 elements differ";
  report.candidates = {fast, cheat, wrong};
  report.reference_drift = 0.012;
  return report;
}

std::string Render(const MeasurementReport& report, const std::string& format) {
  std::ostringstream out;
  Status status = RenderBenchReport(report, format, out);
  EXPECT_TRUE(status.ok()) << status.message();
  return out.str();
}

TEST(BenchReportTest, TerminalTableHasOneRowPerEntryWithFlagsAndFailures) {
  std::string text = Render(SampleReport(), "term");
  EXPECT_THAT(text, HasSubstr("kopt bench: task saxpy (examples/tasks/saxpy) on NVIDIA H200, sm_90a, run 4"));
  EXPECT_THAT(text, HasSubstr("50.0 µs"));
  EXPECT_THAT(text, HasSubstr("2.00x"));
  EXPECT_THAT(text, HasSubstr("2.10 mJ"));
  EXPECT_THAT(text, HasSubstr("stored(run 2)"));
  EXPECT_THAT(text, HasSubstr("SUSPECT_FAST"));
  EXPECT_THAT(text, HasSubstr("failed: wrong_output"));
  EXPECT_THAT(text, HasSubstr("wrong|pipe: failed: wrong_output: z: 12 elements differ"));
  EXPECT_THAT(text, HasSubstr("drift +1.20%"));
  EXPECT_THAT(text, HasSubstr("roofline floor: 2.60 µs"));
}

TEST(BenchReportTest, TerminalColumnsAlignDespiteMultibyteUnits) {
  std::string text = Render(SampleReport(), "term");
  std::istringstream lines(text);
  std::string line;
  std::vector<size_t> status_columns;
  while (std::getline(lines, line)) {
    size_t at = line.find("ok ");
    if (at == std::string::npos) continue;
    if (line.rfind("reference ", 0) == 0 || line.rfind("fast ", 0) == 0) {
      // Count code points up to the status column.
      size_t columns = 0;
      for (size_t i = 0; i < at; ++i) columns += (static_cast<unsigned char>(line[i]) & 0xc0) != 0x80;
      status_columns.push_back(columns);
    }
  }
  ASSERT_EQ(status_columns.size(), 2u);
  EXPECT_EQ(status_columns[0], status_columns[1]);
}

TEST(BenchReportTest, MarkdownEscapesPipes) {
  std::string text = Render(SampleReport(), "md");
  EXPECT_THAT(text, HasSubstr("| candidate | status |"));
  EXPECT_THAT(text, HasSubstr("wrong\\|pipe"));
}

// Every number in the JSON must sit in a {"value", "unit"} object, except
// identifiers (run id, seeds, resumed_from_run).
void ExpectUnits(const nlohmann::json& json, const std::string& path) {
  if (json.is_object()) {
    if (json.contains("value")) {
      EXPECT_TRUE(json.contains("unit")) << path;
      return;
    }
    for (const auto& [key, value] : json.items()) {
      if (key == "id" || key == "seeds" || key == "resumed_from_run" || key == "settings") continue;
      ExpectUnits(value, path + "." + key);
    }
  } else if (json.is_array()) {
    for (size_t i = 0; i < json.size(); ++i) ExpectUnits(json[i], path + "[" + std::to_string(i) + "]");
  } else {
    EXPECT_FALSE(json.is_number()) << path << " is a bare number";
  }
}

TEST(BenchReportTest, JsonHasSchemaAndUnitsOnEveryNumber) {
  nlohmann::json json = BenchReportToJson(SampleReport());
  EXPECT_EQ(json["schema_version"], "kopt.bench/1");
  EXPECT_EQ(json["candidates"][0]["timing"]["median"]["unit"], "s");
  EXPECT_DOUBLE_EQ(json["candidates"][0]["speedup"]["value"].get<double>(), 2.0);
  EXPECT_EQ(json["candidates"][0]["energy"]["per_launch"]["unit"], "J");
  EXPECT_EQ(json["candidates"][1]["suspect_fast"], true);
  EXPECT_EQ(json["candidates"][2]["kind"], "wrong_output");
  EXPECT_TRUE(json["candidates"][2]["timing"].is_null());
  EXPECT_EQ(json["reference_drift"]["unit"], "fraction");
  ExpectUnits(json, "$");
}

MeasurementReport ReportWithBaselines(const std::string& baselines_gpu) {
  MeasurementReport report = SampleReport();
  TaskBaselines baselines;
  baselines.path = "examples/tasks/saxpy/baselines.json";
  baselines.gpu = baselines_gpu;
  baselines.baselines[0].time_s = 150e-6;  // eager
  baselines.baselines[0].note.clear();
  baselines.baselines[1].time_s = 100e-6;  // TF32
  baselines.baselines[1].note.clear();
  baselines.baselines[2].note = "compile failed";
  report.pytorch_baselines = baselines;
  return report;
}

TEST(BenchReportTest, WithPytorchBaselinesTheirSpeedupsComeFirstAndTheReferenceIsLabelled) {
  std::string text = Render(ReportWithBaselines("NVIDIA H200"), "term");
  size_t eager = text.find("vs eager"), tf32 = text.find("vs TF32"), compile = text.find("vs torch.compile");
  size_t reference = text.find("vs reference");
  ASSERT_NE(eager, std::string::npos);
  EXPECT_LT(eager, tf32);
  EXPECT_LT(tf32, compile);
  EXPECT_LT(compile, reference);
  EXPECT_THAT(text, Not(HasSubstr(" speedup ")));
  EXPECT_THAT(text, HasSubstr("3.00x"));  // fast: eager 150 µs / 50 µs
  EXPECT_THAT(text, HasSubstr("1.50x"));  // the reference: 150 / 100
  EXPECT_THAT(text,
              HasSubstr("PyTorch baselines (examples/tasks/saxpy/baselines.json, measured on NVIDIA H200): "
                        "eager 150 µs, TF32 100 µs, torch.compile not measured (compile failed)"));
  EXPECT_THAT(text, Not(HasSubstr("compare two GPUs")));
  std::string markdown = Render(ReportWithBaselines("NVIDIA H200"), "md");
  EXPECT_THAT(markdown, HasSubstr("vs eager"));
}

TEST(BenchReportTest, BaselinesFromAnotherGpuAreNoted) {
  std::string text = Render(ReportWithBaselines("NVIDIA H100 80GB HBM3"), "term");
  EXPECT_THAT(text, HasSubstr("measured on NVIDIA H100 80GB HBM3, this run on NVIDIA H200"));
}

TEST(BenchReportTest, JsonGivesEachSpeedupAgainstEachBaselineWithUnits) {
  nlohmann::json json = BenchReportToJson(ReportWithBaselines("NVIDIA H200"));
  EXPECT_DOUBLE_EQ(json["candidates"][0]["speedup_against"]["eager"]["value"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(json["candidates"][0]["speedup_against"]["tf32"]["value"].get<double>(), 2.0);
  EXPECT_TRUE(json["candidates"][0]["speedup_against"]["torch_compile"].is_null());
  EXPECT_TRUE(json["candidates"][2]["speedup_against"]["eager"].is_null());  // failed: no speedup
  EXPECT_EQ(json["pytorch_baselines"]["baselines"][0]["time"]["unit"], "s");
  EXPECT_EQ(json["pytorch_baselines"]["baselines"][2]["note"], "compile failed");
  ExpectUnits(json, "$");
  EXPECT_TRUE(BenchReportToJson(SampleReport())["pytorch_baselines"].is_null());
}

TEST(BenchReportTest, UnknownFormatIsInvalidInput) {
  std::ostringstream out;
  Status status = RenderBenchReport(SampleReport(), "html", out);
  EXPECT_EQ(status.kind(), ErrorKind::kInvalidInput);
  EXPECT_THAT(status.message(), HasSubstr("expected one of term, md, json"));
}

// Candidate names, compiler output and runner messages are untrusted: the
// terminal table and its footer show them with every control character
// (ESC, CR, BEL, C1 CSI) replaced, so they cannot clear the screen, rewrite
// the line or recolour the table.
TEST(BenchReportTest, TerminalSanitizesCandidateAndCompilerText) {
  MeasurementReport report = SampleReport();
  MeasurementEntry hostile;
  hostile.name = "evil\x1b[2J";
  hostile.status = MeasureStatus::kFailed;
  hostile.failure = FailureKind::kCompileError;
  hostile.compile = CompileOutcome::kCompileError;
  hostile.message =
      "nvcc: evil.cu(3): error\x1b[31m\rOK \x07\x9b"
      "2K\xC2\x9b"
      "1m\x1b]0;title\x07";
  report.candidates.push_back(hostile);
  report.notes.push_back("note from \x1b[1mcompiler\x1b[0m");
  std::string text = Render(report, "term");
  for (char character : text) {
    auto byte = static_cast<unsigned char>(character);
    EXPECT_FALSE((byte < 0x20 && byte != '\n') || byte == 0x7F) << "control byte " << int(byte);
  }
  EXPECT_THAT(text, Not(HasSubstr("\x9b")));
  EXPECT_THAT(text, Not(HasSubstr("\xC2\x9b")));
  EXPECT_THAT(text, HasSubstr("evil?[2J"));
  EXPECT_THAT(
      text, HasSubstr("evil?[2J: failed: compile_error: nvcc: evil.cu(3): error?[31m?OK ??2K?1m?]0;title?"));
  EXPECT_THAT(text, HasSubstr("note: note from ?[1mcompiler?[0m"));
  std::string markdown = Render(report, "md");
  EXPECT_THAT(markdown, Not(HasSubstr("\x1b")));
  EXPECT_THAT(markdown, Not(HasSubstr("\r")));
}

TEST(FormatSecondsTest, UsesPrefixes) {
  EXPECT_EQ(FormatSeconds(1.5e-5), "15.0 µs");
  EXPECT_EQ(FormatSeconds(0), "0 s");
  EXPECT_EQ(FormatSeconds(-1), "-");
}

}  // namespace
}  // namespace kopt
