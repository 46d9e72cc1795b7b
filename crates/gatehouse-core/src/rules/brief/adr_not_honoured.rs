use std::collections::BTreeMap;

use super::BriefView;
use super::adr_misquoted::{attributed_adr, inline_quotes};
use crate::docs::adr::{mentions, parse_id};
use crate::docs::brief::Brief;
use crate::docs::markdown;
use crate::model::{Sink, Span};

declare_rule! {
    id: "brief/adr-not-honoured",
    view: BriefView,
    severity: Error,
    summary: "each cited ADR is quoted, or the body states what it requires of this work",
    why: "ADR-099: reviewers verify that \"every ADR cited in adrs_referenced is actually quoted or \
honoured, not just name-dropped\". SWARM-AR was briefed to implement ADR-095 against the ADR's own \
non-negotiable rules. A mention honours the ADR when it is\n\n\
- a QUOTE: a `>` blockquote attributed to the ADR (its id in the quote, or on the nearest line before it, else after it), \
or an inline quotation with the id beside it (`ADR-095 says “…”`, `“…” (ADR-095)`); `brief/adr-misquoted` checks the words, or\n\
- a STATEMENT of what the ADR requires of this work, with the id before, after or above it: the sentence (or the \
parenthesis) that names the ADR says something in at least three words of its own; a parenthesis that only cites \
(`(ADR-095)`) stands for the sentence it closes; a `See:`/`Related:` pointer states something when a `:` or a dash \
after its ids introduces the statement; a heading naming the ADR (`## ADR-095`) is honoured by a paragraph or list \
item of its section that states something.\n\n\
A bare id (in a list, a heading with nothing under it, or a table), a `Related:`, `See:` or `Refs:` line with nothing \
after the ids, and a link with no statement are name-drops. Honoured: \"Implement ADR-095 as a host concern\", \
\"Dumps are stored off-host and restored from the runbook (ADR-095).\", \"See ADR-095: the job runs on the host\", \
\"Per ADR-090, the upload becomes a pipeline step\", \"ADR-095 says:\" followed by `> Backups are a host concern`, \
`## ADR-095` followed by \"- dumps go to off-host storage\". Name-dropped: \"Related: ADR-095.\", \"See ADR-095.\", \
\"- ADR-095\", \"[ADR-095](../adr/ADR-095-backups.md)\", a link to the ADR's file whatever its text \
(\"Related: [Backups are a host concern](../adr/ADR-095-backups.md)\": the text is the record's title), \
\"Extend the script (see ADR-095).\".",
    bad: "dark-factory/briefs/SWARM-AR-pg-backup.md",
    good: "dark-factory/briefs/SWARM-AR-pg-backup.md",
}

fn check(view: &BriefView, sink: &mut Sink) {
    for brief in &view.briefs {
        let mentioned = mentions_by_adr(brief);
        for (id, node) in brief.strings("adrs_referenced") {
            // A cited id that names no ADR is brief/adr-missing's one error.
            let Some(number) = parse_id(id).filter(|n| view.adrs.contains_key(n)) else { continue };
            let message = match mentioned.get(&number) {
                Some(Mentioned::Honoured) => continue,
                Some(Mentioned::NameDropped(line)) => format!(
                    "{id} is cited but the body only name-drops it (line {line}): a bare id, a `Related:`/`See:` line or a link says nothing about what it requires"
                ),
                None => format!("{id} is cited but the body never mentions it"),
            };
            sink.emit(brief.path, Span::at(node.line(), node.col(), id.chars().count() as u32), id, message)
                .help(format!("say in the body what {id} requires of this work, or quote it in a `>` blockquote"));
        }
    }
}

/// How the body mentions one ADR, at best.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mentioned {
    Honoured,
    /// Only name-dropped; the first line that does.
    NameDropped(u32),
}

