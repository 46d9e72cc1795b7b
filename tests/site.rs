//! `gatehouse site`: the demo repository and every rule fixture rendered,
//! every document on a page, every finding on the page of its document,
//! each ledger's numbers equal to `gatehouse tally`'s, and text from
//! documents escaped.

mod local_repo;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use gatehouse::config::PathFilter;
use gatehouse::site::html::esc;
use gatehouse::site::{Options, Site};
use local_repo::copy_tree;

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn gatehouse(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_gatehouse")).args(args).output().unwrap()
}

/// The pages of a site folder, by path inside it.
fn read_site(dir: &Path) -> BTreeMap<String, String> {
    gatehouse::source::fs::list(dir)
        .unwrap()
        .into_iter()
        .filter(|p| p.ends_with(".html"))
        .map(|p| {
            let html = std::fs::read_to_string(dir.join(&p)).unwrap();
            (p, html)
        })
        .collect()
}

/// One section of `gatehouse tally`'s text output.
#[derive(Debug, Default)]
struct TallySection {
    section: String,
    /// (argument, signed total, votes)
    arguments: Vec<(String, String, String)>,
    weighted: String,
    margin: Option<String>,
    state: String,
    /// How many votes are left out, and the line of each.
    left_out: Option<String>,
    left_out_lines: Vec<String>,
}

/// Reads `gatehouse tally FILE`'s text back into its numbers.
fn parse_tally(text: &str) -> Vec<TallySection> {
    let mut sections: Vec<TallySection> = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("  ") else {
            if line.starts_with("## ") {
                sections.push(TallySection::default());
            }
            continue;
        };
        let s = sections.last_mut().expect("a line inside a section");
        let words: Vec<&str> = rest.split_whitespace().collect();
        match words.as_slice() {
            ["section", name @ ..] => s.section = name.join(" "),
            ["argument", id, total, votes, ..] => {
                s.arguments.push((id.to_string(), total.to_string(), votes.to_string()))
            }
            ["weighted", "votes", n, ..] => s.weighted = n.to_string(),
            ["margin", m, ..] => s.margin = Some(m.to_string()),
            ["state", state, ..] => s.state = state.to_string(),
            ["left", "out", n, ..] => s.left_out = Some(n.to_string()),
            ["line", line, ..] => s.left_out_lines.push(line.trim_end_matches(':').to_string()),
            _ => {}
        }
    }
    sections
}

/// Asserts a ledger page shows each section's numbers as the tally text does.
fn assert_tally_shown(page: &str, tally_text: &str, what: &str) {
    let mut from = 0;
    for t in parse_tally(tally_text) {
        let marker = format!("data-section=\"{}\"", esc(&t.section));
        let at = page[from..].find(&marker).unwrap_or_else(|| panic!("{what}: no section {marker} after byte {from}"))
            + from;
        let end = page[at..].find("</section>").expect("the section closes") + at;
        let html = &page[at..end];
        from = end;
        assert!(
            html.contains(&format!("data-tally=\"weighted\">{}<", t.weighted)),
            "{what} {}: weighted {}",
            t.section,
            t.weighted
        );
        assert!(html.contains(&format!("badge state-{0}\">{0}<", t.state)), "{what} {}: state {}", t.section, t.state);
        if let Some(m) = &t.margin {
            assert!(html.contains(&format!("data-tally=\"margin\">{m}<")), "{what} {}: margin {m}", t.section);
        }
        match &t.left_out {
            Some(n) => {
                assert!(html.contains(&format!("data-tally=\"ignored\">{n}<")), "{what} {}: {n} left out", t.section)
            }
            None => assert!(!html.contains("data-tally=\"ignored\""), "{what} {}: none left out", t.section),
        }
        let shown = html.matches("<li data-line=").count();
        assert_eq!(shown, t.left_out_lines.len(), "{what} {}: the votes left out", t.section);
        for line in &t.left_out_lines {
            assert!(
                html.contains(&format!("<li data-line=\"{line}\">line {line}: ")),
                "{what} {}: line {line}",
                t.section
            );
        }
        let mut rows = html;
        for (id, total, votes) in &t.arguments {
            let row_at =
                rows.find(&format!("<tr data-argument=\"{}\">", esc(id))).unwrap_or_else(|| panic!("{what}: row {id}"));
            let row = &rows[row_at..rows[row_at..].find("</tr>").unwrap() + row_at];
            assert!(
                row.contains(&format!("data-tally=\"total\">{}<", esc(total))),
                "{what} {id}: total {total} in {row}"
            );
            assert!(row.contains(&format!("data-tally=\"votes\">{votes}<")), "{what} {id}: votes {votes} in {row}");
            rows = &rows[row_at + row.len()..];
        }
    }
}

