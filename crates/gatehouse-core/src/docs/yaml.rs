//! YAML read into a [`Tree`] straight from yaml-rust2's event stream, a line
//! and column on every node, values borrowed from the text wherever they are
//! written verbatim, as YAML 1.2's core schema reads it: plain scalars typed
//! by the schema's tags (every integer notation, `.inf`, `.nan`), `!!str`
//! and the other core tags honoured, aliases standing for a copy of their
//! anchor's node (at the alias's place), merge keys (`<<: *base`) expanded.
//! Bounded: nesting depth, node count, and the values aliases stand for
//! ([`MAX_ALIASED`], so an alias bomb is an error, not an expansion).

use std::collections::HashMap;

use yaml_rust2::parser::{Event, Parser, Tag};
use yaml_rust2::scanner::{Marker, TScalarStyle};

pub use super::tree::{Key, Map, Node, NodeId, Seq, Tree};
use super::tree::{Str, TreeBuilder};
use super::yaml_diagnose;

/// The deepest nesting a document may use. Real frontmatter uses three or four.
pub const MAX_DEPTH: usize = 32;
const DEPTH_MESSAGE: &str = "YAML nested deeper than 32 levels; no gatehouse document needs that";

/// The most nodes one YAML text may hold; keeps cost linear and bounded.
pub const MAX_NODES: usize = 2_000_000;

/// The most values all the aliases of one YAML text may stand for together
/// (each alias counts every value its anchor's node holds). Real documents
/// alias a few values; a "billion laughs" text doubles them at each level
/// and stops here.
pub const MAX_ALIASED: usize = 10_000;

/// Why a YAML text could not be read, where, and how to fix it. `col`
/// counts characters (a tab is one); `width` is how many the mistake covers.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {col}: {message}")]
pub struct YamlError {
    pub line: u32,
    pub col: u32,
    pub width: u32,
    pub message: String,
    pub help: String,
}

/// How messages name a scalar's type.
pub fn scalar_type_name(value: &str, plain: bool) -> &'static str {
    if !plain && value.is_empty() {
        "an empty string"
    } else if !plain && value.trim().is_empty() {
        "a blank string"
    } else if !plain {
        "a string"
    } else if plain_is_null(value) {
        "empty (null)"
    } else if plain_i64(value).is_some() {
        "an integer"
    } else if plain_f64(value).is_some() {
        "a number"
    } else if plain_bool(value).is_some() {
        "a boolean"
    } else {
        "a string"
    }
}

/// Whether a plain scalar is a string: not null, a number or a boolean.
pub fn plain_is_string(value: &str) -> bool {
    !(plain_is_null(value) || plain_f64(value).is_some() || plain_bool(value).is_some())
}

pub fn plain_is_null(value: &str) -> bool {
    matches!(value, "" | "~" | "null" | "Null" | "NULL")
}

/// An integer of the core schema: decimal with an optional sign, `0o` octal
/// or `0x` hexadecimal (YAML 1.2.2 §10.3.2).
pub fn plain_i64(value: &str) -> Option<i64> {
    if let Some(octal) = value.strip_prefix("0o").filter(|d| !d.is_empty() && !d.starts_with(['+', '-'])) {
        return i64::from_str_radix(octal, 8).ok();
    }
    if let Some(hex) = value.strip_prefix("0x").filter(|d| !d.is_empty() && !d.starts_with(['+', '-'])) {
        return i64::from_str_radix(hex, 16).ok();
    }
    let digits = value.strip_prefix(['+', '-']).unwrap_or(value);
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then(|| value.parse().ok())?
}

/// A number of the core schema: an integer ([`plain_i64`]), a decimal with
/// a point and an exponent, or `.inf`, `-.inf`, `.nan` in their three cases.
pub fn plain_f64(value: &str) -> Option<f64> {
    if let Some(int) = plain_i64(value) {
        return Some(int as f64);
    }
    let unsigned = value.strip_prefix(['+', '-']).unwrap_or(value);
    if matches!(unsigned, ".inf" | ".Inf" | ".INF") {
        return Some(if value.starts_with('-') { f64::NEG_INFINITY } else { f64::INFINITY });
    }
    if matches!(value, ".nan" | ".NaN" | ".NAN") {
        return Some(f64::NAN);
    }
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], Some(&unsigned[at + 1..])),
        None => (unsigned, None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = digits(whole) && digits(fraction) && !(whole.is_empty() && fraction.is_empty());
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    (mantissa_ok && exponent_ok).then(|| value.parse().ok())?
}

pub fn plain_bool(value: &str) -> Option<bool> {
    match value {
        "true" | "True" | "TRUE" => Some(true),
        "false" | "False" | "FALSE" => Some(false),
        _ => None,
    }
}

