use super::BriefView;
use super::adr_not_honoured::prose_blocks;
use crate::docs::adr::{fold, mentions};
use crate::docs::brief::Brief;
use crate::docs::markdown::Blockquote;
use crate::docs::seen::seen;
use crate::model::{Sink, Span};

declare_rule! {
    id: "brief/adr-misquoted",
    view: BriefView,
    severity: Error,
    summary: "a quotation (blockquote or inline) attributed to an ADR occurs in that ADR",
    why: "ADR-099 exists because briefs were \"drafted from chat memory rather than verified against the \
merged ADR\". A quote is the strongest way to honour an ADR, and the most dangerous when it is \
misremembered. A `>` blockquote that names exactly one ADR, in itself or on the nearest non-blank \
line before it (or, when that line names none, the one after it), is a quote of that ADR; so is an inline \
quotation whose ADR id stands right before or after it with at most an attribution between (`ADR-095 says “…”`, \
`ADR-095: \"…\"`, `Per ADR-095, “…”`, `“…” (ADR-095)`, `“…” — ADR-095`; not scare quotes such as `ADR-099's \
\"trivial-brief\" exemption`, nor text in code spans). Its text (the attribution removed; the parts in quotation \
marks when it has any; `…` skips words) must occur in the ADR as merged on the base, both compared as a reader \
sees them: rendered (escapes and entities decoded, emphasis, links and HTML comments not shown), NFC-normalised, \
whitespace folded, typographic quotes (’ ‘ “ ”) made straight and dashes (— – --) made `-`.",
    bad: "dark-factory/briefs/SWARM-AR-pg-backup.md",
    good: "dark-factory/briefs/SWARM-AR-pg-backup.md",
}

fn check(view: &BriefView, sink: &mut Sink) {
    for brief in &view.briefs {
        let blocks = quotes_of(brief);
        for (number, span, text) in blocks {
            let Some(adr) = view.adrs.get(&number) else { continue };
            let fragments = quoted_fragments(&text);
            let mut from = 0;
            let missing = fragments.iter().find(|fragment| match adr.folded[from..].find(fragment.as_str()) {
                Some(at) => {
                    from += at + fragment.len();
                    false
                }
                None => true,
            });
            if let Some(fragment) = missing {
                let shown: String = fragment.chars().take(80).collect();
                sink.emit(
                    brief.path,
                    span,
                    format!("quote:ADR-{number}:{}", fold(&text)),
                    format!(
                        "this quote is attributed to ADR-{number:03}, but \"{shown}\" does not occur in {}",
                        adr.path
                    ),
                )
                .help(format!("copy the words exactly from {}, or drop the quotation marks and paraphrase", adr.path));
            }
        }
    }
}

/// Every quotation attributed to one ADR: the blockquotes, then the inline
/// quotations of the prose.
fn quotes_of(brief: &Brief) -> Vec<(u32, Span, String)> {
    let blocks = brief.markdown.blockquotes.iter().filter_map(|quote| {
        Some((attributed_adr(brief, quote)?, Span::lines(quote.line, quote.end_line), quote.text.clone()))
    });
    let inline = inline_quotes(&prose_blocks(brief))
        .into_iter()
        .map(|quote| (quote.number, Span::lines(quote.line, quote.line), quote.text));
    blocks.chain(inline).collect()
}

/// A quotation in running text attributed to one ADR.
pub(super) struct InlineQuote {
    pub number: u32,
    /// The line its opening quotation mark is on.
    pub line: u32,
    /// The words between the quotation marks.
    pub text: String,
}

/// Words that may stand between an ADR id and the quotation it attributes
/// (`ADR-095 says “…”`, `As ADR-095 puts it, “…”`, `“…”, says ADR-095`).
const ATTRIBUTING: &[&str] = &[
    "says",
    "said",
    "states",
    "stated",
    "reads",
    "requires",
    "required",
    "writes",
    "wrote",
    "decides",
    "decided",
    "notes",
    "puts",
    "put",
    "it",
    "that",
    "is",
    "explicit",
    "mandates",
    "in",
    "its",
    "own",
    "words",
    "per",
    "as",
    "according",
    "to",
    "see",
    "from",
    "verbatim",
    "literally",
];

