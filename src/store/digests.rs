//! The replay digests of a SQLite store, indexed in a file of their own
//! beside the database (`gatehouse.db-digests` beside `gatehouse.db`),
//! written by the group committer in the transaction that stores the
//! deliveries.
//!
//! A digest is random, so indexing it changes a page of the index chosen
//! at random, and SQLite's WAL takes a whole page for every page a commit
//! changes: once the index is larger than a commit's deliveries, the
//! acknowledging commit wrote and fsynced a page of it per delivery. With
//! 1,000,000 deliveries stored (`loadgen --only http --history 1000000`)
//! that took the p99 at 64 connections to 10.6–14.0 ms, against 5.4–7.3
//! ms on a fresh database. This file has no WAL and is never fsynced while
//! it is open (`journal_mode=MEMORY`, `synchronous=OFF`): its pages go to
//! the OS's cache, which writes each back once however often it changed.
//! With it, the same runs gave 6.5–6.9 ms.
//!
//! The file is an index derived from the deliveries, which keep their
//! digest, so it is trusted only as a process left it when it closed the
//! store: it records whether it is open, fsynced before the first change
//! after opening and after the last change before closing. A file left
//! open (a crash, a kill, a power loss), missing, unreadable, or naming
//! as its last delivery one the database does not hold (a database
//! restored from a backup) is made again from the deliveries, in digest
//! order: 1,000,000 digests in 0.7 s here. The committing connection holds
//! the file's lock from its first write until it closes, so a second store
//! opened on the database (another process, or a replica in tests) reads
//! and writes everything else but refuses deliveries, rather than keep a
//! copy of the file of its own.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use rusqlite::{Connection, OptionalExtension, params};

/// The name the committing connection attaches the file under.
pub(super) const SCHEMA: &str = "digests";

/// The file of the database at `database`.
pub(super) fn path(database: &Path) -> PathBuf {
    let mut name = database.as_os_str().to_owned();
    name.push("-digests");
    PathBuf::from(name)
}

/// Attaches the file to the committing connection and marks it open: as it
/// was left when the store was last closed, with the digests of any
/// deliveries stored since, or made again when it cannot be trusted.
pub(super) fn open(connection: &Connection, database: &Path) -> Result<()> {
    let file = path(database);
    let trust = match attach(connection, &file).and_then(|()| state(connection)) {
        Ok(state) => state.trust(connection)?,
        Err(err) if is_busy(&err) => {
            return Err(err).with_context(|| {
                format!(
                    "{} is held by another store: one process accepts the deliveries of a SQLite database \
                     (several replicas that accept share a PostgreSQL database)",
                    file.display()
                )
            });
        }
        Err(damaged) => {
            let _ = connection.execute_batch(&format!("DETACH DATABASE {SCHEMA}"));
            remove(&file)?;
            attach(connection, &file).with_context(|| format!("cannot make {}", file.display()))?;
            Trust::Not(damaged)
        }
    };
    mark(connection, true)?;
    match trust {
        Trust::Upto(upto) => index_from(connection, upto),
        Trust::New => index_from(connection, 0),
        Trust::Not(reason) => {
            tracing::warn!(file = %file.display(), reason = %format!("{reason:#}"), "making the replay-digest index again");
            connection.execute(&format!("DELETE FROM {SCHEMA}.replay_digests"), [])?;
            index_from(connection, 0)
        }
    }
}

/// The SQLite result code of the first SQLite error in `err`'s chain.
pub(super) fn sqlite_code(err: &anyhow::Error) -> Option<rusqlite::ErrorCode> {
    err.chain().filter_map(|e| e.downcast_ref::<rusqlite::Error>()).find_map(|e| e.sqlite_error_code())
}

/// Whether the file could not be read because another connection (another
/// process's store, or another store of this one) holds its lock.
pub(super) fn is_busy(err: &anyhow::Error) -> bool {
    matches!(sqlite_code(err), Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked))
}

/// Makes the file again from the deliveries, after a commit failed: the
/// database's part of it may have been kept and the file's not.
pub(super) fn reopen_after_failure(connection: &Connection, database: &Path) -> Result<()> {
    connection.execute_batch(&format!("DETACH DATABASE {SCHEMA}"))?;
    remove(&path(database))?;
    open(connection, database)
}

/// Marks the file closed once every change is on disk: the next process
/// to open the store trusts it.
pub(super) fn close(connection: &Connection) -> Result<()> {
    mark(connection, false)
}

/// Records whether the file is open in two commits fsynced at their end
/// (each changes the row, so each writes and fsyncs the file): the first
/// puts every change made before on disk, the second the mark. So the
/// changes made while open reach the disk before the mark that says it is
/// closed, and the mark that says it is open before any change after it.
fn mark(connection: &Connection, open: bool) -> Result<()> {
    connection.pragma_update(Some(SCHEMA), "synchronous", "FULL")?;
    connection.execute(&format!("UPDATE {SCHEMA}.indexed SET marks = marks + 1 WHERE id = 1"), [])?;
    let sql = format!("UPDATE {SCHEMA}.indexed SET open = ?1, marks = marks + 1 WHERE id = 1");
    connection.execute(&sql, [open])?;
    connection.pragma_update(Some(SCHEMA), "synchronous", "OFF")?;
    Ok(())
}

fn remove(file: &Path) -> Result<()> {
    match std::fs::remove_file(file) {
        Err(err) if err.kind() != std::io::ErrorKind::NotFound => {
            Err(err).with_context(|| format!("cannot remove {}", file.display()))
        }
        _ => Ok(()),
    }
}

