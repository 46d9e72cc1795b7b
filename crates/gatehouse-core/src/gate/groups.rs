//! Every approval a change needs besides the core reviewers', one group a
//! rule: each CODEOWNERS line owning a changed file (`review.owners:
//! codeowners`; GitHub's semantics: the owners on a line are alternatives,
//! one approval from them), each quorum of a roster whose paths the change
//! touches, and beside them the base branch's own rules (a ruleset's or
//! branch protection's approvals, code owners and required reviewers), which
//! GitHub enforces: the gate shows them and asks their reviewers, and only
//! gatehouse's own groups decide whether it passes.
//!
//! An approval counts in a group as in the core: the reviewer's latest
//! decisive review approves and stands on the head ([`super::Standing`]),
//! and a recused commit author's never does. The pull request's author
//! never counts; an account GitHub marks as a bot counts only in a roster
//! naming it in `bots`. A pull request an agent opened (a bot author, or a
//! login in `review.agents`) for a person (a human commit author or an
//! assignee) is never approved by that person alone: each group needs an
//! approval from someone else.

use serde::Serialize;

use super::{Inputs, Outcome, Review, ReviewState, same_login};
use crate::config::{OwnersFrom, ReviewConfig, globset};
use crate::model::ChangeSet;
use crate::owners::{Codeowners, Members, Owner, RuleSource, TeamRef};

/// Who enforces a group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Enforcer {
    Gatehouse,
    Github,
}

/// One requirement of approvals and how far it is met.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Group {
    /// Where the rule is written: "`.github/CODEOWNERS`:4",
    /// "`.github/gatehouse.yml`:12", "ruleset main", "branch protection".
    pub rule: String,
    pub enforced_by: Enforcer,
    /// Approvals needed.
    pub needed: u64,
    /// Logins and `@org/team`s who may approve; empty: anyone with write
    /// access.
    pub from: Vec<String>,
    /// Reviewers who must review, not approve (a roster's `advisory`).
    pub advisory: Vec<String>,
    /// The changed files the rule covers.
    pub paths: Vec<String>,
    /// Approvals that count here.
    pub approved_by: Vec<String>,
    /// Approvals still needed (0: met).
    pub missing: u64,
    /// Advisory reviewers who have not reviewed.
    pub advisory_missing: Vec<String>,
    /// Why the group is short beyond a count: a team that could not be
    /// read, a person who cannot approve their agent's pull request alone.
    pub notes: Vec<String>,
}

impl Group {
    pub fn met(&self) -> bool {
        self.missing == 0 && self.advisory_missing.is_empty()
    }
}

/// The paths a change adds, modifies or deletes, sorted.
pub(crate) fn touched_paths(changes: &ChangeSet) -> Vec<&str> {
    let mut paths: Vec<&str> = changes
        .pr
        .files
        .iter()
        .flatten()
        .map(|f| f.path.as_str())
        .chain(changes.changed().map(|(p, _)| p))
        .chain(changes.deleted())
        .collect();
    paths.sort_unstable();
    paths.dedup();
    paths
}

/// A requirement before it is evaluated.
struct Wanted {
    rule: String,
    enforced_by: Enforcer,
    needed: u64,
    from: Vec<String>,
    advisory: Vec<String>,
    bots: Vec<String>,
    paths: Vec<String>,
}

/// The CODEOWNERS line owning each touched file, grouped by line.
fn owned(codeowners: &Codeowners, paths: &[&str]) -> Vec<(u32, Vec<String>, Vec<String>)> {
    let mut out: Vec<(u32, Vec<String>, Vec<String>)> = Vec::new();
    for path in paths {
        let Some(rule) = codeowners.rule_for(path).filter(|r| !r.owners.is_empty()) else { continue };
        match out.iter_mut().find(|(line, _, _)| *line == rule.line) {
            Some((_, _, files)) => files.push(path.to_string()),
            None => out.push((rule.line, rule.owners.iter().map(owner_name).collect(), vec![path.to_string()])),
        }
    }
    out.sort_by_key(|(line, _, _)| *line);
    out
}

/// An owner as a group lists it: a login without its `@`, a team as
/// `@org/team`, an email as written.
fn owner_name(owner: &Owner) -> String {
    match owner {
        Owner::User(login) => login.clone(),
        other => other.to_string(),
    }
}

