//! The store as the read step's [`KeptReads`]: what one process read from
//! GitHub, kept for a restarted process and the other replicas. The job
//! runner keeps a job's reads after its answer is out ([`keep`]).

use anyhow::Result;

use crate::model::FileContent;
use crate::source::contents::{Blob, Kept, KeptReads, ReadPath, UnkeptReads};
use crate::store::{Store, StoredBlob, StoredPath};

/// The store, read through [`KeptReads`].
#[derive(Debug)]
pub struct KeptInStore(pub Store);

impl KeptReads for KeptInStore {
    fn merge_base<'a>(&'a self, repo: &'a str, base: &'a str, head: &'a str) -> Kept<'a, Option<String>> {
        Box::pin(self.0.merge_base(repo, base, head))
    }

    fn paths<'a>(&'a self, commit: &'a str, paths: &'a [&'a str]) -> Kept<'a, Vec<(String, Option<String>)>> {
        Box::pin(async move {
            let rows = self.0.blob_paths(commit, paths).await?;
            Ok(rows.into_iter().map(|row| (row.path, row.oid)).collect())
        })
    }

    fn blobs<'a>(&'a self, limit: u64, oids: &'a [&'a str]) -> Kept<'a, Vec<(String, Blob)>> {
        Box::pin(async move {
            let rows = self.0.blobs(limit, oids).await?;
            Ok(rows.into_iter().filter_map(|row| Some((row.oid.clone(), from_stored(row, limit)?))).collect())
        })
    }
}

/// Keeps what jobs read from GitHub: every row, or none of what follows
/// the first that fails.
pub async fn keep(store: &Store, reads: UnkeptReads) -> Result<()> {
    for (limit, read) in reads.blobs {
        let blobs: Vec<StoredBlob> = read.blobs.iter().filter_map(|(oid, blob)| to_stored(oid, blob)).collect();
        let paths: Vec<StoredPath> =
            read.paths.into_iter().map(|ReadPath { commit, path, oid }| StoredPath { commit, path, oid }).collect();
        store.put_blobs(limit, &blobs, &paths).await?;
    }
    for (repo, base, head, merge_base) in &reads.merge_bases {
        store.put_merge_base(repo, base, head, merge_base).await?;
    }
    Ok(())
}

/// A blob as the store keeps it; `None` for what GitHub's blobs never are
/// (links, special files).
fn to_stored(oid: &str, blob: &Blob) -> Option<StoredBlob> {
    let (kind, content, number) = match &blob.content {
        FileContent::Text(text) => ("text", Some(text.to_string()), 0),
        FileContent::Binary => ("binary", None, 0),
        FileContent::InvalidUtf8 { line } => ("invalid_utf8", None, i64::from(*line)),
        FileContent::TooLarge { bytes, .. } => ("too_large", None, *bytes as i64),
        FileContent::Link { .. } | FileContent::NotAFile { .. } => return None,
    };
    let agent = blob.agent.as_deref().map(str::to_string);
    Some(StoredBlob { oid: oid.to_string(), kind: kind.to_string(), content, number, agent })
}

/// A kept blob read under `limit`; `None` for a kind this version does not know.
fn from_stored(row: StoredBlob, limit: u64) -> Option<Blob> {
    let content = match row.kind.as_str() {
        "text" => FileContent::Text(row.content?.into()),
        "binary" => FileContent::Binary,
        "invalid_utf8" => FileContent::InvalidUtf8 { line: u32::try_from(row.number).ok()? },
        "too_large" => FileContent::TooLarge { bytes: u64::try_from(row.number).ok()?, limit },
        _ => return None,
    };
    Some(Blob { content, agent: row.agent.map(Into::into) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blob_reads_back_as_it_was_kept() {
        let limit = 1 << 20;
        let blobs = [
            Blob { content: FileContent::Text("# Brief\n".into()), agent: Some("SWARM-B1".into()) },
            Blob { content: FileContent::Binary, agent: None },
            Blob { content: FileContent::InvalidUtf8 { line: 7 }, agent: None },
            Blob { content: FileContent::TooLarge { bytes: 5 << 20, limit }, agent: None },
        ];
        for blob in blobs {
            let back = from_stored(to_stored("o1", &blob).unwrap(), limit).unwrap();
            assert_eq!(format!("{back:?}"), format!("{blob:?}"));
        }
        let unknown = StoredBlob { oid: "o".into(), kind: "symlink".into(), content: None, number: 0, agent: None };
        assert!(from_stored(unknown, limit).is_none());
    }
}
