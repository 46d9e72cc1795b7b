use super::{VotingView, anchor, at};
use crate::model::Sink;

declare_rule! {
    id: "voting/proposition",
    view: VotingView,
    severity: Error,
    summary: "`proposition` is one declarative sentence",
    why: "ADR-140: `proposition` is \"One sentence, declarative — The rule the argument advances. Present \
tense.\" The brief generator hands the active argument's proposition to agents as the rule, so it is one line \
ending in a full stop: not a question, not several sentences (the why goes in `rationale`), not empty. \
Abbreviations such as \"e.g.\" do not end a sentence.",
    bad: "dark-factory/guidelines/smoke-spec-path@v1.md",
    good: "dark-factory/guidelines/smoke-spec-path@v1.md",
}

/// Words whose full stop does not end a sentence.
const ABBREVIATIONS: [&str; 6] = ["e.g", "i.e", "etc", "vs", "cf", "approx"];

fn check(view: &VotingView, sink: &mut Sink) {
    for (doc, block, argument) in view.arguments() {
        let Some(node) = argument.field("proposition") else { continue };
        let Some(text) = node.as_str() else { continue };
        if let Some(problem) = problem(text) {
            sink.emit(doc.path, at(node), anchor(block, &argument, "proposition"), format!("the proposition of argument `{}` {problem}", argument.name()))
                .help("state the rule as one present-tense sentence ending in `.`, e.g. `Smoke specs live under tests/e2e/.`; put the why in `rationale`");
        }
    }
}

/// What keeps `text` from being one declarative sentence.
fn problem(text: &str) -> Option<&'static str> {
    let text = text.trim();
    if text.is_empty() {
        Some("is empty")
    } else if text.contains('\n') {
        Some("spans several lines")
    } else if text.ends_with('?') {
        Some("is a question, not a declarative sentence")
    } else if !text.ends_with('.') {
        Some("does not end with a full stop")
    } else if several_sentences(text) {
        Some("holds more than one sentence")
    } else {
        None
    }
}

/// A `.`, `?` or `!` followed by a space and a capital letter, not after an
/// abbreviation, starts a second sentence.
fn several_sentences(text: &str) -> bool {
    let bytes = text.as_bytes();
    (0..bytes.len().saturating_sub(2)).any(|i| {
        matches!(bytes[i], b'.' | b'?' | b'!')
            && bytes[i + 1] == b' '
            && bytes[i + 2].is_ascii_uppercase()
            && !ends_with_abbreviation(&text[..i])
    })
}

fn ends_with_abbreviation(before: &str) -> bool {
    let word = before.rsplit(' ').next().unwrap_or("").to_ascii_lowercase();
    ABBREVIATIONS.iter().any(|a| word.ends_with(a))
}

#[cfg(test)]
mod tests {
    use super::problem;

    #[test]
    fn one_declarative_sentence() {
        assert_eq!(problem("Smoke specs live at tests/e2e/<feature>.spec.ts."), None);
        assert_eq!(problem("Use one spec per feature, e.g. Login gets one."), None);
        assert!(problem("Where do specs live?").is_some());
        assert!(problem("Specs live in tests. They run first.").is_some());
        assert!(problem("Specs live in tests").is_some());
        assert!(problem("Specs live\nin tests.").is_some());
        assert!(problem("  ").is_some());
    }
}
