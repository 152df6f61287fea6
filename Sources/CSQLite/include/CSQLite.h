#ifndef CSQLITE_H
#define CSQLITE_H
#include <sqlite3.h>

// sqlite3_db_config is a C variadic, which Swift cannot call: a typed wrapper for the one option the journal sets.

/// SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE on: closing the last connection leaves the WAL as it is instead of copying it
/// into the database file; the next open reads it. Returns an SQLite result code.
int csqlite_skip_checkpoint_on_close(sqlite3 *db);
#endif
