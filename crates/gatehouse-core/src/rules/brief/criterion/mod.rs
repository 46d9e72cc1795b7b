//! The testability rubric for one success criterion (ADR-099: "something a
//! test could assert"). It reads the sentence for what a test would observe
//! and what is said of it, and for what is vague: a quality word, a hedge,
//! an aspiration or a process step that nothing measurable pins down. Its
//! verdict carries its confidence: it is certain a criterion is untestable
//! only when the criterion is empty or names nothing a test could look at;
//! a vague word beside an observable leaves it unsure.

mod language;
mod observable;
mod process;
mod tokens;
mod words;

use observable::{behaviour, is_anchor, is_content, is_strong, observable, predicate, strong_at};
use process::stem;
use tokens::{Kind, Token, tokenize};
use words::*;

/// What the rubric found in one criterion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assessment {
    /// The vague phrases nothing in the criterion pins down, as written.
    pub vague: Vec<Vague>,
    /// A word that says something about what is named: a verb, a copula, a
    /// comparison.
    pub predicate: Option<String>,
    /// What a test would look at: a code span, a quoted string, a number, an
    /// identifier, or a named thing of the system.
    pub observable: Option<String>,
    /// The only observable is the predicate: a behaviour ("it compiles",
    /// "everything passes") with nothing named that it is of.
    pub behaviour_only: bool,
    /// The phrase the criterion says something of, as written ("the nightly
    /// run"), when it holds the observable; else the observable.
    pub subject: Option<String>,
    /// A code span, quoted string, number or identifier-shaped word: a
    /// concrete thing a test would look at.
    pub concrete: bool,
    /// How many words carry content (not function words).
    pub content_words: usize,
    /// Written in a language other than English, which the word lists do
    /// not read.
    pub foreign: bool,
    /// Holds no word, code span or quote at all.
    pub empty: bool,
}

/// The rubric's judgement, with its confidence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Names something observable and what must hold of it.
    Testable,
    /// Names something a test could look at, but what is said of it is a
    /// quality, hedge, catch-all, aspiration or process step nothing pins
    /// down, or nothing is said of it, or it is a behaviour with nothing
    /// named that it is of.
    Unsure,
    /// Empty, or names nothing a test could look at.
    Untestable,
    /// In a language the rubric does not read, with nothing concrete in it.
    Unread,
}

impl Assessment {
    pub fn verdict(&self) -> Verdict {
        if self.empty {
            return Verdict::Untestable;
        }
        if self.foreign {
            return if self.concrete { Verdict::Testable } else { Verdict::Unread };
        }
        // Certain: there is nothing a test could look at, whatever words
        // stand around it ("the feature works", "improve UX").
        if self.observable.is_none() {
            return Verdict::Untestable;
        }
        // A word list reads words, not what a test would observe: a vague
        // word beside an observable may be read wrong, so it warns.
        if !self.vague.is_empty() || self.behaviour_only {
            return Verdict::Unsure;
        }
        // Checklist shorthand drops the verb ("Spinner while loading",
        // "CSV export button on the reports page"): a phrase of two or more
        // content words names a thing a tester can look for.
        if self.predicate.is_some() || self.concrete || self.content_words >= 2 {
            Verdict::Testable
        } else {
            Verdict::Unsure
        }
    }

    pub fn testable(&self) -> bool {
        self.verdict() == Verdict::Testable
    }
}

/// A vague phrase and why it is vague.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vague {
    pub text: String,
    pub kind: VagueKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VagueKind {
    /// A quality word with no measurable referent: works, robust, fast.
    Quality,
    /// A hedge that leaves the expected result unsaid: correctly, as expected.
    Hedge,
    /// A goal without a target: minimise, improve, aim for.
    Aspiration,
    /// A step of the team's process, not a property of the system.
    Process,
    /// A catch-all verb over a catch-all object: handles errors.
    Catchall,
}

impl VagueKind {
    /// What the kind of word leaves a test without, in a finding's words.
    pub fn reason(self) -> &'static str {
        match self {
            VagueKind::Quality => "names a quality with nothing measurable to check it by",
            VagueKind::Hedge => "says the result is right without saying what right is",
            VagueKind::Catchall => "says something is dealt with without saying how a test would see it",
            VagueKind::Aspiration => "is a goal without a target",
            VagueKind::Process => "is a step of the team's process, not something the system does",
        }
    }
}

