#include "agents/builtin_generator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "agents/tuning_moves.h"

namespace kopt::agents {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr std::string_view kSource = R"(// kopt:tune BLOCK_SIZE values=64,128,256,512 role=block_size
// kopt:tune ITEMS range=1..8 step=*2 role=items_per_thread
// kopt:tune VEC values=1,2,4 role=vector_width
// kopt:restrict BLOCK_SIZE * ITEMS <= 2048
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif
#ifndef ITEMS
#define ITEMS 4
#endif
#ifndef VEC
#define VEC 2
#endif
__global__ void k(float* x) { x[threadIdx.x * ITEMS * VEC] = BLOCK_SIZE; }
)";

BuiltinGenerator Make(MoveOrdering ordering = MoveOrdering::kGuided, uint64_t seed = 1) {
  Result<TuningSpace> space = TuningSpace::FromSource(kSource, "k.cu", {});
  EXPECT_TRUE(space.ok()) << space.status().message();
  return BuiltinGenerator(std::move(space).value(), BuiltinGeneratorSettings{ordering, seed});
}

GenerationRequest Request(GenerationMode mode, int64_t node, int64_t parent, std::string parent_source) {
  GenerationRequest request;
  request.mode = mode;
  request.node_id = node;
  request.parent_id = parent;
  request.parent_source = std::move(parent_source);
  return request;
}

Configuration ConfigurationOf(const BuiltinGenerator& generator, const GeneratedCandidate& candidate) {
  std::optional<Configuration> configuration = generator.ConfigurationOf(candidate.source);
  EXPECT_TRUE(configuration.has_value()) << candidate.source;
  return configuration.value_or(Configuration{});
}

TEST(BuiltinGeneratorTest, InitialIsTheDefaultConfiguration) {
  BuiltinGenerator generator = Make();
  EXPECT_EQ(generator.kind(), GeneratorKind::kBuiltin);
  Result<GeneratedCandidate> first = generator.Generate(Request(GenerationMode::kInitial, 1, 0, "reference"));
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->outcome, GenerationOutcome::kSource);
  EXPECT_EQ(ConfigurationOf(generator, *first), (Configuration{256, 4, 2}));
  EXPECT_EQ(first->answer_id, "256,4,2");
  EXPECT_THAT(first->reason, HasSubstr("default configuration"));
  EXPECT_THAT(first->source,
              StartsWith("// kopt:config BLOCK_SIZE=256 ITEMS=4 VEC=2\n#define BLOCK_SIZE 256\n"));
  Result<GeneratedCandidate> second =
      generator.Generate(Request(GenerationMode::kInitial, 2, 0, "reference"));
  ASSERT_TRUE(second.ok());
  EXPECT_NE(second->answer_id, first->answer_id);
  EXPECT_EQ(second->reason, "random restart");
}

TEST(BuiltinGeneratorTest, OptimizeFollowsTheTopFindingFirst) {
  BuiltinGenerator generator = Make();
  std::string parent = generator.space().Materialize({256, 4, 2});
  GenerationRequest request = Request(GenerationMode::kOptimize, 5, 3, parent);
  request.finding_ids = {"memory_latency_low_mlp", "tail_effect"};
  Result<GeneratedCandidate> first = generator.Generate(request);
  ASSERT_TRUE(first.ok());
  // memory_latency_low_mlp: vector width up first.
  EXPECT_EQ(ConfigurationOf(generator, *first), (Configuration{256, 4, 4}));
  EXPECT_EQ(first->reason, "memory_latency_low_mlp: VEC 2→4 (vector_width, increase)");
  request.node_id = 6;
  Result<GeneratedCandidate> second = generator.Generate(request);
  ASSERT_TRUE(second.ok());
  // Then items per thread up: 256 * 8 = 2048 is allowed.
  EXPECT_EQ(ConfigurationOf(generator, *second), (Configuration{256, 8, 2}));
  EXPECT_THAT(second->reason, StartsWith("memory_latency_low_mlp: ITEMS 4→8"));
  request.finding_ids = {"tail_effect"};
  request.node_id = 7;
  Result<GeneratedCandidate> third = generator.Generate(request);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(ConfigurationOf(generator, *third), (Configuration{256, 2, 2}));
  EXPECT_EQ(third->reason, "tail_effect: ITEMS 4→2 (items_per_thread, decrease)");
}

