#include "profile/sass_operands.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace kopt {
namespace {

// The register a predicate names, without '@' and '!': "PT", "UP0".
std::string_view PredicateRegister(std::string_view predicate) {
  if (!predicate.empty() && predicate.front() == '@') predicate.remove_prefix(1);
  if (!predicate.empty() && predicate.front() == '!') predicate.remove_prefix(1);
  return predicate;
}

bool IsNegated(std::string_view predicate) {
  return predicate.size() > 1 && predicate[1] == '!';
}

bool IsConstant(std::string_view name) {
  return name == "PT" || name == "UPT";
}

}  // namespace

bool NeverExecutes(std::string_view predicate) {
  return IsNegated(predicate) && IsConstant(PredicateRegister(predicate));
}

bool IsPerThreadPredicate(std::string_view predicate) {
  std::string_view name = PredicateRegister(predicate);
  if (name.size() < 2 || name.front() != 'P') return false;
  return std::all_of(name.begin() + 1, name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string SassText(const SassInstruction& instruction) {
  std::string text = instruction.predicate.empty() ? "" : instruction.predicate + " ";
  text += instruction.opcode + instruction.modifiers;
  if (!instruction.operands.empty()) text += " " + instruction.operands;
  return text;
}

bool HasModifier(const SassInstruction& instruction, std::string_view modifier) {
  return instruction.modifiers.find(modifier) != std::string::npos;
}

std::vector<std::string_view> Operands(const SassInstruction& instruction) {
  std::vector<std::string_view> operands;
  std::string_view text = instruction.operands;
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view operand = text.substr(0, comma);
    while (!operand.empty() && operand.front() == ' ') operand.remove_prefix(1);
    while (!operand.empty() && operand.back() == ' ') operand.remove_suffix(1);
    operands.push_back(operand);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return operands;
}

std::optional<int> RegisterNumber(std::string_view operand) {
  while (!operand.empty() && (operand.front() == '-' || operand.front() == '|' || operand.front() == '!'))
    operand.remove_prefix(1);
  if (operand.size() < 2 || operand.front() != 'R' || operand[1] < '0' || operand[1] > '9')
    return std::nullopt;
  int number = 0;
  std::from_chars(operand.data() + 1, operand.data() + operand.size(), number);
  return number;
}

std::optional<int> DestinationRegister(const SassInstruction& instruction) {
  std::vector<std::string_view> operands = Operands(instruction);
  return operands.empty() ? std::nullopt : RegisterNumber(operands.front());
}

std::vector<int> WrittenRegisters(const SassInstruction& instruction) {
  auto destination = DestinationRegister(instruction);
  if (!destination) return {};
  if (HasModifier(instruction, ".128"))
    return {*destination, *destination + 1, *destination + 2, *destination + 3};
  bool wide = HasModifier(instruction, ".WIDE") || HasModifier(instruction, ".64") ||
              instruction.instruction_class == InstructionClass::kFp64;
  if (wide) return {*destination, *destination + 1};
  return {*destination};
}

std::vector<int> SourceRegisters(const SassInstruction& instruction) {
  std::vector<int> sources;
  std::vector<std::string_view> operands = Operands(instruction);
  for (size_t i = 1; i < operands.size(); ++i) {
    if (auto number = RegisterNumber(operands[i])) sources.push_back(*number);
  }
  return sources;
}

std::vector<int> AddressRegisters(const SassInstruction& instruction) {
  std::vector<int> registers;
  std::string_view text = instruction.operands;
  for (size_t open = text.find('['); open != std::string_view::npos; open = text.find('[', open + 1)) {
    size_t close = text.find(']', open);
    if (close == std::string_view::npos) break;
    std::string_view inside = text.substr(open + 1, close - open - 1);
    for (size_t at = 0; at < inside.size(); ++at) {
      bool starts =
          inside[at] == 'R' && (at == 0 || !std::isalnum(static_cast<unsigned char>(inside[at - 1])));
      if (!starts) continue;
      auto number = RegisterNumber(inside.substr(at));
      if (!number) continue;
      registers.push_back(*number);
      size_t end = inside.find_first_not_of("0123456789", at + 1);
      if (end != std::string_view::npos && inside.substr(end).starts_with(".64"))
        registers.push_back(*number + 1);
    }
  }
  return registers;
}

std::optional<unsigned long long> LastHexNumber(std::string_view text) {
  size_t position = text.rfind("0x");
  if (position == std::string_view::npos) return std::nullopt;
  unsigned long long value = 0;
  const char* begin = text.data() + position + 2;
  auto [end, error] = std::from_chars(begin, text.data() + text.size(), value, 16);
  if (error != std::errc() || end == begin) return std::nullopt;
  return value;
}

std::optional<unsigned long long> CallTarget(const SassInstruction& instruction) {
  if (instruction.opcode != "CALL" || !HasModifier(instruction, ".REL")) return std::nullopt;
  return LastHexNumber(instruction.operands);
}

}  // namespace kopt