/// The ADRs the body mentions, each with its best mention.
fn mentions_by_adr(brief: &Brief) -> BTreeMap<u32, Mentioned> {
    let mut out = BTreeMap::new();
    let mut note = |number: u32, m: Mentioned| {
        let entry = out.entry(number).or_insert(m);
        if m == Mentioned::Honoured {
            *entry = m;
        }
    };
    for quote in &brief.markdown.blockquotes {
        if let Some(number) = attributed_adr(brief, quote) {
            note(number, Mentioned::Honoured);
        }
    }
    let blocks = prose_blocks(brief);
    for quote in inline_quotes(&blocks) {
        note(quote.number, Mentioned::Honoured);
    }
    for (i, (line, text)) in blocks.iter().enumerate() {
        // Read once a heading mentions an ADR: most blocks mention none.
        let states = std::cell::OnceCell::new();
        let under_heading_states =
            || *states.get_or_init(|| heading_level(text).is_some_and(|level| section_states(&blocks[i + 1..], level)));
        for m in mentions(text) {
            let scope = scope(text, m.offset, m.offset + m.len);
            let at = line + text[..m.offset].matches('\n').count() as u32;
            let honoured = is_statement(scope) || (under_heading_states() && !is_labelled(&words(text)));
            note(m.number, if honoured { Mentioned::Honoured } else { Mentioned::NameDropped(at) });
        }
    }
    out
}

/// The level of a heading block (`## ADR-095` is 2).
fn heading_level(block: &str) -> Option<usize> {
    let level = block.bytes().take_while(|&b| b == b'#').count();
    (level > 0 && block[level..].starts_with([' ', '\t'])).then_some(level)
}

/// Whether the section after a heading of `level` (up to the next heading of
/// that level or above) states something in a paragraph or a list item.
fn section_states(after: &[(u32, String)], level: usize) -> bool {
    after
        .iter()
        .take_while(|(_, text)| heading_level(text).is_none_or(|l| l > level))
        .filter(|(_, text)| heading_level(text).is_none())
        .any(|(_, text)| sentences(text).any(is_statement))
}

/// A block's sentences: split after `.`, `!`, `?` or `;` and a space.
fn sentences(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = rest
            .char_indices()
            .find(|&(i, c)| matches!(c, '.' | '!' | '?' | ';') && rest[i + 1..].starts_with(char::is_whitespace))
            .map_or(rest.len(), |(i, _)| i + 1);
        let (sentence, tail) = rest.split_at(end);
        rest = tail;
        Some(sentence)
    })
}

/// The body's paragraphs, list items and headings outside code fences and
/// blockquotes, each with its first line: a statement may run over lines.
pub(super) fn prose_blocks(brief: &Brief) -> Vec<(u32, String)> {
    let skipped = |line: u32| {
        brief.markdown.fences.iter().any(|f| (f.line..=f.end_line).contains(&line))
            || brief.markdown.blockquotes.iter().any(|q| (q.line - u32::from(q.alert)..=q.end_line).contains(&line))
    };
    // A setext heading (CommonMark §4.3: text underlined by `=` or `-`) is
    // the `#` heading of its level.
    let setext: Vec<(u32, u8, &str)> =
        brief.markdown.headings.iter().filter(|h| h.setext).map(|h| (h.line, h.level, h.text.as_str())).collect();
    let mut in_setext = false;
    let mut blocks: Vec<(u32, String)> = Vec::new();
    let mut open = false;
    // A reference link reads as the inline link it stands for; its
    // definition is no prose.
    let body = markdown::with_inline_references(brief.body);
    for (i, raw) in body.lines().enumerate() {
        let line = brief.body_line + i as u32;
        let trimmed = raw.trim_start();
        if let Some(&(_, level, text)) = setext.iter().find(|(at, ..)| *at == line) {
            blocks.push((line, format!("{} {text}", "#".repeat(level as usize))));
            (open, in_setext) = (false, true);
            continue;
        }
        if in_setext {
            in_setext = !trimmed.trim_end().chars().all(|c| c == '=' || c == '-');
            continue;
        }
        if skipped(line) || trimmed.is_empty() || markdown::is_definition_line(raw) {
            open = false;
            continue;
        }
        let starts_item = trimmed.starts_with(['-', '*', '+', '#', '|'])
            || trimmed.split_once(". ").is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        match blocks.last_mut() {
            Some((_, text)) if open && !starts_item => {
                text.push('\n');
                text.push_str(trimmed);
            }
            _ => blocks.push((line, trimmed.to_string())),
        }
        open = !trimmed.starts_with(['#', '|']);
    }
    blocks
}

