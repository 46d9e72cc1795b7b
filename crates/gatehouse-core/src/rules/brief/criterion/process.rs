//! Process steps: statements about what the team did (documentation
//! updated, implementation completed, PR merged) rather than about what the
//! system does. They are recognised by word stem, so every form of a verb
//! counts: update, updated, updating; implement, implementation.

use super::words::WordList;
use super::{Kind, Token};

/// The team's artefacts: a step done to one of them is a process step.
static ARTEFACTS: WordList = WordList::new(&[
    "documentation",
    "docs",
    "doc",
    "readme",
    "changelog",
    "implementation",
    "code",
    "codebase",
    "tests",
    "test",
    "pr",
    "prs",
    "ticket",
    "tickets",
    "story",
    "refactoring",
    "refactor",
    "cleanup",
    "clean-up",
    "design",
    "dod",
    "criteria",
    "debt",
    "wiki",
    "spec",
    "strategy",
    "runbook",
    "approach",
    "risks",
]);

/// Stems of the verbs that report a step of the team's process.
const STEPS: &[&str] = &[
    "updat",
    "complet",
    "finish",
    "writ",
    "written",
    "add",
    "review",
    "approv",
    "merg",
    "deploy",
    "releas",
    "clos",
    "implement",
    "document",
    "communicat",
    "inform",
    "demo",
    "address",
    "accept",
    "met",
    "refactor",
    "ship",
    "discuss",
    "clean",
    "creat",
    "tested",
    "verifi",
    "introduc",
    "shar",
];

/// Words that say the work is over, whatever it was.
static COMPLETION: WordList =
    WordList::new(&["complete", "completed", "done", "finished", "accomplished", "delivered"]);

/// Nouns that name a step of the process in themselves.
static STEP_NOUNS: WordList = WordList::new(&[
    "review",
    "approval",
    "demo",
    "walkthrough",
    "handover",
    "hand-off",
    "handoff",
    "retro",
    "retrospective",
    "audit",
    "audits",
]);

/// Verbs of conformance and the norms they point at ("follows existing
/// conventions"): a reviewer's judgement, not an assertion.
const CONFORM: &[&str] = &["follow", "adher", "conform", "compli", "comply", "respect", "align", "consistent"];
static NORMS: WordList = WordList::new(&[
    "convention",
    "conventions",
    "guideline",
    "guidelines",
    "pattern",
    "patterns",
    "standard",
    "standards",
    "style",
    "practice",
    "practices",
    "principle",
    "principles",
]);

/// The people a process step is done by.
static PEOPLE: WordList = WordList::new(&[
    "team",
    "we",
    "reviewer",
    "reviewers",
    "maintainer",
    "maintainers",
    "someone",
    "qa",
    "developers",
    "engineers",
    "owner",
    "owners",
    "po",
    "pm",
    "manager",
    "stakeholder",
    "stakeholders",
    "designer",
    "designers",
]);

/// Nouns after a step noun that make it a thing of the system: an audit
/// log, a review page.
static STEP_NOUN_THINGS: WordList = WordList::new(&[
    "page", "screen", "tab", "log", "logs", "trail", "entry", "entries", "event", "events", "record", "records",
    "table",
]);

/// The stem of a word: common inflections and derivations removed, so that
/// `updated`, `updates` and `updating` share `updat`.
pub(super) fn stem(word: &str) -> &str {
    for suffix in ["ations", "ation", "ions", "ion", "ing", "ies", "ied", "es", "ed", "s", "e"] {
        if let Some(base) = word.strip_suffix(suffix)
            && base.chars().count() >= 3
        {
            return base;
        }
    }
    word
}

fn is_step(word: &str) -> bool {
    let s = stem(word);
    STEPS.iter().any(|step| s == *step || word == *step || (step.len() >= 5 && s.starts_with(step)))
}