TEST(BuiltinGeneratorTest, MomentumContinuesAChangeThatHelped) {
  BuiltinGenerator generator = Make();
  GenerationRequest first =
      Request(GenerationMode::kOptimize, 2, 1, generator.space().Materialize({128, 4, 2}));
  first.parent_time_seconds = 100e-6;
  first.finding_ids = {"low_occupancy_blocks"};  // block size up
  Result<GeneratedCandidate> child = generator.Generate(first);
  ASSERT_TRUE(child.ok());
  EXPECT_EQ(ConfigurationOf(generator, *child), (Configuration{256, 4, 2}));
  // Node 2 was 20 % faster than node 1: its child continues the block size up first.
  GenerationRequest second = Request(GenerationMode::kOptimize, 3, 2, child->source);
  second.parent_time_seconds = 80e-6;
  Result<GeneratedCandidate> grandchild = generator.Generate(second);
  ASSERT_TRUE(grandchild.ok());
  EXPECT_EQ(ConfigurationOf(generator, *grandchild), (Configuration{512, 4, 2}));
  EXPECT_EQ(grandchild->reason, "momentum: BLOCK_SIZE 128→256 made node 2 20 % faster than node 1: 256→512");
  // Slower than its origin: no momentum, the neighbours come first.
  GenerationRequest slower = Request(GenerationMode::kOptimize, 4, 2, child->source);
  slower.parent_time_seconds = 120e-6;
  BuiltinGenerator other = Make();
  (void)other.Generate(first);
  Result<GeneratedCandidate> neighbour = other.Generate(slower);
  ASSERT_TRUE(neighbour.ok());
  EXPECT_THAT(neighbour->reason, StartsWith("neighbour of node 2"));
}

TEST(BuiltinGeneratorTest, WithoutFindingsNeighboursThenRandomRestarts) {
  BuiltinGenerator generator = Make();
  std::string parent = generator.space().Materialize({256, 4, 2});
  Result<GeneratedCandidate> first = generator.Generate(Request(GenerationMode::kOptimize, 2, 1, parent));
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(ConfigurationOf(generator, *first), (Configuration{512, 4, 2}));
  EXPECT_EQ(first->reason, "neighbour of node 1: BLOCK_SIZE 256→512");
}

TEST(BuiltinGeneratorTest, ServesEveryConfigurationOnceThenExhausted) {
  for (MoveOrdering ordering : {MoveOrdering::kGuided, MoveOrdering::kUnguided, MoveOrdering::kRandomSearch,
                                MoveOrdering::kExhaustive}) {
    BuiltinGenerator generator = Make(ordering);
    size_t valid = generator.space().Enumerate(1000).size();
    std::set<std::string> seen;
    std::string parent = generator.space().Materialize(generator.space().Default());
    for (size_t i = 0; i < valid; ++i) {
      GenerationRequest request = Request(GenerationMode::kOptimize, static_cast<int64_t>(i + 1), 0, parent);
      request.finding_ids = {"tail_effect"};
      Result<GeneratedCandidate> candidate = generator.Generate(request);
      ASSERT_TRUE(candidate.ok());
      ASSERT_EQ(candidate->outcome, GenerationOutcome::kSource) << MoveOrderingName(ordering) << " " << i;
      EXPECT_TRUE(seen.insert(candidate->answer_id).second) << candidate->answer_id;
      EXPECT_TRUE(generator.space().Contains(ConfigurationOf(generator, *candidate)));
    }
    Result<GeneratedCandidate> last = generator.Generate(Request(GenerationMode::kOptimize, 99, 0, parent));
    ASSERT_TRUE(last.ok());
    EXPECT_EQ(last->outcome, GenerationOutcome::kExhausted);
    EXPECT_THAT(last->message, HasSubstr("every configuration"));
  }
}

TEST(BuiltinGeneratorTest, ExhaustiveFollowsEnumerationOrder) {
  BuiltinGenerator generator = Make(MoveOrdering::kExhaustive);
  Result<GeneratedCandidate> first = generator.Generate(Request(GenerationMode::kInitial, 1, 0, "reference"));
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->answer_id, "64,1,1");
}

TEST(BuiltinGeneratorTest, MarkServedSkipsWhatAResumedRunAlreadyHad) {
  BuiltinGenerator generator = Make();
  generator.MarkServed("256,4,2");
  generator.MarkServed("not a key");
  Result<GeneratedCandidate> first = generator.Generate(Request(GenerationMode::kInitial, 1, 0, "reference"));
  ASSERT_TRUE(first.ok());
  EXPECT_NE(first->answer_id, "256,4,2");
}

