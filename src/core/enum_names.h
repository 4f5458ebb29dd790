// Name tables for enums: one constexpr array of (value, name) pairs per enum,
// looked up both ways. For the names that files and JSON documents carry.
//
// Thread safety: pure functions over constant tables.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>

namespace kopt {

template <typename Enum, size_t N>
using EnumNameTable = std::array<std::pair<Enum, std::string_view>, N>;

// The name of `value`, or `missing` when the table lacks it.
template <typename Enum, size_t N>
std::string_view EnumName(const EnumNameTable<Enum, N>& table, Enum value, std::string_view missing = "") {
  for (const auto& [entry, name] : table) {
    if (entry == value) return name;
  }
  return missing;
}

// The value named `name`, or nullopt.
template <typename Enum, size_t N>
std::optional<Enum> EnumFromName(const EnumNameTable<Enum, N>& table, std::string_view name) {
  for (const auto& [entry, entry_name] : table) {
    if (entry_name == name) return entry;
  }
  return std::nullopt;
}

}  // namespace kopt