fn wanted(changes: &ChangeSet, policy: &ReviewConfig) -> Vec<Wanted> {
    let paths = touched_paths(changes);
    let codeowners = changes.codeowners.as_ref().map(|file| file.parse());
    let mut out = Vec::new();
    let config_path = crate::config::CONFIG_PATH;
    if let Some(codeowners) = codeowners.as_ref().filter(|_| policy.owners == OwnersFrom::Codeowners) {
        for (line, from, files) in owned(codeowners, &paths) {
            out.push(Wanted {
                rule: format!("`{}`:{line}", codeowners.path),
                enforced_by: Enforcer::Gatehouse,
                needed: 1,
                from,
                advisory: Vec::new(),
                bots: Vec::new(),
                paths: files,
            });
        }
    }
    for roster in &policy.rosters {
        let set = globset(&roster.paths);
        let files: Vec<String> = paths.iter().filter(|p| set.is_match(p)).map(|p| p.to_string()).collect();
        if files.is_empty() {
            continue;
        }
        for (n, quorum) in roster.all_of.iter().enumerate() {
            out.push(Wanted {
                rule: format!("`{config_path}`:{}", roster.line),
                enforced_by: Enforcer::Gatehouse,
                needed: quorum.n_of,
                from: quorum.from.clone(),
                advisory: if n == 0 { roster.advisory.clone() } else { Vec::new() },
                bots: roster.bots.clone(),
                paths: files.clone(),
            });
        }
        if roster.all_of.is_empty() {
            out.push(Wanted {
                rule: format!("`{config_path}`:{}", roster.line),
                enforced_by: Enforcer::Gatehouse,
                needed: 0,
                from: Vec::new(),
                advisory: roster.advisory.clone(),
                bots: roster.bots.clone(),
                paths: files,
            });
        }
    }
    let rules = &changes.branch_rules;
    for (count, source) in &rules.required_approvals {
        out.push(github(source, *count, Vec::new(), Vec::new()));
    }
    for source in &rules.code_owner_review {
        let Some(codeowners) = &codeowners else { continue };
        for (line, from, files) in owned(codeowners, &paths) {
            let mut group = github(source, 1, from, files);
            group.rule = format!("{source} (code owners, `{}`:{line})", codeowners.path);
            out.push(group);
        }
    }
    for required in &rules.required_reviewers {
        let set = globset(&required.patterns);
        let files: Vec<String> = paths.iter().filter(|p| set.is_match(p)).map(|p| p.to_string()).collect();
        if !files.is_empty() {
            out.push(github(&required.source, required.minimum, vec![required.team.to_string()], files));
        }
    }
    out
}

fn github(source: &RuleSource, needed: u64, from: Vec<String>, paths: Vec<String>) -> Wanted {
    Wanted {
        rule: source.to_string(),
        enforced_by: Enforcer::Github,
        needed,
        from,
        advisory: Vec::new(),
        bots: Vec::new(),
        paths,
    }
}

/// The teams the App must expand for this change: the teams among the
/// owners of changed files, the rosters' and the required reviewers' that
/// cover a changed file.
pub fn teams_wanted(changes: &ChangeSet) -> Vec<TeamRef> {
    let Some(policy) = changes.config.review.clone().or_else(|| {
        let github = &changes.branch_rules;
        (!github.code_owner_review.is_empty() || !github.required_reviewers.is_empty()).then(ReviewConfig::default)
    }) else {
        return Vec::new();
    };
    let mut teams: Vec<TeamRef> =
        wanted(changes, &policy).iter().flat_map(|w| w.from.iter().filter_map(|f| TeamRef::parse(f))).collect();
    teams.sort();
    teams.dedup();
    teams
}