/// Parses one YAML document. `first_line` is the file line the text starts
/// on, so every node carries its line in the file.
pub fn parse(text: &str, first_line: u32) -> Result<Tree<'_>, YamlError> {
    // YAML 1.2 separates a value from its `:` by spaces or tabs (§6.2,
    // s-separate-in-line); yaml-rust2 refuses a tab there before a plain
    // scalar. The tabs it refuses between a value indicator and the value
    // are read as the spaces they stand for (one byte for one, every
    // position unchanged).
    let mut spaced: Option<String> = None;
    loop {
        let source = spaced.as_deref().unwrap_or(text);
        match parse_events(text, source, first_line) {
            Err(Refused::TabAfterColon(value)) => {
                let blanks = source[..value].len() - source[..value].trim_end_matches([' ', '\t']).len();
                let spaced = spaced.get_or_insert_with(|| text.to_string());
                spaced.replace_range(value - blanks..value, &" ".repeat(blanks));
            }
            Err(Refused::Error(error)) => return Err(error),
            Ok(tree) => return Ok(tree),
        }
    }
}

enum Refused {
    /// yaml-rust2 refused the tabs between a `:` indicator and the value
    /// that starts at this byte.
    TabAfterColon(usize),
    Error(YamlError),
}

/// Reads `source`, which is `text` or `text` with separating tabs made
/// spaces; values are borrowed from `text`.
fn parse_events<'t>(text: &'t str, source: &str, first_line: u32) -> Result<Tree<'t>, Refused> {
    let mut builder = Builder {
        tree: TreeBuilder::new(text),
        first_line,
        // yaml-rust2 counts characters; a text that is not ASCII needs each
        // character's byte offset to find a value in it.
        offsets: (!text.is_ascii()).then(|| text.char_indices().map(|(at, _)| at).chain([text.len()]).collect()),
        stack: Vec::new(),
        items: Vec::new(),
        entries: Vec::new(),
        root: None,
        anchors: HashMap::new(),
        aliased: 0,
    };
    let mut parser = Parser::new_from_str(source);
    let mut documents = 0;
    loop {
        let (event, mark) = parser.next_token().map_err(|e| {
            let at = builder.byte(e.marker());
            let tab_before = source.get(..at).is_some_and(|before| before.trim_end_matches(' ').ends_with('\t'));
            if e.info().starts_with("':' must be followed by a valid YAML whitespace") && tab_before {
                return Refused::TabAfterColon(at);
            }
            // The scanner stops runaway flow nesting before our depth check sees it.
            let info = if e.info().contains("recursion limit") { DEPTH_MESSAGE } else { e.info() };
            Refused::Error(builder.diagnosed(e.marker(), info))
        })?;
        match event {
            Event::StreamEnd => break,
            Event::DocumentStart => {
                documents += 1;
                if documents > 1 {
                    return Err(Refused::Error(
                        builder.error(&mark, "more than one YAML document; use a single document"),
                    ));
                }
            }
            Event::Alias(anchor) => builder.alias(anchor, &mark).map_err(Refused::Error)?,
            Event::Scalar(value, style, anchor, tag) => {
                builder.scalar(&value, style, tag.as_ref(), anchor, &mark).map_err(Refused::Error)?;
            }
            Event::SequenceStart(anchor, _) => builder.open(false, anchor, &mark).map_err(Refused::Error)?,
            Event::MappingStart(anchor, _) => builder.open(true, anchor, &mark).map_err(Refused::Error)?,
            Event::SequenceEnd | Event::MappingEnd => builder.close(&mark).map_err(Refused::Error)?,
            _ => {}
        }
    }
    let root = match builder.root {
        Some(root) => root,
        None => {
            let empty = builder.tree.borrowed(&text[..0]);
            builder.tree.scalar(empty, true, first_line, 1)
        }
    };
    Ok(builder.tree.finish(root))
}

/// The core schema's name of a tag (`str` for `!!str`), or `None` for a
/// tag of another schema.
fn core_tag(tag: &Tag) -> Option<&str> {
    const CORE: &str = "tag:yaml.org,2002:";
    match tag.handle.as_str() {
        "!!" | CORE => Some(&tag.suffix),
        _ => tag.suffix.strip_prefix(CORE),
    }
}

/// An open collection: where it is, where its children start in the
/// builder's `items` or `entries`, and for a mapping the key waiting for its
/// value.
struct Frame {
    mapping: bool,
    /// The anchor the collection is named by (0 for none).
    anchor: usize,
    /// The values of its merge keys (`<<`), for a mapping.
    merges: Vec<u32>,
    line: u32,
    col: u32,
    start: usize,
    pending_key: Option<PendingKey>,
    /// Key → line, once the mapping is big enough that scanning its keys for
    /// duplicates would be quadratic.
    index: Option<HashMap<String, u32>>,
}

