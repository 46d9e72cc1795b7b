use super::BriefView;
use crate::docs::brief::{Brief, is_agent_id};
use crate::docs::yaml::Node;
use crate::model::{Diagnostic, Fix, Sink};
use crate::rules::fixes::{in_flow, scalar_range};
use crate::rules::spans::node_span;

declare_rule! {
    id: "brief/field-type",
    view: BriefView,
    severity: Error,
    summary: "each ADR-099 field has its type: string, lists of strings, positive integer",
    why: "ADR-099's schema: `agent` is `SWARM-<ID>`; `repos_touched` a non-empty list of repositories; \
`adrs_referenced` a list of ADR ids (may be empty); `success_criteria` a non-empty list of one-line \
assertions; `out_of_scope` a list; `lines_estimate` a positive integer, the number the 100-LOC review \
threshold is measured against.",
    fix: "unquotes a `lines_estimate` written as a quoted whole number (`\"80\"` becomes `80`), and makes a \
list of one item of a single string where a list is required (`repos_touched: acme/infra` becomes \
`[acme/infra]`)",
    bad: "dark-factory/briefs/SWARM-AR-pg-backup.md",
    good: "dark-factory/briefs/SWARM-AR-pg-backup.md",
}

fn check(view: &BriefView, sink: &mut Sink) {
    for brief in &view.briefs {
        if let Some(agent) = brief.field("agent") {
            match agent.as_str() {
                Some(a) if is_agent_id(a) => {}
                Some(a) => {
                    report(
                        sink,
                        brief,
                        "agent",
                        agent,
                        format!("`agent` is `{a}`, not of the form `SWARM-<ID>`"),
                        "write `SWARM-` and 1-6 of A-Z, 0-9, e.g. `SWARM-AR`",
                    );
                }
                None => {
                    report(
                        sink,
                        brief,
                        "agent",
                        agent,
                        format!("`agent` must be a string like `SWARM-AR`, found {}", agent.type_name()),
                        "write e.g. `agent: SWARM-AR`",
                    );
                }
            }
        }
        string_list(sink, brief, "repos_touched", true, "list the repositories as `[owner/name, …]`");
        string_list(sink, brief, "adrs_referenced", false, "list the ADR ids as `[ADR-095, …]`, or `[]`");
        string_list(sink, brief, "success_criteria", true, "list one testable assertion per line");
        string_list(sink, brief, "out_of_scope", false, "list what the agent must not do, or `[]`");
        if let Some(estimate) = brief.field("lines_estimate") {
            match estimate.as_i64() {
                Some(n) if n > 0 => {}
                Some(n) => {
                    report(
                        sink,
                        brief,
                        "lines_estimate",
                        estimate,
                        format!("`lines_estimate` must be positive, found {n}"),
                        "estimate the lines the agent will change, e.g. `lines_estimate: 400`",
                    );
                }
                None => {
                    let number = estimate.as_str().and_then(|s| s.trim().parse::<u64>().ok()).filter(|n| *n > 0);
                    let fix = number.and_then(|n| {
                        let range = scalar_range(brief.text, estimate.line(), estimate.col(), false)?;
                        Some(Fix::replace(format!("write `lines_estimate: {n}`"), brief.path, range, n.to_string()))
                    });
                    report(
                        sink,
                        brief,
                        "lines_estimate",
                        estimate,
                        format!("`lines_estimate` must be a positive integer, found {}", estimate.type_name()),
                        "write a bare number, e.g. `lines_estimate: 400`",
                    )
                    .fix(fix);
                }
            }
        }
    }
}

fn report<'s>(
    sink: &'s mut Sink,
    brief: &Brief,
    field: &str,
    node: Node,
    message: String,
    help: &str,
) -> &'s mut Diagnostic {
    sink.emit(brief.path, node_span(brief.text, node), field, message).help(help)
}

fn string_list(sink: &mut Sink, brief: &Brief, field: &str, non_empty: bool, help: &str) {
    let Some(node) = brief.field(field) else { return };
    let Some(items) = node.as_seq() else {
        // One string where a list belongs is a list of that one item.
        let fix = node
            .as_str()
            .filter(|s| !s.trim().is_empty() && !in_flow(brief.text, node.line(), node.col()))
            .and_then(|_| {
                let range = scalar_range(brief.text, node.line(), node.col(), false)?;
                let item = &brief.text[range.clone()];
                Some(Fix::replace(
                    format!("make `{field}` the list `[{item}]`"),
                    brief.path,
                    range,
                    format!("[{item}]"),
                ))
            });
        report(sink, brief, field, node, format!("`{field}` must be a list, found {}", node.type_name()), help)
            .fix(fix);
        return;
    };
    if non_empty && items.is_empty() {
        report(sink, brief, field, node, format!("`{field}` must not be empty"), help);
    }
    for (i, item) in items.iter().enumerate() {
        let ok = item.as_str().is_some_and(|s| !s.trim().is_empty());
        if !ok {
            let anchor = format!("{field}[{i}]");
            sink.emit(
                brief.path,
                node_span(brief.text, item),
                anchor,
                format!("each `{field}` entry must be a non-empty string, found {}", item.type_name()),
            )
            .help("quote the entry if YAML reads it as a number, boolean or null");
        }
    }
}
