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
Abbreviations such as \"e.g.\" do not end a sentence. Full stops and question marks of other scripts count \
(`。`, `．`, `।`, `۔`, `？`, `؟`), a full stop inside closing quotes ends the sentence (`…done.”`), and in \
scripts written without spaces a second `。` sentence is found without one.",
    bad: "dark-factory/guidelines/smoke-spec-path@v1.md",
    good: "dark-factory/guidelines/smoke-spec-path@v1.md",
}

/// Words whose full stop does not end a sentence (English, then German).
const ABBREVIATIONS: &[&str] = &["e.g", "i.e", "etc", "vs", "cf", "approx", "z.b", "d.h", "bzw", "usw"];

fn check(view: &VotingView, sink: &mut Sink) {
    for (doc, block, argument) in view.arguments() {
        let Some(node) = argument.field("proposition") else { continue };
        let Some(text) = node.as_str() else { continue };
        if let Some(problem) = problem(text) {
            sink.emit(doc.path, at(doc.text, node), anchor(block, &argument, "proposition"), format!("the proposition of argument `{}` {problem}", argument.name()))
                .help("state the rule as one present-tense sentence ending in `.`, e.g. `Smoke specs live under tests/e2e/.`; put the why in `rationale`");
        }
    }
}

/// Full stops: Latin, CJK (`。`, fullwidth `．`, halfwidth `｡`), Devanagari
/// and Bengali (`।`), Urdu (`۔`), Armenian (`։`), Ethiopic (`።`), Tibetan (`།`).
const FULL_STOPS: &[char] = &['.', '。', '．', '｡', '।', '۔', '։', '።', '།'];
/// Question marks: Latin, fullwidth, Arabic, Greek (`;`), Armenian (`՞`).
const QUESTION_MARKS: &[char] = &['?', '？', '؟', '՞', '\u{37e}'];
/// Exclamation marks: Latin, fullwidth.
const EXCLAMATION_MARKS: &[char] = &['!', '！'];
/// Closing quotes and brackets, which may follow a sentence's end
/// (`…done.”`, `…done."`, `…(done.)`).
const CLOSERS: &[char] = &['"', '\'', '”', '’', '»', '«', '」', '』', '）', ')', ']', '›'];

/// What keeps `text` from being one declarative sentence.
fn problem(text: &str) -> Option<&'static str> {
    let text = text.trim();
    let end = text.trim_end_matches(CLOSERS).chars().next_back();
    if text.is_empty() {
        Some("is empty")
    } else if text.contains('\n') {
        Some("spans several lines")
    } else if end.is_some_and(|c| QUESTION_MARKS.contains(&c)) {
        Some("is a question, not a declarative sentence")
    } else if !end.is_some_and(|c| FULL_STOPS.contains(&c)) {
        Some("does not end with a full stop")
    } else if several_sentences(text) {
        Some("holds more than one sentence")
    } else {
        None
    }
}

/// A sentence's end (after any closing quotes) with more text after it
/// starts a second sentence: after a space and a capital or a letter of a
/// script without case (`。 Dann`, `. Then`, `।  फिर`), or at once after the
/// ends of scripts written without spaces (`规则一。规则二。`). A full stop
/// after an abbreviation ends no sentence.
fn several_sentences(text: &str) -> bool {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    (0..chars.len()).any(|i| {
        let (at, c) = chars[i];
        let ends = FULL_STOPS.contains(&c) || QUESTION_MARKS.contains(&c) || EXCLAMATION_MARKS.contains(&c);
        if !ends || (c == '.' && ends_with_abbreviation(&text[..at])) {
            return false;
        }
        let mut next = chars[i + 1..].iter().map(|(_, c)| *c).skip_while(|c| CLOSERS.contains(c)).peekable();
        let spaced = next.next_if(|c| c.is_whitespace()).is_some();
        let Some(first) = next.find(|c| !c.is_whitespace()) else { return false };
        if spaced {
            first.is_uppercase() || first.is_alphabetic() && !first.is_lowercase()
        } else {
            c as u32 > 0x2fff && !CLOSERS.contains(&first)
        }
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

    #[test]
    fn sentences_in_other_scripts_and_inside_quotes() {
        for one in [
            "スモークテストは tests/e2e/ に置く。",
            "冒烟测试放在 tests/e2e/ 下。",
            "स्मोक टेस्ट tests/e2e/ में रहते हैं।",
            "Smoke specs are what the team calls “done.”",
            "The rule reads \"specs live in tests/e2e/.\"",
            "Rauchtests liegen unter tests/e2e/, z.B. Login.",
            "Тесты лежат в tests/e2e/.",
        ] {
            assert_eq!(problem(one), None, "{one}");
        }
        for (text, expected) in [
            ("规则一。规则二。", "holds more than one sentence"),
            ("They said “done.” Then they left.", "holds more than one sentence"),
            ("Тесты лежат здесь. Они идут первыми.", "holds more than one sentence"),
            ("测试放在哪里？", "is a question, not a declarative sentence"),
            ("Is it “done?”", "is a question, not a declarative sentence"),
            ("テストは速い！", "does not end with a full stop"),
        ] {
            assert_eq!(problem(text), Some(expected), "{text}");
        }
    }
}
