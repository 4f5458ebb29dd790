// Where a CUTLASS/CuTe source tree is (`--cutlass`, `--cutlass-dir`): its
// root (what the programmer's source-search tool reads) and the include
// directories a candidate that uses CUTLASS is compiled with.
//
//   LocateCutlass("pip", runner): the tree the nvidia-cutlass wheel installs
//     (pip install nvidia-cutlass; scripts/install_dependencies.sh), found by
//     asking python3 where the cutlass_library package is
//     (importlib.util.find_spec, which runs none of its code); its tree is
//     <package>/source.
//   LocateCutlass(DIR, runner): a CUTLASS checkout or that tree: DIR itself
//     when DIR/include/cutlass/cutlass.h exists, or DIR's parent when DIR is
//     the include directory (DIR/cutlass/cutlass.h exists).
//
// Include directories: <root>/include, then <root>/tools/util/include when
// it exists (CUTLASS's host utilities), absolute and canonical.
//
// Errors: NotFound naming what was searched and how to install it.
//
// Thread safety: runs python3 through `runner` (which must be usable from
// the calling thread); no state.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "core/subprocess.h"

namespace kopt {

struct CutlassTree {
  std::string root;                              // absolute, canonical
  std::vector<std::string> include_directories;  // absolute, canonical
  std::string version;                           // from include/cutlass/version.h ("4.2.0"); "" when unknown
};

inline constexpr const char* kCutlassFromPip = "pip";

Result<CutlassTree> LocateCutlass(const std::string& where, CommandRunner& runner);

// "the CUTLASS 4.2.0 / CuTe source tree" for prompts (no path: a prompt, and
// so a recorded request, must not depend on where the tree is installed).
std::string DescribeCutlassTree(const CutlassTree& tree);

}  // namespace kopt
