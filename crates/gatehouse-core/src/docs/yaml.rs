//! A small YAML tree with a line and column on every node, built from
//! yaml-rust2's event stream. Bounded: nesting depth, node count, anchors and
//! aliases (an alias bomb cannot expand here: aliases are refused outright,
//! since none of gatehouse's formats needs them).

use yaml_rust2::parser::{Event, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

pub use super::text::Text;

/// The deepest nesting a document may use. Real frontmatter uses three or four.
pub const MAX_DEPTH: usize = 32;
const DEPTH_MESSAGE: &str = "YAML nested deeper than 32 levels; no gatehouse document needs that";

/// The most nodes one YAML text may hold; keeps cost linear and bounded.
pub const MAX_NODES: usize = 2_000_000;

#[derive(Clone, Debug, PartialEq)]
pub struct Yaml {
    pub kind: YamlKind,
    /// 1-based line in the file the YAML came from.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub enum YamlKind {
    Scalar(Scalar),
    Seq(Vec<Yaml>),
    Map(Vec<(Key, Yaml)>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Scalar {
    pub value: Text,
    /// Plain (unquoted) scalars may be numbers, booleans or null; quoted ones
    /// are always strings.
    pub plain: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Key {
    pub name: Text,
    pub line: u32,
    pub col: u32,
}

/// Why a YAML text could not be read, and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {col}: {message}")]
pub struct YamlError {
    pub line: u32,
    pub col: u32,
    pub message: String,
}

impl Yaml {
    pub fn type_name(&self) -> &'static str {
        match &self.kind {
            YamlKind::Seq(_) => "a list",
            YamlKind::Map(_) => "a mapping",
            YamlKind::Scalar(s) => scalar_type_name(&s.value, s.plain),
        }
    }

    pub fn scalar(&self) -> Option<&Scalar> {
        match &self.kind {
            YamlKind::Scalar(s) => Some(s),
            _ => None,
        }
    }

    /// The text of a string scalar (quoted, or plain and not a number, bool or null).
    pub fn as_str(&self) -> Option<&str> {
        let s = self.scalar()?;
        (!s.plain || plain_is_string(&s.value)).then_some(s.value.as_str())
    }

    /// The raw text of any scalar, whatever YAML would type it as.
    pub fn scalar_text(&self) -> Option<&str> {
        self.scalar().map(|s| s.value.as_str())
    }

    pub fn is_null(&self) -> bool {
        self.plain().is_some_and(plain_is_null)
    }

    pub fn as_i64(&self) -> Option<i64> {
        plain_i64(self.plain()?)
    }

    pub fn as_f64(&self) -> Option<f64> {
        plain_f64(self.plain()?)
    }

    pub fn as_bool(&self) -> Option<bool> {
        plain_bool(self.plain()?)
    }

    /// A plain scalar's text.
    fn plain(&self) -> Option<&str> {
        self.scalar().filter(|s| s.plain).map(|s| s.value.as_str())
    }

    pub fn as_seq(&self) -> Option<&[Yaml]> {
        match &self.kind {
            YamlKind::Seq(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_map(&self) -> Option<&[(Key, Yaml)]> {
        match &self.kind {
            YamlKind::Map(entries) => Some(entries),
            _ => None,
        }
    }

    pub fn get(&self, key: &str) -> Option<&Yaml> {
        self.as_map()?.iter().find(|(k, _)| k.name == key).map(|(_, v)| v)
    }

    pub fn key(&self, key: &str) -> Option<&Key> {
        self.as_map()?.iter().find(|(k, _)| k.name == key).map(|(k, _)| k)
    }
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
    // Nulls, numbers and booleans start with one of these bytes; most
    // strings (voters, ids, paths) do not, and need no closer look.
    match value.as_bytes().first() {
        None | Some(b'~' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'0'..=b'9' | b'+' | b'-' | b'.') => {
            !(plain_is_null(value) || plain_f64(value).is_some() || plain_bool(value).is_some())
        }
        Some(_) => true,
    }
}

pub fn plain_is_null(value: &str) -> bool {
    matches!(value, "" | "~" | "null" | "Null" | "NULL")
}

pub fn plain_i64(value: &str) -> Option<i64> {
    value.strip_prefix('+').unwrap_or(value).parse().ok()
}

pub fn plain_f64(value: &str) -> Option<f64> {
    let v = value.strip_prefix('+').unwrap_or(value);
    if let Some(number) = short_decimal(v) {
        return Some(number);
    }
    if v.bytes().all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'-' | b'e' | b'E' | b'+'))
        && v.bytes().any(|c| c.is_ascii_digit())
    {
        v.parse().ok()
    } else {
        None
    }
}

/// `[-]digits[.digits]` with at most 15 digits in all (weights like `1.4`):
/// the digits make an integer below 2^53 and the power of ten is exact too,
/// so one division gives the correctly rounded value `str::parse` gives
/// (Clinger's fast path), without its general machinery.
fn short_decimal(v: &str) -> Option<f64> {
    const POWERS: [f64; 16] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];
    let (negative, digits) = match v.strip_prefix('-') {
        Some(rest) => (true, rest.as_bytes()),
        None => (false, v.as_bytes()),
    };
    if digits.is_empty() || digits.len() > 16 {
        return None;
    }
    let (mut mantissa, mut count, mut point) = (0u64, 0, None);
    for (at, &b) in digits.iter().enumerate() {
        match b {
            b'0'..=b'9' => {
                mantissa = mantissa * 10 + u64::from(b - b'0');
                count += 1;
            }
            b'.' if point.is_none() => point = Some(at),
            _ => return None,
        }
    }
    if count == 0 || count > 15 {
        return None;
    }
    let scale = point.map_or(0, |at| digits.len() - at - 1);
    let magnitude = mantissa as f64 / POWERS[scale];
    Some(if negative { -magnitude } else { magnitude })
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
pub fn parse(text: &str, first_line: u32) -> Result<Yaml, YamlError> {
    let mut builder = Builder { first_line, stack: Vec::new(), root: None, nodes: 0 };
    let mut parser = Parser::new_from_str(text);
    let mut documents = 0;
    loop {
        let (event, mark) = parser.next_token().map_err(|e| {
            // The scanner stops runaway flow nesting before our depth check sees it.
            let info = if e.info().contains("recursion limit") { DEPTH_MESSAGE } else { e.info() };
            builder.error(e.marker(), info)
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
                let plain = matches!(style, TScalarStyle::Plain);
                builder.push(
                    Yaml { kind: YamlKind::Scalar(Scalar { value: value.into(), plain }), line: 0, col: 0 },
                    &mark,
                )?;
            }
            Event::SequenceStart(anchor, _) => {
                builder.refuse_anchor(anchor, &mark)?;
                builder.open(YamlKind::Seq(Vec::new()), &mark)?;
            }
            Event::MappingStart(anchor, _) => {
                builder.refuse_anchor(anchor, &mark)?;
                builder.open(YamlKind::Map(Vec::new()), &mark)?;
            }
            Event::SequenceEnd | Event::MappingEnd => builder.close(&mark)?,
            _ => {}
        }
    }
    Ok(builder.root.unwrap_or(Yaml {
        kind: YamlKind::Scalar(Scalar { value: Text::default(), plain: true }),
        line: first_line,
        col: 1,
    }))
}

/// An open collection: the node so far, and for a mapping the key waiting for
/// its value.
struct Frame {
    node: Yaml,
    pending_key: Option<Key>,
    /// Key → index into the mapping's entries, once the mapping is big
    /// enough that scanning its keys for duplicates would be quadratic.
    index: Option<std::collections::HashMap<Text, usize>>,
}

/// Mappings up to this size are checked for duplicate keys by scanning.
const SCAN_KEYS: usize = 16;

struct Builder {
    first_line: u32,
    stack: Vec<Frame>,
    root: Option<Yaml>,
    nodes: usize,
}

impl Builder {
    fn error(&self, mark: &Marker, message: &str) -> YamlError {
        let (line, col) = self.position(mark);
        YamlError { line, col, message: message.to_string() }
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

    fn open(&mut self, kind: YamlKind, mark: &Marker) -> Result<(), YamlError> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(self.error(mark, DEPTH_MESSAGE));
        }
        let (line, col) = self.position(mark);
        self.stack.push(Frame { node: Yaml { kind, line, col }, pending_key: None, index: None });
        Ok(())
    }

    fn close(&mut self, mark: &Marker) -> Result<(), YamlError> {
        let frame = self.stack.pop().ok_or_else(|| self.error(mark, "unbalanced YAML structure"))?;
        self.attach(frame.node, mark)
    }

    fn push(&mut self, mut node: Yaml, mark: &Marker) -> Result<(), YamlError> {
        let (line, col) = self.position(mark);
        node.line = line;
        node.col = col;
        self.attach(node, mark)
    }

    fn attach(&mut self, node: Yaml, mark: &Marker) -> Result<(), YamlError> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(self.error(mark, &format!("YAML holds more than {MAX_NODES} values")));
        }
        let Some(frame) = self.stack.last_mut() else {
            self.root = Some(node);
            return Ok(());
        };
        match &mut frame.node.kind {
            YamlKind::Seq(items) => items.push(node),
            YamlKind::Map(entries) => match frame.pending_key.take() {
                Some(key) => {
                    // `key:` with nothing after it: the parser marks the empty
                    // value where the next token starts, often the next line;
                    // it belongs on its key's line, just after the colon.
                    let mut node = node;
                    if matches!(&node.kind, YamlKind::Scalar(s) if s.plain && s.value.is_empty())
                        && node.line > key.line
                    {
                        (node.line, node.col) = (key.line, key.col + key.name.chars().count() as u32 + 1);
                    }
                    entries.push((key, node));
                }
                None => {
                    let YamlKind::Scalar(scalar) = node.kind else {
                        let (line, col) = (node.line, node.col);
                        return Err(YamlError { line, col, message: "mapping keys must be plain strings".into() });
                    };
                    let previous = match &mut frame.index {
                        Some(index) => index.get(scalar.value.as_str()).map(|i| &entries[*i].0),
                        None => entries.iter().map(|(k, _)| k).find(|k| k.name == scalar.value),
                    };
                    if let Some(previous) = previous {
                        return Err(YamlError {
                            line: node.line,
                            col: node.col,
                            message: format!("duplicate key `{}` (first on line {})", scalar.value, previous.line),
                        });
                    }
                    if entries.len() >= SCAN_KEYS {
                        let index = frame.index.get_or_insert_with(|| {
                            entries.iter().enumerate().map(|(i, (k, _))| (k.name.clone(), i)).collect()
                        });
                        index.insert(scalar.value.clone(), entries.len());
                    }
                    frame.pending_key = Some(Key { name: scalar.value, line: node.line, col: node.col });
                }
            },
            YamlKind::Scalar(_) => unreachable!("only collections are pushed on the stack"),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_carry_file_lines_and_columns() {
        let y = parse("agent: SWARM-AR\nlist:\n  - one\n  - \"two\"\n", 2).unwrap();
        assert_eq!((y.get("agent").unwrap().line, y.get("agent").unwrap().col), (2, 8));
        let list = y.get("list").unwrap().as_seq().unwrap();
        assert_eq!((list[1].line, list[1].col), (5, 5));
        assert_eq!(list[1].as_str(), Some("two"));
        assert_eq!(y.key("list").unwrap().line, 3);
    }

    #[test]
    fn an_empty_value_sits_on_its_keys_line() {
        let y = parse("a:\nb: 1\nc:\n  d:\n\n  e: ~\nf:\n", 10).unwrap();
        let at = |n: &Yaml| (n.line, n.col);
        assert_eq!(at(y.get("a").unwrap()), (10, 3));
        let c = y.get("c").unwrap();
        assert_eq!((at(c.get("d").unwrap()), at(c.get("e").unwrap())), ((13, 5), (15, 6)));
        assert_eq!(at(y.get("f").unwrap()), (16, 3));
        assert!(y.get("a").unwrap().is_null() && y.get("f").unwrap().is_null());
    }

    #[test]
    fn typing_follows_yaml_plain_scalars() {
        let y = parse("a: 400\nb: \"400\"\nc: +1\nd: ~\ne: 1.5\nf: yes\n", 1).unwrap();
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
        assert!(err.message.contains("duplicate key `a` (first on line 2)"));
        assert!(parse("a: 1\n---\nb: 2\n", 1).is_err());
    }

    #[test]
    fn big_mappings_stay_linear_and_still_catch_duplicates() {
        let mut text: String = (0..50_000).map(|i| format!("k{i}: {i}\n")).collect();
        assert_eq!(parse(&text, 1).unwrap().as_map().unwrap().len(), 50_000);
        text.push_str("k20: again\n");
        let err = parse(&text, 1).unwrap_err();
        assert_eq!((err.line, err.message.as_str()), (50_001, "duplicate key `k20` (first on line 21)"));
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
