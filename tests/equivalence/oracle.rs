//! The oracles: implementations of the standards other than the readers'
//! own. markdown-rs renders CommonMark + GFM (front matter left out, as
//! GitHub shows it); serde_norway, on libyaml, loads YAML. Two Markdown
//! texts are the same document when they render the same HTML as a reader
//! sees it; two YAML texts when they load the same data, merge keys applied.

use markdown::Options;

/// The HTML `text` renders as a reader sees it: HTML comments (not shown)
/// left out, every line ending one `\n`, a hard break read as the space a
/// reader's eye takes it for, and outside `<pre>` every run of whitespace
/// one space, none at a block's edges.
pub fn html(text: &str) -> Option<String> {
    let mut options = Options::gfm();
    options.parse.constructs.frontmatter = true;
    options.compile.allow_dangerous_html = true;
    let html = markdown::to_html_with_options(text, &options).ok()?;
    let html = html.replace("\r\n", "\n").replace('\r', "\n");
    Some(seen(&html))
}

fn seen(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("<!--") {
            rest = after.find("-->").map_or("", |end| &after[end + 3..]);
            out.push(' ');
        } else if rest.starts_with("<pre") {
            let end = rest.find("</pre>").map_or(rest.len(), |end| end + 6);
            // Kept whole: its whitespace is what it shows. A space inside
            // stands as a byte no split below takes for a separator.
            out.push_str(&rest[..end].replace(' ', "\u{1}"));
            rest = &rest[end..];
        } else if let Some(after) = rest.strip_prefix("<br />") {
            out.push(' ');
            rest = after;
        } else {
            let c = rest.chars().next().unwrap_or(' ');
            out.push(if c.is_whitespace() { ' ' } else { c });
            rest = &rest[c.len_utf8()..];
        }
    }
    let mut collapsed = String::with_capacity(out.len());
    for word in out.split(' ').filter(|w| !w.is_empty()) {
        if !collapsed.is_empty() && !ends_with_block_tag(&collapsed) && !starts_with_block_tag(word) {
            collapsed.push(' ');
        }
        collapsed.push_str(word);
    }
    collapsed.replace('\u{1}', " ")
}

const BLOCKS: &[&str] = &[
    "p",
    "li",
    "ul",
    "ol",
    "blockquote",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "table",
    "thead",
    "tbody",
    "tr",
    "td",
    "th",
    "section",
    "div",
    "hr",
    "pre",
    "sup",
];

fn tag_name(tag: &str) -> String {
    tag.trim_start_matches('/').chars().take_while(char::is_ascii_alphanumeric).collect()
}

/// Whether `text` ends with a block element's opening or closing tag.
fn ends_with_block_tag(text: &str) -> bool {
    text.ends_with('>') && text.rfind('<').is_some_and(|open| BLOCKS.contains(&tag_name(&text[open + 1..]).as_str()))
}

/// Whether `word` starts with a block element's tag.
fn starts_with_block_tag(word: &str) -> bool {
    word.strip_prefix('<').is_some_and(|tag| BLOCKS.contains(&tag_name(tag).as_str()))
}

/// The data a YAML text loads, or `None` when it does not load.
pub fn yaml(text: &str) -> Option<serde_norway::Value> {
    let mut value: serde_norway::Value = serde_norway::from_str(text).ok()?;
    value.apply_merge().ok()?;
    Some(value)
}

#[test]
fn the_oracles_see_what_a_reader_sees() {
    assert_eq!(html("a  \nb <!-- c -->\n"), html("a b\n"));
    assert_eq!(html("a\r\nb\r\n"), html("a\nb\n"));
    assert_eq!(html("<!-- c -->\n\n- a\n"), html("- a\n"));
    assert_ne!(html("a *b*\n"), html("a b\n"));
    assert_ne!(html("```\na  b\n```\n"), html("```\na b\n```\n"));
    assert_ne!(html("ab\n"), html("a b\n"));
    assert_eq!(yaml("a:\tb\nc: &x 1\nd: *x\n"), yaml("a: b\nc: 1\nd: 1\n"));
    assert_ne!(yaml("a: \"1\"\n"), yaml("a: 1\n"));
}