/// Basic accessibility: one `<h1>`, headings that never skip a level, a
/// language, and every chart an image with a title and a description.
fn assert_accessible(path: &str, html: &str) {
    assert!(html.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"), "{path}: doctype and language");
    let levels: Vec<u8> = html
        .match_indices("<h")
        .filter_map(|(at, _)| {
            let digit = *html.as_bytes().get(at + 2)?;
            (b'1'..=b'6').contains(&digit).then_some(digit - b'0')
        })
        .collect();
    assert_eq!(levels.first(), Some(&1), "{path}: starts with an h1: {levels:?}");
    assert_eq!(levels.iter().filter(|l| **l == 1).count(), 1, "{path}: one h1: {levels:?}");
    for pair in levels.windows(2) {
        assert!(pair[1] <= pair[0] + 1, "{path}: heading levels skip: {levels:?}");
    }
    for (at, _) in html.match_indices("<svg") {
        let svg = &html[at..at + html[at..].find("</svg>").expect("the svg closes")];
        assert!(
            svg.contains("role=\"img\"") && svg.contains("<title id=") && svg.contains("<desc id="),
            "{path}: {svg}"
        );
    }
}

#[test]
fn the_demo_site_has_every_document_and_the_tallies_gatehouse_tally_prints() {
    let demo = manifest_dir().join("fixtures/demo-repo");
    let out = tempfile::tempdir().unwrap();
    let run = gatehouse(&[
        "site",
        "--repo",
        demo.to_str().unwrap(),
        "--out",
        out.path().to_str().unwrap(),
        "--as-of",
        "2026-07-28T12:00:00Z",
    ]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(String::from_utf8_lossy(&run.stdout).contains("pages to"), "{}", String::from_utf8_lossy(&run.stdout));
    let pages = read_site(out.path());
    let page = |p: &str| pages.get(p).unwrap_or_else(|| panic!("no page {p}; pages: {:?}", pages.keys()));

    let briefs = page("briefs/index.html");
    for name in ["SWARM-AP-buzzy-features", "SWARM-AQ-manifest-tools", "SWARM-AR-pg-backup"] {
        assert!(briefs.contains(&format!("dark-factory/briefs/{name}.md")), "{name} listed");
        assert!(briefs.contains(&format!("href=\"../briefs/{name}.html\"")), "{name} linked");
        assert!(pages.contains_key(&format!("briefs/{name}.html")));
    }
    // ADR-099's threshold: pg-backup touches two repositories.
    let pg = page("briefs/SWARM-AR-pg-backup.html");
    assert!(pg.contains("<span class=\"badge human\">required</span>"), "{pg}");

    let decisions = page("decisions/index.html");
    for id in [
        "cache-invalidation-2026-07-21-5e02",
        "cache-ttl-2026-07-09-0c4e",
        "pg-backup-window-2026-07-06-1a2b",
        "queue-backend-2026-07-10-7d21",
        "log-format-2026-07-02-9b10",
    ] {
        assert!(decisions.contains(&format!("href=\"../decisions/{id}.html\"")), "{id} linked from the docket");
        assert!(pages.contains_key(&format!("decisions/{id}.html")), "{id} has a page");
    }
    // The tier-2 deliberating decision leads the queue, with its age.
    let human = &decisions[decisions.find("id=\"human\"").unwrap()..decisions.find("id=\"queue\"").unwrap()];
    assert!(human.contains("Which queue backend should the job runner use?") && human.contains("17 days"), "{human}");
    // The feed shows evidence; the resolution without any says so.
    let feed = &decisions[decisions.find("id=\"feed\"").unwrap()..];
    assert!(feed.contains("<code>docs/runbooks/pg-backup.md</code>") && feed.contains("none cited"), "{feed}");
    let pg_window = page("decisions/pg-backup-window-2026-07-06-1a2b.html");
    assert!(pg_window.contains("<strong>filed</strong> — <time>2026-07-06T08:10:00Z</time>"), "{pg_window}");
    assert!(pg_window.contains("<strong>resolved</strong> — <time>2026-07-06T09:45:00Z</time>"), "{pg_window}");
    // decision/evidence-required fires on cache-invalidation: on its page, with rule id and line.
    let cache = page("decisions/cache-invalidation-2026-07-21-5e02.html");
    assert!(cache.contains("<code class=\"rule\">decision/evidence-required</code>"), "{cache}");

    let specs = page("specs/index.html");
    for spec in ["csv-export", "search-index"] {
        assert!(specs.contains(&format!("fondue/specs/{spec}")), "{spec} listed");
        assert!(pages.contains_key(&format!("specs/{spec}.html")));
    }
    let csv = page("specs/csv-export.html");
    assert!(csv.contains("Current stage: plan (3 of 7)"), "{csv}");
    assert!(csv.contains("<code>review/pre-plan/</code>") && csv.contains("01-review.md"), "{csv}");

    let ledgers = page("ledgers/index.html");
    for doc in ["api-errors@v1", "backup-scripts@v1"] {
        let path = format!("dark-factory/guidelines/{doc}.md");
        assert!(ledgers.contains(&path), "{doc} listed");
        let tally = gatehouse(&["tally", demo.join(&path).to_str().unwrap()]);
        assert!(tally.status.success(), "{}", String::from_utf8_lossy(&tally.stderr));
        let text = String::from_utf8(tally.stdout).unwrap();
        assert!(!parse_tally(&text).is_empty(), "{text}");
        assert_tally_shown(page(&format!("ledgers/{}.html", doc.replace('@', "-"))), &text, doc);
    }
    // The demo's `vote: 2` and its `ts` without a zone are counted on no
    // surface: `gatehouse tally` and the ledger leave both out, at the lines
    // their `voting/vote-entry` errors point at.
    let tally = gatehouse(&["tally", demo.join("dark-factory/guidelines/api-errors@v1.md").to_str().unwrap()]);
    let sections = parse_tally(&String::from_utf8(tally.stdout).unwrap());
    assert_eq!(sections[0].left_out.as_deref(), Some("2"));
    assert_eq!(sections[0].left_out_lines, ["32", "39"]);
    assert_eq!(sections[0].weighted, "0.8");
    let ledger = page("ledgers/api-errors-v1.html");
    assert!(ledger.contains("<td data-label=\"Time\">2026-05-07T10:15:00</td>"), "{ledger}");
    assert_eq!(ledger.matches(" (not counted)").count(), 2, "{ledger}");

    // The index counts and links the documents with errors.
    let index = page("index.html");
    assert!(index.contains("href=\"decisions/cache-invalidation-2026-07-21-5e02.html\""), "{index}");
    assert!(index.contains("href=\"briefs/SWARM-AQ-manifest-tools.html\""), "{index}");
    for (path, html) in &pages {
        assert_accessible(path, html);
        assert!(html.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';"));
        assert!(!html.contains("<link") && !html.contains("<script") && !html.contains("@import"));
    }
}

fn site_of(dir: &Path) -> (Site, gatehouse::model::ChangeSet, gatehouse::model::Report) {
    let changes = gatehouse::source::fs::changeset(dir, None, None, &[]).unwrap();
    let (report, site) = gatehouse::site::build(&changes, &Options { now: 1_785_000_000, repo: "fixture".into() });
    (site, changes, report)
}

/// Every fixture's head: every document present, every finding on a page,
/// every ledger's numbers those of the tally.
#[test]
fn every_rule_fixture_renders_with_its_documents_findings_and_tallies() {
    let root = manifest_dir().join("crates/gatehouse-core/fixtures/rules");
    let mut cases = Vec::new();
    for family in std::fs::read_dir(&root).unwrap() {
        let family = family.unwrap().path();
        for rule in std::fs::read_dir(&family).unwrap() {
            let rule = rule.unwrap().path();
            for case in ["fail", "pass"] {
                if rule.join(case).join("head").exists() {
                    cases.push((family.join("_shared"), rule.join(case).join("head")));
                }
            }
        }
    }
    assert!(cases.len() > 100, "found {} fixture cases", cases.len());
    let mut ledgers_checked = 0;
    for (shared, head) in cases {
        let tmp = tempfile::tempdir().unwrap();
        copy_tree(&shared, tmp.path());
        copy_tree(&head, tmp.path());
        let what = head.strip_prefix(&root).unwrap().display().to_string();
        let (site, changes, report) = site_of(tmp.path());
        for (path, html) in &site.pages {
            assert_accessible(&format!("{what}: {path}"), html);
        }
        let all: String = site.pages.iter().map(|(_, html)| html.as_str()).collect();
        let config = &changes.config;
        let listed = |index: &str, path: &str| {
            let page = site.page(index).unwrap_or_else(|| panic!("{what}: no {index}"));
            assert!(page.contains(&esc(path)), "{what}: {path} is not on {index}");
        };
        for (path, _) in PathFilter::globs(&config.briefs.paths).select(&changes.head) {
            listed("briefs/index.html", path);
        }
        for (path, content) in PathFilter::globs(&config.voting.paths).select(&changes.head) {
            if content.text().is_none_or(gatehouse::docs::voting::is_voting_doc) {
                assert!(all.contains(&esc(path)), "{what}: {path} has no page");
            }
            let Some(text) = content.text().filter(|t| gatehouse::docs::voting::is_voting_doc(t)) else { continue };
            listed("ledgers/index.html", path);
            if let Ok(tally) = gatehouse::docs::voting::tally::tally_document(path, text) {
                let page = site
                    .pages
                    .iter()
                    .find(|(p, html)| {
                        p.starts_with("ledgers/")
                            && p != "ledgers/index.html"
                            && html.contains(&format!("Voting doc <code>{}</code>", esc(path)))
                    })
                    .map(|(_, html)| html)
                    .unwrap_or_else(|| panic!("{what}: no ledger page for {path}"));
                assert_tally_shown(page, &gatehouse::docs::voting::tally::render_text(&tally), &what);
                ledgers_checked += 1;
            }
        }
        for (path, _) in PathFilter::folders(&config.specs.paths).select(&changes.head) {
            let rel = path.strip_prefix("fondue/specs/").unwrap_or(path);
            let spec = match rel.split('/').collect::<Vec<_>>().as_slice() {
                ["archive", name, _, ..] => format!("fondue/specs/archive/{name}"),
                [name, _, ..] => format!("fondue/specs/{name}"),
                _ => continue,
            };
            listed("specs/index.html", &spec);
        }
        for (path, _) in PathFilter::folders(&config.decisions.paths).select(&changes.head) {
            if gatehouse::docs::decision::locate(path, &config.decisions.paths).is_some() {
                assert!(all.contains(&format!("<code>{}</code>", esc(path))), "{what}: decision {path} has no page");
            }
        }
        for f in report.findings() {
            let shown = format!(
                "<code class=\"rule\">{}</code> <span class=\"where\">{}:{}</span>",
                f.rule,
                esc(&f.path),
                f.span.line
            );
            assert!(all.contains(&shown), "{what}: finding {shown} is on no page");
        }
    }
    assert!(ledgers_checked > 20, "tallies compared on {ledgers_checked} ledgers");
}

/// Document text is untrusted: markup in a title, a heading, an id or a link
/// shows as text, and attribute values cannot be broken out of.
#[test]
fn text_from_documents_is_escaped() {
    let tmp = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| {
        let path = tmp.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "dark-factory/briefs/SWARM-X-evil.md",
        "---\nagent: \"\\\"><img src=x onerror=alert(1)>\"\nrepos_touched: [a/b]\nlines_estimate: 5\n---\n# <script>alert(1)</script>\n",
    );
    write(
        "dark-factory/guidelines/evil@v1.md",
        "---\nformat: voting/v1\ndoc: evil\nversion: 1\n---\n## <script>alert(2)</script>\n\n```voting\nsection: 'x\" onmouseover=\"alert(3)'\nactive_argument: A\narguments:\n  - id: A\n    proposition: <b>bold</b>\n    modification_kind: original\n    vote_ledger:\n      - voter: \"<i>v</i>/m\"\n        vote: +1\n        weight: 2\n        rationale: \"</td><script>alert(4)</script>\"\n```\n",
    );
    write(
        ".harnery/decisions/evil-2026-07-06-a1b2.json",
        "{\"schema_version\": 1, \"decision_id\": \"evil-2026-07-06-a1b2\", \"status\": \"resolved\", \"tier\": 2, \"stakes\": \"high\", \
\"question\": \"<script>alert(5)</script>\", \"filed_at\": \"2026-07-06T08:00:00Z\", \"resolution\": {\"recommendation\": \"<img src=x>\", \
\"evidence\": [\"javascript:alert(6)\", \"https://example.com/?a=\\\"b\\\"\"], \"resolved_by\": \"a\", \"resolved_at\": \"2026-07-06T09:00:00Z\"}}\n",
    );
    write("fondue/specs/evil/current-state.txt", "brief\n");
    write("fondue/specs/evil/pre-plan/00-brief.md", "# <script>alert(7)</script>\n");
    let (site, _, _) = site_of(tmp.path());
    let all: String = site.pages.iter().map(|(_, html)| html.as_str()).collect();
    assert!(
        !all.contains("<script") && !all.contains("<img") && !all.contains("<b>bold") && !all.contains("<i>v"),
        "markup escaped"
    );
    for n in [1, 2, 4, 5, 7] {
        assert!(all.contains(&format!("&lt;script&gt;alert({n})&lt;/script&gt;")), "alert({n}) shown as text");
    }
    assert!(all.contains("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"), "the agent field shown as text");
    assert!(all.contains("data-section=\"x&quot; onmouseover=&quot;alert(3)\""), "attribute value escaped");
    assert!(!all.contains("onmouseover=\"alert"), "no attribute broken out of");
    assert!(!all.to_ascii_lowercase().contains("href=\"javascript"), "no script link");
    assert!(all.contains("<code>javascript:alert(6)</code>"), "a non-web evidence ref is text");
    assert!(
        all.contains("<a href=\"https://example.com/?a=&quot;b&quot;\" rel=\"noreferrer\">"),
        "web evidence links, escaped"
    );
}

#[test]
fn bad_as_of_and_missing_folders_are_usage_errors() {
    let out = tempfile::tempdir().unwrap();
    let demo = manifest_dir().join("fixtures/demo-repo");
    let run = gatehouse(&[
        "site",
        "--repo",
        demo.to_str().unwrap(),
        "--out",
        out.path().to_str().unwrap(),
        "--as-of",
        "yesterday",
    ]);
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("--as-of `yesterday` is not an RFC 3339 timestamp"));
    let run = gatehouse(&["site", "--repo", "/nonexistent/folder", "--out", out.path().to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("is not a folder"));
}

#[test]
fn inline_code_in_messages_and_documents_is_shown_as_code_not_backticks() {
    let out = tempfile::tempdir().unwrap();
    let demo = manifest_dir().join("fixtures/demo-repo");
    let run = gatehouse(&["site", "--repo", demo.to_str().unwrap(), "--out", out.path().to_str().unwrap()]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let pages = read_site(out.path());
    let ledger = &pages["ledgers/api-errors-v1.html"];
    assert!(ledger.contains("<code>vote</code> is <code>2</code>"), "the left-out vote's reason renders its code");
    for (path, html) in &pages {
        // The text a reader sees: the page without its tags.
        let mut text = String::new();
        let mut in_tag = false;
        for c in html.chars() {
            match c {
                '<' => in_tag = true,
                '>' => in_tag = false,
                c if !in_tag => text.push(c),
                _ => {}
            }
        }
        let shown: Vec<&str> = text.lines().filter(|l| l.contains('`')).collect();
        assert!(shown.is_empty(), "{path} shows raw backticks: {shown:?}");
    }
}

#[test]
fn a_folder_without_governed_documents_gets_no_site_and_is_told_where_gatehouse_looked() {
    let repo = tempfile::tempdir().unwrap();
    std::fs::write(repo.path().join("README.md"), "# Notes\n").unwrap();
    let out = tempfile::tempdir().unwrap();
    let site = out.path().join("site");
    let run = gatehouse(&["site", "--repo", repo.path().to_str().unwrap(), "--out", site.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("No site written in") && stderr.contains("No governed document was found."), "{stderr}");
    assert!(stderr.contains("dark-factory/briefs/*.md") && stderr.contains(".harnery/decisions"), "{stderr}");
    assert!(!site.exists(), "no pages of zeros are written");
}

#[test]
fn a_second_run_removes_only_the_pages_the_first_wrote() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    std::fs::create_dir_all(out.join("briefs")).unwrap();
    std::fs::write(out.join("CNAME"), "docs.example.com\n").unwrap();
    let mut site = Site { pages: vec![("index.html".into(), "a".into()), ("briefs/old.html".into(), "b".into())] };
    gatehouse::site::write(&site, &out).unwrap();
    site.pages.pop();
    gatehouse::site::write(&site, &out).unwrap();
    assert!(out.join("index.html").exists() && out.join("CNAME").exists());
    assert!(!out.join("briefs/old.html").exists(), "a page of the previous run is gone");
}
