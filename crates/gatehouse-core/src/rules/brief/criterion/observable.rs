//! What a test would look at in a criterion (a code span, a quote, a number,
//! an identifier, a named thing of the system) and the word that says
//! something about it.

use super::words::*;
use super::{Kind, Token};

/// A number that measures: it starts with a digit (`200`, `2.5s`, `10k`,
/// `50%`, `<=3`), or is a number word. `p99`, `v2` and `S3` name things.
pub(super) fn is_anchor(t: &Token) -> bool {
    match t.kind {
        Kind::Quote => true,
        Kind::Word => {
            t.raw
                .trim_start_matches(['<', '>', '=', '≤', '≥', '~', '±', '$', '+'])
                .starts_with(|c: char| c.is_ascii_digit())
                || NUMBER_WORDS.contains(&t.word.as_str())
        }
        _ => false,
    }
}

/// Whether the token at `i` is a concrete observable, leaving out a word
/// capitalised only because it opens the criterion (`Handles`, `Users`) and
/// the keywords of a scenario (`GIVEN`, `When`, `Then`).
pub(super) fn strong_at(tokens: &[Token], i: usize) -> bool {
    let t = &tokens[i];
    if t.kind == Kind::Word && matches!(t.word.as_str(), "given" | "when" | "then" | "and" | "but" | "scenario" | "i") {
        return false;
    }
    if !is_strong(t) {
        return false;
    }
    let opening = tokens[..i].iter().all(|t| t.kind == Kind::Break);
    // ASCII lower-cases letter by letter; other text through `to_lowercase`,
    // which may change a word's length.
    let only_capitalised = || {
        let rest_unchanged = if t.raw.is_ascii() {
            !t.raw.bytes().skip(1).any(|b| b.is_ascii_uppercase())
        } else {
            let lower = t.raw.to_lowercase();
            let rest: String = lower.chars().skip(1).collect();
            t.raw.chars().skip(1).collect::<String>() == rest
        };
        t.kind == Kind::Word && rest_unchanged && !is_anchor(t)
    };
    !(opening && only_capitalised())
}

/// A concrete observable: a code span, a quoted string, a number, or a word
/// shaped like an identifier, path, flag, header or proper name.
pub(super) fn is_strong(t: &Token) -> bool {
    match t.kind {
        Kind::Code | Kind::Quote => true,
        Kind::Break => false,
        Kind::Word => is_anchor(t) || identifier_like(t.raw),
    }
}

fn identifier_like(raw: &str) -> bool {
    // One pass over the characters, each with the two before it.
    let (mut upper, mut camel, mut dotted) = (0, false, false);
    let (mut before, mut last): (Option<char>, Option<char>) = (None, None);
    for c in raw.chars() {
        upper += usize::from(c.is_ascii_uppercase());
        camel |= last.is_some_and(|l| l.is_ascii_lowercase()) && c.is_ascii_uppercase();
        dotted |= before.is_some_and(char::is_alphanumeric) && last == Some('.') && c.is_alphanumeric();
        (before, last) = (last, Some(c));
    }
    let dotted = dotted && !matches!(raw, "e.g" | "i.e");
    let capitalised = raw.starts_with(|c: char| c.is_ascii_uppercase()) && upper == 1 && raw.chars().nth(1).is_some();
    raw.chars().any(|c| c.is_ascii_digit())
        || raw.contains(['_', '=', '(', '{', '<', '@', '#'])
        || (raw.contains('/') && raw != "and/or")
        || raw.starts_with('-') && raw.len() > 1
        || raw.starts_with('.') && raw.len() > 1
        || dotted
        || camel
        || upper >= 2
        || capitalised
}

/// A word that carries content: not a function word, a generic noun, an
/// auxiliary or a word the rubric reads as vague.
pub(super) fn is_content(word: &str) -> bool {
    word.chars().filter(|c| c.is_alphabetic()).count() >= 3
        && !STOP.contains(&word)
        && !GENERIC.contains(&word)
        && !AUXILIARIES.contains(&word)
        && !LINKING.contains(&word)
        && !INTENSIFIERS.contains(&word)
        && !QUALITY.contains(&word)
        && !PREDICATIVE.contains(&word)
        && !HEDGES.contains(&word)
        && !ASPIRATIONS.contains(&word)
}

/// The index of the word that says something about what is named.
pub(super) fn predicate(tokens: &[Token]) -> Option<usize> {
    let verb_shaped = |w: &str| {
        let letters = w.chars().all(|c| c.is_ascii_lowercase() || c == '\'');
        letters
            && w.len() >= 4
            && ((w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is"))
                || w.ends_with("ed")
                || w.ends_with("ing"))
    };
    // A leading word ending in -s is the subject (`backups`), not its verb;
    // so is a word before an auxiliary (`the error messages are`, `the
    // nightly run is`) and a plural before a bare verb (`the manifest tools
    // work`).
    let subject = |i: usize| {
        tokens.get(i + 1).is_some_and(|n| {
            n.kind == Kind::Word
                && (AUXILIARIES.contains(&n.word.as_str())
                    || tokens[i].word.ends_with('s') && BASE_VERBS.contains(&n.word.as_str()))
        })
    };
    let found = tokens.iter().enumerate().position(|(i, t)| {
        let w = t.word.as_str();
        t.kind == Kind::Word
            && (AUXILIARIES.contains(&w)
                || COMPARISONS.contains(&w)
                || (i > 0 && STATES.contains(&w))
                || (i > 0 && !subject(i) && (verb_shaped(w) || BASE_VERBS.contains(&w))))
    });
    if found.is_some() {
        return found;
    }
    // An imperative: a leading word followed by its object.
    let first = tokens.first().filter(|t| t.kind == Kind::Word && !STOP.contains(&t.word.as_str()))?;
    let next = tokens.get(1)?;
    let object = next.kind == Kind::Code
        || matches!(next.word.as_str(), "a" | "an" | "the")
        || GENERIC.contains(&next.word.as_str())
        || is_strong(next);
    (object && first.kind == Kind::Word).then_some(0)
}

/// The index of what a test would look at, other than the predicate's own
/// word and the words read as vague (`vague`, token indexes): a strong
/// token, else a content word that names a thing. A verb that says a thing
/// does its job without saying what the job is (works, behaves) names
/// nothing.
pub(super) fn observable(tokens: &[Token], predicate: Option<usize>, vague: &[usize]) -> Option<usize> {
    (0..tokens.len())
        .find(|&i| strong_at(tokens, i) && !vague.contains(&i))
        .or_else(|| (0..tokens.len()).find(|&i| Some(i) != predicate && names_something(tokens, i, vague)))
}

/// The predicate, when it names a behaviour a check can see ("the app
/// starts", "it compiles"): what a test looks at when nothing else is named.
pub(super) fn behaviour(tokens: &[Token], predicate: Option<usize>, vague: &[usize]) -> Option<usize> {
    predicate.filter(|&p| names_something(tokens, p, vague))
}

fn names_something(tokens: &[Token], i: usize, vague: &[usize]) -> bool {
    let t = &tokens[i];
    !vague.contains(&i)
        && t.kind == Kind::Word
        && is_content(&t.word)
        && !GENERIC_VERBS.contains(&t.word.as_str())
        && !MAKING.contains(&t.word.as_str())
}