/// The quotations in `blocks` (prose paragraphs and list items, each with its
/// first line) whose ADR id stands right before or after them with at most
/// an attribution between: `ADR-095 says “…”`, `ADR-095: "…"`, `Per ADR-095,
/// “…”`, `“…” (ADR-095)`, `“…” — ADR-095`. Scare quotes (`ADR-099's
/// "trivial-brief" exemption`) and text in code spans are not quotations.
pub(super) fn inline_quotes(blocks: &[(u32, String)]) -> Vec<InlineQuote> {
    let mut out = Vec::new();
    for (line, text) in blocks {
        let found = mentions(text);
        for (open, start, end, close) in quotation_marks(text) {
            let quoted = &text[start..end];
            if quoted.trim().is_empty() {
                continue;
            }
            let before = found
                .iter()
                .rev()
                .find(|m| m.offset + m.len <= open)
                .filter(|m| attributes(&text[m.offset + m.len..open]));
            let after = || found.iter().find(|m| m.offset >= close).filter(|m| attributes(&text[close..m.offset]));
            if let Some(m) = before.or_else(after) {
                out.push(InlineQuote {
                    number: m.number,
                    line: line + text[..open].matches('\n').count() as u32,
                    text: quoted.to_string(),
                });
            }
        }
    }
    out
}

/// Each quotation outside code spans: (opening mark, text start, text end,
/// after the closing mark), in bytes.
fn quotation_marks(text: &str) -> Vec<(usize, usize, usize, usize)> {
    let mut out = Vec::new();
    let mut in_code = false;
    let mut open: Option<(usize, usize)> = None;
    for (i, c) in text.char_indices() {
        match c {
            '`' => in_code = !in_code,
            _ if in_code => {}
            '"' | '\u{201d}' if open.is_some() => {
                let (at, start) = open.take().expect("open");
                out.push((at, start, i, i + c.len_utf8()));
            }
            '"' | '\u{201c}' => open = Some((i, i + c.len_utf8())),
            _ => {}
        }
    }
    out
}

/// Whether the text between an id and a quotation only attributes it.
fn attributes(gap: &str) -> bool {
    let gap = match gap.trim_start().strip_prefix("](") {
        Some(link) => link.find(')').map_or("", |close| &link[close + 1..]),
        None => gap,
    };
    if gap.contains(['.', '!', '?', ';', '"', '\u{201c}', '\u{201d}']) {
        return false;
    }
    let words: Vec<String> = gap
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    words.len() <= 5 && words.iter().all(|w| ATTRIBUTING.contains(&w.as_str()))
}

/// The one ADR a blockquote names: in itself, else in the nearest paragraph
/// before it, else (when that names none) in the one after it.
pub(super) fn attributed_adr(brief: &Brief, quote: &Blockquote) -> Option<u32> {
    let mut own: Vec<u32> = mentions(&quote.text).iter().map(|m| m.number).collect();
    own.dedup();
    match own.len() {
        1 => return Some(own[0]),
        0 => {}
        _ => return None,
    }
    // The nearest paragraph: its lines up to a blank one, as one text (a
    // hard-wrapped attribution reads as one line, CommonMark §6.7).
    let nearest = |lines: &mut dyn Iterator<Item = u32>| {
        let mut lines = lines.map(|l| brief.line_text(l)).skip_while(|t| t.trim().is_empty());
        let mut text = String::new();
        for line in lines.by_ref().take_while(|t| !t.trim().is_empty()) {
            text.push_str(line);
            text.push('\n');
        }
        text
    };
    let ids = |text: &str| {
        let mut ids: Vec<u32> = mentions(text).iter().map(|m| m.number).collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    };
    // An attribution leads into its quote ("ADR-095 says:"), so the line
    // before decides when it names an ADR; the line after only when it names none.
    let first = quote.line - u32::from(quote.alert);
    let before = ids(&nearest(&mut (brief.body_line..first).rev()));
    let near = if before.is_empty() {
        let last = brief.body_line + brief.body.lines().count() as u32;
        ids(&nearest(&mut (quote.end_line + 1..last)))
    } else {
        before
    };
    (near.len() == 1).then(|| near[0])
}

