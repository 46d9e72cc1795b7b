//! Voting docs (ADR-140): `dark-factory/guidelines/<doc>@v<n>.md` (or
//! `<doc>.md@v<n>`), frontmatter `format`/`doc`/`version`/`scope`, and one
//! `## ` section per rule, each carrying one fenced `voting` block of
//! arguments with append-only vote ledgers. Every node keeps its file line.
//! Accessors return only well-typed values; the rules report the rest.

use std::borrow::Cow;

use super::frontmatter::{self, FrontmatterError};
use super::markdown;
use super::timestamp;
mod facts;
mod problems;
pub mod reach;
pub mod tally;

pub use self::problems::{Problem, VoteProblem};
pub use super::tree::same_value;

use self::facts::{ArgumentFacts, LEDGER, VoteFacts, argument_field, vote_field};
use super::tree::{Node, Tree};
use super::yaml::{self, YamlError};

/// The fields ADR-140's argument schema requires of every argument
/// (`target` is required only for non-original kinds).
pub const ARGUMENT_FIELDS: [&str; 9] = [
    "id",
    "proposer",
    "proposed_at",
    "proposition",
    "rationale",
    "evidence_pr_refs",
    "example",
    "modification_kind",
    "vote_ledger",
];

/// The fields of a section's `voting` block.
pub const BLOCK_FIELDS: [&str; 3] = ["section", "active_argument", "arguments"];

/// The fields of an argument's bound example, all required.
pub const EXAMPLE_FIELDS: [&str; 3] = ["artefact", "diff_snapshot_ref", "explanation"];

/// The four modification kinds.
pub const KINDS: [&str; 4] = ["original", "example-patch", "counter-example", "counter-argument"];

/// The fields of a vote entry; `scope_match` is optional.
pub const VOTE_FIELDS: [&str; 5] = ["voter", "vote", "weight", "ts", "rationale"];

/// The largest weight a vote may carry. The tally adds weights exactly, in
/// millionths and 128 bits; weights are power scores (tens), and a weight like
/// `1e300` would overflow that sum.
pub const MAX_WEIGHT: f64 = 1e12;

/// A rationale (argument or vote) is at least this many characters.
pub const MIN_RATIONALE: usize = 50;

/// How many characters a rationale has, trimmed, when under
/// [`MIN_RATIONALE`]; `None` when it has enough.
pub fn short_rationale(text: &str) -> Option<usize> {
    Some(text.trim().chars().count()).filter(|&count| count < MIN_RATIONALE)
}

/// A parsed voting doc.
#[derive(Clone, Debug)]
pub struct VotingDoc<'a> {
    pub path: &'a str,
    pub text: &'a str,
    pub frontmatter: Result<Tree<'a>, FrontmatterError>,
    pub sections: Vec<Section<'a>>,
    /// Opening lines of `voting` fences that sit before the first `## `.
    pub stray_blocks: Vec<u32>,
    /// Every `voting` fence: its opening line, its closing (or last) line,
    /// and whether it is closed.
    pub voting_fences: Vec<(u32, u32, bool)>,
}

/// One `## ` section.
#[derive(Clone, Debug)]
pub struct Section<'a> {
    pub heading: String,
    pub line: u32,
    /// Opening lines of every `voting` fence in the section.
    pub fences: Vec<u32>,
    /// The first `voting` block, parsed; `None` when the section has none.
    pub block: Option<Result<Block<'a>, BlockError>>,
}

/// Why a section's `voting` block could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BlockError {
    #[error("the `voting` block opened on line {line} is never closed")]
    Unclosed { line: u32 },
    #[error("invalid YAML in the `voting` block at {0}")]
    Yaml(YamlError),
    #[error("the `voting` block must be a mapping with `section`, `active_argument` and `arguments`, found {found}")]
    NotMapping { line: u32, found: &'static str },
}

impl BlockError {
    pub fn line(&self) -> u32 {
        match self {
            BlockError::Unclosed { line } | BlockError::NotMapping { line, .. } => *line,
            BlockError::Yaml(e) => e.line,
        }
    }
}

