use super::CiteView;
use crate::config::globset;
use crate::model::{PR_BODY, Sink, Span};
use crate::rules::Example;

declare_rule! {
    id: "cite/guideline",
    view: CiteView,
    severity: Error,
    summary: "a `Guideline: <name>@v<n>` line in the PR body names a guideline version on the base branch",
    why: "ADR-140 makes each published guideline version immutable: `@v<n>` is edited only by minting \
`@v<n+1>`. A PR that says it follows `Guideline: smoke-spec-path@v2` pins the exact text it was written \
against, so the version must exist on the base branch (as `<name>@v<n>.md` or `<name>.md@v<n>` under \
`voting.paths`).",
    bad: Example { path: PR_BODY, text: "Guideline: smoke-spec-path@v9\n" },
    good: Example { path: PR_BODY, text: "Guideline: smoke-spec-path@v1\n" },
}

fn check(view: &CiteView, sink: &mut Sink) {
    let matcher = globset(&view.changes.config.voting.paths);
    for cite in &view.guidelines {
        let span = Span::at(cite.line, cite.col, cite.value.chars().count() as u32);
        let anchor = format!("guideline:{}", cite.value);
        let Some((name, version)) = cite
            .value
            .rsplit_once("@v")
            .filter(|(n, v)| !n.is_empty() && !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
        else {
            sink.emit(PR_BODY, span, anchor, format!("`{}` is not of the form `<name>@v<n>`", cite.value))
                .help("write the guideline as its name and version, e.g. `Guideline: smoke-spec-path@v1`");
            continue;
        };
        let names = [format!("{name}@v{version}.md"), format!("{name}.md@v{version}")];
        let exists = view
            .changes
            .base
            .keys()
            .any(|p| matcher.is_match(p) && names.iter().any(|n| p.rsplit('/').next() == Some(n.as_str())));
        if !exists {
            sink.emit(PR_BODY, span, anchor, format!("guideline `{name}` has no version {version} on the base branch"))
                .help("cite a published version; `@v<n>` files live under the voting paths of .github/gatehouse.yml");
        }
    }
}
