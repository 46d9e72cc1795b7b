//! YAML read into a [`Tree`] straight from yaml-rust2's event stream, a line
//! and column on every node, values borrowed from the text wherever they are
//! written verbatim. Bounded: nesting depth, node count, anchors and aliases
//! (an alias bomb cannot expand here: aliases are refused outright, since
//! none of gatehouse's formats needs them). Also how plain scalars are typed.

use std::collections::HashMap;

use yaml_rust2::parser::{Event, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

pub use super::tree::{Key, Map, Node, NodeId, Seq, Tree};
use super::tree::{Str, TreeBuilder};
use super::yaml_diagnose;

/// The deepest nesting a document may use. Real frontmatter uses three or four.
pub const MAX_DEPTH: usize = 32;
const DEPTH_MESSAGE: &str = "YAML nested deeper than 32 levels; no gatehouse document needs that";

/// The most nodes one YAML text may hold; keeps cost linear and bounded.
pub const MAX_NODES: usize = 2_000_000;

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

pub fn plain_i64(value: &str) -> Option<i64> {
    value.strip_prefix('+').unwrap_or(value).parse().ok()
}

/// A decimal number: digits, a point, a sign and an exponent, as
/// `str::parse` reads them (not its `inf` and `NaN` words).
pub fn plain_f64(value: &str) -> Option<f64> {
    let v = value.strip_prefix('+').unwrap_or(value);
    if v.bytes().all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'-' | b'e' | b'E' | b'+'))
        && v.bytes().any(|c| c.is_ascii_digit())
    {
        v.parse().ok()
    } else {
        None
    }
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
    };
    let mut parser = Parser::new_from_str(text);
    let mut documents = 0;
    loop {
        let (event, mark) = parser.next_token().map_err(|e| {
            // The scanner stops runaway flow nesting before our depth check sees it.
            let info = if e.info().contains("recursion limit") { DEPTH_MESSAGE } else { e.info() };
            builder.diagnosed(e.marker(), info)
        })?;
        match event {
            Event::StreamEnd => break,
            Event::DocumentStart => {
                documents += 1;
                if documents > 1 {
                    return Err(builder.error(&mark, "more than one YAML document; use a single document"));
                }
            }
            Event::Alias(_) => {
                return Err(builder.error(&mark, "YAML aliases (`*name`) are not allowed here; write the value out"));
            }
            Event::Scalar(value, style, anchor, _) => {
                builder.refuse_anchor(anchor, &mark)?;
                builder.scalar(&value, style, &mark)?;
            }
            Event::SequenceStart(anchor, _) => {
                builder.refuse_anchor(anchor, &mark)?;
                builder.open(false, &mark)?;
            }
            Event::MappingStart(anchor, _) => {
                builder.refuse_anchor(anchor, &mark)?;
                builder.open(true, &mark)?;
            }
            Event::SequenceEnd | Event::MappingEnd => builder.close(&mark)?,
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

/// An open collection: where it is, where its children start in the
/// builder's `items` or `entries`, and for a mapping the key waiting for its
/// value.
struct Frame {
    mapping: bool,
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

    fn position(&self, mark: &Marker) -> (u32, u32) {
        let line = self.first_line.saturating_add(mark.line().saturating_sub(1) as u32);
        (line, mark.col() as u32 + 1)
    }

    fn refuse_anchor(&self, anchor: usize, mark: &Marker) -> Result<(), YamlError> {
        if anchor == 0 {
            Ok(())
        } else {
            Err(self.error(mark, "YAML anchors (`&name`) are not allowed here; write the value out"))
        }
    }

    fn open(&mut self, mapping: bool, mark: &Marker) -> Result<(), YamlError> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(self.error(mark, DEPTH_MESSAGE));
        }
        let (line, col) = self.position(mark);
        let start = if mapping { self.entries.len() } else { self.items.len() };
        self.stack.push(Frame { mapping, line, col, start, pending_key: None, index: None });
        Ok(())
    }

    fn close(&mut self, mark: &Marker) -> Result<(), YamlError> {
        let frame = self.stack.pop().ok_or_else(|| self.error(mark, "unbalanced YAML structure"))?;
        let node = if frame.mapping {
            self.tree.map(self.entries.drain(frame.start..), frame.line, frame.col)
        } else {
            self.tree.seq(self.items.drain(frame.start..), frame.line, frame.col)
        };
        self.attach(node, mark)
    }

    /// A scalar event's value: borrowed where the text holds it verbatim at
    /// the event's mark (after the opening quote of a quoted one), else kept.
    fn scalar(&mut self, value: &str, style: TScalarStyle, mark: &Marker) -> Result<(), YamlError> {
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
        let plain = matches!(style, TScalarStyle::Plain);
        let (line, col) = self.position(mark);
        let node = self.tree.scalar(value, plain, line, col);
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
                self.entries.push((key.name, key.line, key.col, node));
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
                frame.pending_key = Some(PendingKey { name: name_str, line, col });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_carry_file_lines_and_columns() {
        let text = "agent: SWARM-AR\nlist:\n  - one\n  - \"two\"\n  - \"t\\u0077o\"\n";
        let tree = parse(text, 2).unwrap();
        let y = tree.root();
        assert_eq!((y.get("agent").unwrap().line(), y.get("agent").unwrap().col()), (2, 8));
        let list = y.get("list").unwrap().as_seq().unwrap();
        assert_eq!((list.get(1).unwrap().line(), list.get(1).unwrap().col()), (5, 5));
        assert_eq!(list.get(1).unwrap().as_str(), Some("two"));
        assert_eq!(y.key("list").unwrap().line, 3);
        // Values written verbatim are slices of the text; escaped ones are kept.
        let verbatim = |node: Node| tree.verbatim(node.id()).map(|s| s.as_ptr());
        assert_eq!(verbatim(y.get("agent").unwrap()), Some(text[7..].as_ptr()));
        assert_eq!(verbatim(list.get(2).unwrap()), None);
        assert_eq!(list.get(2).unwrap().as_str(), Some("two"));
        let unicode = parse("ü: \"é x\"\nb: y\n", 1).unwrap();
        assert_eq!(unicode.verbatim(unicode.root().get("b").unwrap().id()), Some("y"));
        assert_eq!(unicode.root().get("ü").unwrap().col(), 4);
    }

    #[test]
    fn an_empty_value_sits_on_its_keys_line() {
        let tree = parse("a:\nb: 1\nc:\n  d:\n\n  e: ~\nf:\n", 10).unwrap();
        let y = tree.root();
        let at = |n: Node| (n.line(), n.col());
        assert_eq!(at(y.get("a").unwrap()), (10, 3));
        let c = y.get("c").unwrap();
        assert_eq!((at(c.get("d").unwrap()), at(c.get("e").unwrap())), ((13, 5), (15, 6)));
        assert_eq!(at(y.get("f").unwrap()), (16, 3));
        assert!(y.get("a").unwrap().is_null() && y.get("f").unwrap().is_null());
    }

    #[test]
    fn typing_follows_yaml_plain_scalars() {
        let tree = parse("a: 400\nb: \"400\"\nc: +1\nd: ~\ne: 1.5\nf: yes\n", 1).unwrap();
        let y = tree.root();
        assert_eq!(y.get("a").unwrap().as_i64(), Some(400));
        assert_eq!(y.get("b").unwrap().as_i64(), None);
        assert_eq!(y.get("b").unwrap().as_str(), Some("400"));
        assert_eq!(y.get("c").unwrap().as_i64(), Some(1));
        assert!(y.get("d").unwrap().is_null());
        assert_eq!(y.get("e").unwrap().as_f64(), Some(1.5));
        assert_eq!(y.get("f").unwrap().as_str(), Some("yes"));
    }

    #[test]
    fn anchors_aliases_and_depth_are_refused_with_a_line() {
        let bomb = "a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n";
        let err = parse(bomb, 10).unwrap_err();
        assert_eq!(err.line, 10);
        assert!(err.message.contains("anchors"));
        let deep = format!("x: {}{}\n", "[".repeat(40), "]".repeat(40));
        let err = parse(&deep, 1).unwrap_err();
        assert!(err.message.contains("deeper"), "{err}");
        let block_deep: String = (0..40).map(|i| format!("{}k{i}:\n", "  ".repeat(i))).collect();
        assert!(parse(&block_deep, 1).unwrap_err().message.contains("deeper"));
    }

    #[test]
    fn duplicate_keys_and_second_documents_are_errors() {
        let err = parse("a: 1\nb: 2\na: 3\n", 2).unwrap_err();
        assert_eq!(err.line, 4);
        assert!(err.message.contains("the key `a` is repeated from line 2"));
        assert!(parse("a: 1\n---\nb: 2\n", 1).is_err());
    }

    #[test]
    fn big_mappings_stay_linear_and_still_catch_duplicates() {
        let mut text: String = (0..50_000).map(|i| format!("k{i}: {i}\n")).collect();
        assert_eq!(parse(&text, 1).unwrap().root().as_map().unwrap().len(), 50_000);
        text.push_str("k20: again\n");
        let err = parse(&text, 1).unwrap_err();
        assert_eq!((err.line, err.message.as_str()), (50_001, "the key `k20` is repeated from line 21"));
    }

    proptest::proptest! {
        #[test]
        fn strings_are_what_is_not_null_number_or_bool(text in "[-+.~0-9a-zA-Z]{0,6}") {
            let typed = plain_is_null(&text) || plain_f64(&text).is_some() || plain_bool(&text).is_some();
            proptest::prop_assert_eq!(plain_is_string(&text), !typed);
        }

        #[test]
        fn numbers_read_as_str_parse_reads_them(text in "[-+]?[0-9]{0,9}\\.?[0-9]{0,9}") {
            let unsigned = text.strip_prefix('+').unwrap_or(&text);
            let expected = unsigned.parse::<f64>().ok().filter(|_| unsigned.bytes().any(|b| b.is_ascii_digit()));
            proptest::prop_assert_eq!(plain_f64(&text).map(f64::to_bits), expected.map(f64::to_bits));
        }
    }
}