/// The groups of this change, evaluated; the core's outcome gives who is
/// recused and whose approvals stand.
pub(super) fn evaluate(changes: &ChangeSet, policy: &ReviewConfig, inputs: &Inputs, core: &Outcome) -> Vec<Group> {
    let approvals = standing_approvals(policy, inputs);
    let directory = inputs.directory;
    let agent_author = !directory.author.is_empty()
        && (directory.is_bot(&directory.author) || policy.agents.iter().any(|a| same_login(a, &directory.author)));
    let sponsors: Vec<&String> = inputs
        .commit_authors
        .iter()
        .chain(&directory.assignees)
        .filter(|l| agent_author && !same_login(l, &directory.author) && !directory.is_bot(l))
        .collect();
    let reviewed =
        |login: &str| inputs.reviews.iter().any(|r| same_login(&r.login, login) && r.state != ReviewState::Pending);
    wanted(changes, policy)
        .into_iter()
        .map(|w| {
            let mut notes = Vec::new();
            let mut members: Vec<String> = Vec::new();
            for name in &w.from {
                match TeamRef::parse(name) {
                    Some(team) => match directory.teams.get(&team) {
                        Some(Members::Read(logins)) => members.extend(logins.iter().cloned()),
                        Some(Members::Unreadable(why)) => {
                            notes.push(format!("the members of {team} could not be read ({why}), so their approvals cannot be counted"))
                        }
                        None => notes.push(format!("the members of {team} were not read, so their approvals cannot be counted")),
                    },
                    None => members.push(name.trim_start_matches('@').to_string()),
                }
            }
            let counts = |login: &String| {
                let recused = w.enforced_by == Enforcer::Gatehouse && core_recused(core, policy, inputs, login);
                let bot_refused = directory.is_bot(login) && !w.bots.iter().any(|b| same_login(b, login));
                !same_login(login, &directory.author) && !recused && !bot_refused
            };
            let approved_by: Vec<String> = approvals
                .iter()
                .filter(|a| counts(a))
                .filter(|a| w.from.is_empty() || members.iter().any(|m| same_login(m, a)))
                .cloned()
                .collect();
            let mut missing = w.needed.saturating_sub(approved_by.len() as u64);
            let by_others = approved_by.iter().any(|a| !sponsors.iter().any(|s| same_login(s, a)));
            if w.needed > 0 && missing == 0 && !by_others {
                missing = 1;
                notes.push(format!(
                    "{} opened this pull request for {}, who cannot approve it alone: one more approval from someone else",
                    directory.author,
                    approved_by.join(" and ")
                ));
            }
            let emails: Vec<&String> =
                w.from.iter().filter(|f| TeamRef::parse(f).is_none() && f.trim_start_matches('@').contains('@')).collect();
            if missing > 0 && !emails.is_empty() {
                notes.push(format!(
                    "{} {} an email address, which gatehouse cannot match to an account: only the other owners' \
                     approvals count",
                    emails.iter().map(|e| e.as_str()).collect::<Vec<_>>().join(", "),
                    if emails.len() == 1 { "is" } else { "are" }
                ));
            }
            let advisory_missing = w.advisory.iter().filter(|a| !reviewed(a)).cloned().collect();
            Group {
                rule: w.rule,
                enforced_by: w.enforced_by,
                needed: w.needed,
                from: w.from,
                advisory: w.advisory,
                paths: w.paths,
                approved_by,
                missing,
                advisory_missing,
                notes,
            }
        })
        .collect()
}

fn core_recused(core: &Outcome, policy: &ReviewConfig, inputs: &Inputs, login: &str) -> bool {
    core.recused.iter().any(|r| same_login(r, login))
        || (policy.recusal && inputs.commit_authors.iter().any(|a| same_login(a, login)))
}

/// The reviewers whose latest decisive review approves and still stands on
/// the head, in the order they reviewed.
fn standing_approvals(policy: &ReviewConfig, inputs: &Inputs) -> Vec<String> {
    let mut ordered: Vec<(usize, &Review)> = inputs.reviews.iter().enumerate().collect();
    ordered.sort_by(|(i, a), (j, b)| (a.submitted_at.as_deref(), i).cmp(&(b.submitted_at.as_deref(), j)));
    let mut out: Vec<String> = Vec::new();
    for (_, review) in &ordered {
        if out.iter().any(|o| same_login(o, &review.login)) {
            continue;
        }
        let latest = ordered.iter().rev().map(|(_, r)| *r).find(|r| {
            same_login(&r.login, &review.login)
                && matches!(r.state, ReviewState::Approved | ReviewState::ChangesRequested | ReviewState::Dismissed)
        });
        let Some(latest) = latest.filter(|r| r.state == ReviewState::Approved) else { continue };
        let standing =
            super::content::standing(policy, &latest.login, latest.commit.as_deref(), inputs.head, inputs.contents);
        if standing.counts {
            out.push(latest.login.clone());
        }
    }
    out
}