/// A section's `voting` block: a mapping, its nodes on file lines.
#[derive(Clone, Debug)]
pub struct Block<'a> {
    /// The line of the opening fence.
    pub fence_line: u32,
    tree: Tree<'a>,
    /// Every vote of every ledger, in order, read once: several rules and
    /// the tally look at each of them.
    votes: Vec<VoteFacts>,
    /// For each item of `arguments`, its fields and its ledger's range of
    /// `votes`.
    arguments: Vec<ArgumentFacts>,
}

/// One argument of a block (a mapping in `arguments`).
#[derive(Clone, Copy, Debug)]
pub struct Argument<'y> {
    pub index: usize,
    pub node: Node<'y>,
    facts: &'y ArgumentFacts,
    /// The facts of its ledger's entries.
    votes: &'y [VoteFacts],
}

/// One vote entry of an argument's ledger.
#[derive(Clone, Copy, Debug)]
pub struct Vote<'y> {
    pub index: usize,
    pub node: Node<'y>,
    facts: &'y VoteFacts,
}

/// The parts of a voting doc's file name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileName<'a> {
    pub doc: &'a str,
    pub version: u32,
}

impl<'a> VotingDoc<'a> {
    pub fn parse(path: &'a str, text: &'a str) -> VotingDoc<'a> {
        let split = frontmatter::split(text);
        let md = markdown::parse(split.body, split.body_line);
        let mut sections: Vec<Section> = Vec::new();
        let mut stray_blocks = Vec::new();
        // Headings and fences come in line order; a `#` heading closes a section.
        let mut headings = md.headings.iter().filter(|h| h.level <= 2).peekable();
        let mut open: Option<usize> = None;
        let mut voting_fences = Vec::new();
        for fence in md.fences.iter().filter(|f| f.info == "voting") {
            voting_fences.push((fence.line, fence.end_line, fence.closed));
            while let Some(h) = headings.next_if(|h| h.line < fence.line) {
                open = (h.level == 2).then(|| {
                    sections.push(Section { heading: h.text.clone(), line: h.line, fences: Vec::new(), block: None });
                    sections.len() - 1
                });
            }
            let Some(at) = open else {
                stray_blocks.push(fence.line);
                continue;
            };
            let section = &mut sections[at];
            section.fences.push(fence.line);
            if section.block.is_none() {
                section.block = Some(Block::parse(fence, split.body));
            }
        }
        for h in headings.filter(|h| h.level == 2) {
            sections.push(Section { heading: h.text.clone(), line: h.line, fences: Vec::new(), block: None });
        }
        VotingDoc { path, text, frontmatter: split.frontmatter, sections, stray_blocks, voting_fences }
    }

    pub fn field(&self, name: &str) -> Option<Node<'_>> {
        self.frontmatter.as_ref().ok()?.root().get(name)
    }

    /// The doc name: the frontmatter's `doc`, else the file name's `<doc>`
    /// (ADR-140 defines no frontmatter).
    pub fn doc_name(&self) -> Option<&str> {
        match self.field("doc") {
            Some(doc) => doc.scalar_text(),
            None => self.file_name().ok().map(|name| name.doc),
        }
    }

    /// The version: the frontmatter's `version`, else the file name's `<n>`.
    pub fn version(&self) -> Option<i64> {
        match self.field("version") {
            Some(version) => version.as_i64(),
            None => self.file_name().ok().map(|name| i64::from(name.version)),
        }
    }

    /// The file name's parts, or why the name is wrong.
    pub fn file_name(&self) -> Result<FileName<'a>, String> {
        parse_file_name(self.path.rsplit('/').next().unwrap_or(self.path))
    }

    /// The lines outside `voting` blocks' contents (frontmatter, prose,
    /// headings, the fence lines themselves), with their line numbers: what a
    /// published version never changes.
    pub fn prose_lines(&self) -> Vec<(u32, &'a str)> {
        let mut fences = self.voting_fences.iter().peekable();
        let mut out = Vec::new();
        for (index, line) in self.text.lines().enumerate() {
            let n = index as u32 + 1;
            while fences.next_if(|(_, end, _)| *end < n).is_some() {}
            // Inside: after the opening fence, before the closing one (an
            // unclosed fence's last line is content).
            let inside =
                fences.peek().is_some_and(|(open, end, closed)| *open < n && (n < *end || (n == *end && !closed)));
            if !inside {
                out.push((n, line));
            }
        }
        out
    }

    /// The sections whose block parsed.
    pub fn blocks(&self) -> impl Iterator<Item = (&Section<'a>, &Block<'a>)> {
        self.sections.iter().filter_map(|s| match &s.block {
            Some(Ok(block)) => Some((s, block)),
            _ => None,
        })
    }
}