/// The words a quote claims are the ADR's: the parts in quotation marks when
/// it has any, else the text without its attribution; split at ellipses.
fn quoted_fragments(text: &str) -> Vec<String> {
    let folded = fold(&seen(text));
    let quoted = in_quotes(&folded);
    let body = if quoted.is_empty() { vec![without_attribution(&folded)] } else { quoted };
    body.iter()
        .flat_map(|part| {
            part.split(['…']).flat_map(|p| p.split("...")).map(|p| trim_punctuation(p).to_string()).collect::<Vec<_>>()
        })
        .filter(|p| !p.is_empty())
        .collect()
}

fn in_quotes(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    for c in text.chars() {
        match (c, current.as_mut()) {
            ('"' | '“' | '”', Some(_)) => out.push(current.take().expect("open")),
            ('"' | '“', None) => current = Some(String::new()),
            (c, Some(s)) => s.push(c),
            _ => {}
        }
    }
    out
}

fn without_attribution(text: &str) -> String {
    let mut out = text.to_string();
    for m in mentions(text).iter().rev() {
        out.replace_range(m.offset..m.offset + m.len, "");
    }
    out
}

fn trim_punctuation(s: &str) -> &str {
    s.trim_matches(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '—' | '–' | '-' | ':' | '(' | ')' | ',' | ';' | '.' | '"' | '“' | '”' | '\'' | '‘' | '’' | '[' | ']'
            )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragments_drop_attribution_and_split_at_ellipses() {
        assert_eq!(quoted_fragments("off-host storage — ADR-095"), vec!["off-host storage"]);
        assert_eq!(
            quoted_fragments("ADR-095 says: \"host-concern\" and \"runbook restore\""),
            vec!["host-concern", "runbook restore"]
        );
        assert_eq!(quoted_fragments("*the brief* … is the **contract**."), vec!["the brief", "is the contract"]);
    }

    fn inline(text: &str) -> Vec<(u32, u32, String)> {
        inline_quotes(&[(10, text.to_string())]).into_iter().map(|q| (q.number, q.line, q.text)).collect()
    }

    #[test]
    fn inline_quotations_are_attributed_by_an_adjacent_id() {
        let one = |n: u32, line: u32, t: &str| vec![(n, line, t.to_string())];
        assert_eq!(
            inline("ADR-095 says \u{201c}Backups are a host concern\u{201d}."),
            one(95, 10, "Backups are a host concern")
        );
        assert_eq!(
            inline("As ADR-095 puts it,\n\"restores follow a runbook\"."),
            one(95, 11, "restores follow a runbook")
        );
        assert_eq!(inline("Per ADR-090: \"pipelines are the runtime\""), one(90, 10, "pipelines are the runtime"));
        assert_eq!(inline("\u{201c}off-host storage\u{201d} (ADR-095) is the rule."), one(95, 10, "off-host storage"));
        assert_eq!(inline("\"a runbook\" \u{2014} [ADR-095](x.md)"), one(95, 10, "a runbook"));
        for scare in [
            "ADR-099's \"trivial-brief\" exemption applies.",
            "ADR-095 applies. The \"host\" is db-1.",
            "Run `ADR-095 \"x\"` in the shell.",
            "ADR-095 governs the backups we call \"nightly\".",
        ] {
            assert_eq!(inline(scare), vec![], "{scare}");
        }
    }
}
