//! The fast YAML reader (`docs::yaml_block`) against the full parser: on any
//! text it either declines or builds exactly the tree the full parser reads,
//! every node on the same line and column.

use gatehouse::docs::{yaml, yaml_block};
use proptest::prelude::*;
use proptest::strategy::ValueTree;

/// The fast reader agrees with the full parser; returns whether it read the text.
fn agrees(text: &str) -> Result<bool, TestCaseError> {
    let Some(fast) = yaml_block::parse(text, 3) else { return Ok(false) };
    prop_assert_eq!(Ok(fast), yaml::parse(text, 3), "{}", text);
    Ok(true)
}

/// Scalars as they appear in ledgers.
const SCALARS: &[&str] = &[
    "A",
    "+1",
    "-1",
    "1.4",
    "2026-05-06T09:42:11Z",
    "2026-05-06",
    "\"q: x\"",
    "\"Vote 3 on A: the rule matched the repository state.\"",
    "\"esc \\\"aped\\\" ü\"",
    "'it''s'",
    "a #c",
    "a # c",
    "a:b",
    "lin/opus-4.7",
    "[a, b]",
    "[]",
    "[a/b#1, \"c\"]",
    "null",
    "~",
    "true",
    "ü x",
    // Edges of the one-pass `key: scalar` path: colons and hashes at the
    // ends of values, trailing spaces, empty and commented quotes.
    "abcdefg:",
    "abcdefgh #i",
    "abcdefghij: k",
    "http://x.y/z",
    "-x",
    "x ",
    "\"\"",
    "\"a\" # c",
    "a\\b",
];

/// Values that are not what they seem, or outside the subset.
const ODD: &[&str] = &["x: y", "- x", "&a x", "*a", "{a: 1}", "\"open", "[a, [b]]", "a:", "!t x"];

/// A value of the subset the reader aims at (and a little outside it).
#[derive(Clone, Debug)]
enum Value {
    Scalar(&'static str),
    /// `|` or `>` with its lines.
    Block(bool, Vec<&'static str>),
    Seq(Vec<Value>),
    /// Keys by number: a repeated number is a duplicate key.
    Map(Vec<(u8, Value)>),
}

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        40 => prop::sample::select(SCALARS).prop_map(Value::Scalar),
        1 => prop::sample::select(ODD).prop_map(Value::Scalar),
        4 => (any::<bool>(), prop::collection::vec(prop::sample::select(vec!["one", "two words", "", "  deeper"]), 1..4))
            .prop_map(|(literal, lines)| Value::Block(literal, lines)),
    ];
    leaf.prop_recursive(5, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 1..6).prop_map(Value::Seq),
            prop::collection::vec((0u8..60, inner), 1..6).prop_map(Value::Map),
        ]
    })
}

/// Renders a value as block YAML: `step` spaces per level.
fn render(value: &Value, indent: usize, step: usize, out: &mut Vec<String>) {
    let pad = " ".repeat(indent);
    match value {
        Value::Map(entries) => {
            for (key, value) in entries {
                entry(&format!("{pad}k{key}:"), value, indent, step, out);
            }
        }
        Value::Seq(items) => {
            for item in items {
                match item {
                    // `- k: v` with the mapping's other keys below, aligned.
                    Value::Map(entries) => {
                        let mut first = Vec::new();
                        render(&Value::Map(entries[..1].to_vec()), indent + 2, step, &mut first);
                        first[0] = format!("{pad}- {}", first[0].trim_start());
                        out.extend(first);
                        render(&Value::Map(entries[1..].to_vec()), indent + 2, step, out);
                    }
                    _ => entry(&format!("{pad}-"), item, indent, step, out),
                }
            }
        }
        Value::Scalar(_) | Value::Block(..) => entry(&pad, value, indent, step, out),
    }
}

/// A line that starts with `head` (`key:` or `-`) and holds `value`.
fn entry(head: &str, value: &Value, indent: usize, step: usize, out: &mut Vec<String>) {
    match value {
        Value::Scalar(s) => out.push(format!("{head} {s}")),
        Value::Block(literal, lines) => {
            out.push(format!("{head} {}", if *literal { "|" } else { ">" }));
            let pad = " ".repeat(indent + step);
            out.extend(lines.iter().map(|l| if l.is_empty() { String::new() } else { format!("{pad}{l}") }));
        }
        nested => {
            out.push(head.to_string());
            render(nested, indent + step, step, out);
        }
    }
}

/// A document of the subset, possibly with comments, blank lines and one
/// line's indentation off by one.
fn document() -> impl Strategy<Value = String> {
    let nudge = prop::option::weighted(0.15, any::<prop::sample::Index>());
    (value(), 1usize..5, prop::collection::vec(0u8..24, 0..40), nudge, any::<bool>()).prop_map(
        |(value, step, extras, nudge, deeper)| {
            let mut lines = Vec::new();
            render(&value, 0, step, &mut lines);
            if let Some(at) = nudge {
                let at = at.index(lines.len());
                lines[at] = if deeper { format!(" {}", lines[at]) } else { lines[at].replacen(' ', "", 1) };
            }
            // Blank and comment lines between some lines.
            for (at, extra) in extras.iter().enumerate().rev() {
                let at = at.min(lines.len());
                match extra {
                    0 => lines.insert(at, String::new()),
                    1 => lines.insert(at, "  # a comment".to_string()),
                    _ => {}
                }
            }
            lines.join("\n") + "\n"
        },
    )
}

proptest! {
    // Small texts, parsed twice: cheap enough for many cases.
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn agrees_on_the_subset_it_reads(text in document()) {
        agrees(&text)?;
    }

    #[test]
    fn agrees_or_declines_on_line_soup(text in line_soup()) {
        agrees(&text)?;
    }
}

#[test]
fn reads_most_of_the_generated_subset() {
    // The property above is only as strong as what the reader accepts: most
    // generated documents must be read, not declined.
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = document();
    let mut read = 0;
    for _ in 0..500 {
        let text = strategy.new_tree(&mut runner).unwrap().current();
        read += usize::from(agrees(&text).unwrap());
    }
    assert!(read >= 150, "the fast reader read only {read} of 500 generated documents");
}

/// Lines of plausible and implausible block YAML, at random indentation.
fn line_soup() -> impl Strategy<Value = String> {
    const VALUES: &[&str] = &[
        "A",
        "+1",
        "-1",
        "1.4",
        "2026-05-06T09:42:11Z",
        "\"q: x\"",
        "'it''s'",
        "a #c",
        "x: y",
        "[a, b]",
        "[]",
        "[a/b#1, \"c\"]",
        "&a x",
        "*a",
        "|",
        ">-",
        "|+",
        "",
        "- x",
        "null",
        "~",
        "ü x",
        "a:b",
        "#c",
        "{a: 1}",
        "\"open",
        "[a,",
        "-",
        "'",
        "\"\\u00e9\"",
        "lin/opus-4.7",
    ];
    let line = (0usize..7, 0usize..8, 0usize..4, 0usize..VALUES.len()).prop_map(|(indent, shape, key, value)| {
        let value = VALUES[value];
        let body = match shape {
            0 => format!("key{key}: {value}"),
            1 => format!("- {value}"),
            2 => format!("- key{key}: {value}"),
            3 => format!("key{key}:"),
            4 => format!("text {value}"),
            5 => String::new(),
            6 => "# comment".to_string(),
            _ => value.to_string(),
        };
        format!("{}{body}", " ".repeat(indent))
    });
    prop::collection::vec(line, 1..14).prop_map(|lines| lines.join("\n") + "\n")
}