impl<'a> Block<'a> {
    /// The block of `fence`, found in `body`.
    fn parse(fence: &markdown::Fence, body: &'a str) -> Result<Block<'a>, BlockError> {
        if !fence.closed {
            return Err(BlockError::Unclosed { line: fence.line });
        }
        // Ledgers are long and plain: the fast reader takes them, borrowing
        // their values, and the full parser everything it declines (and
        // every error). The fast reader declines any `\r`, so it can read
        // the raw lines: they are the content whenever it accepts them.
        let raw = &body[fence.content_range.clone()];
        let tree = match super::yaml_block::parse(raw, fence.line + 1) {
            Some(tree) => tree,
            None => match fence.content(body) {
                Cow::Borrowed(content) => yaml::parse(content, fence.line + 1).map_err(BlockError::Yaml)?,
                Cow::Owned(content) => yaml::parse(&content, fence.line + 1).map_err(BlockError::Yaml)?.into_owned(),
            },
        };
        let root = tree.root();
        if root.as_map().is_none() {
            return Err(BlockError::NotMapping { line: root.line().max(fence.line), found: root.type_name() });
        }
        let arguments = root.get("arguments").map_or(root.items(), Node::items);
        // Room for every ledger's votes at once: growing the vector ledger
        // by ledger copied it several times over.
        let ledgers = arguments.iter().filter_map(|a| a.get("vote_ledger")).map(|l| l.items().len()).sum();
        let mut votes = Vec::with_capacity(ledgers);
        let arguments = arguments.iter().map(|argument| ArgumentFacts::read(argument, &mut votes)).collect();
        Ok(Block { fence_line: fence.line, tree, votes, arguments })
    }

    /// The block's mapping.
    pub fn root(&self) -> Node<'_> {
        self.tree.root()
    }

    /// The `section` id, when it is a string.
    pub fn section_id(&self) -> Option<&str> {
        self.root().get("section")?.as_str()
    }

    /// The section id for messages: the `section` value, else the fence line.
    pub fn name(&self) -> String {
        self.section_id().map_or_else(|| format!("at line {}", self.fence_line), str::to_string)
    }

    pub fn active_argument(&self) -> Option<Node<'_>> {
        self.root().get("active_argument")
    }

    /// Every mapping in `arguments`, with its position.
    pub fn arguments(&self) -> impl Iterator<Item = Argument<'_>> {
        let root = self.root();
        let items = root.get("arguments").map_or(root.items(), Node::items);
        items
            .iter()
            .zip(&self.arguments)
            .enumerate()
            .filter(|(_, (n, _))| n.as_map().is_some())
            .map(|(index, (node, facts))| Argument { index, node, facts, votes: &self.votes[facts.votes.clone()] })
    }

    pub fn argument(&self, id: &str) -> Option<Argument<'_>> {
        self.arguments().find(|a| a.id() == Some(id))
    }
}

impl<'y> Argument<'y> {
    pub fn field(&self, name: &str) -> Option<Node<'y>> {
        match argument_field(name) {
            Some(at) => self.facts.fields[at].map(|id| self.node.sibling(id)),
            None => self.node.get(name),
        }
    }

    pub fn id(&self) -> Option<&'y str> {
        self.field("id")?.scalar_text()
    }

    /// The id for messages: the `id` value, else the position.
    pub fn name(&self) -> String {
        self.id().map_or_else(|| format!("#{}", self.index + 1), str::to_string)
    }

    pub fn kind(&self) -> Option<&'y str> {
        self.field("modification_kind")?.as_str()
    }

    pub fn proposer(&self) -> Option<&'y str> {
        self.field("proposer")?.as_str()
    }

    /// The ledger's entries (mappings or not), with their positions.
    pub fn votes(&self) -> impl ExactSizeIterator<Item = Vote<'y>> + use<'y> {
        let ledger = self.facts.fields[LEDGER].map_or(self.node.items(), |id| self.node.sibling(id).items());
        ledger.iter().zip(self.votes).enumerate().map(|(index, (node, facts))| Vote { index, node, facts })
    }
}

