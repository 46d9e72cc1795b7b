use super::{VotingView, anchor, at};
use crate::docs::pathref::{SpanKind, classify, is_issue_ref, is_repo_name};
use crate::docs::tree::Node;
use crate::docs::voting::{Argument, Block, EXAMPLE_FIELDS, VotingDoc, is_sha, show};
use crate::model::{LOCAL_REPO, PathLookup, Severity, Sink, Span};
use crate::rules::paths::lookups;

declare_rule! {
    id: "voting/example",
    view: VotingView,
    severity: Error,
    summary: "the bound example has `artefact`, `diff_snapshot_ref` and `explanation`, and the artefact exists",
    why: "ADR-140: `example` is an \"Object with artefact + diff_snapshot_ref + explanation (all required) — \
Hard schema gate. No example, no submission. Bind the rule to a concrete artefact at submission time so \
reviewers and voters can verify the argument lands somewhere real.\" The artefact is a repository path \
(`tests/e2e/login.spec.ts`, `owner/repo:path`, `owner/repo@ref:path`) that must exist: an unqualified path is \
looked up in the PR's own repository, a qualified one in its repository, the same way brief paths are (a \
repository that cannot be read here gives a notice, not an error). `diff_snapshot_ref` is `owner/repo#N`, \
`owner/repo@<sha>`, a commit sha, a repository path, or a GitHub pull request or commit address \
(`https://github.com/owner/repo/pull/12`, `…/commit/<sha>`); another web address is a warning, since ADR-140 \
names no form and gatehouse cannot tell what it points at. Paths that climb out with `..` or are absolute are \
errors, never file reads.",
    bad: "dark-factory/guidelines/smoke-spec-path@v1.md",
    good: "dark-factory/guidelines/smoke-spec-path@v1.md",
}

fn check(view: &VotingView, sink: &mut Sink) {
    for (doc, block, argument) in view.arguments() {
        let Some(example) = argument.field("example").filter(|e| e.as_map().is_some()) else { continue };
        for field in EXAMPLE_FIELDS {
            let key = || anchor(block, &argument, &format!("example.{field}"));
            match example.get(field) {
                None => {
                    let line = argument.node.key("example").map_or(example.line(), |k| k.line);
                    sink.emit(doc.path, Span::line(line), key(), format!("the example of argument `{}` has no `{field}`", argument.name()))
                        .help("an example binds the rule to a concrete artefact: give `artefact`, `diff_snapshot_ref` and `explanation`");
                }
                Some(node) if node.as_str().is_none_or(|s| s.trim().is_empty()) => {
                    sink.emit(
                        doc.path,
                        at(doc.text, node),
                        key(),
                        format!(
                            "`example.{field}` of argument `{}` must be a non-empty string, found {}",
                            argument.name(),
                            node.type_name()
                        ),
                    )
                    .help("write the value as text; quote it if YAML reads it as a number, boolean or null");
                }
                Some(_) => {}
            }
        }
        if let Some(node) = example.get("diff_snapshot_ref")
            && let Some(reference) = node.as_str().filter(|r| !r.trim().is_empty() && !is_snapshot_ref(r))
        {
            let key = anchor(block, &argument, "example.diff_snapshot_ref");
            let name = argument.name();
            if reference.contains("://") {
                // ADR-140 names no form for the reference: a web address
                // other than GitHub's may well point at a snapshot.
                sink.emit(doc.path, at(doc.text, node), key, format!("`diff_snapshot_ref` `{reference}` of argument `{name}` is a web address gatehouse cannot read as a pull request or commit"))
                    .help("for a GitHub snapshot write `owner/repo#N`, `owner/repo@<sha>` or the pull request's or commit's github.com address")
                    .severity(Severity::Warning);
            } else {
                sink.emit(doc.path, at(doc.text, node), key, format!("`diff_snapshot_ref` `{reference}` of argument `{name}` is not a PR, commit or path"))
                    .help("write `owner/repo#N`, `owner/repo@<sha>`, a commit sha, a repository path or a GitHub pull request or commit address");
            }
        }
        if let Some(node) = example.get("artefact")
            && let Some(artefact) = node.as_str().filter(|a| !a.trim().is_empty())
        {
            check_artefact(view, sink, doc, block, &argument, node, artefact);
        }
    }
}

fn is_snapshot_ref(reference: &str) -> bool {
    is_issue_ref(reference)
        || is_github_snapshot_url(reference)
        || reference.split_once('@').is_some_and(|(repo, sha)| is_repo_name(repo) && is_sha(sha))
        || is_sha(reference)
        || matches!(classify(reference, &[]), SpanKind::Path(_))
}

/// `https://github.com/<owner>/<repo>/pull/<N>` (with any tab after it:
/// `/files`, `/commits/<sha>`) or `…/commit/<sha>`.
fn is_github_snapshot_url(reference: &str) -> bool {
    let Some(rest) =
        reference.strip_prefix("https://github.com/").or_else(|| reference.strip_prefix("http://github.com/"))
    else {
        return false;
    };
    let rest = rest.split(['#', '?']).next().unwrap_or(rest);
    let mut parts = rest.split('/');
    let (Some(owner), Some(repo), Some(kind), Some(id)) = (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    is_repo_name(&format!("{owner}/{repo}"))
        && match kind {
            "pull" => !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()),
            "commit" => is_sha(id),
            _ => false,
        }
}

fn check_artefact(
    view: &VotingView,
    sink: &mut Sink,
    doc: &VotingDoc,
    block: &Block,
    argument: &Argument,
    node: Node,
    artefact: &str,
) {
    // Built only for a finding: most artefacts exist.
    let key = || anchor(block, argument, "example.artefact");
    let name = || argument.name();
    let path = match classify(artefact, &[]) {
        SpanKind::Path(path) => path,
        SpanKind::NotAPath => {
            sink.emit(doc.path, at(doc.text, node), key(), format!("artefact {} of argument `{}` is not a repository path", show(node), name()))
                .help("name one concrete file or folder, e.g. `tests/e2e/login.spec.ts` or `owner/repo:tests/e2e/login.spec.ts` (no patterns)");
            return;
        }
        SpanKind::Unsafe { reason } => {
            sink.emit(
                doc.path,
                at(doc.text, node),
                key(),
                format!("artefact `{artefact}` of argument `{}` {reason}", name()),
            )
            .help("name the path from the repository root");
            return;
        }
    };
    let own = view.changes.repo.as_deref();
    let found = lookups(&view.changes.repos, own, &[own.unwrap_or(LOCAL_REPO)], &path);
    let place = |repo: &str| if repo == LOCAL_REPO { "this repository".to_string() } else { format!("`{repo}`") };
    if found.iter().any(|(_, l)| *l == PathLookup::Exists) {
        return;
    }
    if let Some((repo, _)) = found.iter().find(|(_, l)| *l == PathLookup::Unknown) {
        sink.emit(doc.path, at(doc.text, node), key(), format!("artefact `{}` of argument `{}` cannot be verified: {} cannot be read here", path.path, name(), place(repo)))
            .help("run the check where that repository is readable (the App reads it), or bind an artefact in this repository")
            .severity(Severity::Notice);
        return;
    }
    let places: Vec<String> = found.iter().map(|(repo, _)| place(repo)).collect();
    sink.emit(
        doc.path,
        at(doc.text, node),
        key(),
        format!("artefact `{}` of argument `{}` does not exist in {}", path.path, name(), places.join(" or ")),
    )
    .help("bind the example to a file that exists: fix the path, or add the artefact in the same PR");
}
