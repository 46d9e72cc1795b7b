//! Decision manifests (ADR 0007, the public `harnery` engine; docs/seed-coverage.md, Engine formats):
//! `<folder>/<id>.json`, long-form bodies in `<folder>/<id>/`, terminal and
//! graduated manifests in `<folder>/archive/<id>.json`.

pub mod docket;
pub mod lifecycle;

use crate::docs::json::{self, Json, JsonError, Member};
use lifecycle::Status;

/// Where a manifest sits inside a configured decisions folder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location<'a> {
    /// The configured folder (`.harnery/decisions`).
    pub folder: &'a str,
    /// The file name without `.json`: the decision id it must carry.
    pub stem: &'a str,
    /// In `<folder>/archive/`.
    pub archived: bool,
}

/// Classifies `path`: a manifest when it is `<folder>/<stem>.json` or
/// `<folder>/archive/<stem>.json` for one of `folders`. Files in body folders
/// (`<folder>/<id>/…`) are not manifests.
pub fn locate<'a>(path: &'a str, folders: &'a [String]) -> Option<Location<'a>> {
    folders.iter().find_map(|folder| {
        let folder = folder.trim_end_matches('/');
        let rest = path.strip_prefix(folder)?.strip_prefix('/')?;
        let (archived, name) = match rest.strip_prefix("archive/") {
            Some(name) => (true, name),
            None => (false, rest),
        };
        let stem = name.strip_suffix(".json")?;
        (!stem.is_empty() && !stem.contains('/')).then_some(Location { folder, stem, archived })
    })
}

/// The manifest path of decision `id` in `folder`, at the top or in the archive.
pub fn manifest_path(folder: &str, id: &str, archived: bool) -> String {
    let folder = folder.trim_end_matches('/');
    if archived { format!("{folder}/archive/{id}.json") } else { format!("{folder}/{id}.json") }
}

/// The harnery engine's id pattern (docs/seed-coverage.md): `^[a-z0-9][a-z0-9-]*-\d{4}-\d{2}-\d{2}-[0-9a-f]{4}$` (a slug,
/// the filing date, four hex digits).
pub fn is_valid_id(id: &str) -> bool {
    const SUFFIX: usize = "-2026-07-06-a1b2".len();
    let b = id.as_bytes();
    if !id.is_ascii() || b.len() <= SUFFIX {
        return false;
    }
    let (slug, suffix) = b.split_at(b.len() - SUFFIX);
    let slug_ok = (slug[0].is_ascii_lowercase() || slug[0].is_ascii_digit())
        && slug.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-');
    let shape = b"-dddd-dd-dd-hhhh";
    let suffix_ok = suffix.iter().zip(shape).all(|(c, s)| match s {
        b'd' => c.is_ascii_digit(),
        b'h' => c.is_ascii_digit() || (b'a'..=b'f').contains(c),
        _ => c == s,
    });
    slug_ok && suffix_ok
}

/// One manifest file, parsed.
#[derive(Clone, Debug)]
pub struct Manifest<'a> {
    pub path: &'a str,
    pub text: &'a str,
    pub root: Result<Json, JsonError>,
}

impl<'a> Manifest<'a> {
    pub fn parse(path: &'a str, text: &'a str) -> Manifest<'a> {
        Manifest { path, text, root: json::parse(text) }
    }

    /// The first member named `key` of the top-level object.
    pub fn member(&self, key: &str) -> Option<&Member> {
        self.root.as_ref().ok()?.member(key)
    }

    pub fn get(&self, key: &str) -> Option<&Json> {
        self.member(key).map(|m| &m.value)
    }

    /// The `status`, when it is one of the nine, with its value node.
    pub fn status(&self) -> Option<(Status, &Json)> {
        let node = self.get("status")?;
        Some((Status::parse(node.as_str()?)?, node))
    }

    /// The line of the top-level value (where missing fields are reported).
    pub fn root_line(&self) -> u32 {
        self.root.as_ref().map(|r| r.line).unwrap_or(1)
    }

    /// A non-empty string field of the top-level object.
    pub fn text_field(&self, key: &str) -> Option<&str> {
        self.get(key)?.as_str().filter(|s| !s.trim().is_empty())
    }
}

/// The first line where two texts differ (1-based), for findings about edits.
pub fn first_changed_line(base: &str, head: &str) -> u32 {
    let mut base_lines = base.lines();
    let mut line = 1;
    for head_line in head.lines() {
        if base_lines.next() != Some(head_line) {
            return line;
        }
        line += 1;
    }
    // Head is a prefix of base (lines removed at the end): point at its last line.
    (line - 1).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_follow_the_engine_pattern() {
        for good in ["pg-backup-2026-07-06-a1b2", "0-2026-07-06-0000", "a--b-2026-12-31-ffff"] {
            assert!(is_valid_id(good), "{good}");
        }
        for bad in [
            "-x-2026-07-06-a1b2",
            "Pg-2026-07-06-a1b2",
            "pg-2026-07-06-A1B2",
            "2026-07-06-a1b2",
            "pg-2026-7-06-a1b2",
            "pg_x-2026-07-06-a1b2",
            "pg-2026-07-06-a1b",
            "é-2026-07-06-a1b2",
        ] {
            assert!(!is_valid_id(bad), "{bad}");
        }
    }

    #[test]
    fn manifests_are_located_in_their_folder_and_archive() {
        let folders = vec![".harnery/decisions".to_string()];
        let at = locate(".harnery/decisions/x-2026-07-06-a1b2.json", &folders).unwrap();
        assert_eq!((at.folder, at.stem, at.archived), (".harnery/decisions", "x-2026-07-06-a1b2", false));
        assert!(locate(".harnery/decisions/archive/x.json", &folders).unwrap().archived);
        assert_eq!(locate(".harnery/decisions/x/body.json", &folders), None, "bodies are not manifests");
        assert_eq!(locate(".harnery/decisions/x.md", &folders), None);
        assert_eq!(locate(".harnery/decisionsx/x.json", &folders), None);
        assert_eq!(manifest_path(".harnery/decisions/", "x", true), ".harnery/decisions/archive/x.json");
    }

    #[test]
    fn first_changed_line_finds_the_edit() {
        assert_eq!(first_changed_line("a\nb\nc\n", "a\nB\nc\n"), 2);
        assert_eq!(first_changed_line("a\nb\n", "a\nb\nc\n"), 3);
        assert_eq!(first_changed_line("a\nb\nc\n", "a\nb\n"), 2);
        assert_eq!(first_changed_line("a\n", ""), 1);
    }
}