TEST(BuiltinGeneratorTest, RepairStepsBackTowardTheVerifiedOrigin) {
  BuiltinGenerator generator = Make();
  std::string verified = generator.space().Materialize({128, 2, 1});
  // Node 2 is derived from verified node 1, by hand: a jump far away.
  generator.MarkServed("128,2,1");
  GenerationRequest optimize = Request(GenerationMode::kOptimize, 2, 1, verified);
  optimize.finding_ids = {"memory_latency_low_mlp"};
  Result<GeneratedCandidate> child = generator.Generate(optimize);
  ASSERT_TRUE(child.ok());
  EXPECT_EQ(ConfigurationOf(generator, *child), (Configuration{128, 2, 2}));
  GenerationRequest repair = Request(GenerationMode::kRepair, 3, 2, child->source);
  repair.compiler_output = "ptxas error";
  Result<GeneratedCandidate> fixed = generator.Generate(repair);
  ASSERT_TRUE(fixed.ok());
  // One step back is the origin itself (served): its neighbours come next.
  EXPECT_THAT(fixed->reason,
              StartsWith("repair of node 2 (compile error): neighbour of the verified configuration"));
  Configuration configuration = ConfigurationOf(generator, *fixed);
  EXPECT_NE(configuration, (Configuration{128, 2, 1}));
}

TEST(BuiltinGeneratorTest, DeterministicForTheSameRequests) {
  for (MoveOrdering ordering : {MoveOrdering::kUnguided, MoveOrdering::kRandomSearch}) {
    BuiltinGenerator a = Make(ordering, 42);
    BuiltinGenerator b = Make(ordering, 42);
    std::string parent = a.space().Materialize(a.space().Default());
    for (int64_t node = 1; node < 8; ++node) {
      GenerationRequest request = Request(GenerationMode::kOptimize, node, 0, parent);
      EXPECT_EQ(a.Generate(request)->answer_id, b.Generate(request)->answer_id);
    }
  }
}

TEST(BuiltinGeneratorTest, ForeignParentSourceFallsBackToInitialMoves) {
  BuiltinGenerator generator = Make();
  Result<GeneratedCandidate> candidate =
      generator.Generate(Request(GenerationMode::kOptimize, 1, 0, "__global__ void other() {}"));
  ASSERT_TRUE(candidate.ok());
  EXPECT_EQ(candidate->answer_id, "256,4,2");
}

// A seed with energy knobs, like examples/tasks/swish/tunable/swish_tunable.cu.
constexpr std::string_view kFastMathSource = R"(// kopt:tune BLOCK_SIZE values=128,256,512 role=block_size
// kopt:tune MATH values=0,1,2 role=fast_math
// kopt:flag FTZ option=-ftz=true role=fast_math
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif
#ifndef MATH
#define MATH 0
#endif
__global__ void k(float* x) { x[threadIdx.x] = BLOCK_SIZE + MATH; }
)";

BuiltinGenerator MakeFastMath(bool allowed) {
  Result<TuningSpace> space = TuningSpace::FromSource(kFastMathSource, "k.cu", {});
  EXPECT_TRUE(space.ok()) << space.status().message();
  BuiltinGeneratorSettings settings{MoveOrdering::kGuided, 1};
  settings.fast_math = {allowed, allowed ? "y (f32, rtol 1e-05) admits the fast paths" : "y: rtol 0"};
  return BuiltinGenerator(std::move(space).value(), settings);
}

// The first three optimize answers for children of the default configuration.
std::vector<Configuration> FirstOptimizeMoves(BuiltinGenerator& generator, Objective objective,
                                              std::vector<std::string>* reasons = nullptr) {
  std::string parent = generator.space().Materialize(generator.space().Default());
  std::vector<Configuration> moves;
  for (int64_t node = 2; node < 5; ++node) {
    GenerationRequest request = Request(GenerationMode::kOptimize, node, 1, parent);
    request.objective = objective;
    Result<GeneratedCandidate> candidate = generator.Generate(request);
    EXPECT_TRUE(candidate.ok());
    moves.push_back(ConfigurationOf(generator, *candidate));
    if (reasons) reasons->push_back(candidate->reason);
  }
  return moves;
}

TEST(BuiltinGeneratorTest, TimeEnergyTriesTheFastMathKnobsFirstWhereTheToleranceAllows) {
  BuiltinGenerator generator = MakeFastMath(/*allowed=*/true);
  EXPECT_EQ(generator.space().Default(), (Configuration{256, 0, 0}));
  std::vector<std::string> reasons;
  std::vector<Configuration> moves = FirstOptimizeMoves(generator, Objective::kTimeEnergy, &reasons);
  // One step up in each fast_math knob (MATH, then the FTZ flag), then two steps of MATH.
  EXPECT_EQ(moves, (std::vector<Configuration>{{256, 1, 0}, {256, 0, 1}, {256, 2, 0}}));
  EXPECT_THAT(reasons[0], StartsWith("energy (time+energy): MATH 0→1 (fast_math, increase): y (f32"));
  EXPECT_THAT(reasons[1], StartsWith("energy (time+energy): FTZ 0→1"));
  // The FTZ flag reaches the compiler through the candidate's kopt:nvcc line.
  EXPECT_THAT(generator.space().Materialize(moves[1]), HasSubstr("// kopt:nvcc -ftz=true\n"));
}

