//! Agent briefs (ADR-099): `SWARM-<ID>-<slug>.md`, YAML frontmatter with six
//! fields, a markdown body.

use super::frontmatter::{self, FrontmatterError};
use super::markdown::{self, Markdown};
use super::yaml::{Node, Tree};

/// The six ADR-099 fields, in the order the ADR lists them.
pub const FIELDS: [&str; 6] =
    ["agent", "repos_touched", "adrs_referenced", "success_criteria", "out_of_scope", "lines_estimate"];

/// A parsed brief. Field accessors return only well-typed values; the schema
/// rules report the rest.
#[derive(Clone, Debug)]
pub struct Brief<'a> {
    pub path: &'a str,
    pub text: &'a str,
    pub frontmatter: Result<Tree<'a>, FrontmatterError>,
    pub body: &'a str,
    pub body_line: u32,
    pub markdown: Markdown,
}

/// The parts of a brief's file name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileName<'a> {
    /// `SWARM-AR`.
    pub agent: &'a str,
    pub slug: &'a str,
}

impl<'a> Brief<'a> {
    pub fn parse(path: &'a str, text: &'a str) -> Brief<'a> {
        let split = frontmatter::split(text);
        let markdown = markdown::parse(split.body, split.body_line);
        Brief { path, text, frontmatter: split.frontmatter, body: split.body, body_line: split.body_line, markdown }
    }

    pub fn field(&self, name: &str) -> Option<Node<'_>> {
        self.frontmatter.as_ref().ok()?.root().get(name)
    }

    /// A string field as a slice of the brief's text, when written there
    /// verbatim.
    pub fn field_text(&self, name: &str) -> Option<&'a str> {
        let frontmatter = self.frontmatter.as_ref().ok()?;
        let node = frontmatter.root().get(name)?;
        node.as_str()?;
        frontmatter.verbatim(node.id())
    }

    /// The line of a field's key, else the frontmatter's first line.
    pub fn field_line(&self, name: &str) -> u32 {
        self.frontmatter.as_ref().ok().and_then(|f| f.root().key(name)).map_or(1, |k| k.line)
    }

    pub fn agent(&self) -> Option<&str> {
        self.field("agent")?.as_str()
    }

    /// The string entries of a list field, with their nodes (for lines).
    pub fn strings(&self, name: &str) -> Vec<(&str, Node<'_>)> {
        let Some(items) = self.field(name).and_then(Node::as_seq) else { return Vec::new() };
        items.iter().filter_map(|item| item.scalar_text().map(|s| (s, item))).collect()
    }

    /// The distinct repositories of `repos_touched`, in order: GitHub's
    /// names are case-insensitive, so `Acme/Factory` repeats `acme/factory`
    /// (the first spelling is kept; `brief/repo-duplicate` reports the rest).
    pub fn repos(&self) -> Vec<&str> {
        let mut repos: Vec<&str> = Vec::new();
        for (repo, _) in self.strings("repos_touched") {
            if !repos.iter().any(|r| r.eq_ignore_ascii_case(repo)) {
                repos.push(repo);
            }
        }
        repos
    }

    pub fn lines_estimate(&self) -> Option<i64> {
        self.field("lines_estimate")?.as_i64()
    }

    /// The text of a file line (1-based), empty when out of range.
    pub fn line_text(&self, line: u32) -> &'a str {
        self.text.lines().nth(line.saturating_sub(1) as usize).unwrap_or("")
    }

    /// The file name's parts, or why the name is wrong.
    pub fn file_name(&self) -> Result<FileName<'a>, String> {
        parse_file_name(self.path.rsplit('/').next().unwrap_or(self.path))
    }
}