impl<'y> Vote<'y> {
    pub fn field(&self, name: &str) -> Option<Node<'y>> {
        match vote_field(name) {
            Some(at) => self.facts.fields[at].map(|id| self.node.sibling(id)),
            None => self.node.get(name),
        }
    }

    /// The names of the [`VOTE_FIELDS`] the entry lacks.
    pub fn missing_fields(&self) -> impl Iterator<Item = &'static str> + use<'y> {
        let fields = self.facts.fields;
        VOTE_FIELDS.into_iter().zip(fields).filter(|(_, value)| value.is_none()).map(|(name, _)| name)
    }

    /// `voter`, when it is a string.
    pub fn voter(&self) -> Option<&'y str> {
        self.node.sibling(self.facts.voter?).scalar_text()
    }

    /// Whether the entry is a mapping with every field ADR-140 asks of a
    /// vote, each well-typed (`voter` a persona pin, `vote` ±1, `weight`
    /// above 0, `ts` a zoned timestamp, `rationale` long enough, any
    /// `scope_match` from 0 to 1).
    pub fn is_well_formed(&self) -> bool {
        self.facts.well_formed
    }

    /// `+1` or `-1`, else `None`.
    pub fn value(&self) -> Option<i64> {
        self.facts.value
    }

    /// A weight above zero and at most [`MAX_WEIGHT`], else `None`.
    pub fn weight(&self) -> Option<f64> {
        self.facts.weight
    }

    /// The instant of `ts` in microseconds since 1970 (UTC), when valid.
    pub fn instant(&self) -> Option<i64> {
        self.facts.instant?.ok()
    }

    /// What is wrong with `ts`, when it is there and not a valid timestamp.
    pub fn ts_problem(&self) -> Option<&'static str> {
        self.facts.instant?.err()
    }

    /// How messages name the vote: `vote 3 (lin/opus-4.7)`.
    pub fn name(&self) -> String {
        match self.voter() {
            Some(voter) => format!("vote {} ({voter})", self.index + 1),
            None => format!("vote {}", self.index + 1),
        }
    }
}

/// Whether a text under the voting paths is a voting doc at all: it declares
/// `format: voting/…`, or it holds a `voting` block. ADR-140's docs share
/// `dark-factory/guidelines/` with ADR-117's module guidelines (and the
/// folder's README), which are neither and are not voting docs.
pub fn is_voting_doc(text: &str) -> bool {
    let split = frontmatter::split(text);
    let format = split.frontmatter.as_ref().ok().and_then(|f| f.root().get("format")?.as_str());
    format.is_some_and(|f| f.starts_with("voting/"))
        || markdown::parse(split.body, split.body_line).fences.iter().any(|f| f.info == "voting")
}

/// Parses `<doc>@v<n>.md` or `<doc>.md@v<n>`: `<doc>` kebab-case, `<n>` a
/// positive integer without leading zeros.
pub fn parse_file_name(name: &str) -> Result<FileName<'_>, String> {
    let expected = "name it `<doc>@v<n>.md` (or `<doc>.md@v<n>`)";
    let (doc, version) = if let Some(stem) = name.strip_suffix(".md") {
        stem.rsplit_once("@v").ok_or_else(|| format!("`{name}` has no `@v<n>` version; {expected}"))?
    } else {
        let (stem, version) =
            name.rsplit_once("@v").ok_or_else(|| format!("`{name}` has no `@v<n>` version; {expected}"))?;
        let doc = stem.strip_suffix(".md").ok_or_else(|| format!("`{name}` is not a markdown file; {expected}"))?;
        (doc, version)
    };
    if !is_kebab(doc) {
        return Err(format!("the doc name `{doc}` in `{name}` must be kebab-case (lower-case words joined by `-`)"));
    }
    let number = (!version.starts_with('0') && version.bytes().all(|b| b.is_ascii_digit()))
        .then(|| version.parse::<u32>().ok())
        .flatten()
        .filter(|n| *n > 0)
        .ok_or_else(|| format!("the version `v{version}` in `{name}` must be a positive whole number, e.g. `v1`"))?;
    Ok(FileName { doc, version: number })
}

pub fn is_kebab(s: &str) -> bool {
    !s.is_empty()
        && s.split('-').all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()))
}

