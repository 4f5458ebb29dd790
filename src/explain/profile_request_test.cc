// ResolveProfileSources is the one place a request's collection settings
// reach the loader: a live target gets the targeted collection, the timeline
// library and (a .cu) kopt-launcher unless told otherwise; a file target
// keeps its timeline file; RequestForTarget keeps the settings for another
// target and drops what names one profile's files.
#include "explain/profile_request.h"

#include <gtest/gtest.h>

#include "analysis/collection_metrics.h"
#include "core/scoped_environment_test_util.h"

namespace kopt {
namespace {

constexpr const char* kLauncher = "/opt/kopt/bin/kopt-launcher";
constexpr const char* kTimelineLibrary = "/opt/kopt/libkopt_timeline.so";

class ResolveProfileSourcesTest : public ::testing::Test {
 protected:
  ScopedEnvironment launcher_{"KOPT_LAUNCHER", kLauncher};
  ScopedEnvironment library_{"KOPT_TIMELINE_LIBRARY", kTimelineLibrary};
};

TEST_F(ResolveProfileSourcesTest, ACudaSourceGetsTheTargetedSetTheTimelineAndTheLauncher) {
  ProfileRequest request;
  request.target = "a.cu";
  ProfileSources sources = ResolveProfileSources(request);
  EXPECT_EQ(sources.metrics.size(), TargetedCollectionMetrics().size());
  EXPECT_EQ(sources.sections.size(), TargetedCollectionSections().size());
  EXPECT_FALSE(sources.write_report);
  EXPECT_EQ(sources.timeline_library, kTimelineLibrary);
  EXPECT_EQ(sources.launcher, kLauncher);
  EXPECT_EQ(sources.launches_per_configuration, 3);
}

TEST_F(ResolveProfileSourcesTest, TheSetAndTheTimelineAreTheRequests) {
  ProfileRequest request;
  request.program_argv = {"./app"};
  request.collection.section_set = "full";
  request.collection.timeline = false;
  request.collection.launches_per_configuration = 0;
  ProfileSources sources = ResolveProfileSources(request);
  EXPECT_EQ(sources.section_set, "full");
  EXPECT_TRUE(sources.metrics.empty());
  EXPECT_TRUE(sources.write_report);
  EXPECT_TRUE(sources.timeline_library.empty());
  EXPECT_TRUE(sources.launcher.empty());  // a program, not a .cu
  EXPECT_EQ(sources.launches_per_configuration, 0);
}

TEST_F(ResolveProfileSourcesTest, AFileKeepsItsTimelineAndRunsNothing) {
  ProfileRequest request;
  request.target = "raw.csv";
  request.timeline_path = "timeline.jsonl";
  ProfileSources sources = ResolveProfileSources(request);
  EXPECT_EQ(sources.timeline_path, "timeline.jsonl");
  EXPECT_TRUE(sources.timeline_library.empty());
  EXPECT_TRUE(sources.launcher.empty());
}

TEST(RequestForTargetTest, KeepsTheSettingsAndDropsOneProfilesFiles) {
  ProfileRequest request;
  request.target = "a.cu";
  request.kernel_regex = "gemm";
  request.launch_count = 2;
  request.sass_path = "a.sass";
  request.timeline_path = "timeline.jsonl";
  request.work_directory = "work";
  request.collection.section_set = "detailed";
  ProfileRequest other = RequestForTarget(request, "dir/b.cu");
  EXPECT_EQ(other.target, "dir/b.cu");
  EXPECT_EQ(other.kernel_regex, "gemm");
  EXPECT_EQ(other.launch_count, 2);
  EXPECT_EQ(other.collection.section_set, "detailed");
  EXPECT_TRUE(other.sass_path.empty());
  EXPECT_TRUE(other.timeline_path.empty());
  EXPECT_EQ(other.work_directory, "work/b");
  request.work_directory.clear();
  EXPECT_TRUE(RequestForTarget(request, "b.cu").work_directory.empty());
}

}  // namespace
}  // namespace kopt
