import CSQLite
import GRDB

/// The upsert of a file's row, bound value by value with SQLite's own calls.
///
/// Through GRDB's arguments each row boxed sixteen values and hashed the statement's text to find it in the cache,
/// which cost more than SQLite's own work. One is made per batch; it runs on the journal's thread only.
struct FileRowUpsert {
    static let sql = """
        INSERT INTO files (path, destination, size, mtime, phase, attempts, http_status, response,
            media_id, location, error, run_id, updated_at, content_hash, verified, name, key_renewal)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (path, destination) DO UPDATE SET
            content_hash = CASE
                WHEN excluded.content_hash IS NOT NULL THEN excluded.content_hash
                WHEN size = excluded.size AND mtime = excluded.mtime THEN content_hash END,
            size = excluded.size, mtime = excluded.mtime, phase = excluded.phase,
            attempts = excluded.attempts, http_status = excluded.http_status, response = excluded.response,
            media_id = excluded.media_id, location = excluded.location, etag = NULL,
            error = excluded.error, run_id = excluded.run_id, updated_at = excluded.updated_at,
            verified = excluded.verified, name = excluded.name, key_renewal = excluded.key_renewal
        """

    /// One column's value.
    enum Value {
        case text(String?)
        case integer(Int64?)
        case real(Double)
    }

    private let statement: Statement
    private let connection: OpaquePointer?

    init(_ db: Database) throws {
        statement = try db.cachedStatement(sql: Self.sql)
        connection = db.sqliteConnection
    }

    /// Writes one row: the values in the order of the statement's columns.
    func run(_ values: [Value]) throws {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .text(var text?):
                // The bytes in place (a short string's on the stack): `utf8CString` copied each to the heap.
                code = text.withUTF8 { bytes in
                    bytes.withMemoryRebound(to: CChar.self) {
                        sqlite3_bind_text(handle, index, $0.baseAddress ?? Self.empty, Int32($0.count), Self.transient)
                    }
                }
            case .integer(let number?):
                code = sqlite3_bind_int64(handle, index, number)
            case .real(let number):
                code = sqlite3_bind_double(handle, index, number)
            case .text(nil), .integer(nil):
                code = sqlite3_bind_null(handle, index)
            }
            try check(code)
        }
        let result = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard result == SQLITE_DONE else { return try check(result == SQLITE_ROW ? SQLITE_MISUSE : result) }
    }

    private func check(_ code: Int32) throws {
        guard code != SQLITE_OK else { return }
        let message = sqlite3_errmsg(connection).map { String(cString: $0) }
        throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: Self.sql)
    }

    /// An empty text's bytes: a null pointer would bind NULL.
    private static var empty: UnsafePointer<CChar> {
        UnsafeRawPointer(("" as StaticString).utf8Start).assumingMemoryBound(to: CChar.self)
    }

    /// SQLITE_TRANSIENT, a macro Swift does not import: SQLite copies the text before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
