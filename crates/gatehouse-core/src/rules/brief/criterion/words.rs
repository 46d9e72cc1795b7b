//! The word lists of the testability rubric.

/// Quality words vague wherever they stand.
pub(super) const QUALITY: &[&str] = &[
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
];

/// Words vague when they are what the criterion says its subject is
/// (`latency is low`, `makes the code simpler`), not when they name a thing
/// (`a clean checkout`, `low-priority jobs`).
pub(super) const PREDICATIVE: &[&str] = &[
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
];

/// Hedges: they say a result is right without saying what right is.
pub(super) const HEDGES: &[&str] =
    &["correctly", "properly", "appropriately", "accurately", "correct", "proper", "right"];

pub(super) const ASPIRATIONS: &[&str] = &[
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
];

pub(super) const PROCESS: &[&str] =
    &["reviewed", "qa", "stakeholder", "stakeholders", "sign-off", "signoff", "discussed", "demoed"];

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
    ("as soon as possible", super::VagueKind::Aspiration),
];

/// Verbs after which an adjective is what the subject is said to be.
pub(super) const LINKING: &[&str] = &[
    "is", "are", "be", "been", "being", "was", "were", "stays", "stay", "remains", "remain", "feels", "feel", "looks",
    "look", "seems", "seem", "becomes", "become", "keeps", "still",
];

/// Words that may sit between a linking verb and its adjective.
pub(super) const INTENSIFIERS: &[&str] = &[
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
];

pub(super) const MAKING: &[&str] = &["make", "makes", "making", "made", "keep", "keeping", "kept"];

/// Verbs that say something happens to a thing without saying what.
pub(super) const CATCHALL_VERBS: &[&str] =
    &["handle", "handles", "handled", "handling", "deal", "deals", "cope", "copes"];

/// Nouns that name no particular thing.
pub(super) const GENERIC: &[&str] = &[
    "it",
    "this",
    "that",
    "they",
    "them",
    "everything",
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
];

/// Function words: never an observable, never a predicate by themselves.
pub(super) const STOP: &[&str] = &[
    "the", "a", "an", "of", "to", "in", "on", "at", "by", "for", "with", "without", "and", "or", "but", "from", "into",
    "as", "its", "their", "his", "her", "our", "my", "your", "we", "i", "you", "he", "she", "each", "every", "any",
    "some", "no", "not", "than", "then", "there", "here", "when", "if", "unless", "after", "before", "while", "so",
    "such", "new", "old", "other", "another", "same", "also", "very", "more", "less", "most", "only", "just", "which",
    "who", "whose", "what", "where", "how", "up", "down", "out", "over", "under", "again", "both",
];

pub(super) const AUXILIARIES: &[&str] = &[
    "is", "are", "be", "been", "being", "was", "were", "has", "have", "had", "does", "do", "did", "can", "cannot",
    "can't", "must", "should", "will", "won't", "would", "may", "never", "doesn't", "don't", "isn't", "aren't", "get",
    "gets", "got",
];

pub(super) const COMPARISONS: &[&str] = &[
    "<", ">", "<=", ">=", "≤", "≥", "=", "under", "below", "above", "over", "within", "exactly", "than", "exceeds",
    "exceed", "between",
];

/// Verbs a plural subject takes in their bare form (`backups work`,
/// `requests get a 401`); other verbs are known by their endings.
pub(super) const BASE_VERBS: &[&str] = &[
    "work", "show", "see", "fail", "pass", "return", "include", "appear", "contain", "match", "exist", "stay",
    "remain", "reach", "receive", "list", "keep", "go", "run", "load", "open", "close", "print", "exit", "log", "emit",
    "send", "read", "write", "accept", "reject", "handle", "sign", "agree", "take", "make", "use", "stop", "start",
];

/// Number words that count as a measurement ("one" does not: "the old one").
pub(super) const NUMBER_WORDS: &[&str] = &[
    "zero", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "twice",
    "hundred", "thousand", "million", "dozen",
];

/// Clause openers after which a hedged criterion names its condition.
pub(super) const CONDITIONS: &[&str] =
    &["when", "if", "unless", "with", "without", "for", "after", "before", "whose", "that", "which", "where", "on"];
