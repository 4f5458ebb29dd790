#include "store/sqlite_support.h"

#include <fmt/format.h>

namespace kopt {

Result<sqlite3*> OpenSqliteDatabase(const std::string& database_path, std::string_view what) {
  sqlite3* database = nullptr;
  int code = sqlite3_open_v2(database_path.c_str(), &database,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr);
  if (code != SQLITE_OK) {
    std::string message = database ? sqlite3_errmsg(database) : sqlite3_errstr(code);
    sqlite3_close(database);
    return Unavailable(fmt::format("cannot open the {} database {}: {}", what, database_path, message));
  }
  sqlite3_busy_timeout(database, 10000);
  return database;
}

void BindText(sqlite3_stmt* statement, int index, std::string_view text) {
  sqlite3_bind_text(statement, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
}

std::string ColumnText(sqlite3_stmt* statement, int column) {
  const unsigned char* text = sqlite3_column_text(statement, column);
  return text ? std::string(reinterpret_cast<const char*>(text)) : std::string();
}

}  // namespace kopt
