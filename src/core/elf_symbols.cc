#include "core/elf_symbols.h"

#include <cstdint>
#include <cstring>

namespace kopt {
namespace {

constexpr uint32_t kSectionDynamicSymbols = 11;  // SHT_DYNSYM
constexpr size_t kSectionHeaderBytes = 64;       // Elf64_Shdr
constexpr size_t kSymbolBytes = 24;              // Elf64_Sym

// Little-endian unsigned of `width` bytes at `offset`; false when out of range.
bool ReadUnsigned(std::string_view bytes, uint64_t offset, size_t width, uint64_t& value) {
  if (offset > bytes.size() || width > bytes.size() - offset) return false;
  value = 0;
  for (size_t index = 0; index < width; ++index) {
    value |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[offset + index])) << (8 * index);
  }
  return true;
}

struct Section {
  uint64_t type = 0, offset = 0, size = 0, link = 0, entry_size = 0;
};

bool ReadSection(std::string_view bytes, uint64_t header_offset, Section& section) {
  return ReadUnsigned(bytes, header_offset + 4, 4, section.type) &&
         ReadUnsigned(bytes, header_offset + 24, 8, section.offset) &&
         ReadUnsigned(bytes, header_offset + 32, 8, section.size) &&
         ReadUnsigned(bytes, header_offset + 40, 4, section.link) &&
         ReadUnsigned(bytes, header_offset + 56, 8, section.entry_size);
}

bool InBounds(std::string_view bytes, const Section& section) {
  return section.offset <= bytes.size() && section.size <= bytes.size() - section.offset;
}

}  // namespace

Result<std::vector<std::string>> UndefinedDynamicSymbols(std::string_view elf_bytes,
                                                         std::string_view file_name) {
  auto invalid = [&](std::string_view what) {
    return InvalidInput(std::string(file_name) + ": " + std::string(what));
  };
  if (elf_bytes.size() < 64 || std::memcmp(elf_bytes.data(),
                                           "\x7f"
                                           "ELF",
                                           4) != 0) {
    return invalid("not an ELF file");
  }
  if (elf_bytes[4] != 2 || elf_bytes[5] != 1) return invalid("not a 64-bit little-endian ELF file");
  uint64_t table_offset = 0, header_size = 0, header_count = 0;
  ReadUnsigned(elf_bytes, 0x28, 8, table_offset);
  ReadUnsigned(elf_bytes, 0x3A, 2, header_size);
  ReadUnsigned(elf_bytes, 0x3C, 2, header_count);
  if (header_count == 0) return std::vector<std::string>{};
  if (header_size < kSectionHeaderBytes || table_offset > elf_bytes.size() ||
      header_count > (elf_bytes.size() - table_offset) / header_size) {
    return invalid("section headers outside the file");
  }
  std::vector<std::string> names;
  for (uint64_t index = 0; index < header_count; ++index) {
    Section symbols;
    if (!ReadSection(elf_bytes, table_offset + index * header_size, symbols)) {
      return invalid("section header outside the file");
    }
    if (symbols.type != kSectionDynamicSymbols) continue;
    Section strings;
    if (symbols.link >= header_count ||
        !ReadSection(elf_bytes, table_offset + symbols.link * header_size, strings) ||
        !InBounds(elf_bytes, symbols) || !InBounds(elf_bytes, strings)) {
      return invalid("dynamic symbol table or its strings outside the file");
    }
    const uint64_t stride = symbols.entry_size >= kSymbolBytes ? symbols.entry_size : kSymbolBytes;
    std::string_view string_table = elf_bytes.substr(strings.offset, strings.size);
    for (uint64_t entry = symbols.offset;
         symbols.offset + symbols.size - entry >= kSymbolBytes && entry < symbols.offset + symbols.size;
         entry += stride) {
      uint64_t name = 0, section_index = 0;
      ReadUnsigned(elf_bytes, entry, 4, name);
      ReadUnsigned(elf_bytes, entry + 6, 2, section_index);
      if (section_index != 0 || name == 0 || name >= string_table.size()) continue;
      std::string_view rest = string_table.substr(name);
      names.emplace_back(rest.substr(0, rest.find('\0')));
    }
  }
  return names;
}

}  // namespace kopt
