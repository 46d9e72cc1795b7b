//! The config check's findings about who must approve: `config/codeowners`
//! (lines of the CODEOWNERS file GitHub rejects, and so ignores) and
//! `config/below-branch-rules` (a review policy asking less than the base
//! branch's own rules, which GitHub enforces on merge all the same).

use super::{Example, RuleInfo};
use crate::config::inherit::Effective;
use crate::config::{CONFIG_PATH, OwnersFrom};
use crate::model::{ChangeSet, Severity, Sink, Span};
use crate::owners::{BaseFile, CodeownersError, LOCATIONS};

pub static CONFIG_CODEOWNERS: RuleInfo = RuleInfo {
    id: "config/codeowners",
    default_severity: Severity::Error,
    summary: "every line of the CODEOWNERS file is one GitHub accepts",
    why: "GitHub reads CODEOWNERS (\"About code owners\") with gitignore-like patterns but no `!` negation \
and no `[ ]` ranges, and owners written `@user`, `@org/team` or as an email address; it skips a line it \
rejects, so the files that line was meant to own fall back to an earlier line or to nobody. Under \
`review.owners: codeowners` the review gate reads the file as GitHub does, so a rejected line would leave a \
path with fewer approvals than written. Each such line is reported at its line and column, together with \
the errors only GitHub can know (an owner with no account or no access), as GitHub's \"List CODEOWNERS \
errors\" lists them. A pull request that changes the file gets its new lines checked; the gate reads \
the base branch's, so a pull request cannot change who reviews it.",
    fix: None,
    bad: Example { path: ".github/CODEOWNERS", text: "*.md @docs-team\n!README.md\ninfra/ sre-team\n" },
    good: Example { path: ".github/CODEOWNERS", text: "*.md @acme/docs\nREADME.md\ninfra/ @acme/sre\n" },
};

pub static CONFIG_BELOW_BRANCH_RULES: RuleInfo = RuleInfo {
    id: "config/below-branch-rules",
    default_severity: Severity::Warning,
    summary: "the review policy asks no less than the base branch's rulesets and branch protection",
    why: "GitHub enforces a branch's rulesets and protection on merge whatever gatehouse decides. A policy \
that asks less (1 approval where a ruleset requires 2, no code owners where a ruleset requires their \
review) passes the `gatehouse/review` check on pull requests GitHub will still refuse to merge, so the \
check stops telling an author what is missing. The `gatehouse/review` table shows both sides; this \
warning says which key to raise.",
    fix: None,
    bad: Example {
        path: CONFIG_PATH,
        text: "# the base branch's ruleset `main` requires 2 approvals\nreview:\n  core: { reviewers: [alice, bob, carol], required: 1 }\n",
    },
    good: Example {
        path: CONFIG_PATH,
        text: "# the base branch's ruleset `main` requires 2 approvals\nreview:\n  core: { reviewers: [alice, bob, carol], required: 2 }\n",
    },
};

/// The characters of `line`'s token starting at `column` (at least 1).
fn width(text: &str, line: u32, column: u32) -> u32 {
    let Some(source) = text.lines().nth(line.saturating_sub(1) as usize) else { return 1 };
    let token = source.chars().skip(column.saturating_sub(1) as usize).take_while(|c| !c.is_whitespace()).count();
    token.max(1) as u32
}

fn emit(sink: &mut Sink, path: &str, text: &str, error: &CodeownersError) {
    let span = Span::at(error.line, error.column, width(text, error.line, error.column));
    let anchor = format!("{}:{}", error.kind, text.lines().nth(error.line.saturating_sub(1) as usize).unwrap_or(""));
    let help = error.suggestion.clone().unwrap_or_else(|| {
        "GitHub skips this line: fix it, or remove it (`gatehouse owners PATH` shows who owns a path)".into()
    });
    // GitHub's own messages repeat the kind and lay the line out below it.
    let first = error.message.lines().next().unwrap_or_default().trim_end_matches(':');
    let message = match first.starts_with(&error.kind) {
        true => first.to_string(),
        false => format!("{}: {first}", error.kind),
    };
    sink.emit(path, span, anchor, message).help(help);
}

/// The CODEOWNERS file's rejected lines: the file a change writes (the
/// first of GitHub's locations the head holds, when the change touches it),
/// else the base's with GitHub's own errors on lines the parser found
/// nothing wrong with.
pub(super) fn codeowners(changes: &ChangeSet) -> Sink {
    let mut sink = Sink::default();
    let written =
        LOCATIONS.iter().find(|path| changes.head.contains_key(path)).filter(|path| changes.touches(path)).and_then(
            |path| Some(BaseFile { path: path.to_string(), text: changes.head.get(path)?.text()?.to_string() }),
        );
    // GitHub's errors are of the base's file: they hold for a written file
    // only while it reads the same (as the base revision's check has it).
    let (file, github) = match (&written, &changes.codeowners) {
        (Some(file), Some(base)) if file.text == base.text => (file, changes.github_owner_errors.as_slice()),
        (Some(file), _) => (file, &[][..]),
        (None, Some(file)) => (file, changes.github_owner_errors.as_slice()),
        (None, None) => return sink,
    };
    let parsed = file.parse();
    for error in &parsed.errors {
        emit(&mut sink, &file.path, &file.text, error);
    }
    for error in github.iter().filter(|e| !parsed.errors.iter().any(|p| p.line == e.line)) {
        emit(&mut sink, &file.path, &file.text, error);
    }
    sink
}