/// The text a mention at `start..end` belongs to: the parenthesis around it,
/// else its sentence. A parenthesis that only cites (`(ADR-095)`, `(per
/// ADR-095 §2)`) belongs to the sentence it closes: that sentence is what the
/// ADR is cited for.
fn scope(text: &str, start: usize, end: usize) -> &str {
    let open = text[..start].rfind('(');
    let close_before = text[..start].rfind(')');
    // A link's destination `](…)` is where the link points, no parenthesis.
    let open = open.filter(|&o| !text[..o].ends_with(']'));
    if let Some(open) = open.filter(|o| close_before.is_none_or(|c| c < *o))
        && let Some(close) = text[end..].find(')')
    {
        let inner = &text[open + 1..end + close];
        let mut bare = inner.to_string();
        for m in mentions(inner).iter().rev() {
            bare.replace_range(m.offset..m.offset + m.len, " ");
        }
        if !words(&bare).iter().all(|w| CITING.contains(&w.as_str())) {
            return inner;
        }
        return sentence(text, open, end + close + 1);
    }
    sentence(text, start, end)
}

/// Words that may stand beside an id in a parenthesis that only cites it.
const CITING: &[&str] = &["per", "by", "under", "and", "as", "in", "of", "adr", "adrs", "section", "rule", "rules"];

/// The sentence around `start..end`.
fn sentence(text: &str, start: usize, end: usize) -> &str {
    let sentence_end = |s: &str| s.find(['.', '!', '?']);
    let from = text[..start]
        .char_indices()
        .rev()
        .find(|(i, c)| matches!(c, '.' | '!' | '?' | ';') && text[i + 1..].starts_with(char::is_whitespace))
        .map_or(0, |(i, _)| i + 1);
    let mut to = end;
    while let Some(at) = sentence_end(&text[to..]) {
        to += at + 1;
        if text[to..].is_empty() || text[to..].starts_with(char::is_whitespace) {
            break;
        }
    }
    if sentence_end(&text[end..]).is_none() {
        to = text.len();
    }
    &text[from..to]
}

/// Labels that make a line a list of pointers rather than a statement.
const LABELS: &[&str] = &["related", "see also", "see", "refs", "references", "ref", "cf", "links", "adrs"];

/// Words that carry no statement of their own.
const FILLER: &[&str] = &[
    "the", "and", "for", "with", "this", "that", "these", "those", "its", "also", "per", "see", "via", "from", "into",
    "our", "are", "was", "were", "has", "have", "but", "not", "any", "all", "adr", "adrs", "brief",
];

/// Whether the text around a mention says something about the ADR: at least
/// three words of its own once labels, ids and link targets are dropped. A
/// `See:`/`Related:` pointer says something only in what follows its ids
/// after a `:` or a dash (`See ADR-095: the job runs on the host`).
fn is_statement(scope: &str) -> bool {
    let said = words(&without_ids_and_targets(scope));
    if !is_labelled(&said) {
        return own_words(&said) >= 3;
    }
    let Some(last) = mentions(scope).last().copied() else { return false };
    let mut after = scope[last.offset + last.len..].trim_start();
    let before = &scope[..last.offset];
    let in_target = before.rfind("](").is_some_and(|open| before.rfind(')').is_none_or(|close| close < open));
    if in_target {
        after = after.find(')').map_or("", |close| &after[close + 1..]);
    } else if after.starts_with("](") {
        after = after.find(')').map_or("", |close| &after[close + 1..]);
    }
    let after = after.trim_start_matches(['*', '_', ']', ' ']);
    match after.strip_prefix([':', '\u{2014}', '\u{2013}', '-']) {
        Some(statement) => own_words(&words(&without_ids_and_targets(statement))) >= 3,
        None => false,
    }
}

