import Foundation
import GRDB

/// The journal's tables, as GRDB migrations, and the checks made before touching an existing file.
enum JournalSchema {
    /// `PRAGMA application_id` of a journal ("UPLD"), so another program's SQLite file is never migrated into one.
    static let applicationID: Int32 = 0x5550_4C44

    /// The migrations, oldest first; a released one is never edited, only followed by another. The tables have no
    /// foreign keys, so each runs with immediate checks: GRDB's deferred ones turn the pragma off and on and scan
    /// every table after each migration, on every new journal.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1", foreignKeyChecks: .immediate) { db in
            try db.execute(sql: "PRAGMA application_id = \(applicationID)")
            try db.execute(
                sql: """
                    CREATE TABLE runs (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        started_at REAL NOT NULL,
                        ended_at REAL,
                        destination TEXT NOT NULL,
                        arguments TEXT NOT NULL,
                        done INTEGER,
                        failed INTEGER,
                        cancelled INTEGER,
                        skipped INTEGER
                    );
                    CREATE TABLE files (
                        id INTEGER PRIMARY KEY,
                        path TEXT NOT NULL,
                        destination TEXT NOT NULL,
                        size INTEGER NOT NULL,
                        mtime REAL NOT NULL,
                        content_hash TEXT,
                        phase TEXT NOT NULL,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        http_status INTEGER,
                        response TEXT,
                        media_id TEXT,
                        location TEXT,
                        etag TEXT,
                        error TEXT,
                        run_id INTEGER NOT NULL,
                        updated_at REAL NOT NULL
                    );
                    CREATE UNIQUE INDEX files_by_path ON files (path, destination);
                    CREATE INDEX files_by_run ON files (run_id, phase);
                    CREATE TABLE multipart_uploads (
                        upload_id TEXT NOT NULL PRIMARY KEY,
                        path TEXT NOT NULL,
                        key TEXT NOT NULL,
                        size INTEGER NOT NULL,
                        mtime REAL NOT NULL,
                        created_at REAL NOT NULL
                    );
                    CREATE INDEX multipart_uploads_by_path ON multipart_uploads (path, key);
                    CREATE TABLE multipart_parts (
                        upload_id TEXT NOT NULL,
                        number INTEGER NOT NULL,
                        etag TEXT NOT NULL,
                        PRIMARY KEY (upload_id, number)
                    ) WITHOUT ROWID;
                    """)
        }
        // Named for what it adds rather than "v2", so branches that add columns do not collide on the name.
        migrator.registerMigration("files.verified", foreignKeyChecks: .immediate) { db in
            // The digest `--verify` found the stored copy to have; NULL for a file not verified.
            try db.execute(sql: "ALTER TABLE files ADD COLUMN verified TEXT")
        }
        migrator.registerMigration("multipart.checksums", foreignKeyChecks: .immediate) { db in
            // An upload's checksum algorithm and each part's checksum as sent; NULL for uploads made without one.
            try db.execute(
                sql: """
                    ALTER TABLE multipart_uploads ADD COLUMN checksum_algorithm TEXT;
                    ALTER TABLE multipart_parts ADD COLUMN checksum TEXT;
                    """)
        }
        migrator.registerMigration("multipart.part_size", foreignKeyChecks: .immediate) { db in
            // The part size an upload's parts were cut by; NULL for uploads begun before it was noted.
            try db.execute(sql: "ALTER TABLE multipart_uploads ADD COLUMN part_size INTEGER")
        }
        migrator.registerMigration("files.name", foreignKeyChecks: .immediate) { db in
            // The name the file went under (its path in the folder given): a form sends it, and the server stores
            // by it, so the same file sent from another folder is another upload. NULL for rows written before.
            try db.execute(sql: "ALTER TABLE files ADD COLUMN name TEXT")
        }
        migrator.registerMigration("files.key_renewal", foreignKeyChecks: .immediate) { db in
            // How many times `--verify` found the stored copy wrong (`UploadItem.keyRenewal`): the rerun sends the
            // file under the key that count makes, not the one whose answer is the wrong copy. NULL for 0.
            try db.execute(sql: "ALTER TABLE files ADD COLUMN key_renewal INTEGER")
        }
        return migrator
    }

    /// Refuses a file that is corrupt or is some other program's database; an empty file is a new journal.
    ///
    /// Runs before anything is written, so a refused file is left exactly as it was.
    static func check(_ db: Database, path: String) throws(JournalError) {
        do {
            // quick_check reads every page once (milliseconds for tens of thousands of rows) but skips the
            // index-content checks of integrity_check.
            // quick_check(1) stops at the first problem, which is all the one-line message can show.
            let verdict = try String.fetchOne(db, sql: "PRAGMA quick_check(1)") ?? "no verdict"
            guard verdict == "ok" else {
                let problem = verdict.replacingOccurrences(of: "*** in database main ***", with: "")
                    .split(whereSeparator: \.isNewline).joined(separator: " ")
                    .trimmingCharacters(in: .whitespaces)
                throw JournalError(.notADatabase, path: path, reason: "corrupt SQLite database (\(problem))")
            }
            let application = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
            if application == applicationID { return }
            let tables = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0
            guard application == 0, tables == 0 else {
                throw JournalError(
                    .notADatabase, path: path, reason: "an SQLite database, but not an uploader-tui journal")
            }
        } catch {
            throw JournalError.from(error, path: path)
        }
    }
}