/// Where the effective config's `key` was written in the repository's own
/// file, else where its `review:` is, else its first line.
fn position(effective: &Effective, key: &str) -> Span {
    let own = |k: &str| effective.origins.get(k).filter(|o| o.file == 0).map(|o| o.pos);
    match own(key).or_else(|| own("review")) {
        Some(pos) => Span::at(pos.line, pos.col, pos.width),
        None => Span::at(1, 1, 1),
    }
}

/// The policy's keys that ask less than the base branch's rules.
pub(super) fn below_branch_rules(changes: &ChangeSet, effective: &Effective) -> Sink {
    let mut sink = Sink::default();
    let Some(policy) = &effective.config.review else { return sink };
    let rules = &changes.branch_rules;
    if let Some((wanted, source)) = rules.most_approvals() {
        let asks = if policy.core_reviewers.is_empty() { 0 } else { policy.core_required };
        if asks < *wanted {
            sink.emit(
                CONFIG_PATH,
                position(effective, "review.core.required"),
                format!("approvals:{source}"),
                format!(
                    "`review.core.required` asks {asks} {} but {source} requires {wanted}: the review gate would pass \
                     pull requests GitHub will not merge",
                    if asks == 1 { "approval" } else { "approvals" }
                ),
            )
            .help(format!("set `review.core.required: {wanted}` (with at least {wanted} core reviewers)"));
        }
    }
    if let Some(source) = rules.code_owner_review.first().filter(|_| policy.owners != OwnersFrom::Codeowners) {
        sink.emit(
            CONFIG_PATH,
            position(effective, "review"),
            format!("code-owners:{source}"),
            format!(
                "{source} requires a code owner's review, but `review.owners` is not `codeowners`: the review gate \
                 would pass pull requests GitHub will not merge"
            ),
        )
        .help("add `owners: codeowners` under `review:`");
    }
    sink
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::owners::RuleSource;

    fn rules_of(changes: &ChangeSet) -> Vec<(String, u32, u32, crate::model::Severity)> {
        crate::rules::evaluate(changes)
            .findings()
            .map(|f| (f.rule.to_string(), f.span.line, f.span.col, f.severity))
            .collect()
    }

    #[test]
    fn rejected_lines_and_githubs_own_errors_are_reported_once_each() {
        let codeowners = BaseFile { path: "CODEOWNERS".into(), text: "* @acme/core\n!x @a\n*.md @ghost\n".into() };
        let mut changes = ChangeSet { codeowners: Some(codeowners), ..Default::default() };
        let unknown = |line: u32| CodeownersError {
            line,
            column: 6,
            kind: "Unknown owner".into(),
            message: format!(
                "Unknown owner on line {line}: make sure @ghost exists and has write access:\n\n  *.md @ghost\n     ^"
            ),
            suggestion: None,
        };
        changes.github_owner_errors = vec![unknown(2), unknown(3)];
        let found = |severity| {
            vec![("config/codeowners".to_string(), 2, 1, severity), ("config/codeowners".to_string(), 3, 6, severity)]
        };
        assert_eq!(rules_of(&changes), found(Severity::Notice), "the base's state, not this change's");
        let messages: Vec<String> = crate::rules::evaluate(&changes).findings().map(|f| f.message.clone()).collect();
        assert!(
            messages[1].ends_with("Unknown owner on line 3: make sure @ghost exists and has write access"),
            "GitHub's message, its first line: {messages:?}"
        );
        let text = changes.codeowners.as_ref().map(|f| f.text.clone()).unwrap_or_default();
        changes.head.insert("CODEOWNERS".into(), crate::model::FileContent::Text(text.into()));
        assert_eq!(rules_of(&changes)[0], found(Severity::Error)[0], "a change that writes the file");
        let report = crate::rules::evaluate(&changes);
        assert!(report.checks.iter().all(|c| c.evaluated), "a CODEOWNERS error does not stop the other checks");
    }

    #[test]
    fn a_policy_asking_less_than_the_branch_rules_is_a_warning_at_its_key() {
        let mut changes = ChangeSet::default();
        let text = "review:\n  core: { reviewers: [a, b, c], required: 1 }\n";
        changes.head.insert(CONFIG_PATH.into(), crate::model::FileContent::Text(text.into()));
        changes.branch_rules.required_approvals = vec![(2, RuleSource::Ruleset("main".into()))];
        changes.branch_rules.code_owner_review = vec![RuleSource::Protection];
        let found = crate::rules::evaluate(&changes);
        let shown: Vec<(u32, &str)> = found.findings().map(|f| (f.span.line, f.message.as_str())).collect();
        assert_eq!(shown.len(), 2, "{shown:?}");
        assert_eq!((shown[0].0, shown[1].0), (2, 2));
        assert!(shown[0].1.starts_with("branch protection requires a code owner's review"), "{shown:?}");
        assert!(shown[1].1.contains("asks 1 approval but ruleset main requires 2"), "{shown:?}");
        assert!(found.findings().all(|f| f.severity == Severity::Warning));
        changes.head.insert(
            CONFIG_PATH.into(),
            crate::model::FileContent::Text("review:\n  owners: codeowners\n  core: { reviewers: [a, b, c] }\n".into()),
        );
        assert_eq!(crate::rules::evaluate(&changes).findings().count(), 0);
    }
}
