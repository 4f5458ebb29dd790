#include "core/elf_symbols.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace kopt {
namespace {

void PutLittleEndian(std::string& bytes, size_t offset, uint64_t value, size_t width) {
  for (size_t index = 0; index < width; ++index)
    bytes[offset + index] = static_cast<char>((value >> (8 * index)) & 0xff);
}

// A minimal ELF64 file: section 0 (null), 1 (.dynstr), 2 (.dynsym) with a
// null symbol, `mprotect` undefined, `entry` defined in section 5, and `dlsym` undefined.
std::string MinimalElfFile() {
  const std::string strings = std::string("\0mprotect\0entry\0dlsym\0", 22);
  const size_t strings_offset = 64, symbols_offset = 128, headers_offset = 256;
  std::string bytes(headers_offset + 3 * 64, '\0');
  bytes.replace(0, 4,
                "\x7f"
                "ELF");
  bytes[4] = 2;
  bytes[5] = 1;
  PutLittleEndian(bytes, 0x28, headers_offset, 8);
  PutLittleEndian(bytes, 0x3A, 64, 2);
  PutLittleEndian(bytes, 0x3C, 3, 2);
  bytes.replace(strings_offset, strings.size(), strings);
  const uint64_t names[] = {0, 1, 10, 16};
  const uint64_t sections[] = {0, 0, 5, 0};
  for (size_t symbol = 0; symbol < 4; ++symbol) {
    PutLittleEndian(bytes, symbols_offset + symbol * 24, names[symbol], 4);
    PutLittleEndian(bytes, symbols_offset + symbol * 24 + 6, sections[symbol], 2);
  }
  size_t strtab = headers_offset + 64, symtab = headers_offset + 128;
  PutLittleEndian(bytes, strtab + 4, 3, 4);
  PutLittleEndian(bytes, strtab + 24, strings_offset, 8);
  PutLittleEndian(bytes, strtab + 32, strings.size(), 8);
  PutLittleEndian(bytes, symtab + 4, 11, 4);
  PutLittleEndian(bytes, symtab + 24, symbols_offset, 8);
  PutLittleEndian(bytes, symtab + 32, 4 * 24, 8);
  PutLittleEndian(bytes, symtab + 40, 1, 4);
  PutLittleEndian(bytes, symtab + 56, 24, 8);
  return bytes;
}

TEST(ElfSymbolsTest, ListsTheUndefinedDynamicSymbolsOnly) {
  auto names = UndefinedDynamicSymbols(MinimalElfFile(), "candidate.so");
  ASSERT_TRUE(names.ok()) << names.status().message();
  EXPECT_EQ(*names, (std::vector<std::string>{"mprotect", "dlsym"}));
}

TEST(ElfSymbolsTest, RejectsWhatIsNotElf64) {
  auto text = UndefinedDynamicSymbols(std::string(100, 'x'), "candidate.so");
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.status().message().find("candidate.so: not an ELF file"), std::string::npos);
  std::string elf32 = MinimalElfFile();
  elf32[4] = 1;
  EXPECT_FALSE(UndefinedDynamicSymbols(elf32, "a.so").ok());
}

TEST(ElfSymbolsTest, RejectsATableOutsideTheFile) {
  std::string bytes = MinimalElfFile();
  PutLittleEndian(bytes, 256 + 128 + 32, 1 << 20, 8);  // .dynsym size past the end
  auto names = UndefinedDynamicSymbols(bytes, "a.so");
  ASSERT_FALSE(names.ok());
  EXPECT_NE(names.status().message().find("outside the file"), std::string::npos);
  EXPECT_FALSE(UndefinedDynamicSymbols(bytes.substr(0, 300), "a.so").ok());
}

}  // namespace
}  // namespace kopt