/// Applies the rubric to one criterion.
pub fn assess(text: &str) -> Assessment {
    let tokens = tokenize(text);
    let foreign = language::foreign(&tokens);
    let mut raw = if foreign { Vec::new() } else { vague_terms(&tokens) };
    let pinning = tokens.iter().any(is_pinning);
    // Capitalised nouns are no sign of a name in German, so another
    // language's criterion is concrete only by what pins a step down.
    let concrete = if foreign { pinning } else { (0..tokens.len()).any(|i| strong_at(&tokens, i)) };
    if !foreign
        && !pinning
        && !raw.iter().any(|(_, v)| v.kind == VagueKind::Process)
        && let Some((at, text)) = process::process_step(&tokens)
    {
        raw.push((at, Vague { text, kind: VagueKind::Process }));
        raw.sort_by_key(|(i, _)| *i);
    }
    let strong = (0..tokens.len()).position(|i| strong_at(&tokens, i));
    // In "Given …, when …, then …" the test sets up what stands before
    // `then` and asserts what follows: a word before it describes the case
    // ("a delivery whose configuration cannot be resolved"), not the result.
    let outcome = outcome_start(&tokens);
    // What comes after a vague word and may measure it.
    let strong_after = |at: usize| (at + 1..tokens.len()).any(|i| strong_at(&tokens, i));
    let condition = has_condition(&tokens);
    // A quality that names a measured quantity ("relevance score", "trust
    // rating") is the quantity a test reads, not a vague word.
    let measured = |at: usize| tokens.get(at + 1).is_some_and(|t| MEASURES.contains(&t.word.as_str()));
    // The words read as vague, whatever pins them down: none of them is
    // what a test would look at ("improve UX", "works well").
    let vague_words: Vec<usize> = raw.iter().flat_map(|(at, v)| *at..*at + v.text.split_whitespace().count()).collect();
    let vague = raw
        .into_iter()
        .filter(|(at, _)| *at >= outcome)
        .filter(|(at, v)| !(matches!(v.kind, VagueKind::Quality) && (measured(*at) || run_outcome(&tokens, *at))))
        .filter(|(at, v)| match v.kind {
            VagueKind::Process => !pinning,
            VagueKind::Aspiration if PURE_ASPIRATIONS.contains(&tokens[*at].word.as_str()) => true,
            // "handles an empty file by exiting with code 2" says how; in
            // "Edge cases in `src/parser.rs` are covered" the path is where,
            // and nothing says what a test would see.
            VagueKind::Catchall => !strong_after(*at) && !explained(&tokens, *at),
            // A hedging adverb on a verb that names a behaviour ("trap and
            // restore focus correctly") adds no doubt to it: the behaviour is
            // what a test checks. On a verb that names none ("behaves
            // correctly", "is handled appropriately") it is all there is.
            VagueKind::Hedge if tokens[*at].word.ends_with("ly") => {
                (after_generic_verb(&tokens, *at) || !behaviour_before(&tokens, *at)) && !explained(&tokens, *at)
            }
            // An adjective stands for the result itself ("the correct
            // total", "the expected output"): a particular observable or a
            // condition says which.
            VagueKind::Hedge => {
                (strong.is_none() && !condition || after_generic_verb(&tokens, *at)) && !explained(&tokens, *at)
            }
            VagueKind::Quality | VagueKind::Aspiration => {
                // A number or a code span pins a quality only when it comes
                // after it, as its measure or its baseline ("under 200 ms",
                // "than `v1`"): the 12 of "All 12 screens look polished"
                // counts screens, and "10x better" names nothing to compare.
                // What a person feels is no property of the system, whatever
                // follows it ("comfortable with `runbook.md`").
                let feeling = FEELINGS.contains(&tokens[*at].word.as_str());
                feeling
                    || !tokens[*at..].iter().any(|t| is_anchor(t) || t.kind == Kind::Code)
                        && !explained(&tokens, *at)
                        && !compared(&tokens, *at)
            }
        })
        .map(|(_, v)| v)
        .collect();
    let verb = predicate(&tokens);
    let named = observable(&tokens, verb, &vague_words);
    let behaviour = named.is_none().then(|| behaviour(&tokens, verb, &vague_words)).flatten();
    let seen = named.or(behaviour);
    let content_words = tokens.iter().filter(|t| t.kind == Kind::Word && is_content(&t.word)).count();
    Assessment {
        vague,
        predicate: verb.map(|i| tokens[i].raw.to_string()),
        observable: seen.map(|i| phrase(&tokens[i..=i])),
        behaviour_only: behaviour.is_some(),
        subject: seen.map(|i| subject(&tokens, i, verb, vague_words.iter().min().copied())),
        concrete,
        content_words,
        foreign,
        empty: tokens.iter().all(|t| t.kind == Kind::Break),
    }
}