/// `<persona>/<model_pin>`: ADR-140's validator "checks the slash-shape":
/// exactly one `/` between two non-empty parts, neither with whitespace or
/// control characters. Letters are any script's (`zoë/opus-4.7`), and a pin
/// is written as its vendor publishes it (`claude-3-5-sonnet@20240620`,
/// `llama3.1:70b`).
pub fn is_persona_pin(s: &str) -> bool {
    persona_pin_problem(s).is_none()
}

/// What keeps `s` from being `<persona>/<model_pin>`, naming the offending
/// character and its 1-based column.
pub fn persona_pin_problem(s: &str) -> Option<String> {
    if let Some((col, c)) = s.chars().enumerate().find(|(_, c)| c.is_whitespace() || c.is_control()) {
        let name = match c {
            ' ' => "a space".to_string(),
            '\t' => "a tab".to_string(),
            c => format!("the character U+{:04X}", c as u32),
        };
        return Some(format!("has {name} at column {}", col + 1));
    }
    let slashes: Vec<usize> = s.chars().enumerate().filter(|(_, c)| *c == '/').map(|(col, _)| col + 1).collect();
    match slashes.as_slice() {
        [] => Some("has no `/` between persona and model pin".to_string()),
        [_] if s.starts_with('/') => Some("has no persona before the `/`".to_string()),
        [_] if s.ends_with('/') => Some("has no model pin after the `/`".to_string()),
        [_] => None,
        [_, second, ..] => Some(format!("has a second `/` at column {second}; there is exactly one")),
    }
}

/// A `YYYY-MM-DD` calendar date.
pub fn is_date(s: &str) -> bool {
    s.len() == 10 && timestamp::parse(&format!("{s}T00:00:00Z")).is_some()
}

/// Parses an RFC 3339 timestamp (`2026-05-06T09:42:11Z`,
/// `2026-05-06T11:42:11.5+02:00`) to microseconds since 1970 UTC; the error
/// says what is wrong. A space between date and time is the same instant:
/// RFC 3339 §5.6's NOTE lets applications use one for readability, and YAML
/// 1.2's timestamps (the 1.1 type the ledger's writers follow) allow it.
pub fn parse_timestamp(s: &str) -> Result<i64, &'static str> {
    let spaced;
    let s = if s.as_bytes().get(10) == Some(&b' ') && s.is_char_boundary(11) {
        spaced = format!("{}T{}", &s[..10], s[11..].trim_start());
        spaced.as_str()
    } else {
        s
    };
    if let Some(t) = timestamp::parse(s) {
        return Ok(t.seconds.saturating_mul(1_000_000).saturating_add(i64::from(t.nanos / 1_000)));
    }
    Err(
        if s.get(..10).is_some_and(|date| !is_date(date))
            && s.as_bytes().get(10).is_some_and(|b| matches!(b, b'T' | b't'))
        {
            "the date part is not a valid `YYYY-MM-DD` date"
        } else if timestamp::parse(&format!("{s}Z")).is_some() {
            "the timestamp has no time zone; end it with `Z` or an offset like `+02:00`"
        } else {
            "not an RFC 3339 timestamp like `2026-05-06T09:42:11Z`"
        },
    )
}

/// A git commit id: 7 to 40 lower-case hex digits.
pub fn is_sha(s: &str) -> bool {
    (7..=40).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// A short rendering of a value for messages (`1.4`, `a list of 2`).
pub fn show(node: Node) -> String {
    if let Some(value) = node.scalar_text() {
        // A quoted `"+1"` or `""` is shown with its quotes: without them it
        // would read as the number or the nothing it is not.
        if !node.is_plain() && (value.is_empty() || !yaml::plain_is_string(value)) {
            return format!("`\"{value}\"` (a string)");
        }
        let text: String = value.chars().take(60).collect();
        let cut = if value.chars().count() > 60 { "…" } else { "" };
        return format!("`{}{cut}`", text.replace('\n', " "));
    }
    match (node.as_seq(), node.as_map()) {
        (Some(items), _) => format!("a list of {}", items.len()),
        (_, Some(entries)) => format!("a mapping of {} keys", entries.len()),
        _ => unreachable!("a node that is not a scalar is a list or a mapping"),
    }
}

#[cfg(test)]
mod tests;
