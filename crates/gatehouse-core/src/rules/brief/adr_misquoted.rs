use super::BriefView;
use crate::docs::adr::{fold, mentions};
use crate::docs::brief::Brief;
use crate::docs::markdown::Blockquote;
use crate::model::{Sink, Span};

declare_rule! {
    id: "brief/adr-misquoted",
    view: BriefView,
    severity: Error,
    summary: "a blockquote attributed to an ADR occurs in that ADR",
    why: "ADR-099 exists because briefs were \"drafted from chat memory rather than verified against the \
merged ADR\". A quote is the strongest way to honour an ADR, and the most dangerous when it is \
misremembered. A `>` blockquote that names exactly one ADR, in itself or on the nearest non-blank \
line before it (or, when that line names none, the one after it), is a quote of that ADR: its text (whitespace folded, emphasis stripped, the \
attribution removed; the parts in quotation marks when it has any; `…` skips words) must occur in \
the ADR as merged on the base.",
    bad: "dark-factory/briefs/SWARM-AR-pg-backup.md",
    good: "dark-factory/briefs/SWARM-AR-pg-backup.md",
}

fn check(view: &BriefView, sink: &mut Sink) {
    for brief in &view.briefs {
        for quote in &brief.markdown.blockquotes {
            let Some(number) = attributed_adr(brief, quote) else { continue };
            let Some(adr) = view.adrs.get(&number) else { continue };
            let fragments = quoted_fragments(&quote.text);
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
                    Span::lines(quote.line, quote.end_line),
                    format!("quote:ADR-{number}:{}", fold(&quote.text)),
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

/// The one ADR a blockquote names: in itself, else on the nearest non-blank
/// line before it, else (when that line names none) on the one after it.
pub(super) fn attributed_adr(brief: &Brief, quote: &Blockquote) -> Option<u32> {
    let mut own: Vec<u32> = mentions(&quote.text).iter().map(|m| m.number).collect();
    own.dedup();
    match own.len() {
        1 => return Some(own[0]),
        0 => {}
        _ => return None,
    }
    let nearest = |lines: &mut dyn Iterator<Item = u32>| {
        lines.map(|l| brief.line_text(l)).find(|t| !t.trim().is_empty()).unwrap_or("")
    };
    let ids = |text: &str| {
        let mut ids: Vec<u32> = mentions(text).iter().map(|m| m.number).collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    };
    // An attribution leads into its quote ("ADR-095 says:"), so the line
    // before decides when it names an ADR; the line after only when it names none.
    let before = ids(nearest(&mut (brief.body_line..quote.line).rev()));
    let near = if before.is_empty() {
        let last = brief.body_line + brief.body.lines().count() as u32;
        ids(nearest(&mut (quote.end_line + 1..last)))
    } else {
        before
    };
    (near.len() == 1).then(|| near[0])
}

/// The words a quote claims are the ADR's: the parts in quotation marks when
/// it has any, else the text without its attribution; split at ellipses.
fn quoted_fragments(text: &str) -> Vec<String> {
    let folded = fold(text);
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
}