#[derive(Clone, Copy)]
struct PendingKey {
    name: Str,
    line: u32,
    col: u32,
    /// A plain `<<`: its value is merged into the mapping (YAML's merge key).
    merge: bool,
}

/// Mappings up to this size are checked for duplicate keys by scanning.
const SCAN_KEYS: usize = 16;

struct Builder<'s> {
    tree: TreeBuilder<'s>,
    first_line: u32,
    /// The byte offset of each character, when the text is not ASCII.
    offsets: Option<Vec<usize>>,
    stack: Vec<Frame>,
    /// The items of the open sequences, innermost last.
    items: Vec<u32>,
    /// The entries (name, line, column, value) of the open mappings.
    entries: Vec<(Str, u32, u32, u32)>,
    root: Option<u32>,
    /// Each anchor's node, by the parser's anchor id.
    anchors: HashMap<usize, u32>,
    /// How many values the aliases so far stand for.
    aliased: usize,
}

impl<'s> Builder<'s> {
    fn error(&self, mark: &Marker, message: &str) -> YamlError {
        let (line, col) = self.position(mark);
        YamlError { line, col, width: 1, message: message.to_string(), help: yaml_diagnose::help(message).to_string() }
    }

    /// A scanner error, explained from the text in the author's terms.
    fn diagnosed(&self, mark: &Marker, info: &str) -> YamlError {
        let (line, col) = self.position(mark);
        let d = yaml_diagnose::diagnose(self.tree.text(), self.first_line, line, col, info);
        YamlError { line: d.line, col: d.col, width: d.width, message: d.message, help: d.help }
    }

    /// The byte offset of a mark.
    fn byte(&self, mark: &Marker) -> usize {
        match &self.offsets {
            Some(offsets) => offsets.get(mark.index()).copied().unwrap_or(usize::MAX),
            None => mark.index(),
        }
    }

    fn position(&self, mark: &Marker) -> (u32, u32) {
        let line = self.first_line.saturating_add(mark.line().saturating_sub(1) as u32);
        (line, mark.col() as u32 + 1)
    }

