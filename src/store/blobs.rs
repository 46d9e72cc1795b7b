//! File contents read from GitHub, kept by blob id so a restarted process
//! or another replica reads from the database what any of them read before
//! (a blob's content never changes). Each blob is kept per size limit (a
//! limit decides whether it is read as too large) with its agent id; reads
//! made by path at a commit keep which blob was there, and the compare API's
//! merge base of a pull request's two commits is kept beside them. The table
//! is held under [`BLOB_STORE_BYTES`]: past it, the blobs stored longest ago
//! go first, and with them the paths and merge bases recorded before them.

use std::sync::atomic::{AtomicI64, Ordering};

use anyhow::Result;
use sqlx::{AssertSqlSafe, FromRow};

use super::{Store, now_ms};

/// Bytes of blob content (and ids) kept at most.
pub(crate) const BLOB_STORE_BYTES: i64 = 512 << 20;

/// Bytes of blobs a process stores between two looks at the table's total,
/// which is a sum over every row: on a table of 120,000 blobs of 3 KB
/// (365 MB of content; the query run three times through Python's sqlite3,
/// SQLite 3.40) 150–173 ms, too much to pay after every evaluation that
/// read a document not read before. The table goes past its bound by
/// at most this much per process before the look that evicts.
const EVICTION_CHECK_BYTES: i64 = BLOB_STORE_BYTES / 64;

/// How much this process stored since it last looked at the total.
#[derive(Debug)]
pub(crate) struct EvictionCheck(AtomicI64);

impl EvictionCheck {
    /// Due at once: a process's first store looks at the total, which
    /// another process may have left past the bound.
    pub(crate) fn new() -> EvictionCheck {
        EvictionCheck(AtomicI64::new(EVICTION_CHECK_BYTES))
    }

    /// Counts `bytes` stored; true when the total is due a look, for one
    /// caller only, and the count starts again.
    fn stored(&self, bytes: i64) -> bool {
        if self.0.fetch_add(bytes, Ordering::Relaxed) + bytes < EVICTION_CHECK_BYTES {
            return false;
        }
        self.0.swap(0, Ordering::Relaxed) >= EVICTION_CHECK_BYTES
    }
}

/// Rows per statement: well under either engine's limit on parameters.
const CHUNK: usize = 200;

/// One blob as stored: `kind` says how `content` and `number` read.
#[derive(Clone, Debug, PartialEq, Eq, FromRow)]
pub struct StoredBlob {
    pub oid: String,
    /// `text` (`content`), `binary`, `invalid_utf8` (`number`: the line of
    /// the first bad byte) or `too_large` (`number`: its size in bytes).
    pub kind: String,
    pub content: Option<String>,
    pub number: i64,
    pub agent: Option<String>,
}

/// Which blob was at a path of a commit (`None`: no file there).
#[derive(Clone, Debug, PartialEq, Eq, FromRow)]
pub struct StoredPath {
    #[sqlx(rename = "commit_sha")]
    pub commit: String,
    pub path: String,
    pub oid: Option<String>,
}

/// What the blob table holds, in bytes of content and ids and in rows.
#[derive(FromRow)]
struct BlobTotals {
    bytes: i64,
    blobs: i64,
}

/// What a blob counts for against the bound: its content and id.
fn stored_bytes(blob: &StoredBlob) -> i64 {
    (blob.oid.len() + blob.content.as_ref().map_or(0, String::len)) as i64
}

/// `$from, $from+1, …` for `n` values.
fn placeholders(from: usize, n: usize) -> String {
    (from..from + n).map(|i| format!("${i}")).collect::<Vec<_>>().join(", ")
}

impl Store {
    /// The blobs of `oids` read under `limit` that are kept.
    pub async fn blobs(&self, limit: u64, oids: &[&str]) -> Result<Vec<StoredBlob>> {
        let mut out = Vec::new();
        for chunk in oids.chunks(CHUNK) {
            let sql = format!(
                "SELECT oid, kind, content, number, agent FROM gh_blobs WHERE size_limit = $1 AND oid IN ({})",
                placeholders(2, chunk.len())
            );
            let rows: Vec<StoredBlob> = on_pool!(self, |pool| {
                let mut query = sqlx::query_as(AssertSqlSafe(sql)).bind(limit as i64);
                for oid in chunk {
                    query = query.bind(*oid);
                }
                query.fetch_all(pool).await?
            });
            out.extend(rows);
        }
        Ok(out)
    }

    /// What is known of `paths` at `commit`.
    pub async fn blob_paths(&self, commit: &str, paths: &[&str]) -> Result<Vec<StoredPath>> {
        let mut out = Vec::new();
        for chunk in paths.chunks(CHUNK) {
            let sql = format!(
                "SELECT commit_sha, path, oid FROM gh_blob_paths WHERE commit_sha = $1 AND path IN ({})",
                placeholders(2, chunk.len())
            );
            let rows: Vec<StoredPath> = on_pool!(self, |pool| {
                let mut query = sqlx::query_as(AssertSqlSafe(sql)).bind(commit);
                for path in chunk {
                    query = query.bind(*path);
                }
                query.fetch_all(pool).await?
            });
            out.extend(rows);
        }
        Ok(out)
    }

    /// The merge base of `base` and `head` in `repo`, when kept.
    pub(crate) async fn merge_base(&self, repo: &str, base: &str, head: &str) -> Result<Option<String>> {
        let sql = "SELECT merge_base FROM gh_merge_bases WHERE repo = $1 AND base_sha = $2 AND head_sha = $3";
        Ok(on_pool!(self, |pool| sqlx::query_scalar(sql).bind(repo).bind(base).bind(head).fetch_optional(pool).await?))
    }

