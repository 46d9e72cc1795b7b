use std::collections::BTreeMap;

use super::BriefView;
use super::adr_misquoted::attributed_adr;
use crate::docs::adr::{mentions, parse_id};
use crate::docs::brief::Brief;
use crate::model::{Sink, Span};

declare_rule! {
    id: "brief/adr-not-honoured",
    view: BriefView,
    severity: Error,
    summary: "each cited ADR is quoted, or the body states what it requires of this work",
    why: "ADR-099: reviewers verify that \"every ADR cited in adrs_referenced is actually quoted or \
honoured, not just name-dropped\". SWARM-AR was briefed to implement ADR-095 against the ADR's own \
non-negotiable rules. A mention honours the ADR when it is\n\n\
- a QUOTE: a `>` blockquote attributed to the ADR (its id in the quote, or on the nearest line before it, else after it; \
`brief/adr-misquoted` checks the words), or\n\
- a STATEMENT of what the ADR requires of this work: the sentence (or the parenthesis) that names the \
ADR says something in at least three words of its own.\n\n\
A bare id (in a list, a heading or a table), a `Related:`, `See:` or `Refs:` line, and a link with no \
statement are name-drops. Honoured: \"Implement ADR-095 as a host concern\", \"Per ADR-090, the upload \
becomes a pipeline step\", \"ADR-095 says:\" followed by `> Backups are a host concern`. Name-dropped: \
\"Related: ADR-095.\", \"See ADR-095.\", \"- ADR-095\", \"[ADR-095](../adr/ADR-095-backups.md)\".",
    bad: "dark-factory/briefs/SWARM-AR-pg-backup.md",
    good: "dark-factory/briefs/SWARM-AR-pg-backup.md",
}

fn check(view: &BriefView, sink: &mut Sink) {
    for brief in &view.briefs {
        let mentioned = mentions_by_adr(brief);
        for (id, node) in brief.strings("adrs_referenced") {
            let Some(number) = parse_id(id) else { continue };
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
    for (line, text) in prose_blocks(brief) {
        for m in mentions(&text) {
            let scope = scope(&text, m.offset, m.offset + m.len);
            let at = line + text[..m.offset].matches('\n').count() as u32;
            note(m.number, if is_statement(scope) { Mentioned::Honoured } else { Mentioned::NameDropped(at) });
        }
    }
    out
}

/// The body's paragraphs and list items outside code fences and
/// blockquotes, each with its first line: a statement may run over lines.
fn prose_blocks(brief: &Brief) -> Vec<(u32, String)> {
    let skipped = |line: u32| {
        brief.markdown.fences.iter().any(|f| (f.line..=f.end_line).contains(&line))
            || brief.markdown.blockquotes.iter().any(|q| (q.line..=q.end_line).contains(&line))
    };
    let mut blocks: Vec<(u32, String)> = Vec::new();
    let mut open = false;
    for (i, raw) in brief.body.lines().enumerate() {
        let line = brief.body_line + i as u32;
        let trimmed = raw.trim_start();
        if skipped(line) || trimmed.is_empty() {
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
/// else its sentence.
fn scope(text: &str, start: usize, end: usize) -> &str {
    let open = text[..start].rfind('(');
    let close_before = text[..start].rfind(')');
    if let Some(open) = open.filter(|o| close_before.is_none_or(|c| c < *o))
        && let Some(close) = text[end..].find(')')
    {
        return &text[open + 1..end + close];
    }
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
/// three words of its own once labels, ids and link targets are dropped.
fn is_statement(scope: &str) -> bool {
    let mut text = scope.to_string();
    for m in mentions(scope).iter().rev() {
        text.replace_range(m.offset..m.offset + m.len, " ");
    }
    // A link's target is where it points, not what it says.
    while let Some(at) = text.find("](") {
        let end = text[at..].find(')').map_or(text.len(), |e| at + e + 1);
        text.replace_range(at..end, " ");
    }
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '\''))
        .filter(|w| w.chars().any(char::is_alphabetic))
        .collect();
    let labelled = LABELS.iter().any(|label| {
        let parts: Vec<&str> = label.split(' ').collect();
        words.starts_with(&parts)
    });
    let own = words.iter().filter(|w| w.chars().count() >= 3 && !FILLER.contains(w)).count();
    !labelled && own >= 3
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
            "ADR-095 is explicit:\n\n> Backups are a host concern.",
            "ADR-095 says:\n\n> Backups are a host concern.\n\nPer ADR-090, the upload is a pipeline step.",
            "> Backups are a host concern.\n\n(ADR-095)",
            "See ADR-090. Under ADR-095 the dump is stored off-host.",
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
            ("Extend the backup script (see ADR-095).", 4),
            ("Implements ADR-095.", 4),
            ("**Related:** ADR-090, ADR-095 and the backup runbook pages", 4),
            ("```\nADR-095 says backups are a host concern\n```\nRefs: ADR-095", 7),
        ] {
            assert_eq!(best(body), Some(Mentioned::NameDropped(line)), "{body}");
        }
    }
}
