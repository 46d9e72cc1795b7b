//! The dependency index entry of an evaluation: what it read from its base
//! branch's tip without the pull request touching it, with a digest of each
//! document, and what changed there since the evaluation before (named in
//! the summaries).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One dependency and its content's digest at the base tip (`None`: no
/// file there).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AtBase {
    pub dependency: crate::depends::Dependency,
    pub digest: Option<String>,
}

/// One document an evaluation depended on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dependency {
    pub path: String,
    /// Why the evaluation read it, e.g. "cited by `dark-factory/briefs/SWARM-AR-x.md`".
    pub why: String,
    /// The SHA-256 of its content at the base commit; `None`: no file there.
    pub digest: Option<String>,
}

/// A pull request's entry in the index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dependencies {
    pub pr: u64,
    /// The base commit the documents were read at.
    pub base_sha: String,
    pub documents: Vec<Dependency>,
}

/// What changed on the base since the pull request's last evaluation, for
/// its summaries; `None` when it was not evaluated before, its base did not
/// move, or nothing it depends on changed.
pub fn base_changes(previous: Option<&Dependencies>, base_sha: &str, current: &[AtBase]) -> Option<String> {
    let previous = previous.filter(|p| p.base_sha != base_sha)?;
    let before: BTreeMap<&str, &Option<String>> =
        previous.documents.iter().map(|d| (d.path.as_str(), &d.digest)).collect();
    let lines: Vec<String> = current
        .iter()
        .filter(|now| before.get(now.dependency.path.as_str()).is_some_and(|was| **was != now.digest))
        .map(|now| {
            let what = if now.digest.is_none() { "deleted" } else { "changed" };
            format!("- `{}` {what} ({})", now.dependency.path, now.dependency.why)
        })
        .collect();
    (!lines.is_empty()).then(|| {
        format!(
            "The base branch moved from `{}` to `{}` since this pull request's last evaluation, changing what it \
             depends on:\n\n{}",
            short(&previous.base_sha),
            short(base_sha),
            lines.join("\n")
        )
    })
}

/// The index entry of an evaluation.
pub fn entry(pr: u64, base_sha: &str, current: &[AtBase]) -> Dependencies {
    let documents = current
        .iter()
        .map(|d| Dependency {
            path: d.dependency.path.clone(),
            why: d.dependency.why.clone(),
            digest: d.digest.clone(),
        })
        .collect();
    Dependencies { pr, base_sha: base_sha.to_string(), documents }
}

fn short(sha: &str) -> &str {
    &sha[..sha.len().min(7)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(path: &str, digest: Option<&str>) -> AtBase {
        AtBase {
            dependency: crate::depends::Dependency { path: path.into(), why: "cited by `b.md`".into(), touched: false },
            digest: digest.map(str::to_string),
        }
    }

    #[test]
    fn the_summary_names_what_changed_on_the_base() {
        let before =
            entry(3, "aaaaaaa111", &[at("docs/adr/ADR-095.md", Some("d1")), at("docs/adr/ADR-090.md", Some("e1"))]);
        let now =
            [at("docs/adr/ADR-095.md", Some("d2")), at("docs/adr/ADR-090.md", Some("e1")), at("new.md", Some("f"))];
        let note = base_changes(Some(&before), "bbbbbbb222", &now).unwrap();
        assert_eq!(
            note,
            "The base branch moved from `aaaaaaa` to `bbbbbbb` since this pull request's last evaluation, changing \
             what it depends on:\n\n- `docs/adr/ADR-095.md` changed (cited by `b.md`)"
        );
        assert_eq!(base_changes(Some(&before), "aaaaaaa111", &now), None, "the base did not move");
        assert_eq!(base_changes(None, "bbbbbbb222", &now), None, "not evaluated before");
        let gone = [at("docs/adr/ADR-095.md", None)];
        assert!(base_changes(Some(&before), "c", &gone).unwrap().contains("`docs/adr/ADR-095.md` deleted"));
    }
}