/// `scope` without its ADR ids and link targets. A link's target is where it
/// points, not what it says; and a link to an ADR's own file is a pointer
/// however its text reads (`[The backups record](../adr/ADR-095-backups.md)`):
/// its text is the record's title, so it goes with the target.
fn without_ids_and_targets(scope: &str) -> String {
    let mut text = scope.to_string();
    while let Some(at) = text.find("](") {
        let end = text[at..].find(')').map_or(text.len(), |e| at + e + 1);
        let start = if mentions(&text[at..end]).is_empty() { at } else { text[..at].rfind('[').unwrap_or(at) };
        text.replace_range(start..end, " ");
    }
    for m in mentions(&text.clone()).iter().rev() {
        text.replace_range(m.offset..m.offset + m.len, " ");
    }
    text
}

/// The lower-cased words of a text.
fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '\'' || c == '\u{2019}'))
        .filter(|w| w.chars().any(char::is_alphabetic))
        .map(str::to_string)
        .collect()
}

/// Whether the words open with a pointer label (`Related`, `See also`, …).
fn is_labelled(words: &[String]) -> bool {
    LABELS.iter().any(|label| {
        let parts = label.split(' ');
        words.len() >= parts.clone().count() && words.iter().zip(parts).all(|(w, p)| w == p)
    })
}

fn own_words(words: &[String]) -> usize {
    words.iter().filter(|w| w.chars().count() >= 3 && !FILLER.contains(&w.as_str())).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn best(body: &str) -> Option<Mentioned> {
        let text = format!("---\nagent: SWARM-AR\n---\n{body}");
        mentions_by_adr(&Brief::parse("dark-factory/briefs/SWARM-AR-x.md", &text)).get(&95).copied()
    }

    #[test]
    fn statements_and_quotes_honour() {
        for body in [
            "Implement ADR-095 as a host concern.",
            "Per ADR-095, backups leave the host\nevery night.",
            "Show the backup age (ADR-095 puts the host in charge of this) on the status page.",
            "- ADR-095: backups are a host concern, never a playbook",
            "[ADR-095](../adr/ADR-095.md) requires a runbook restore, not a UI button.",
            "[The backups record](../adr/ADR-095-backups.md) requires a runbook restore, not a UI button.",
            "ADR-095 is explicit:\n\n> Backups are a host concern.",
            "ADR-095 says:\n\n> Backups are a host concern.\n\nPer ADR-090, the upload is a pipeline step.",
            "> Backups are a host concern.\n\n(ADR-095)",
            "See ADR-090. Under ADR-095 the dump is stored off-host.",
            "Dumps are stored off-host and restored from the runbook (ADR-095).",
            "- Dumps go to off-host storage (per ADR-095 §2)",
            "See ADR-095: the job runs on the host, never in a playbook.",
            "See [ADR-095](../adr/0095-backups.md) \u{2014} the dump leaves the host nightly.",
            "**Related:** ADR-095 - restores follow the runbook, not a button",
            "## ADR-095\n\nThe job runs on the host and the dump leaves it every night.",
            "### ADR-095: backups\n\n- dumps go to off-host storage\n- restores follow the runbook",
            "ADR-095 says \u{201c}Backups are a host concern\u{201d}.",
        ] {
            assert_eq!(best(body), Some(Mentioned::Honoured), "{body}");
        }
    }

    #[test]
    fn name_drops() {
        for (body, line) in [
            ("Related: ADR-095.", 4),
            ("Some context first.\n\nSee ADR-095.", 6),
            ("## References\n\n- ADR-095\n- ADR-090", 6),
            ("- [ADR-095](../adr/ADR-095-backups.md)", 4),
            ("Related: [Backups are a host concern](../adr/ADR-095-backups.md)", 4),
            ("- [The decision record on backups](../adr/ADR-095-backups.md)", 4),
            ("Extend the backup script (see ADR-095).", 4),
            ("Implements ADR-095.", 4),
            ("**Related:** ADR-090, ADR-095 and the backup runbook pages", 4),
            ("```\nADR-095 says backups are a host concern\n```\nRefs: ADR-095", 7),
            ("See: ADR-095", 4),
            ("See ADR-095:", 4),
            ("Related: ADR-095, the backup pages.", 4),
            ("## ADR-095\n\nSee ADR-090.", 4),
            ("## ADR-095\n\n## Next steps\n\nThe job runs on the host every night.", 4),
            ("## Related\n\nADR-095", 6),
        ] {
            assert_eq!(best(body), Some(Mentioned::NameDropped(line)), "{body}");
        }
    }
}
