// Line diffs of two texts in unified format (the change from a parent
// candidate to its child, in `kopt optimize`'s report), computed with the
// Diff Template Library (Debian's libdtl-dev).
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace kopt {

struct DiffStatistics {
  int added_lines = 0;
  int removed_lines = 0;
};

// The unified diff ("--- before_name", "+++ after_name", "@@ -a,b +c,d @@"
// hunks with three lines of context, dtl's fixed size); "" when the texts
// are equal.
std::string UnifiedDiff(std::string_view before, std::string_view after, std::string_view before_name,
                        std::string_view after_name);

DiffStatistics CountChangedLines(std::string_view before, std::string_view after);

}  // namespace kopt
