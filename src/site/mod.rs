//! `gatehouse site`: a static web site of a repository's governed
//! documents. It reads what `gatehouse check --all` reads (the same
//! ChangeSet, every document new), through the same parsers and family
//! views, and shows the same findings on the page of the document they are
//! about. The ledgers' numbers come from the tally `gatehouse tally` prints.
//!
//! [`build`] is pure (no IO, the clock passed in); [`write`] puts the pages
//! on disk. Pages are self-contained: inline CSS and SVG, no script, and a
//! Content-Security-Policy that forbids every fetch.

mod briefs;
mod chart;
mod decisions;
pub mod html;
mod index;
mod ledgers;
pub(crate) mod markdown;
mod specs;

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::Path;

use anyhow::{Context as _, Result};

use crate::model::{ChangeSet, Finding, Report};
use crate::rules::Parsed;
use html::Page;

/// What a build needs besides the documents.
#[derive(Clone, Debug)]
pub struct Options {
    /// The instant ages are counted to, in seconds since 1970 (UTC).
    pub now: i64,
    /// How the footer names the repository (`owner/name`, or the folder).
    pub repo: String,
}

/// The site: every page's path inside the site folder and its HTML.
#[derive(Clone, Debug)]
pub struct Site {
    pub pages: Vec<(String, String)>,
}

impl Site {
    pub fn page(&self, path: &str) -> Option<&str> {
        self.pages.iter().find(|(p, _)| p == path).map(|(_, html)| html.as_str())
    }
}

/// The document families, as the index names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Kind {
    Decision,
    Ledger,
    Spec,
    Brief,
}

impl Kind {
    pub(crate) fn noun(self) -> &'static str {
        match self {
            Kind::Decision => "decision",
            Kind::Ledger => "voting doc",
            Kind::Spec => "spec",
            Kind::Brief => "brief",
        }
    }
}

/// One document's page, for the index.
pub(crate) struct Entry<'a> {
    pub kind: Kind,
    /// The document's path (a spec's folder).
    pub path: String,
    /// Its page in the site.
    pub page: String,
    pub findings: Vec<&'a Finding>,
}

/// A family's pages and what the index shows of it.
pub(crate) struct Family<'a> {
    pub pages: Vec<Page>,
    pub entries: Vec<Entry<'a>>,
    pub card: Card,
}

/// A count on the index, with a line of detail.
pub(crate) struct Card {
    pub title: &'static str,
    pub href: &'static str,
    pub count: usize,
    pub detail: String,
}

/// What the family builders share: the ChangeSet, the findings by path and
/// the page names in use.
pub(crate) struct Context<'a> {
    pub changes: &'a ChangeSet,
    pub options: &'a Options,
    by_path: BTreeMap<&'a str, Vec<&'a Finding>>,
    slugs: HashSet<String>,
}

impl<'a> Context<'a> {
    fn new(changes: &'a ChangeSet, report: &'a Report, options: &'a Options) -> Context<'a> {
        let mut by_path: BTreeMap<&'a str, Vec<&'a Finding>> = BTreeMap::new();
        for finding in report.findings() {
            by_path.entry(finding.path.as_str()).or_default().push(finding);
        }
        Context { changes, options, by_path, slugs: HashSet::new() }
    }

    /// The findings about one file.
    pub(crate) fn findings(&self, path: &str) -> Vec<&'a Finding> {
        self.by_path.get(path).cloned().unwrap_or_default()
    }

    /// The findings about any file under `folder`.
    pub(crate) fn findings_under(&self, folder: &str) -> Vec<&'a Finding> {
        let prefix = format!("{}/", folder.trim_end_matches('/'));
        self.by_path
            .range::<str, _>((std::ops::Bound::Included(prefix.as_str()), std::ops::Bound::Unbounded))
            .take_while(|(path, _)| path.starts_with(prefix.as_str()))
            .flat_map(|(_, findings)| findings.iter().copied())
            .collect()
    }

    /// A page path `<folder>/<slug>.html` for `name`, unique in the site:
    /// letters, digits, `_` and a `.` after a letter or digit kept, anything
    /// else a `-`.
    pub(crate) fn page_path(&mut self, folder: &str, name: &str) -> String {
        let mut slug = String::with_capacity(name.len());
        for c in name.chars() {
            let keep = c.is_ascii_alphanumeric()
                || c == '_'
                || (c == '.' && slug.ends_with(|p: char| p.is_ascii_alphanumeric()));
            if keep {
                slug.push(c);
            } else if !slug.ends_with('-') {
                slug.push('-');
            }
        }
        let slug = slug.trim_matches('-');
        let slug = match slug {
            "" => "doc".to_string(),
            "index" => "doc-index".to_string(),
            slug => slug.to_string(),
        };
        let mut path = format!("{folder}/{slug}.html");
        let mut n = 2;
        while !self.slugs.insert(path.clone()) {
            path = format!("{folder}/{slug}-{n}.html");
            n += 1;
        }
        path
    }

    /// The footer every page carries.
    fn footer(&self) -> String {
        format!(
            "Generated by gatehouse site from {} as of {}. Findings are those of `gatehouse check --all`.",
            self.options.repo,
            html::utc(self.options.now)
        )
    }
}

