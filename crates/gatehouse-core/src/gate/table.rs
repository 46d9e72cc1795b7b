//! The review gate's one table: every requirement of approvals, GitHub's
//! and gatehouse's side by side, what is still missing of each and the rule
//! it comes from.

use super::{Enforcer, Group, Outcome};

/// Paths a row names before "and N more".
const NAMED_PATHS: usize = 3;

/// "`a.md`", "`a.md`, `b.md` and 4 more".
fn paths(paths: &[String]) -> String {
    let named: Vec<String> = paths.iter().take(NAMED_PATHS).map(|p| format!("`{p}`")).collect();
    match paths.len() {
        0 => String::new(),
        n if n > NAMED_PATHS => format!("{} and {} more", named.join(", "), n - NAMED_PATHS),
        _ => named.join(", "),
    }
}

fn who(from: &[String]) -> String {
    match from {
        [] => "anyone with write access".to_string(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

fn requirement(needed: u64, from: &[String], files: &[String]) -> String {
    let noun = if needed == 1 { "approval" } else { "approvals" };
    let of = if files.is_empty() { String::new() } else { format!(" for {}", paths(files)) };
    format!("{needed} {noun} from {}{of}", who(from))
}

/// A missing group as one line of the gate's "Still missing" list.
pub(super) fn missing_line(
    rule: &str,
    needed: u64,
    from: &[String],
    advisory: &[String],
    files: &[String],
    notes: &[String],
) -> String {
    let mut parts = Vec::new();
    if needed > 0 {
        let noun = if needed == 1 { "approval" } else { "approvals" };
        parts.push(format!("{needed} more {noun} from {}", who(from)));
    }
    if !advisory.is_empty() {
        parts.push(format!("a review from {}", advisory.join(" and ")));
    }
    let of = if files.is_empty() { String::new() } else { format!(" for {}", paths(files)) };
    let mut line = format!("{}{of} ({rule})", parts.join(" and "));
    for note in notes {
        line.push_str(&format!("; {note}"));
    }
    line
}

fn status(group: &Group) -> String {
    let mut parts = Vec::new();
    if group.missing > 0 {
        parts.push(format!("{} more", group.missing));
    }
    if !group.advisory_missing.is_empty() {
        parts.push(format!("a review from {}", group.advisory_missing.join(", ")));
    }
    parts.extend(group.notes.iter().cloned());
    if parts.is_empty() { "met".to_string() } else { parts.join("; ") }
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// The table, in markdown.
pub(super) fn render(outcome: &Outcome) -> String {
    let mut out = String::from(
        "**Who must approve**\n\n| Requirement | Approved by | Still missing | Enforced by | Rule |\n| --- | --- | --- | --- | --- |\n",
    );
    if !outcome.eligible.is_empty() || !outcome.recused.is_empty() {
        let missing = (outcome.required as usize).saturating_sub(outcome.approvals.len());
        let state = if missing == 0 { "met".to_string() } else { format!("{missing} more") };
        out.push_str(&format!(
            "| {} | {} | {} | gatehouse | `review.core` |\n",
            cell(&requirement(outcome.required, &outcome.eligible, &[])),
            cell(&outcome.approvals.join(", ")),
            cell(&state)
        ));
    }
    for group in &outcome.groups {
        let by = match group.enforced_by {
            Enforcer::Gatehouse => "gatehouse",
            Enforcer::Github => "GitHub",
        };
        let wanted = match (group.needed, group.advisory.as_slice()) {
            (0, advisory) => format!("a review from {} for {}", advisory.join(" and "), paths(&group.paths)),
            (n, []) => requirement(n, &group.from, &group.paths),
            (n, advisory) => {
                format!("{} and a review from {}", requirement(n, &group.from, &group.paths), advisory.join(" and "))
            }
        };
        out.push_str(&format!(
            "| {} | {} | {} | {by} | {} |\n",
            cell(&wanted),
            cell(&group.approved_by.join(", ")),
            cell(&status(group)),
            cell(&group.rule)
        ));
    }
    out
}