/// A step form a criterion reports as done: a participle (`updated`,
/// `written`), a gerund (`updating`), or a base verb at the start
/// (`Update the changelog`, `Implement the feature`).
fn step_form(word: &str, first: bool) -> bool {
    is_step(word) && (word.ends_with("ed") || word.ends_with("en") || word == "met" || first)
}

/// The index and words of a process step, when the criterion is one.
pub(super) fn process_step(tokens: &[Token]) -> Option<(usize, String)> {
    let words: Vec<(usize, &str)> =
        tokens.iter().enumerate().filter(|(_, t)| t.kind == Kind::Word).map(|(i, t)| (i, t.word.as_str())).collect();
    let artefact = words.iter().any(|(_, w)| ARTEFACTS.contains(w));
    let raw = |i: usize| tokens[i].raw.to_string();
    for (k, &(i, w)) in words.iter().enumerate() {
        if super::named(tokens, i) {
            continue;
        }
        let first = k == 0;
        // "Users can complete a purchase": with an object, or after a
        // modal, the word is something done in the system, not the work
        // being over.
        let transitive = words.get(k + 1).is_some_and(|(_, n)| {
            matches!(
                *n,
                "a" | "an" | "the" | "their" | "its" | "his" | "her" | "your" | "my" | "our" | "every" | "each"
            )
        }) || k > 0
            && matches!(words[k - 1].1, "can" | "could" | "must" | "should" | "will" | "may" | "to" | "cannot");
        if COMPLETION.contains(&w) && !transitive {
            return Some((i, raw(i)));
        }
        // `self-review`, `peer-review`: a compound ending in a step noun.
        let noun = w.rsplit('-').next().unwrap_or(w);
        if STEP_NOUNS.contains(&noun) && !words.get(k + 1).is_some_and(|(_, n)| STEP_NOUN_THINGS.contains(n)) {
            return Some((i, raw(i)));
        }
        // After a determiner a participle names a kind of thing (`a closed
        // ticket`), not a step done.
        let attributive = k > 0 && matches!(words[k - 1].1, "a" | "an" | "the" | "any" | "each" | "every" | "its");
        if step_form(w, first) && (artefact || first) && !attributive {
            return Some((i, raw(i)));
        }
        // The team as the subject of a step ("the team reviews it",
        // "reviewers approve it"): what people do, not what the system does.
        if is_step(w) && k > 0 && PEOPLE.contains(&words[k - 1].1) {
            return Some((i, raw(i)));
        }
        // A step done with or for the team ("Knowledge shared with the
        // support team").
        if is_step(w)
            && words.get(k + 1).is_some_and(|(_, n)| matches!(*n, "with" | "to"))
            && words[k + 2..].iter().take(3).any(|(_, n)| PEOPLE.contains(n))
        {
            return Some((i, raw(i)));
        }
        if CONFORM.iter().any(|c| stem(w).starts_with(c))
            && words[k + 1..].iter().take(5).any(|(_, n)| NORMS.contains(n))
        {
            return Some((i, raw(i)));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::tokenize;
    use super::*;

    #[test]
    fn every_word_form_of_a_step_is_one() {
        for step in [
            "Documentation updated",
            "Documentation complete",
            "Implementation completed",
            "Updating the documentation",
            "Implement the feature",
            "Unit tests added",
            "Follows existing conventions",
            "Design approved by UX",
            "I have performed a self-review of my code",
            "Tested on phone and tablet",
            "Rollback strategy documented",
            "No known tech debt introduced",
            "Product owner accepts the story",
            "Compliance audits passed",
            "Knowledge shared with the support team",
        ] {
            assert!(process_step(&tokenize(step)).is_some(), "{step}");
        }
        for system in [
            "the README lists the three environment variables",
            "Dropdown closes on Escape",
            "the audit log records each login",
        ] {
            assert!(process_step(&tokenize(system)).is_none(), "{system}");
        }
        assert_eq!(stem("updated"), stem("updating"));
        assert_eq!(stem("implementation"), "implement");
    }
}