/// Runs the rules and builds every page: the index, and per family an
/// overview and a page per document. `changes` is what `gatehouse check
/// --all` reads (no base: every document new); the report is what it finds.
/// The ledger pages are drawn from the rules' own parse and tallies of each
/// voting doc, as the rules finish with it.
pub fn build(changes: &ChangeSet, options: &Options) -> (Report, Site) {
    let mut ledgers = ledgers::Ledgers::default();
    let report = crate::rules::evaluate_seeing(changes, &mut |parsed| match parsed {
        Parsed::Voting { doc, tallies } => ledgers.add(doc, tallies),
    });
    let site = pages(changes, &report, ledgers, options);
    (report, site)
}

fn pages<'a>(changes: &'a ChangeSet, report: &'a Report, ledgers: ledgers::Ledgers<'a>, options: &'a Options) -> Site {
    let mut cx = Context::new(changes, report, options);
    let families =
        [decisions::build(&mut cx), ledgers::build(&mut cx, ledgers), specs::build(&mut cx), briefs::build(&mut cx)];
    let claimed: HashSet<*const Finding> = families
        .iter()
        .flat_map(|f| &f.entries)
        .flat_map(|e| e.findings.iter().map(|f| *f as *const Finding))
        .collect();
    let unclaimed: Vec<&Finding> = report.findings().filter(|f| !claimed.contains(&(*f as *const Finding))).collect();
    let index = index::build(&families, &unclaimed, report);
    let footer = cx.footer();
    let mut pages = vec![(index.path.clone(), index.finish(&footer))];
    for family in families {
        pages.extend(family.pages.into_iter().map(|page| (page.path.clone(), page.finish(&footer))));
    }
    Site { pages }
}

/// Writes the pages under `dir` (created when missing). Files a previous
/// run wrote and this one does not are removed (they are listed in
/// `gatehouse-site.txt`); no other file in `dir` is touched.
pub fn write(site: &Site, dir: &Path) -> Result<()> {
    const LISTING: &str = "gatehouse-site.txt";
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let now: BTreeSet<&str> = site.pages.iter().map(|(p, _)| p.as_str()).collect();
    if let Ok(before) = std::fs::read_to_string(dir.join(LISTING)) {
        for old in before.lines().filter(|p| is_page_path(p) && !now.contains(p)) {
            let _ = std::fs::remove_file(dir.join(old));
        }
    }
    for (path, html) in &site.pages {
        let target = dir.join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
        }
        std::fs::write(&target, html).with_context(|| format!("cannot write {}", target.display()))?;
    }
    let listing: String = now.iter().map(|p| format!("{p}\n")).collect();
    std::fs::write(dir.join(LISTING), listing).with_context(|| format!("cannot write {LISTING}"))?;
    Ok(())
}

/// A path this module could have written: `index.html` or
/// `<family>/<slug>.html`, nothing that climbs out of the folder.
fn is_page_path(path: &str) -> bool {
    let parts: Vec<&str> = path.split('/').collect();
    let plain = |p: &&str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
    path.ends_with(".html") && parts.len() <= 2 && parts.iter().all(plain) && parts.iter().all(|p| !p.starts_with('.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_paths_are_plain_and_unique() {
        let changes = ChangeSet::default();
        let report = Report { checks: Vec::new() };
        let options = Options { now: 0, repo: "r".into() };
        let mut cx = Context::new(&changes, &report, &options);
        assert_eq!(cx.page_path("ledgers", "backup-scripts@v1"), "ledgers/backup-scripts-v1.html");
        assert_eq!(cx.page_path("ledgers", "backup-scripts@v1"), "ledgers/backup-scripts-v1-2.html");
        assert_eq!(cx.page_path("briefs", "../../etc/<x>"), "briefs/etc-x.html");
        assert_eq!(cx.page_path("briefs", "index"), "briefs/doc-index.html");
        assert_eq!(cx.page_path("briefs", "<>"), "briefs/doc.html");
        assert!(is_page_path("briefs/etc-x.html") && is_page_path("index.html"));
        assert!(!is_page_path("../x.html") && !is_page_path("a/b/c.html") && !is_page_path("notes.txt"));
    }
}