    fn open(&mut self, mapping: bool, anchor: usize, mark: &Marker) -> Result<(), YamlError> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(self.error(mark, DEPTH_MESSAGE));
        }
        let (line, col) = self.position(mark);
        let start = if mapping { self.entries.len() } else { self.items.len() };
        self.stack.push(Frame {
            mapping,
            anchor,
            merges: Vec::new(),
            line,
            col,
            start,
            pending_key: None,
            index: None,
        });
        Ok(())
    }

    /// `*name`: a copy of its anchor's node, placed at the alias.
    fn alias(&mut self, anchor: usize, mark: &Marker) -> Result<(), YamlError> {
        let Some(&node) = self.anchors.get(&anchor) else {
            return Err(self.error(mark, "this alias names no anchor defined before it"));
        };
        let size = self.tree.size(node);
        self.aliased = self.aliased.saturating_add(size);
        if self.aliased > MAX_ALIASED {
            return Err(self.error(
                mark,
                &format!("YAML aliases here stand for more than {MAX_ALIASED} values in all (gatehouse's bound)"),
            ));
        }
        let (line, col) = self.position(mark);
        let copy = self.tree.copy(node, line, col);
        self.attach(copy, mark)
    }

    fn close(&mut self, mark: &Marker) -> Result<(), YamlError> {
        let frame = self.stack.pop().ok_or_else(|| self.error(mark, "unbalanced YAML structure"))?;
        let node = if frame.mapping {
            self.merge(&frame, mark)?;
            self.tree.map(self.entries.drain(frame.start..), frame.line, frame.col)
        } else {
            self.tree.seq(self.items.drain(frame.start..), frame.line, frame.col)
        };
        if frame.anchor != 0 {
            self.anchors.insert(frame.anchor, node);
        }
        self.attach(node, mark)
    }

    /// Adds to the mapping closing (its entries from `frame.start`) the
    /// entries of its merge keys' mappings that it does not write itself,
    /// the first merged mapping's first (YAML's merge key, `<<`).
    fn merge(&mut self, frame: &Frame, mark: &Marker) -> Result<(), YamlError> {
        for &value in &frame.merges {
            let node = self.tree.node(value);
            let sources: Vec<u32> = match (node.as_map(), node.as_seq()) {
                (Some(_), _) => vec![value],
                (None, Some(seq)) => seq.iter().map(|n| n.index()).collect(),
                (None, None) => Vec::new(),
            };
            if sources.is_empty() || sources.iter().any(|&s| self.tree.node(s).as_map().is_none()) {
                return Err(YamlError {
                    line: node.line(),
                    col: node.col(),
                    width: 1,
                    message: "a merge key (`<<`) takes a mapping or a list of mappings".into(),
                    help: "give `<<` an alias of a mapping (`<<: *base`) or a list of them".into(),
                });
            }
            for source in sources {
                for (name, line, col, value) in self.tree.map_entries(source) {
                    let written =
                        self.entries[frame.start..].iter().any(|(k, ..)| self.tree.str(*k) == self.tree.str(name));
                    if !written {
                        self.entries.push((name, line, col, value));
                    }
                }
            }
        }
        if self.tree.len() > MAX_NODES {
            return Err(self.error(mark, &format!("YAML holds more than {MAX_NODES} values")));
        }
        Ok(())
    }

    /// A scalar event's value: borrowed where the text holds it verbatim at
    /// the event's mark (after the opening quote of a quoted one), else kept.
    /// It is typed as the core schema types a plain scalar unless it is
    /// quoted or tagged `!!str` (or `!`); another core tag types it by its
    /// text as a plain scalar.
    fn scalar(
        &mut self,
        value: &str,
        style: TScalarStyle,
        tag: Option<&Tag>,
        anchor: usize,
        mark: &Marker,
    ) -> Result<(), YamlError> {
        let start = match &self.offsets {
            Some(offsets) => offsets.get(mark.index()).copied(),
            None => Some(mark.index()),
        };
        let quoted = matches!(style, TScalarStyle::SingleQuoted | TScalarStyle::DoubleQuoted);
        let text = self.tree.text();
        let verbatim = start
            .map(|at| at + usize::from(quoted))
            .and_then(|at| text.get(at..at + value.len()))
            .filter(|written| *written == value);
        let value = match verbatim {
            Some(written) => self.tree.borrowed(written),
            None => self.tree.owned(value),
        };
        let plain = match tag {
            None => matches!(style, TScalarStyle::Plain),
            Some(tag) if tag.handle == "!" && tag.suffix.is_empty() => false,
            Some(tag) => core_tag(tag).is_some_and(|name| name != "str"),
        };
        let (line, col) = self.position(mark);
        let node = self.tree.scalar(value, plain, line, col);
        if anchor != 0 {
            self.anchors.insert(anchor, node);
        }
        self.attach(node, mark)
    }

    fn attach(&mut self, node: u32, mark: &Marker) -> Result<(), YamlError> {
        if self.tree.len() > MAX_NODES {
            return Err(self.error(mark, &format!("YAML holds more than {MAX_NODES} values")));
        }
        let Some(frame) = self.stack.last_mut() else {
            self.root = Some(node);
            return Ok(());
        };
        if !frame.mapping {
            self.items.push(node);
            return Ok(());
        }
        let built = self.tree.node(node);
        let (line, col) = (built.line(), built.col());
        match frame.pending_key.take() {
            Some(key) => {
                // `key:` with nothing after it: the parser marks the empty
                // value where the next token starts, often the next line;
                // it belongs on its key's line, just after the colon.
                if built.is_plain() && built.scalar_text() == Some("") && line > key.line {
                    let width = self.tree.str(key.name).chars().count() as u32;
                    self.tree.move_node(node, key.line, key.col + width + 1);
                }
                if key.merge {
                    frame.merges.push(node);
                } else {
                    self.entries.push((key.name, key.line, key.col, node));
                }
            }
            None => {
                let Some(name) = built.scalar_text() else {
                    return Err(YamlError {
                        line,
                        col,
                        width: 1,
                        message: "mapping keys must be plain strings".into(),
                        help: "write the key as a plain word before its colon".into(),
                    });
                };
                let name_str = self.tree.scalar_str(node);
                let entries = &self.entries[frame.start..];
                let previous = match &frame.index {
                    Some(index) => index.get(name).copied(),
                    None => entries.iter().find(|(k, ..)| self.tree.str(*k) == name).map(|(_, line, ..)| *line),
                };
                if let Some(previous) = previous {
                    return Err(YamlError {
                        line,
                        col,
                        width: name.chars().count().max(1) as u32,
                        message: format!("the key `{name}` is repeated from line {previous}"),
                        help: format!("keep one `{name}:` line: a key appears once in a mapping"),
                    });
                }
                if entries.len() >= SCAN_KEYS {
                    let tree = &self.tree;
                    let index = frame.index.get_or_insert_with(|| {
                        entries.iter().map(|(k, line, ..)| (tree.str(*k).to_string(), *line)).collect()
                    });
                    index.insert(name.to_string(), line);
                }
                let merge = built.is_plain() && name == "<<";
                frame.pending_key = Some(PendingKey { name: name_str, line, col, merge });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
