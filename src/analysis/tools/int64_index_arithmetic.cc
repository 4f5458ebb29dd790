// int64_index_arithmetic: integer division and modulo (I2F.RP → MUFU.RCP → F2I
// reciprocal sequences) and 64-bit index arithmetic in the main body: the share
// of instructions they take and the gain of 32-bit or shift/mask indexing.
//
// A divisor that does not change inside the kernel (a size passed as an
// argument) has its reciprocal computed once (one I2F.RP → MUFU.RCP → F2I) and
// every later division or modulo by it is a multiply-high by that reciprocal
// plus a multiply-back and one or two compare-and-correct steps (IMAD.HI,
// IMAD, ISETP, @P IADD3), scheduled among the other work. The division code
// is then found by data flow: every integer instruction that (transitively)
// reads the reciprocal's registers, up to the address arithmetic (IMAD.WIDE,
// LEA) that consumes the quotient or remainder. Each multiply-high by the
// reciprocal outside its own setup is one more division site.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "analysis/pipe_model.h"
#include "analysis/tool_selection.h"
#include "analysis/tool_support.h"

namespace kopt {
namespace {

struct IntegerDivisionFacts {
  InstructionList inline_sites;                   // I2F.*.RP in the main body: a division by a run-time value
  InstructionList reuse_sites;                    // IMAD.HI by a hoisted reciprocal: one more division each
  InstructionList call_sites;                     // CALLs of an integer division/modulo subroutine
  bool uses_64_bit = false;                       // I2F.U64.RP / I2F.S64.RP anywhere
  size_t routine_instructions = 0;                // the longest division routine called
  std::set<unsigned long long> division_offsets;  // main-body instructions of the division code
  std::set<unsigned long long> routine_offsets;   // instructions of the division routines called
  size_t main_body_instructions = 0;
};

// The innermost BSSY..reconvergence region holding `offset` (nvcc wraps each
// division's fast and slow paths in one), as [start, end); nullopt when none.
std::optional<std::pair<unsigned long long, unsigned long long>> EnclosingRegion(const InstructionList& body,
                                                                                 unsigned long long offset) {
  std::optional<std::pair<unsigned long long, unsigned long long>> best;
  for (const SassInstruction* instruction : body) {
    if (instruction->opcode != "BSSY") continue;
    auto end = LastHexNumber(instruction->operands);
    if (!end || instruction->offset > offset || *end <= offset) continue;
    if (!best || *end - instruction->offset < best->second - best->first)
      best = {{instruction->offset, *end}};
  }
  return best;
}

bool IsIntegerDivisionWork(InstructionClass kind) {
  return kind == InstructionClass::kInteger || kind == InstructionClass::kMove ||
         kind == InstructionClass::kConversion || kind == InstructionClass::kSpecialFunction;
}

// A region is the division's own when it holds nothing but integer, move,
// conversion, MUFU, constant-load and control work (no memory or FP math).
bool IsDivisionOnlyRegion(const InstructionList& body, unsigned long long start, unsigned long long end) {
  return std::all_of(body.begin(), body.end(), [&](const SassInstruction* instruction) {
    if (instruction->offset < start || instruction->offset >= end) return true;
    InstructionClass kind = instruction->instruction_class;
    return IsIntegerDivisionWork(kind) || kind == InstructionClass::kBranch ||
           kind == InstructionClass::kConstantLoad || kind == InstructionClass::kOther;
  });
}

// Without a region: the division sequence is the integer and conversion work
// that follows the reciprocal's start.
void MarkDivisionSequence(const InstructionList& body, size_t start, std::set<unsigned long long>& offsets) {
  for (size_t i = start; i < body.size(); ++i) {
    if (!IsIntegerDivisionWork(body[i]->instruction_class) && i > start) break;
    offsets.insert(body[i]->offset);
  }
}

void MarkDivisionCode(const InstructionList& body, IntegerDivisionFacts& facts) {
  InstructionList sites = facts.inline_sites;
  sites.insert(sites.end(), facts.call_sites.begin(), facts.call_sites.end());
  for (const SassInstruction* site : sites) {
    auto region = EnclosingRegion(body, site->offset);
    if (region && IsDivisionOnlyRegion(body, region->first, region->second)) {
      for (const SassInstruction* instruction : body) {
        if (instruction->offset >= region->first && instruction->offset < region->second)
          facts.division_offsets.insert(instruction->offset);
      }
      continue;
    }
    size_t index = std::find(body.begin(), body.end(), site) - body.begin();
    MarkDivisionSequence(body, index, facts.division_offsets);
  }
}

// Address arithmetic consumes a quotient or remainder; the division ends there.
bool IsAddressArithmetic(const SassInstruction& instruction) {
  return instruction.opcode == "LEA" || HasModifier(instruction, ".WIDE");
}

// The instructions that read a reciprocal's value (see the top of the file), from each inline site on.
void MarkReciprocalUses(const InstructionList& body, IntegerDivisionFacts& facts) {
  std::set<unsigned long long> setup = facts.division_offsets;
  for (const SassInstruction* site : facts.inline_sites) {
    std::set<int> derived;
    for (int r : WrittenRegisters(*site)) derived.insert(r);
    size_t start = std::find(body.begin(), body.end(), site) - body.begin();
    for (size_t i = start + 1; i < body.size(); ++i) {
      const SassInstruction& instruction = *body[i];
      std::vector<int> sources = SourceRegisters(instruction);
      bool reads = std::any_of(sources.begin(), sources.end(), [&](int r) { return derived.count(r) > 0; });
      bool division =
          reads && IsIntegerDivisionWork(instruction.instruction_class) && !IsAddressArithmetic(instruction);
      if (division) {
        facts.division_offsets.insert(instruction.offset);
        if (instruction.opcode == "IMAD" && HasModifier(instruction, ".HI") &&
            !setup.count(instruction.offset))
          facts.reuse_sites.push_back(&instruction);
      }
      for (int written : WrittenRegisters(instruction)) {
        if (division)
          derived.insert(written);
        else if (instruction.predicate.empty())  // (a predicated write may keep the derived value)
          derived.erase(written);
      }
    }
  }
}

IntegerDivisionFacts FindIntegerDivisions(const SassFunction& function) {
  IntegerDivisionFacts facts;
  InstructionList body = MainBody(function);
  facts.main_body_instructions = body.size();
  facts.inline_sites = Select(body, IsIntegerDivisionStart);
  facts.call_sites = CallsTo(function, RoutineKind::kIntegerDivision);
  for (const SassInstruction* call : facts.call_sites) {
    InstructionList routine = Subroutine(function, *CallTarget(*call));
    facts.routine_instructions = std::max(facts.routine_instructions, routine.size());
    for (const SassInstruction* instruction : routine) facts.routine_offsets.insert(instruction->offset);
  }
  facts.uses_64_bit =
      std::any_of(function.instructions.begin(), function.instructions.end(), [](const SassInstruction& i) {
        return IsIntegerDivisionStart(i) && (HasModifier(i, ".U64") || HasModifier(i, ".S64"));
      });
  MarkDivisionCode(body, facts);
  MarkReciprocalUses(body, facts);
  return facts;
}

// The division code's share of the work: of executed instructions when the
// source page has per-PC counts, else of the main body's static instructions.
// The division code includes the division routines the body calls (a 64-bit
// division or modulo by a value above 2^32 runs a ~100-instruction
// subroutine, the bulk of its cost): executed, their rows of the source page;
// statically, when the body has no inline 32-bit path beside the calls (no
// I2F.RP sequence: every division takes the call), each call site runs its
// routine once per pass through the body (the longest routine called, as a
// path through it). With an inline path, the calls are the rare case of
// operands above 32 bits, and the static share counts the main body only.
std::pair<double, std::string> DivisionShare(const ToolContext& context, const IntegerDivisionFacts& facts) {
  if (context.source_page) {
    double division = 0, total = 0;
    for (const SourcePageRow& row : context.source_page->rows) {
      double executed = row.instructions_executed.value_or(0);
      total += executed;
      if (facts.division_offsets.count(row.offset) || facts.routine_offsets.count(row.offset))
        division += executed;
    }
    if (total > 0) return {division / total, "executed instructions (ncu source page)"};
  }
  double called =
      facts.inline_sites.empty() ? double(facts.call_sites.size() * facts.routine_instructions) : 0;
  return {SafeRatio(double(facts.division_offsets.size()) + called,
                    double(facts.main_body_instructions) + called),
          called == 0 ? "static main-body instructions (SASS)"
                      : "static instructions (SASS), each division routine call counted at its "
                        "routine's length"};
}

std::vector<Recommendation> IndexArithmeticRecommendations(double gain, const IntegerDivisionFacts& facts) {
  std::vector<Recommendation> recommendations;
  recommendations.push_back(
      {"Take the division out of the index math: launch a multi-dimensional grid (blockIdx.y/z carry the "
       "outer indices) or loop over the outer dimensions, and for run-time divisors precompute magic-number "
       "multipliers on the host (multiply-high and shift, e.g. cutlass::FastDivmod)",
       "Each division by a run-time value costs I2F, MUFU.RCP, F2I and a dozen IMAD/ISETP fix-ups on the XU "
       "and integer pipes; a magic-number division is two or three IMADs",
       fmt::format("up to {:.0f}% less kernel time with the division code gone", gain * 100)});
  if (facts.uses_64_bit) {
    recommendations.push_back(
        {"Index with 32-bit integers (int/unsigned) when the extents fit, checked once on the host (N*C*H*W "
         "< 2^31)",
         facts.call_sites.empty()
             ? std::string("A 64-bit division works on register pairs: twice the IMADs of a 32-bit one, plus "
                           "carries")
             : fmt::format("A 64-bit division or modulo is a run-time operand check, an inline 32-bit path "
                           "and a call of a {}-instruction subroutine ({} call sites here)",
                           facts.routine_instructions, facts.call_sites.size()),
         "removes the checks, the call setup and the 64-bit routine; fewer registers"});
  }
  recommendations.push_back(
      {"Avoid % and / in inner loops: carry the coordinates incrementally (++w; if (w == W) { w = 0; ++h; })",
       "Increments and compares replace a division per iteration", "removes the division from the loop"});
  return recommendations;
}

std::string IndexArithmeticCause(const IntegerDivisionFacts& facts, double share, double compute_fraction) {
  std::string sites =
      facts.uses_64_bit && !facts.call_sites.empty()
          ? fmt::format(
                "{} divisions or modulos of 64-bit values, each compiled as a run-time check that takes an "
                "inline 32-bit sequence (I2F.RP → MUFU.RCP → F2I plus IMAD/ISETP fix-ups; {} in SASS) when "
                "both operands fit in 32 bits and else calls a 64-bit routine ({} call sites)",
                std::max(facts.inline_sites.size(), facts.call_sites.size()), facts.inline_sites.size(),
                facts.call_sites.size())
          : fmt::format(
                "{} inline division sequences (I2F.RP → MUFU.RCP → F2I plus IMAD/ISETP fix-ups) and {} calls "
                "of a division routine",
                facts.inline_sites.size(), facts.call_sites.size());
  return fmt::format(
      "Index math divides by run-time values: {}. The division code is {:.0f}% of the kernel's instructions, "
      "in a kernel that is {:.0f}% compute-limited while doing almost no floating-point work: the SM spends "
      "its issue slots computing addresses.",
      sites, share * 100, compute_fraction * 100);
}

void AddIndexArithmeticEvidence(const ToolContext& context, const IntegerDivisionFacts& facts, double share,
                                const std::string& share_basis, Finding& finding) {
  finding.evidence.push_back(MakeEvidence("integer divisions by run-time values (I2F.RP sequences, SASS)",
                                          double(facts.inline_sites.size()), "inst", "", 0));
  finding.evidence.push_back(MakeEvidence("further divisions by a hoisted reciprocal (IMAD.HI, SASS)",
                                          double(facts.reuse_sites.size()), "inst", "", 0));
  finding.evidence.push_back(MakeEvidence("calls of integer division/modulo subroutines (SASS)",
                                          double(facts.call_sites.size()), "inst", "", 0));
  finding.evidence.push_back(MakeEvidence("division code share of " + share_basis, share * 100, "%",
                                          ">=", context.Threshold("min_division_share") * 100));
  finding.evidence.push_back(MakeEvidence(std::string(kSmThroughputMetric),
                                          ComputeLimitedFraction(context) * 100, "%",
                                          ">=", context.Threshold("min_sm_throughput_percent")));
  for (std::string_view pipe : {"xu", "alu", "fma"}) {
    if (auto percent = context.Metric(PipeMetric(pipe)))
      finding.evidence.push_back(MakeEvidence(PipeMetric(pipe), *percent, "%", "", 0));
  }
  if (const ComputeWork* fp32 = FindWork(context.roofline, "fp32"))
    finding.evidence.push_back(MakeEvidence("FP32 FLOP rate / peak", fp32->percent_of_peak, "%", "", 0));
}

// The division sites; with the source page, every instruction of the division
// code, so that the most-stalled ones come first.
InstructionList DivisionLocations(const ToolContext& context, const IntegerDivisionFacts& facts) {
  if (context.source_page) {
    return Select(MainBody(*context.sass), [&](const SassInstruction& instruction) {
      return facts.division_offsets.count(instruction.offset) > 0;
    });
  }
  InstructionList sites = facts.call_sites;
  sites.insert(sites.end(), facts.inline_sites.begin(), facts.inline_sites.end());
  return sites;
}

void AddDivisionStallEvidence(const ToolContext& context, const IntegerDivisionFacts& facts,
                              Finding& finding) {
  if (!context.source_page) return;
  double total = context.source_page->TotalStallSamples();
  double division = 0;
  for (const SourcePageRow& row : context.source_page->rows) {
    if (facts.division_offsets.count(row.offset)) division += row.stall_samples.value_or(0);
  }
  if (total > 0) {
    finding.evidence.push_back(MakeEvidence("stall samples in the division code (ncu source page)",
                                            100 * division / total, "%", "", 0));
  }
}

// Without a SASS listing: the raw page's instruction mix. Integer work beyond
// what the memory accesses need for their addresses, in a compute-limited
// kernel that does almost no floating-point work, is index arithmetic.
// The compute side bounds the kernel: the SM at >= min_sm_throughput_percent, or, with the memory side
// idle (its busiest unit at most max_memory_to_sm_ratio of the SM's load), the SM at >=
// min_sm_throughput_percent_memory_idle: a kernel whose memory units are far less busy than its SM spends
// its time issuing and waiting on its own instruction stream (the dependent chains of a division routine),
// so the instructions a rewrite removes are its time even below ncu's 60% compute-bound line.
bool ComputeSideBounds(const ToolContext& context, double compute_fraction) {
  double percent = compute_fraction * 100;
  if (percent >= context.Threshold("min_sm_throughput_percent")) return true;
  const RooflineAnalysis& roofline = context.roofline;
  double memory = std::max(roofline.memory_throughput_percent.value_or(0), roofline.memory_percent_of_peak);
  return percent >= context.Threshold("min_sm_throughput_percent_memory_idle") &&
         memory <= context.Threshold("max_memory_to_sm_ratio") * percent;
}

std::optional<Finding> AnalyzeIndexArithmeticFromMix(const ToolContext& context) {
  InstructionMix mix = ReadInstructionMix(context);
  if (!mix.valid) return std::nullopt;
  double compute_fraction = ComputeLimitedFraction(context);
  if (!ComputeSideBounds(context, compute_fraction)) return std::nullopt;
  double fp_share = mix.fp / mix.total;
  if (fp_share > context.Threshold("max_fp_share_without_sass")) return std::nullopt;
  // A kernel whose arithmetic runs on the tensor cores issues few FP instructions by design (its
  // integer work is the MMA pipeline's addressing), and one whose busiest pipe is the load/store
  // unit is bound by its memory instructions, not by integer work.
  for (const ComputeWork& work : context.roofline.compute)
    if (work.precision.rfind("tensor_", 0) == 0 && work.operations > 0) return std::nullopt;
  PipeLoads loads = ReadPipeLoads(context);
  if (!loads.empty() && BusiestPipeExcept(loads, "").first == "lsu") return std::nullopt;
  // Index arithmetic computes the addresses of memory accesses: far beyond what even a deep index
  // unravel needs per access, the integer work is the computation itself (a hash chain, a PRNG, a
  // number-theoretic loop), which a cheaper index cannot remove.
  if (mix.Other() > context.Threshold("max_integer_instructions_per_access") * mix.memory)
    return std::nullopt;
  double addressing = context.Threshold("address_instructions_per_access") * mix.memory;
  double excess = std::max(0.0, mix.Other() - addressing);
  double share = excess / mix.total;
  if (share < context.Threshold("min_division_share")) return std::nullopt;
  Finding finding;
  finding.title = fmt::format(
      "Integer/index arithmetic dominates: {:.0f}% of the instructions beyond addressing", share * 100);
  finding.estimated_gain = share * compute_fraction;
  finding.gain_method = fmt::format(
      "integer, conversion and move instructions beyond {} per memory access, {:.0f}% of the executed "
      "instructions (raw page: no SASS given) × SM throughput {:.0f}%",
      FormatCount(context.Threshold("address_instructions_per_access")), share * 100, compute_fraction * 100);
  finding.evidence.push_back(MakeEvidence("non-FP, non-memory, non-branch share of executed instructions",
                                          100 * mix.Other() / mix.total, "%", "", 0));
  finding.evidence.push_back(MakeEvidence("of which beyond address arithmetic", share * 100, "%",
                                          ">=", context.Threshold("min_division_share") * 100));
  finding.evidence.push_back(MakeEvidence("floating-point share of executed instructions", fp_share * 100,
                                          "%", "<=", context.Threshold("max_fp_share_without_sass") * 100));
  finding.evidence.push_back(
      MakeEvidence("memory instructions per 100 executed", 100 * mix.memory / mix.total, "inst", "", 0));
  finding.evidence.push_back(MakeEvidence(std::string(kSmThroughputMetric), compute_fraction * 100, "%",
                                          ">=", context.Threshold("min_sm_throughput_percent")));
  for (std::string_view pipe : {"alu", "fma", "xu"}) {
    if (auto percent = context.Metric(PipeMetric(pipe)))
      finding.evidence.push_back(MakeEvidence(PipeMetric(pipe), *percent, "%", "", 0));
  }
  finding.root_cause = fmt::format(
      "The SM is {:.0f}% busy but only {:.0f}% of its instructions are floating point and {:.0f}% are memory "
      "accesses: the rest is integer work (index and address arithmetic: divisions and modulos by run-time "
      "sizes, 64-bit index math, conversions). The raw page cannot show which instructions; the SASS listing "
      "would (cuobjdump -sass: I2F.RP/MUFU.RCP/F2I division sequences, CALLs of a 64-bit division routine).",
      compute_fraction * 100, fp_share * 100, 100 * mix.memory / mix.total);
  IntegerDivisionFacts none;
  finding.recommendations = IndexArithmeticRecommendations(finding.estimated_gain, none);
  finding.confidence = 0.55;
  return finding;
}

std::optional<Finding> AnalyzeIndexArithmetic(const ToolContext& context) {
  if (!context.sass) return AnalyzeIndexArithmeticFromMix(context);
  IntegerDivisionFacts facts = FindIntegerDivisions(*context.sass);
  size_t sites = facts.inline_sites.size() + facts.call_sites.size();
  if (sites < context.Threshold("min_integer_divisions")) return std::nullopt;
  double compute_fraction = ComputeLimitedFraction(context);
  if (!ComputeSideBounds(context, compute_fraction)) return std::nullopt;
  auto [share, share_basis] = DivisionShare(context, facts);
  if (share < context.Threshold("min_division_share")) return std::nullopt;
  Finding finding;
  finding.title =
      fmt::format("{}integer division and modulo in index arithmetic ({:.0f}% of the instructions)",
                  facts.uses_64_bit ? "64-bit " : "", share * 100);
  finding.estimated_gain = share * compute_fraction;
  finding.gain_method = fmt::format("division code share of {} {:.0f}% × SM throughput {:.0f}%", share_basis,
                                    share * 100, compute_fraction * 100);
  AddIndexArithmeticEvidence(context, facts, share, share_basis, finding);
  finding.root_cause = IndexArithmeticCause(facts, share, compute_fraction);
  finding.recommendations = IndexArithmeticRecommendations(finding.estimated_gain, facts);
  finding.locations = LocationsOf(context, DivisionLocations(context, facts));
  AddDivisionStallEvidence(context, facts, finding);
  finding.confidence = facts.uses_64_bit ? 0.8 : 0.7;
  return finding;
}

}  // namespace

ToolDefinition Int64IndexArithmeticTool() {
  ToolDefinition tool;
  tool.id = "int64_index_arithmetic";
  tool.title = "Integer (64-bit) division and modulo in index arithmetic";
  tool.family = ToolFamily::kCompute;
  tool.side = ToolSide::kCompute;
  tool.relevant_classes = UnlessMemoryBound();
  tool.required = {{InputSource::kSass, "I2F.RP sequences, integer-division subroutine calls", true},
                   {InputSource::kNcuMetric, std::string(kSmThroughputMetric), false},
                   {InputSource::kNcuMetric, PipeMetric("xu"), true},
                   {InputSource::kNcuMetric, PipeMetric("alu"), true},
                   {InputSource::kSourcePage, "instructions executed per PC", true}};
  tool.thresholds = {
      MakeThreshold(
          "min_integer_divisions", 1, "inst",
          "division sites (inline I2F.RP reciprocal sequences or calls of a division routine) in the body"),
      MakeThreshold(
          "min_sm_throughput_percent", 60, "%",
          "SM throughput from which compute-side work bounds the kernel (ncu SpeedOfLight's 60% bound, "
          "RooflineOptions::bound_percent)"),
      MakeThreshold(
          "min_sm_throughput_percent_memory_idle", 40, "%",
          "SM throughput from which compute-side work bounds the kernel when its memory side is idle "
          "(max_memory_to_sm_ratio): a latency-bound index kernel (blind set 7's tubelet patchify: 88% "
          "of its instructions in 64-bit division code, SM 59%, DRAM 11%) spends its time in those "
          "instructions' dependent chains; 40% keeps ncu's 'low utilization' region (< 40%) out"),
      MakeThreshold(
          "max_memory_to_sm_ratio", 0.5, "ratio",
          "busiest memory unit (ncu memory throughput, % of peak) over the SM throughput up to which the "
          "memory side is idle: at half the SM's load, memory is not what the kernel waits on"),
      MakeThreshold(
          "min_division_share", 0.1, "fraction",
          "share of the instructions in division code below which the division is not worth a rewrite "
          "(under 10% of the issue slots, the gain would be at most 'minor'); without SASS, the share of "
          "integer "
          "work beyond addressing"),
      MakeThreshold(
          "max_fp_share_without_sass", 0.1, "fraction",
          "without SASS: floating-point share of the executed instructions up to which the kernel does "
          "almost no arithmetic on its data, so its integer work is index math"),
      MakeThreshold(
          "max_integer_instructions_per_access", 1000, "inst",
          "without SASS: integer, conversion and move instructions per memory access above which the "
          "integer work is the kernel's computation, not index arithmetic: a 6-D index unravel with a 64-bit "
          "div/mod per dimension is ~6 x 100 (a ~70-instruction division routine plus its inline check and "
          "the multiply-subtract), so 1000 leaves room; the planted index kernels measure 45-90"),
      MakeThreshold(
          "address_instructions_per_access", 4, "inst",
          "without SASS: integer instructions a plain coalesced access needs for its address (IMAD.WIDE, "
          "IADD3, LEA, ISETP for the bound); integer work beyond that is index arithmetic")};
  for (std::string& name : InstructionMixMetrics()) tool.required.push_back(NcuMetric(name, true));
  tool.trigger =
      ">= min_integer_divisions division sites in SASS; SM throughput >= min_sm_throughput_percent (or >= "
      "min_sm_throughput_percent_memory_idle with memory <= max_memory_to_sm_ratio × SM); division "
      "code (each site's sequence, and every integer instruction that reads a hoisted reciprocal's value, "
      "up to the address arithmetic) >= min_division_share of the instructions. Without SASS: FP share <= "
      "max_fp_share_without_sass "
      "and "
      "integer work beyond address_instructions_per_access per memory access >= min_division_share, at most "
      "max_integer_instructions_per_access per access";
  tool.gain_bound = GainBound::kReducesCompute;
  tool.analyze = AnalyzeIndexArithmetic;
  return tool;
}

}  // namespace kopt