/// The phrase before the predicate or the first vague word when it holds
/// the observable at `seen` and is short (up to six tokens), else the
/// observable alone.
fn subject(tokens: &[Token], seen: usize, verb: Option<usize>, vague: Option<usize>) -> String {
    let end = match (verb, vague) {
        (Some(v), Some(w)) => v.min(w),
        (Some(end), None) | (None, Some(end)) => end,
        (None, None) => tokens.len(),
    };
    let words = &tokens[..end];
    if seen >= end || end > 6 || words.iter().any(|t| t.kind == Kind::Break) {
        return phrase(&tokens[seen..=seen]);
    }
    let mut text = phrase(words);
    // A word capitalised only because it opens the criterion is lowered, so
    // the phrase reads inside another sentence.
    if !strong_at(tokens, 0) && tokens[0].kind == Kind::Word {
        let first = text.chars().next().map_or(0, char::len_utf8);
        text = text[..first].to_lowercase() + &text[first..];
    }
    text
}

/// Tokens as written: a code span in backticks, a quote in single quotes
/// (the phrase stands inside a message's double quotes).
fn phrase(tokens: &[Token]) -> String {
    let shown: Vec<String> = tokens
        .iter()
        .map(|t| match t.kind {
            Kind::Code => format!("`{}`", t.raw),
            Kind::Quote => format!("'{}'", t.raw),
            _ => t.raw.to_string(),
        })
        .collect();
    shown.join(" ")
}

/// Where the asserted outcome starts: after the `then` of a criterion that
/// opens with a setup (`Given`, `When`, `If`, `Scenario`), else at the start.
fn outcome_start(tokens: &[Token]) -> usize {
    let setup = tokens.iter().find(|t| t.kind == Kind::Word).is_some_and(|t| {
        matches!(t.word.as_str(), "given" | "when" | "if" | "scenario" | "while" | "after" | "once" | "whenever")
    });
    let then = tokens.iter().position(|t| t.kind == Kind::Word && t.word == "then");
    then.filter(|_| setup).unwrap_or(0)
}

/// Whether the quality word at `at` is the outcome of running something: a
/// command that "runs clean" or "builds cleanly" exits 0 with no error, which
/// is what a test checks.
fn run_outcome(tokens: &[Token], at: usize) -> bool {
    let word = |i: usize| tokens.get(i).filter(|t| t.kind == Kind::Word).map_or("", |t| t.word.as_str());
    let verb = match word(at.wrapping_sub(1)) {
        "back" | "through" | "out" => word(at.wrapping_sub(2)),
        other => other,
    };
    matches!(word(at), "clean" | "cleanly") && RUNS.contains(&stem(verb))
}

/// Whether the hedge at `at` qualifies a behaviour or a thing of the system:
/// the verb or object right before it is a content word that is not generic
/// ("restore focus correctly", not "displays data correctly").
fn behaviour_before(tokens: &[Token], at: usize) -> bool {
    at > 0
        && tokens[at - 1].kind == Kind::Word
        && is_content(&tokens[at - 1].word)
        && !GENERIC_VERBS.contains(&tokens[at - 1].word.as_str())
}

/// What pins a process step to something a test can read: a code span, a
/// quoted string, a digit, a path or a file name (`docs/api.md` lists the
/// route). Acronyms (PR, QA, DoD) and number words do not.
fn is_pinning(t: &Token) -> bool {
    match t.kind {
        Kind::Code | Kind::Quote => true,
        Kind::Break => false,
        Kind::Word => {
            let dotted = t
                .raw
                .char_indices()
                .any(|(i, c)| c == '.' && i > 0 && t.raw[i + 1..].starts_with(|n: char| n.is_ascii_alphabetic()));
            t.raw.starts_with(|c: char| c.is_ascii_digit())
                || t.raw.contains(['/', '_', '='])
                || (t.raw.starts_with('-') && t.raw.len() > 1)
                || dotted && !matches!(t.word.as_str(), "e.g" | "i.e")
        }
    }
}

