#include "agents/evidence_digest.h"

#include <gtest/gtest.h>

#include "analysis/diagnose.h"
#include "core/fake_command_runner_test_util.h"
#include "profile/profile_loader.h"

namespace kopt::agents {
namespace {

struct FixtureDiagnosis {
  Profile profile;
  Diagnosis diagnosis;
};

FixtureDiagnosis DiagnoseFixture(const std::string& kernel) {
  ProfileSources options;
  options.target = std::string(KOPT_FIXTURE_DIR) + "/h200/" + kernel + "/raw.csv";
  FakeCommandRunner runner;
  std::vector<std::string> notes;
  Result<Profile> profile = LoadProfile(options, runner, notes);
  EXPECT_TRUE(profile.ok()) << profile.status().message();
  if (!profile.ok()) return {};
  FixtureDiagnosis result{std::move(profile).value(), {}};
  result.diagnosis = Diagnose(result.profile, {});
  return result;
}

TEST(EvidenceDigestTest, ListsKernelLaunchStageOneFindingsAndHotSpots) {
  FixtureDiagnosis fixture = DiagnoseFixture("uncoalesced_loads");
  DigestInputs inputs{&fixture.diagnosis, HotSpotsFromProfile(fixture.profile, fixture.diagnosis), "", ""};
  std::string digest = RenderEvidenceDigest(inputs);
  EXPECT_NE(digest.find("## kernel 1 of 1: uncoalesced_loads"), std::string::npos) << digest;
  EXPECT_NE(digest.find(
                "launch: grid 262144×1×1 (262144 blocks), block 256×1×1 (256 threads), 16 registers/thread"),
            std::string::npos)
      << digest;
  EXPECT_NE(digest.find("- duration: 1.18 ms"), std::string::npos) << digest;
  EXPECT_NE(digest.find("- memory DRAM: 4.56 GB moved, achieved 3.86 TB/s of 4.81 TB/s peak (80.3% of peak)"),
            std::string::npos)
      << digest;
  size_t first = digest.find("finding 1: [critical] Uncoalesced global loads");
  size_t second = digest.find("finding 2:");
  ASSERT_NE(first, std::string::npos) << digest;
  EXPECT_LT(first, second);
  EXPECT_NE(digest.find("(test: < 24 byte/sector)"), std::string::npos) << digest;
  EXPECT_NE(digest.find("hottest SASS instructions"), std::string::npos) << digest;
  EXPECT_EQ(digest, RenderEvidenceDigest(inputs));  // deterministic
}

// Every number the digest shows must be citable: checked against the set,
// none is unsupported.
TEST(EvidenceDigestTest, EveryNumberOfTheDigestIsInTheEvidenceSet) {
  for (std::string kernel : {"uncoalesced_loads", "low_occupancy_registers", "hmma_on_hopper"}) {
    FixtureDiagnosis fixture = DiagnoseFixture(kernel);
    DigestInputs inputs{&fixture.diagnosis, HotSpotsFromProfile(fixture.profile, fixture.diagnosis), "", ""};
    EvidenceSet evidence = BuildEvidenceSet(inputs);
    for (const NumericClaim& claim : CheckNumericClaims(RenderEvidenceDigest(inputs), evidence)) {
      EXPECT_TRUE(claim.supported) << kernel << ": " << claim.text;
    }
  }
}

TEST(EvidenceDigestTest, StructuredValuesCarryPreciseLabels) {
  FixtureDiagnosis fixture = DiagnoseFixture("uncoalesced_loads");
  DigestInputs inputs{&fixture.diagnosis, {}, "", ""};
  EvidenceSet evidence = BuildEvidenceSet(inputs);
  std::vector<NumericClaim> claims = CheckNumericClaims(
      "DRAM moves 3.9 TB/s, 3,860 GB/s; 88.6% long_scoreboard; "
      "16 registers per thread; 1.25× the floor",
      evidence);
  ASSERT_EQ(claims.size(), 5u);
  for (const NumericClaim& claim : claims) EXPECT_TRUE(claim.supported) << claim.text;
  EXPECT_EQ(claims[0].evidence_label, "uncoalesced_loads: DRAM achieved bandwidth");
  EXPECT_EQ(claims[2].evidence_label, "uncoalesced_loads: stall share long_scoreboard");
  EXPECT_EQ(claims[4].evidence_label, "uncoalesced_loads: duration / roofline floor");
  EXPECT_FALSE(CheckNumericClaims("a 7.5× speedup", evidence).front().supported);
}

TEST(EvidenceDigestTest, SourceIsNumberedAndItsLinesAreEvidence) {
  FixtureDiagnosis fixture = DiagnoseFixture("uncoalesced_loads");
  DigestInputs inputs{&fixture.diagnosis, {}, "kernel.cu", "__global__ void k() {\n  int x = 42;\n}\n"};
  std::string digest = RenderEvidenceDigest(inputs);
  EXPECT_NE(digest.find("## kernel source: kernel.cu"), std::string::npos);
  EXPECT_NE(digest.find("   2 |   int x = 42;"), std::string::npos) << digest;
  EvidenceSet evidence = BuildEvidenceSet(inputs);
  EXPECT_TRUE(CheckNumericClaims("see kernel.cu:2", evidence).front().supported);
  EXPECT_FALSE(CheckNumericClaims("see kernel.cu:9", evidence).front().supported);
}

}  // namespace
}  // namespace kopt::agents