TEST(BuiltinGeneratorTest, TimeEnergyTriesTheOtherKnobsBeforeGivingAnEnergySavingBack) {
  BuiltinGenerator generator = MakeFastMath(/*allowed=*/true);
  // From a configuration whose energy knobs are at their top: no energy move is left.
  std::string parent = generator.space().Materialize({512, 2, 1});
  std::vector<Configuration> moves;
  for (int64_t node = 2; node < 4; ++node) {
    GenerationRequest request = Request(GenerationMode::kOptimize, node, 1, parent);
    request.objective = Objective::kTimeEnergy;
    Result<GeneratedCandidate> candidate = generator.Generate(request);
    ASSERT_TRUE(candidate.ok());
    moves.push_back(ConfigurationOf(generator, *candidate));
  }
  // The block size one and two steps down first; MATH 2→1 and FTZ 1→0 only after them.
  EXPECT_EQ(moves, (std::vector<Configuration>{{256, 2, 1}, {128, 2, 1}}));
  // Under time alone, the distance-one neighbours come in declaration order as before.
  BuiltinGenerator time_only = MakeFastMath(/*allowed=*/true);
  Result<GeneratedCandidate> first = time_only.Generate(Request(GenerationMode::kOptimize, 2, 1, parent));
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(ConfigurationOf(time_only, *first), (Configuration{256, 2, 1}));
  Result<GeneratedCandidate> second = time_only.Generate(Request(GenerationMode::kOptimize, 3, 1, parent));
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(ConfigurationOf(time_only, *second), (Configuration{512, 1, 1}));
}

TEST(BuiltinGeneratorTest, TimeAloneDoesNotAskForTheFastMathKnobs) {
  BuiltinGenerator generator = MakeFastMath(/*allowed=*/true);
  std::vector<Configuration> moves = FirstOptimizeMoves(generator, Objective::kTime);
  // Neighbours in declaration order: the block size first.
  EXPECT_EQ(moves.front(), (Configuration{512, 0, 0}));
  EXPECT_EQ(moves[1], (Configuration{128, 0, 0}));
}

TEST(BuiltinGeneratorTest, TimeEnergyLeavesTheFastMathKnobsAloneWhenTheToleranceForbids) {
  BuiltinGenerator generator = MakeFastMath(/*allowed=*/false);
  std::vector<std::string> reasons;
  std::vector<Configuration> moves = FirstOptimizeMoves(generator, Objective::kTimeEnergy, &reasons);
  EXPECT_EQ(moves.front(), (Configuration{512, 0, 0}));
  for (const std::string& reason : reasons) EXPECT_THAT(reason, ::testing::Not(HasSubstr("energy")));
}

TEST(BuiltinGeneratorTest, MoveOrderingNames) {
  EXPECT_EQ(*ParseMoveOrdering("unguided"), MoveOrdering::kUnguided);
  EXPECT_FALSE(ParseMoveOrdering("smart").ok());
}

TEST(BuiltinGeneratorTest, MakeBuiltinGeneratorPicksTheFirstTunableSeed) {
  std::vector<TunableSeed> seeds = {{"plain.cu", "__global__ void k() {}"}, {"k.cu", std::string(kSource)}};
  Result<std::unique_ptr<BuiltinGenerator>> generator = MakeBuiltinGenerator(seeds, {}, {});
  ASSERT_TRUE(generator.ok()) << generator.status().message();
  EXPECT_EQ((*generator)->space().dimensions(), 3u);
  EXPECT_EQ(MakeBuiltinGenerator({seeds[0]}, {}, {}).status().message(),
            "builtin generator: no tunable candidate among plain.cu: declare parameters with kopt:tune lines "
            "(docs/tuning.md) in a seed, or put one in TASK/tunable/");
  EXPECT_THAT(MakeBuiltinGenerator({{"bad.cu", "// kopt:tune B values=1\n"}}, {}, {}).status().message(),
              HasSubstr("bad.cu:1: kopt:tune B: role= is missing"));
}

TEST(TuningMovesTest, TableIsSortedAndKnown) {
  const std::vector<FindingTuningMoves>& table = MoveTable();
  ASSERT_FALSE(table.empty());
  for (size_t i = 1; i < table.size(); ++i) EXPECT_LT(table[i - 1].finding_id, table[i].finding_id);
  for (const FindingTuningMoves& row : table) EXPECT_FALSE(row.moves.empty()) << row.finding_id;
  EXPECT_EQ(MovesForFinding("tail_effect").front().role, ParameterRole::kItemsPerThread);
  EXPECT_EQ(MovesForFinding("low_occupancy_registers").front().role, ParameterRole::kMinBlocksPerSm);
  EXPECT_TRUE(MovesForFinding("hmma_on_hopper").empty());
  EXPECT_TRUE(MovesForFinding("no_such_tool").empty());
}

}  // namespace
}  // namespace kopt::agents
