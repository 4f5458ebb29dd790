// The symbols a shared object imports: the undefined entries of an ELF64
// little-endian file's dynamic symbol table (.dynsym), read from its bytes
// (outside data: a compiled candidate). What `nm -D --undefined-only` lists,
// without the version suffix.
//
// Thread safety: pure function.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace kopt {

// The names of the undefined (imported) dynamic symbols of `elf_bytes`, in
// table order, empty names skipped. InvalidInput naming `file_name` when the
// bytes are not ELF64 little-endian, or a section header, the symbol table or
// its string table lies outside the bytes; an object without .dynsym has no
// imports (an empty list).
Result<std::vector<std::string>> UndefinedDynamicSymbols(std::string_view elf_bytes,
                                                         std::string_view file_name);

}  // namespace kopt