/// Attaches the file (created when missing) with its tables.
fn attach(connection: &Connection, file: &Path) -> Result<()> {
    let name = file.to_str().with_context(|| format!("{} is not UTF-8", file.display()))?;
    connection.execute(&format!("ATTACH DATABASE ?1 AS {SCHEMA}"), [name])?;
    let mode: String = connection.query_row(&format!("PRAGMA {SCHEMA}.journal_mode = MEMORY"), [], |row| row.get(0))?;
    if !mode.eq_ignore_ascii_case("memory") {
        anyhow::bail!("{} stays in journal mode {mode}", file.display());
    }
    connection.pragma_update(Some(SCHEMA), "synchronous", "OFF")?;
    // Held from the first write until the connection closes: no lock taken
    // and given back, nor journal looked for, at every commit, and no
    // other process writes the file meanwhile.
    connection.pragma_update(Some(SCHEMA), "locking_mode", "EXCLUSIVE")?;
    connection.execute_batch(&format!(
        "CREATE TABLE IF NOT EXISTS {SCHEMA}.replay_digests (digest TEXT PRIMARY KEY) WITHOUT ROWID;
         CREATE TABLE IF NOT EXISTS {SCHEMA}.indexed (
             id INTEGER PRIMARY KEY CHECK (id = 1),
             upto INTEGER NOT NULL,
             delivery TEXT,
             open BOOLEAN NOT NULL,
             marks INTEGER NOT NULL
         );
         INSERT OR IGNORE INTO {SCHEMA}.indexed (id, upto, delivery, open, marks) VALUES (1, 0, NULL, FALSE, -1);"
    ))?;
    Ok(())
}

/// What the file can be trusted for.
enum Trust {
    /// The digests of the deliveries through this row.
    Upto(i64),
    /// Nothing: it was just made.
    New,
    /// Nothing, and why.
    Not(anyhow::Error),
}

/// What the file says of itself.
struct State {
    upto: i64,
    delivery: Option<String>,
    open: bool,
    /// Commits that changed the mark; -1: never opened.
    marks: i64,
}

fn state(connection: &Connection) -> Result<State> {
    let sql = format!("SELECT upto, delivery, open, marks FROM {SCHEMA}.indexed");
    Ok(connection.query_row(&sql, [], |row| {
        Ok(State { upto: row.get(0)?, delivery: row.get(1)?, open: row.get(2)?, marks: row.get(3)? })
    })?)
}

impl State {
    /// The last delivery whose digest the file holds, when the file can
    /// be trusted; why not, when it cannot.
    fn trust(self, connection: &Connection) -> Result<Trust> {
        if self.marks < 0 {
            return Ok(Trust::New);
        }
        if self.open {
            return Ok(Trust::Not(anyhow::anyhow!("the process that had it open stopped without closing it")));
        }
        if let Some(delivery) = self.delivery {
            let held: Option<String> = connection
                .query_row("SELECT id FROM main.gh_deliveries WHERE rowid = ?1", [self.upto], |row| row.get(0))
                .optional()?;
            if held.as_deref() != Some(delivery.as_str()) {
                return Ok(Trust::Not(anyhow::anyhow!(
                    "its last delivery, {delivery} (row {}), is not in the database",
                    self.upto
                )));
            }
        }
        Ok(Trust::Upto(self.upto))
    }
}

/// Indexes the digests of the deliveries after row `upto`, in digest order
/// (a B-tree filled in key order writes each page once). The sort spills
/// to temporary files, not to memory as the connection's other temporary
/// storage does: sorting 1,000,000 digests in memory took the resident
/// set to 141 MiB.
fn index_from(connection: &Connection, upto: i64) -> Result<()> {
    connection.pragma_update(None, "temp_store", "FILE")?;
    let indexed = index_sorted(connection, upto);
    connection.pragma_update(None, "temp_store", "MEMORY")?;
    indexed
}

fn index_sorted(connection: &Connection, upto: i64) -> Result<()> {
    let tx = connection.unchecked_transaction()?;
    let indexed = tx.execute(
        &format!(
            "INSERT OR IGNORE INTO {SCHEMA}.replay_digests (digest) SELECT digest FROM main.gh_deliveries \
             WHERE rowid > ?1 AND digest IS NOT NULL ORDER BY digest"
        ),
        [upto],
    )?;
    let last: Option<(i64, String)> = tx
        .query_row("SELECT rowid, id FROM main.gh_deliveries ORDER BY rowid DESC LIMIT 1", [], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .optional()?;
    if let Some((rowid, id)) = last.filter(|(rowid, _)| *rowid > upto) {
        note_indexed(&tx, rowid, &id)?;
    }
    tx.commit()?;
    if indexed > 0 {
        tracing::info!(digests = indexed, "indexed the replay digests of deliveries stored before");
    }
    Ok(())
}

/// Records that the digests of the deliveries through row `rowid` (delivery
/// id `delivery`) are indexed.
pub(super) fn note_indexed(tx: &rusqlite::Transaction<'_>, rowid: i64, delivery: &str) -> Result<()> {
    let sql = format!("UPDATE {SCHEMA}.indexed SET upto = ?1, delivery = ?2 WHERE id = 1");
    tx.prepare_cached(&sql)?.execute(params![rowid, delivery])?;
    Ok(())
}

/// Whether any digest indexed is of a body itself (64 hex digits, which
/// sort before every digest of a signature): gatehouse 0.1 wrote them.
pub(super) fn holds_body_digests(connection: &Connection, signed_prefix: &str) -> Result<bool> {
    let least: Option<String> =
        connection.query_row(&format!("SELECT MIN(digest) FROM {SCHEMA}.replay_digests"), [], |row| row.get(0))?;
    Ok(least.is_some_and(|digest| !digest.starts_with(signed_prefix)))
}