/// Parses `SWARM-<ID>-<slug>.md`: `<ID>` is 1–6 of `[A-Z0-9]`, `<slug>` kebab-case.
pub fn parse_file_name(name: &str) -> Result<FileName<'_>, String> {
    let stem = name.strip_suffix(".md").ok_or_else(|| format!("`{name}` does not end in `.md`"))?;
    let rest = stem.strip_prefix("SWARM-").ok_or_else(|| format!("`{name}` does not start with `SWARM-`"))?;
    let (id, slug) = rest.split_once('-').ok_or_else(|| format!("`{name}` has no `-<slug>` after the agent id"))?;
    if id.is_empty() || id.len() > 6 || !id.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit()) {
        return Err(format!("the agent id `{id}` in `{name}` must be 1 to 6 characters of A-Z and 0-9"));
    }
    if !is_kebab(slug) {
        return Err(format!("the slug `{slug}` in `{name}` must be kebab-case (lower-case words joined by `-`)"));
    }
    Ok(FileName { agent: &stem[..6 + id.len()], slug })
}

/// The `agent:` of a brief's frontmatter, read without the rest of the
/// brief: repository-wide rules need only this of the briefs a change
/// leaves alone. Those passed review, so a plain `agent: SWARM-XX` line is
/// the common case and is read without parsing YAML; anything else falls
/// back to the YAML parser.
pub fn agent_of(text: &str) -> Option<&str> {
    let mut lines = text.lines();
    if lines.next()?.trim_end() != "---" {
        return None;
    }
    for line in lines {
        if line.trim_end() == "---" {
            return None;
        }
        if let Some(value) = line.strip_prefix("agent:") {
            let value = value.trim();
            if is_agent_id(value) {
                return Some(value);
            }
            let frontmatter = crate::docs::frontmatter::split(text).frontmatter.ok()?;
            let node = frontmatter.root().get("agent")?;
            node.as_str()?;
            return frontmatter.verbatim(node.id());
        }
    }
    None
}

/// `SWARM-<ID>` as the `agent` field spells it.
pub fn is_agent_id(s: &str) -> bool {
    s.strip_prefix("SWARM-").is_some_and(|id| {
        (1..=6).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
    })
}

fn is_kebab(s: &str) -> bool {
    !s.is_empty()
        && s.split('-').all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names() {
        assert_eq!(parse_file_name("SWARM-AR-pg-backup.md"), Ok(FileName { agent: "SWARM-AR", slug: "pg-backup" }));
        assert_eq!(parse_file_name("SWARM-A1B2C3-x.md").unwrap().agent, "SWARM-A1B2C3");
        for bad in [
            "SWARM-AR.md",
            "swarm-AR-x.md",
            "SWARM-ar-x.md",
            "SWARM-ABCDEFG-x.md",
            "SWARM-AR-Pg.md",
            "SWARM-AR-x--y.md",
            "SWARM-AR-x.txt",
        ] {
            assert!(parse_file_name(bad).is_err(), "{bad}");
        }
        assert!(is_agent_id("SWARM-AR"));
        assert!(!is_agent_id("SWARM-"));
    }

    #[test]
    fn fields_with_lines() {
        let text = "---\nagent: SWARM-AR\nrepos_touched: [a/b, c/d]\nlines_estimate: 400\n---\nBody `x/y.md`\n";
        let b = Brief::parse("dark-factory/briefs/SWARM-AR-x.md", text);
        assert_eq!(b.agent(), Some("SWARM-AR"));
        assert_eq!(b.repos(), vec!["a/b", "c/d"]);
        let text = text.replace("[a/b, c/d]", "[a/b, A/B, c/d, a/b]");
        assert_eq!(Brief::parse("dark-factory/briefs/SWARM-AR-x.md", &text).repos(), vec!["a/b", "c/d"]);
        assert_eq!(b.lines_estimate(), Some(400));
        assert_eq!(b.field_line("lines_estimate"), 4);
        assert_eq!(b.markdown.code_spans[0].line, 6);
        assert_eq!(b.line_text(6), "Body `x/y.md`");
    }
}