/// Every vague phrase, with the index of the token it starts at.
fn vague_terms(tokens: &[Token]) -> Vec<(usize, Vague)> {
    let mut found = Vec::new();
    let word = |i: usize| tokens.get(i).filter(|t| t.kind == Kind::Word).map_or("", |t| t.word.as_str());
    for (i, t) in tokens.iter().enumerate() {
        if let Some(kind) = word_kind(tokens, i) {
            found.push((i, Vague { text: t.raw.to_string(), kind }));
        }
    }
    for (parts, kind) in phrases() {
        for i in 0..tokens.len().saturating_sub(parts.len() - 1) {
            if parts.iter().enumerate().all(|(k, p)| word(i + k) == *p) {
                let text = tokens[i..i + parts.len()].iter().map(|t| t.raw).collect::<Vec<_>>().join(" ");
                found.push((i, Vague { text, kind: *kind }));
            }
        }
    }
    found.sort_by_key(|(i, _)| *i);
    found.dedup_by(|b, a| b.1.text.contains(&a.1.text) || a.1.text.contains(&b.1.text));
    found
}

/// Whether the word at `i` is vague on its own, and how.
fn word_kind(tokens: &[Token], i: usize) -> Option<VagueKind> {
    let word = |i: usize| tokens.get(i).filter(|t| t.kind == Kind::Word).map_or("", |t| t.word.as_str());
    let w = word(i);
    let before = |n: usize| &tokens[i.saturating_sub(n)..i];
    // "It would be nice if the command returned …" wraps a criterion in a
    // wish; the clause after `if` is what is judged.
    let wrapper = matches!(w, "nice" | "good" | "great") && word(i.wrapping_sub(1)) == "be" && word(i + 1) == "if";
    if named(tokens, i) {
        return None;
    }
    let sentiment = SENTIMENT.contains(&w) && PEOPLE.contains(&word(i.wrapping_sub(1)));
    let quality = sentiment
        || !wrapper
            && QUALITY.contains(&w)
            && !(w.starts_with("graceful") && matches!(word(i + 1), "shutdown" | "restart"))
        || (w == "well" && word(i.wrapping_sub(1)) != "as" && word(i + 1) != "as")
        || (w == "work" && !is_determiner(word(i.wrapping_sub(1))));
    let process = PROCESS.contains(&w)
        || (matches!(w, "merged" | "approved") && predicative(tokens, i))
        || (matches!(w, "agree" | "agrees" | "agreed")
            && before(3).iter().any(|t| matches!(t.word.as_str(), "team" | "everyone" | "we")))
        || (matches!(w, "updated" | "written" | "added")
            && before(i).iter().any(|t| matches!(t.word.as_str(), "documentation" | "docs" | "tests"))
            && predicative(tokens, i));
    // The catch-all's object, or its subject anywhere before it ("Edge
    // cases in `src/parser.rs` are covered").
    let catchall = CATCHALL_VERBS.contains(&w)
        && tokens[..(i + 4).min(tokens.len())]
            .iter()
            .any(|t| t.kind == Kind::Word && GENERIC.contains(&t.word.as_str()) && t.word != "one");
    if process {
        Some(VagueKind::Process)
    } else if quality || (!wrapper && PREDICATIVE.contains(&w) && (predicative(tokens, i) || headline(tokens, i))) {
        Some(VagueKind::Quality)
    } else if HEDGES.contains(&w) && (w.ends_with("ly") || predicative(tokens, i) || word(i.wrapping_sub(1)) == "the") {
        Some(VagueKind::Hedge)
    } else if ASPIRATIONS.contains(&w) {
        Some(VagueKind::Aspiration)
    } else if catchall {
        Some(VagueKind::Catchall)
    } else {
        None
    }
}

/// Whether the adjective at `i` opens a checklist headline that names
/// nothing concrete ("Fast page loads", "Secure password storage"): a quality
/// of the thing, with nothing to measure it by. A participle there names a
/// kind of thing ("Approved requests appear in the queue").
fn headline(tokens: &[Token], i: usize) -> bool {
    let w = tokens[i].word.as_str();
    i == 0
        && !w.ends_with("ed")
        && !w.ends_with("ing")
        && tokens.get(1).is_some_and(|t| t.kind == Kind::Word)
        && !(0..tokens.len()).any(|k| strong_at(tokens, k))
}

/// Whether the word at `i` is capitalised inside a sentence of lower-case
/// words, and so names a value or a control ("every node reports Ready",
/// "click Save") rather than describing something.
fn named(tokens: &[Token], i: usize) -> bool {
    let capitalised = |t: &Token| {
        let mut chars = t.raw.chars();
        chars.next().is_some_and(|c| c.is_uppercase()) && chars.all(|c| !c.is_uppercase())
    };
    let sentence_start = i == 0 || tokens[i - 1].kind == Kind::Break;
    let title_case = || {
        let words = tokens.iter().filter(|t| t.kind == Kind::Word);
        words.clone().filter(|t| capitalised(t)).count() * 2 > words.count()
    };
    !sentence_start && capitalised(&tokens[i]) && !title_case()
}

