// The small SQLite helpers both stores use (store/workspace.h,
// store/search_memory.h): opening a database file the same way (read-write,
// created when missing, serialized, a 10 s busy timeout), and text binding
// and reading.
//
// Thread safety: as SQLite's (the handles are opened SQLITE_OPEN_FULLMUTEX).
#pragma once

#include <sqlite3.h>

#include <string>
#include <string_view>

#include "core/status.h"

namespace kopt {

// Opens (creating) `database_path`; the caller owns the handle and closes it
// with sqlite3_close. Unavailable "cannot open the <what> database PATH: ..."
// otherwise.
Result<sqlite3*> OpenSqliteDatabase(const std::string& database_path, std::string_view what);

// Binds a copy of `text` to parameter `index` (1-based).
void BindText(sqlite3_stmt* statement, int index, std::string_view text);

// Column `column` (0-based) of the current row as text; "" for NULL.
std::string ColumnText(sqlite3_stmt* statement, int column);

}  // namespace kopt
