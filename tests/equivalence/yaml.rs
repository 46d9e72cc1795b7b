//! Perturbations of YAML text (front matter, `voting` and `yaml` fences,
//! YAML files), each a change YAML 1.2's syntax allows at a place drawn at
//! random. The YAML oracle decides whether the data stayed the same.

use super::Choices;
use super::doc::{Doc, Line};

fn yaml(line: &Line) -> bool {
    line.zone.is_yaml()
}

/// A `key: value` or `- value` line's value: where it starts, and the value
/// up to a comment.
fn value_of(text: &str) -> Option<(usize, &str)> {
    let trimmed = text.trim_start();
    let indent = text.len() - trimmed.len();
    let start = if let Some(rest) = trimmed.strip_prefix("- ") {
        let key = rest.find(": ").filter(|k| !rest[..*k].contains(['"', '\'', '[', '{']));
        indent + 2 + key.map_or(0, |k| k + 2)
    } else {
        let key = trimmed.find(": ").filter(|k| !trimmed[..*k].contains(['"', '\'', '[', '{', '#']))?;
        indent + key + 2
    };
    let rest = &text[start..];
    let value = rest.find(" #").map_or(rest, |c| &rest[..c]).trim();
    let start = start + (rest.len() - rest.trim_start().len());
    (!value.is_empty()).then_some((start, value))
}

/// A plain scalar, by its first character and what it holds.
fn plain(value: &str) -> bool {
    !value.starts_with(['"', '\'', '[', '{', '|', '>', '&', '*', '!', '%', '@', '`', '#'])
        && !value.contains(": ")
        && !value.ends_with(':')
}

fn value_line(doc: &Doc, choices: &mut Choices, keep: impl Fn(&str) -> bool) -> Option<(usize, usize, String)> {
    let at = doc.indices(|l| yaml(l) && value_of(&l.text).is_some_and(|(_, v)| keep(v)));
    let i = *choices.pick(&at)?;
    let (start, value) = value_of(&doc.lines[i].text)?;
    Some((i, start, value.to_string()))
}

/// A plain scalar written in double or single quotes (YAML 1.2.2 §7.3).
pub fn scalar_style(doc: &mut Doc, choices: &mut Choices) -> Option<()> {
    let (i, start, value) = value_line(doc, choices, plain)?;
    let quoted = if choices.draw().is_multiple_of(2) {
        format!("\"{}\"", value.replace('\\', "\\\\").replace('"', "\\\""))
    } else {
        format!("'{}'", value.replace('\'', "''"))
    };
    doc.lines[i].text.replace_range(start..start + value.len(), &quoted);
    Some(())
}

/// A one-line flow sequence written as a block one, or a block sequence of
/// plain scalars written as a flow one (YAML 1.2.2 §7.4, §8.2).
pub fn collection_style(doc: &mut Doc, choices: &mut Choices) -> Option<()> {
    if choices.draw().is_multiple_of(2) {
        let flow =
            |v: &str| v.starts_with('[') && v.ends_with(']') && !v[1..v.len() - 1].contains(['[', '{', '"', '\'']);
        let (i, start, value) = value_line(doc, choices, flow)?;
        let items: Vec<String> =
            value[1..value.len() - 1].split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect();
        let line = doc.lines[i].clone();
        let indent = line.text.len() - line.text.trim_start().len();
        let key = doc.lines[i].text[..start].trim_end().len();
        doc.lines[i].text.truncate(key);
        for (k, item) in items.iter().enumerate() {
            let mut new = line.clone();
            new.text = format!("{}- {item}", " ".repeat(indent + 2));
            doc.lines.insert(i + 1 + k, new);
        }
        return Some(());
    }
    let item = |l: &Line| -> Option<String> {
        let rest = l.text.trim_start().strip_prefix("- ")?.trim();
        (yaml(l) && plain(rest) && !rest.contains([',', '[', ']', '{', '}', '#'])).then(|| rest.to_string())
    };
    let keys = doc.indices(|l| {
        yaml(l) && l.text.trim_end().ends_with(':') && !l.text.trim_start().starts_with(['-', '#', '"', '\''])
    });
    let i = *choices.pick(&keys)?;
    let mut items = Vec::new();
    let mut j = i + 1;
    while let Some(found) = doc.lines.get(j).and_then(item) {
        items.push(found);
        j += 1;
    }
    if items.is_empty() {
        return None;
    }
    let moved: Vec<u32> = doc.lines.drain(i + 1..j).flat_map(|l| l.from).collect();
    let line = &mut doc.lines[i];
    line.text = format!("{} [{}]", line.text.trim_end(), items.join(", "));
    line.from.extend(moved);
    Some(())
}

