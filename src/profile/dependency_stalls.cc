#include "profile/dependency_stalls.h"

#include <algorithm>
#include <optional>

#include "profile/sass.h"
#include "profile/sass_operands.h"

namespace kopt {
namespace {

enum class Scoreboard { kNone, kLong, kShort };

// Which scoreboard a consumer of this instruction's result waits on.
Scoreboard ScoreboardOf(const SassInstruction& instruction) {
  switch (instruction.instruction_class) {
    case InstructionClass::kGlobalLoad:
    case InstructionClass::kLocalLoad:
    case InstructionClass::kGenericLoadStore:
    case InstructionClass::kGlobalAtomic: return Scoreboard::kLong;
    case InstructionClass::kSharedLoad:
    case InstructionClass::kSharedAtomic:
    case InstructionClass::kSpecialFunction: return Scoreboard::kShort;
    case InstructionClass::kMove:
      return instruction.opcode == "S2R" || instruction.opcode == "SHFL" ? Scoreboard::kShort
                                                                         : Scoreboard::kNone;
    default: return Scoreboard::kNone;
  }
}

double ReasonSamples(const SourcePageRow& row, const char* reason) {
  auto found = row.stall_reason_samples.find(reason);
  return found == row.stall_reason_samples.end() ? 0 : found->second;
}

}  // namespace

double DependencyStalls::AttributedSamples(const SourcePage& page, size_t row) const {
  double own = page.rows[row].stall_samples.value_or(0);
  if (row >= waiting_samples.size()) return own;
  return std::max(0.0, own - moved_samples[row]) + waiting_samples[row];
}

DependencyStalls AttributeDependencyStalls(const SourcePage& page) {
  size_t count = page.rows.size();
  DependencyStalls result;
  result.waiting_samples.assign(count, 0);
  result.main_waiter.assign(count, DependencyStalls::kNone);
  result.moved_samples.assign(count, 0);
  std::vector<std::optional<SassInstruction>> instructions(count);
  for (size_t index = 0; index < count; ++index) {
    Result<SassInstruction> parsed = ParseSassInstruction(page.rows[index].source);
    if (parsed.ok() && !NeverExecutes(parsed.value())) instructions[index] = std::move(parsed).value();
  }
  std::vector<double> largest_waiter(count, 0);
  for (size_t consumer = 0; consumer < count; ++consumer) {
    if (!instructions[consumer]) continue;
    const SourcePageRow& row = page.rows[consumer];
    double long_samples = ReasonSamples(row, "long_sb"), short_samples = ReasonSamples(row, "short_sb");
    if (long_samples <= 0 && short_samples <= 0) continue;
    std::vector<int> reads = SourceRegisters(*instructions[consumer]);
    std::vector<int> address = AddressRegisters(*instructions[consumer]);
    reads.insert(reads.end(), address.begin(), address.end());
    // The nearest earlier writer of each register read, by scoreboard.
    std::vector<size_t> long_producers, short_producers;
    for (int read : reads) {
      for (size_t back = consumer; back-- > 0;) {
        if (!instructions[back]) continue;
        std::vector<int> written = WrittenRegisters(*instructions[back]);
        if (std::find(written.begin(), written.end(), read) == written.end()) continue;
        Scoreboard scoreboard = ScoreboardOf(*instructions[back]);
        std::vector<size_t>& producers = scoreboard == Scoreboard::kLong ? long_producers : short_producers;
        if (scoreboard != Scoreboard::kNone &&
            std::find(producers.begin(), producers.end(), back) == producers.end())
          producers.push_back(back);
        break;
      }
    }
    for (auto [samples, producers] :
         {std::pair{long_samples, &long_producers}, {short_samples, &short_producers}}) {
      if (samples <= 0 || producers->empty()) continue;
      double share = samples / static_cast<double>(producers->size());
      for (size_t producer : *producers) {
        result.waiting_samples[producer] += share;
        if (share > largest_waiter[producer]) {
          largest_waiter[producer] = share;
          result.main_waiter[producer] = consumer;
        }
      }
      result.moved_samples[consumer] += samples;
    }
  }
  return result;
}

}  // namespace kopt
