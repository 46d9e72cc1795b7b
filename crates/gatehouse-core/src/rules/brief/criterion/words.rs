//! The word lists of the testability rubric.

use std::collections::HashSet;
use std::sync::OnceLock;

use foldhash::fast::FixedState;

/// A word list, looked up by hash: the rubric asks a dozen lists about every
/// word of every criterion, and a scan of the longer lists (up to a hundred
/// words) was most of its cost.
pub(super) struct WordList {
    words: &'static [&'static str],
    set: OnceLock<HashSet<&'static str, FixedState>>,
}

impl WordList {
    pub(super) const fn new(words: &'static [&'static str]) -> WordList {
        WordList { words, set: OnceLock::new() }
    }

    pub(super) fn contains(&self, word: &&str) -> bool {
        self.set.get_or_init(|| self.words.iter().copied().collect()).contains(word)
    }
}

/// Each of [`PHRASES`] split into its words.
pub(super) fn phrases() -> &'static [(Vec<&'static str>, super::VagueKind)] {
    static SPLIT: OnceLock<Vec<(Vec<&'static str>, super::VagueKind)>> = OnceLock::new();
    SPLIT.get_or_init(|| PHRASES.iter().map(|(phrase, kind)| (phrase.split(' ').collect(), *kind)).collect())
}

/// Quality words vague wherever they stand.
pub(super) static QUALITY: WordList = WordList::new(&[
    "idiomatic",
    "friendlier",
    "polish",
    "robust",
    "robustly",
    "gracefully",
    "graceful",
    "seamless",
    "seamlessly",
    "user-friendly",
    "intuitive",
    "intuitively",
    "elegant",
    "elegantly",
    "maintainable",
    "readable",
    "scalable",
    "performant",
    "production-ready",
    "future-proof",
    "bug-free",
    "high-quality",
    "well-tested",
    "well-documented",
    "well-designed",
    "nice",
    "nicely",
    "nicer",
    "good",
    "great",
    "better",
    "improved",
    "enhanced",
    "optimal",
    "optimally",
    "polished",
    "snappy",
    "modern",
    "smooth",
    "smoothly",
    "reliably",
    "resilient",
    "securely",
    "efficiently",
    "quickly",
    "easily",
    "seriously",
    "carefully",
    "thoroughly",
    "delightful",
    "dependable",
    "timely",
    "reasonably",
    "adequately",
    "sufficiently",
    "reasonable",
    "acceptable",
    "sufficient",
    "adequate",
    "faster",
    "quicker",
    "cleaner",
    "simpler",
    "easier",
    "highly",
    "painless",
    "frictionless",
    "hassle-free",
    "works",
    "actionable",
    "meaningful",
    "meaningfully",
    "sensible",
    "sensibly",
    "useful",
    "relevant",
    "comprehensive",
    "predictable",
    "smoother",
    "integrity",
    "degradation",
    "friction",
    "confusion",
    "confused",
    "confusing",
    "love",
    "loves",
    "trust",
    "engagement",
    "relevance",
    "satisfaction",
    "delight",
    "delighted",
    "user-experience",
    "ux",
    "hardened",
    "restful",
]);

/// Aspirations a number does not turn into a target ("strive for zero
/// downtime" is still a wish).
pub(super) static PURE_ASPIRATIONS: WordList = WordList::new(&[
    "aim",
    "aims",
    "strive",
    "strives",
    "ideally",
    "hopefully",
    "try",
    "tries",
    "want",
    "wants",
    "hope",
    "wish",
]);

/// States a checklist names without a verb ("Toggle visible on every
/// header variant"): each says what a tester sees.
pub(super) static STATES: WordList = WordList::new(&[
    "visible",
    "hidden",
    "shown",
    "disabled",
    "enabled",
    "reachable",
    "absent",
    "present",
    "empty",
    "unchanged",
    "selected",
    "checked",
    "unchecked",
    "focused",
    "expanded",
    "collapsed",
    "available",
    "unavailable",
    "required",
    "optional",
    "blocked",
    "allowed",
    "forbidden",
    "denied",
    "rejected",
    "accepted",
    "sorted",
    "highlighted",
    "greyed",
    "success",
    "successful",
    "green",
    "red",
]);

/// Words vague when they are what the criterion says its subject is
/// (`latency is low`, `makes the code simpler`), not when they name a thing
/// (`a clean checkout`, `low-priority jobs`).
pub(super) static PREDICATIVE: WordList = WordList::new(&[
    "fast",
    "quick",
    "slow",
    "clean",
    "simple",
    "easy",
    "secure",
    "reliable",
    "stable",
    "consistent",
    "accurate",
    "relevant",
    "healthy",
    "helpful",
    "clear",
    "flexible",
    "extensible",
    "responsive",
    "efficient",
    "low",
    "high",
    "small",
    "large",
    "minimal",
    "fine",
    "ok",
    "okay",
    "happy",
    "satisfied",
    "pleased",
    "comfortable",
    "complete",
    "completed",
    "done",
    "fixed",
    "resolved",
    "addressed",
    "implemented",
    "finished",
    "ready",
    "usable",
    "understandable",
    "solid",
    "pleasant",
    "beautiful",
    "merged",
    "approved",
    "working",
    "safe",
    "natural",
    "intuitive",
    "confusing",
    "fine",
    "smooth",
    "nice",
    "good",
    "great",
    "bad",
    "appropriate",
    "compatible",
    "accessible",
    "functional",
    "confident",
]);

/// Hedges: they say a result is right without saying what right is.
pub(super) static HEDGES: WordList = WordList::new(&[
    "correctly",
    "properly",
    "appropriately",
    "accurately",
    "correct",
    "proper",
    "right",
    "appropriate",
    "suitable",
    "suitably",
]);

pub(super) static ASPIRATIONS: WordList = WordList::new(&[
    "aim",
    "aims",
    "strive",
    "strives",
    "ideally",
    "hopefully",
    "try",
    "minimize",
    "minimise",
    "minimizes",
    "minimises",
    "minimized",
    "minimised",
    "maximized",
    "maximised",
    "maximize",
    "maximise",
    "maximizes",
    "maximises",
    "reduce",
    "reduces",
    "increase",
    "increases",
    "improve",
    "improves",
    "enhance",
    "enhances",
    "optimize",
    "optimise",
    "optimizes",
    "optimises",
    "eventually",
    "simplify",
    "simplifies",
    "modernise",
    "modernize",
    "modernises",
    "modernizes",
    "streamline",
    "streamlines",
    "fewer",
    "boost",
    "boosts",
    "aim",
    "strive",
    "want",
    "wants",
    "hope",
    "wish",
    "tries",
    "optimization",
    "optimisation",
    "improvement",
    "improvements",
    "enhancement",
    "enhancements",
    "simplification",
]);

pub(super) static PROCESS: WordList =
    WordList::new(&["reviewed", "qa", "stakeholder", "stakeholders", "sign-off", "signoff", "discussed", "demoed"]);

/// Multi-word vague phrases, with their kind.
pub(super) const PHRASES: &[(&str, super::VagueKind)] = &[
    ("as expected", super::VagueKind::Hedge),
    ("as intended", super::VagueKind::Hedge),
    ("as designed", super::VagueKind::Hedge),
    ("the expected", super::VagueKind::Hedge),
    ("best practice", super::VagueKind::Process),
    ("best practices", super::VagueKind::Process),
    ("coding standards", super::VagueKind::Process),
    ("style guide", super::VagueKind::Process),
    ("sign off", super::VagueKind::Process),
    ("signs off", super::VagueKind::Process),
    ("signed off", super::VagueKind::Process),
    ("code review", super::VagueKind::Process),
    ("in a timely manner", super::VagueKind::Quality),
    ("no regressions", super::VagueKind::Quality),
    ("without regressions", super::VagueKind::Quality),
    ("no bugs", super::VagueKind::Quality),
    ("well tested", super::VagueKind::Quality),
    ("well documented", super::VagueKind::Quality),
    ("high quality", super::VagueKind::Quality),
    ("as much as possible", super::VagueKind::Aspiration),
    ("where possible", super::VagueKind::Aspiration),
    ("if possible", super::VagueKind::Aspiration),
    ("whenever possible", super::VagueKind::Aspiration),
    ("as before", super::VagueKind::Hedge),
    ("expected ranges", super::VagueKind::Hedge),
    ("expected range", super::VagueKind::Hedge),
    ("expected values", super::VagueKind::Hedge),
    ("expected behaviour", super::VagueKind::Hedge),
    ("expected behavior", super::VagueKind::Hedge),
    ("expected results", super::VagueKind::Hedge),
    ("expected output", super::VagueKind::Hedge),
    ("normal limits", super::VagueKind::Hedge),
    ("normal range", super::VagueKind::Hedge),
    ("good enough", super::VagueKind::Quality),
    ("nothing breaks", super::VagueKind::Quality),
    ("nothing is broken", super::VagueKind::Quality),
    ("nothing broken", super::VagueKind::Quality),
    ("everything is fine", super::VagueKind::Quality),
    ("well designed", super::VagueKind::Quality),
    ("production ready", super::VagueKind::Quality),
    ("knowledge transfer", super::VagueKind::Process),
    ("to be decided", super::VagueKind::Process),
    ("as soon as possible", super::VagueKind::Aspiration),
    ("plain language", super::VagueKind::Quality),
];

/// Verbs after which an adjective is what the subject is said to be.
pub(super) static LINKING: WordList = WordList::new(&[
    "is", "are", "be", "been", "being", "was", "were", "stays", "stay", "remains", "remain", "feels", "feel", "looks",
    "look", "seems", "seem", "becomes", "become", "keeps", "still",
]);

/// Words that may sit between a linking verb and its adjective.
pub(super) static INTENSIFIERS: WordList = WordList::new(&[
    "very",
    "more",
    "less",
    "too",
    "so",
    "quite",
    "fairly",
    "reasonably",
    "sufficiently",
    "highly",
    "extremely",
    "really",
    "pretty",
    "as",
    "and",
    "or",
    "not",
    "always",
    "also",
    "consistently",
    "generally",
    "much",
    "never",
    "fully",
    "completely",
    "entirely",
]);

pub(super) static MAKING: WordList = WordList::new(&["make", "makes", "making", "made", "keep", "keeping", "kept"]);

/// Verbs that say something happens to a thing without saying what.
pub(super) static CATCHALL_VERBS: WordList = WordList::new(&[
    "handle", "handles", "handled", "handling", "deal", "deals", "cope", "copes", "cover", "covers", "covered",
]);

/// Nouns that name no particular thing.
pub(super) static GENERIC: WordList = WordList::new(&[
    "it",
    "this",
    "that",
    "they",
    "them",
    "everything",
    "nothing",
    "anything",
    "something",
    "things",
    "thing",
    "stuff",
    "feature",
    "features",
    "system",
    "app",
    "application",
    "code",
    "solution",
    "implementation",
    "functionality",
    "product",
    "data",
    "errors",
    "error",
    "failures",
    "failure",
    "exceptions",
    "edge",
    "cases",
    "case",
    "corner",
    "input",
    "inputs",
    "traffic",
    "load",
    "scale",
    "issues",
    "problems",
    "situations",
    "scenarios",
    "all",
    "experience",
    "quality",
    "performance",
    "results",
    "output",
    "behaviour",
    "behavior",
    "approach",
    "way",
    "manner",
    "users",
    "user",
    "one",
]);

/// Function words: never an observable, never a predicate by themselves.
pub(super) static STOP: WordList = WordList::new(&[
    "the", "a", "an", "of", "to", "in", "on", "at", "by", "for", "with", "without", "and", "or", "but", "from", "into",
    "as", "its", "their", "his", "her", "our", "my", "your", "we", "i", "you", "he", "she", "each", "every", "any",
    "some", "no", "not", "than", "then", "there", "here", "when", "if", "unless", "after", "before", "while", "so",
    "such", "new", "old", "other", "another", "same", "also", "very", "more", "less", "most", "only", "just", "which",
    "who", "whose", "what", "where", "how", "up", "down", "out", "over", "under", "again", "both",
]);

pub(super) static AUXILIARIES: WordList = WordList::new(&[
    "is", "are", "be", "been", "being", "was", "were", "has", "have", "had", "does", "do", "did", "can", "cannot",
    "can't", "must", "should", "will", "won't", "would", "may", "never", "doesn't", "don't", "isn't", "aren't", "get",
    "gets", "got",
]);

pub(super) static COMPARISONS: WordList = WordList::new(&[
    "<", ">", "<=", ">=", "≤", "≥", "=", "under", "below", "above", "over", "within", "exactly", "than", "exceeds",
    "exceed", "between",
]);

/// Verbs a plural subject takes in their bare form (`backups work`,
/// `requests get a 401`); other verbs are known by their endings.
pub(super) static BASE_VERBS: WordList = WordList::new(&[
    "work", "show", "see", "fail", "pass", "return", "include", "appear", "contain", "match", "exist", "stay",
    "remain", "reach", "receive", "list", "keep", "go", "run", "load", "open", "close", "print", "exit", "log", "emit",
    "send", "read", "write", "accept", "reject", "handle", "sign", "agree", "take", "make", "use", "stop", "start",
]);

/// Number words that count as a measurement ("one" does not: "the old one").
pub(super) static NUMBER_WORDS: WordList = WordList::new(&[
    "zero", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "twice",
    "hundred", "thousand", "million", "dozen",
]);

/// Clause openers after which a hedged criterion names its condition.
pub(super) static CONDITIONS: WordList = WordList::new(&[
    "when", "if", "unless", "with", "without", "for", "after", "before", "whose", "that", "which", "where", "on",
]);

/// Verbs that say a thing does its job without saying what the job is: a
/// hedge after one ("behaves correctly for admins") is not pinned down by
/// what the sentence names.
pub(super) static GENERIC_VERBS: WordList = WordList::new(&[
    "behave",
    "behaves",
    "work",
    "works",
    "function",
    "functions",
    "operate",
    "operates",
    "perform",
    "performs",
    "act",
    "acts",
    "handle",
    "handles",
    "handled",
]);

/// A person's state of mind: what someone feels, never something a test
/// observes, whatever number or code span stands after it. The verbs of
/// liking count only with people as their subject (see [`SENTIMENT`]).
pub(super) static FEELINGS: WordList = WordList::new(&[
    "comfortable",
    "happy",
    "satisfied",
    "pleased",
    "confident",
    "delighted",
    "confused",
    "frustrated",
    "excited",
    "like",
    "likes",
    "enjoy",
    "enjoys",
    "appreciate",
    "appreciates",
    "prefer",
    "prefers",
]);

/// Verbs of liking, vague when people are their subject ("users like the
/// new layout").
pub(super) static SENTIMENT: WordList =
    WordList::new(&["like", "likes", "enjoy", "enjoys", "appreciate", "appreciates", "prefer", "prefers"]);

/// Whose feelings a sentiment verb reports.
pub(super) static PEOPLE: WordList = WordList::new(&[
    "users",
    "user",
    "customers",
    "customer",
    "people",
    "they",
    "we",
    "everyone",
    "team",
    "developers",
    "admins",
    "stakeholders",
]);

/// Stems (see `process::stem`) of the verbs of running something: a quality
/// after one ("runs clean", "builds cleanly") is the run's outcome.
pub(super) static RUNS: WordList = WordList::new(&[
    "run", "ran", "runn", "build", "built", "exit", "pass", "compil", "complet", "finish", "apply", "appl", "install",
    "deploy", "com", "came", "return", "lint", "validat", "check", "scan", "test", "migrat", "start", "boot", "shut",
]);