fn is_determiner(word: &str) -> bool {
    matches!(
        word,
        "the"
            | "a"
            | "any"
            | "no"
            | "each"
            | "every"
            | "of"
            | "this"
            | "that"
            | "their"
            | "its"
            | "more"
            | "less"
            | "all"
    ) || word.ends_with("ed")
        || word.ends_with("ing")
}

/// Whether the adjective at `at` is said of the subject: after a linking
/// verb (`is`, `stays`, `looks`), possibly through intensifiers and other
/// adjectives, or as what something `makes` or `keeps` its object.
fn predicative(tokens: &[Token], at: usize) -> bool {
    // A checklist line that opens with the adjective ("Safe to run in
    // production"), or a clause that ends on it ("the page loads fast").
    let next = tokens.get(at + 1);
    if next.is_none_or(|t| t.kind == Kind::Break)
        || (at == 0
            && next.is_some_and(|t| {
                matches!(
                    t.word.as_str(),
                    "to" | "and" | "or" | "for" | "enough" | "with" | "under" | "across" | "in" | "on"
                )
            }))
    {
        return true;
    }
    let mut i = at;
    while i > 0 {
        i -= 1;
        let w = tokens[i].word.as_str();
        if LINKING.contains(&w) {
            return true;
        }
        let adjective = PREDICATIVE.contains(&w) || QUALITY.contains(&w) || HEDGES.contains(&w);
        if tokens[i].kind != Kind::Word || !(INTENSIFIERS.contains(&w) || adjective) {
            break;
        }
        // `accessible and fast`: the word before a coordination is one more adjective.
        if matches!(w, "and" | "or") && i > 0 {
            i -= 1;
        }
    }
    tokens[at.saturating_sub(5)..at].iter().any(|t| MAKING.contains(&t.word.as_str()))
}

/// Whether the word at `at` compares along a dimension a test can measure
/// against a baseline it names: "faster than v1", "fewer queries than the
/// old importer". "10x better" has neither the dimension nor the baseline.
fn compared(tokens: &[Token], at: usize) -> bool {
    MEASURABLE_COMPARATIVES.contains(&tokens[at].word.as_str())
        && tokens.get(at + 1).is_some_and(|t| t.word == "than")
        && tokens[at + 2..].iter().any(|t| t.kind != Kind::Break && (is_strong(t) || is_content(&t.word)))
}

/// Comparatives along a measured dimension: time, size, count, cost.
const MEASURABLE_COMPARATIVES: [&str; 12] = [
    "faster", "quicker", "slower", "smaller", "larger", "fewer", "shorter", "longer", "cheaper", "lighter", "lower",
    "higher",
];

/// Nouns that make the quality before them a named quantity.
const MEASURES: [&str; 8] = ["score", "scores", "rank", "ranking", "rating", "ratings", "index", "percentile"];

/// Whether an explanation after the vague word at `at` pins it down: a
/// clause after `:`, `;`, `—`, `(` or `e.g.` that names an observable, says
/// something about it, and is not vague itself.
fn explained(tokens: &[Token], at: usize) -> bool {
    let breaks: Vec<usize> =
        tokens.iter().enumerate().filter(|(i, t)| *i > at && t.kind == Kind::Break).map(|(i, _)| i).collect();
    breaks.iter().enumerate().any(|(k, &start)| {
        let end = breaks.get(k + 1).copied().unwrap_or(tokens.len());
        let clause = &tokens[start + 1..end];
        !clause.is_empty()
            && vague_terms(clause).is_empty()
            && predicate(clause).is_some_and(|verb| observable(clause, Some(verb), &[]).is_some())
    })
}

/// Whether the hedge at `at` qualifies a verb that names no particular
/// behaviour ("behaves correctly", "is handled appropriately").
fn after_generic_verb(tokens: &[Token], at: usize) -> bool {
    at > 0 && tokens[at - 1].kind == Kind::Word && GENERIC_VERBS.contains(&tokens[at - 1].word.as_str())
}

/// Whether a condition clause names something particular (`rows with a
/// missing id column`, `when the token has expired`).
fn has_condition(tokens: &[Token]) -> bool {
    tokens.iter().enumerate().any(|(i, t)| {
        CONDITIONS.contains(&t.word.as_str())
            && tokens[i + 1..].iter().any(|t| t.kind == Kind::Word && is_content(&t.word))
    })
}

#[cfg(test)]
mod tests;