    /// Keeps the merge base of `base` and `head` in `repo` (a row kept
    /// already stays: the merge base of two commits never changes).
    pub(crate) async fn put_merge_base(&self, repo: &str, base: &str, head: &str, merge_base: &str) -> Result<()> {
        let sql = "INSERT INTO gh_merge_bases (repo, base_sha, head_sha, merge_base, stored_at) \
                   VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING";
        let now = now_ms();
        on_writer!(self, |pool| {
            sqlx::query(sql)
                .bind(repo)
                .bind(base)
                .bind(head)
                .bind(merge_base)
                .bind(now)
                .execute(pool)
                .await?
                .rows_affected()
        });
        Ok(())
    }

    /// Keeps blobs read under `limit` and what was at the paths read by
    /// commit (a row kept already stays), then evicts past the bound.
    pub(crate) async fn put_blobs(&self, limit: u64, blobs: &[StoredBlob], paths: &[StoredPath]) -> Result<()> {
        let now = now_ms();
        for chunk in blobs.chunks(CHUNK) {
            let rows = (0..chunk.len()).map(|i| format!("({})", placeholders(2 + i * 7, 7))).collect::<Vec<_>>();
            let sql = format!(
                "INSERT INTO gh_blobs (size_limit, oid, kind, content, number, agent, stored, stored_at) \
                 SELECT $1, v.* FROM (VALUES {}) AS v WHERE true ON CONFLICT DO NOTHING",
                rows.join(", ")
            );
            on_writer!(self, |pool| {
                let mut insert = sqlx::query(AssertSqlSafe(sql)).bind(limit as i64);
                for b in chunk {
                    let stored = stored_bytes(b);
                    insert = insert
                        .bind(&b.oid)
                        .bind(&b.kind)
                        .bind(b.content.as_deref())
                        .bind(b.number)
                        .bind(b.agent.as_deref())
                        .bind(stored)
                        .bind(now);
                }
                insert.execute(pool).await?.rows_affected()
            });
        }
        for chunk in paths.chunks(CHUNK) {
            let rows = (0..chunk.len()).map(|i| format!("({})", placeholders(2 + i * 3, 3))).collect::<Vec<_>>();
            let sql = format!(
                "INSERT INTO gh_blob_paths (stored_at, commit_sha, path, oid) SELECT $1, v.* FROM (VALUES {}) AS v \
                 WHERE true ON CONFLICT DO NOTHING",
                rows.join(", ")
            );
            on_writer!(self, |pool| {
                let mut insert = sqlx::query(AssertSqlSafe(sql)).bind(now);
                for p in chunk {
                    insert = insert.bind(&p.commit).bind(&p.path).bind(p.oid.as_deref());
                }
                insert.execute(pool).await?.rows_affected()
            });
        }
        if !blobs.is_empty() && self.eviction.stored(blobs.iter().map(stored_bytes).sum()) {
            self.evict_blobs(BLOB_STORE_BYTES).await?;
        }
        Ok(())
    }

    /// Drops the blobs stored longest ago until at most `bound` bytes are
    /// kept (down to nine tenths of it, so eviction is not run every time),
    /// and the paths and merge bases recorded before the oldest blob left.
    pub async fn evict_blobs(&self, bound: i64) -> Result<()> {
        let sql = "SELECT CAST(COALESCE(SUM(stored), 0) AS BIGINT) AS bytes, COUNT(*) AS blobs FROM gh_blobs";
        let BlobTotals { bytes, blobs: rows } = on_pool!(self, |pool| sqlx::query_as(sql).fetch_one(pool).await?);
        if bytes <= bound || rows == 0 {
            return Ok(());
        }
        let excess = bytes - bound / 10 * 9;
        let drop = (excess as i128 * rows as i128 / bytes as i128 + 1) as i64;
        let blobs = "DELETE FROM gh_blobs WHERE stored_at <= (SELECT MAX(stored_at) FROM \
                     (SELECT stored_at FROM gh_blobs ORDER BY stored_at LIMIT $1) AS oldest)";
        on_writer!(self, |pool| sqlx::query(blobs).bind(drop).execute(pool).await?.rows_affected());
        let paths = "DELETE FROM gh_blob_paths WHERE stored_at < (SELECT COALESCE(MIN(stored_at), $1) FROM gh_blobs)";
        on_writer!(self, |pool| sqlx::query(paths).bind(i64::MAX).execute(pool).await?.rows_affected());
        let bases = "DELETE FROM gh_merge_bases WHERE stored_at < (SELECT COALESCE(MIN(stored_at), $1) FROM gh_blobs)";
        on_writer!(self, |pool| sqlx::query(bases).bind(i64::MAX).execute(pool).await?.rows_affected());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_total_is_looked_at_first_and_then_once_per_check_bytes_stored() {
        let check = EvictionCheck::new();
        assert!(check.stored(10), "a process's first store looks");
        assert!(!check.stored(EVICTION_CHECK_BYTES - 11));
        assert!(!check.stored(10));
        assert!(check.stored(1), "the check's bytes stored since the last look");
        assert!(!check.stored(1));
        // Two stores past the mark at once: the first has added its bytes
        // but not yet swapped when the second stores; one of them looks.
        let check = EvictionCheck::new();
        check.0.store(EVICTION_CHECK_BYTES - 1, Ordering::Relaxed);
        check.0.fetch_add(5, Ordering::Relaxed);
        assert!(check.stored(5), "the second store past the mark swaps first");
        assert!(
            check.0.swap(0, Ordering::Relaxed) < EVICTION_CHECK_BYTES,
            "and the first finds the count started again"
        );
    }
}