/// A core-schema tag on a scalar: `!!str` on a plain string, `!!int` on an
/// integer, `!!bool`, `!!null` (YAML 1.2.2 §10.3).
pub fn tags(doc: &mut Doc, choices: &mut Choices) -> Option<()> {
    let (i, start, _) = value_line(doc, choices, |v| plain(v) || v.starts_with(['"', '\'']))?;
    let tag = ["!!str", "!!int", "!!bool", "!!float", "!"][choices.draw() as usize % 5];
    doc.lines[i].text.insert_str(start, &format!("{tag} "));
    Some(())
}

/// A decimal integer written in hexadecimal, octal or with a `+` (YAML
/// 1.2.2 §10.3.2).
pub fn integers(doc: &mut Doc, choices: &mut Choices) -> Option<()> {
    let decimal = |v: &str| !v.is_empty() && v.len() < 12 && v.bytes().all(|b| b.is_ascii_digit());
    let (i, start, value) = value_line(doc, choices, decimal)?;
    let n: u64 = value.parse().ok()?;
    let spelled = match choices.draw() % 3 {
        0 => format!("0x{n:x}"),
        1 => format!("0o{n:o}"),
        _ => format!("+{n}"),
    };
    doc.lines[i].text.replace_range(start..start + value.len(), &spelled);
    Some(())
}

/// An anchor on a value, and an alias for the same value written again in
/// the same YAML text (YAML 1.2.2 §7.1).
pub fn anchors(doc: &mut Doc, choices: &mut Choices) -> Option<()> {
    let (i, start, value) = value_line(doc, choices, |v| plain(v) || v.starts_with(['"', '\'', '[', '{']))?;
    let name = format!("v{}", choices.draw() % 1_000);
    let zone = doc.lines[i].zone;
    let repeated: Vec<usize> = doc
        .indices(|l| l.zone == zone && value_of(&l.text).is_some_and(|(_, v)| v == value))
        .into_iter()
        .filter(|&j| j > i && !doc.lines[i + 1..j].iter().any(|l| l.zone != zone))
        .collect();
    if let Some(&j) = choices.pick(&repeated) {
        let (at, _) = value_of(&doc.lines[j].text)?;
        doc.lines[j].text.replace_range(at..at + value.len(), &format!("*{name}"));
    }
    doc.lines[i].text.insert_str(start, &format!("&{name} "));
    Some(())
}

/// A comment: a line of its own, or after a value (YAML 1.2.2 §6.6).
pub fn comments(doc: &mut Doc, choices: &mut Choices) -> Option<()> {
    if choices.draw().is_multiple_of(2) {
        let i = *choices.pick(&doc.indices(yaml))?;
        let indent = doc.lines[i].text.len() - doc.lines[i].text.trim_start().len();
        let zone = doc.lines[i].zone;
        doc.insert(i, format!("{}# a note", " ".repeat(indent)), zone);
    } else {
        let (i, ..) = value_line(doc, choices, |v| plain(v) || v.starts_with(['"', '\'', '[', '{']))?;
        doc.lines[i].text.push_str(" # a note");
    }
    Some(())
}

/// A tab where YAML allows one: between a key's `:` and its value, or
/// before a comment (YAML 1.2.2 §6.2, s-separate-in-line).
pub fn tabs(doc: &mut Doc, choices: &mut Choices) -> Option<()> {
    let (i, start, _) = value_line(doc, choices, |_| true)?;
    let text = &mut doc.lines[i].text;
    if text[..start].ends_with(": ") {
        text.replace_range(start - 1..start, "\t");
    } else {
        text.push_str("\t# a note");
    }
    Some(())
}
