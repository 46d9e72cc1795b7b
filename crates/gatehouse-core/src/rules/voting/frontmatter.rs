use super::VotingView;
use crate::docs::frontmatter::FrontmatterError;
use crate::docs::voting::{VotingDoc, is_kebab, show};
use crate::docs::yaml::Node;
use crate::model::{Diagnostic, Fix, Sink, Span};
use crate::rules::fixes::scalar_range;

declare_rule! {
    id: "voting/frontmatter",
    view: VotingView,
    severity: Error,
    summary: "a frontmatter, when there is one, is valid and its `format`, `doc`, `version` and `scope` agree with the file name",
    why: "ADR-140 defines no frontmatter: a voting doc's identity is its file name, \"Each new doc is a new \
file at <topic>.md@v<n>; bumps mint immutable new files\", and the format version is cited in the PR body \
(`Voting-format: v1`). So a doc without frontmatter, or whose frontmatter leaves out `format`, `doc` or \
`version`, takes its doc name and version from the file name. A frontmatter is still read when it is \
there, because a doc that declares itself must not contradict its file name: \"Standards docs gain a fixed \
wire-shape that Phases 1/2/3/5 of warp#1392 can consume without per-doc parser variance … The format IS \
the protocol.\" A `format` other than `voting/v1`, a `doc` other than the file name's `<doc>`, a `version` \
other than its `<n>`, `scope` tags that are not a list of strings, an unterminated frontmatter or invalid \
YAML in it (an alias bomb, aliases standing for more than 10,000 values, is refused) is an error at its line. A file on the voting paths with \
neither `format: voting/…` nor a `voting` block is not a voting doc (ADR-117's module guidelines share \
`dark-factory/guidelines/`) and is passed over.",
    fix: "sets `format` to `voting/v1`, and `doc` and `version` to what the file name says",
    bad: "dark-factory/guidelines/smoke-spec-path@v1.md",
    good: "dark-factory/guidelines/smoke-spec-path@v1.md",
}

/// The format this version of gatehouse reads.
pub(super) const FORMAT: &str = "voting/v1";

fn check(view: &VotingView, sink: &mut Sink) {
    for doc in &view.docs {
        let frontmatter = match &doc.frontmatter {
            Ok(frontmatter) => frontmatter,
            Err(error) => {
                let (span, help) = match error {
                    FrontmatterError::Unterminated { open } => {
                        (Span::line(*open), "add a `---` line after the last frontmatter field")
                    }
                    FrontmatterError::Yaml(e) => (Span::at(e.line, e.col, e.width), e.help.as_str()),
                    FrontmatterError::NotMapping { line, .. } => {
                        (Span::line(*line), "write the frontmatter as `key: value` lines")
                    }
                    // ADR-140 defines no frontmatter: the file name names the doc.
                    FrontmatterError::Empty | FrontmatterError::Missing => continue,
                };
                sink.emit(doc.path, span, "frontmatter", error.to_string()).help(help);
                continue;
            }
        };
        let name = doc.file_name().ok();
        match frontmatter.root().get("format") {
            None => {}
            Some(node) if node.as_str() == Some(FORMAT) => {}
            Some(node) => {
                field(
                    sink,
                    doc,
                    "format",
                    node,
                    format!("`format` is {}, not `{FORMAT}`", show(node)),
                    "write `format: voting/v1`, the format ADR-140 defines",
                )
                .fix(set(doc, "format", node, FORMAT));
            }
        }
        match frontmatter.root().get("doc") {
            None => {}
            Some(node) => match node.as_str() {
                Some(d) if !is_kebab(d) => {
                    field(
                        sink,
                        doc,
                        "doc",
                        node,
                        format!("`doc` is `{d}`; a doc name is kebab-case"),
                        "write lower-case words joined by `-`, as in the file name",
                    )
                    .fix(name.and_then(|n| set(doc, "doc", node, n.doc)));
                }
                Some(d) => {
                    if let Some(name) = name.filter(|n| n.doc != d) {
                        field(
                            sink,
                            doc,
                            "doc",
                            node,
                            format!("`doc` is `{d}` but the file name says `{}`", name.doc),
                            "make `doc` and the file name's `<doc>` the same",
                        )
                        .fix(set(doc, "doc", node, name.doc));
                    }
                }
                None => {
                    field(
                        sink,
                        doc,
                        "doc",
                        node,
                        format!("`doc` must be a string, found {}", node.type_name()),
                        "write e.g. `doc: smoke-spec-path`",
                    );
                }
            },
        }
        match frontmatter.root().get("version") {
            None => {}
            Some(node) => match node.as_i64() {
                Some(v) if v > 0 => {
                    if let Some(name) = name.filter(|n| i64::from(n.version) != v) {
                        field(
                            sink,
                            doc,
                            "version",
                            node,
                            format!("`version` is {v} but the file name says `@v{}`", name.version),
                            "make `version` and the file name's `@v<n>` the same",
                        )
                        .fix(set(doc, "version", node, &name.version.to_string()));
                    }
                }
                _ => {
                    field(
                        sink,
                        doc,
                        "version",
                        node,
                        format!("`version` must be a whole number from 1, found {}", show(node)),
                        "write e.g. `version: 1`",
                    )
                    .fix(name.and_then(|n| set(doc, "version", node, &n.version.to_string())));
                }
            },
        }
        if let Some(node) = frontmatter.root().get("scope") {
            let strings = node
                .as_seq()
                .is_some_and(|items| items.iter().all(|i| i.as_str().is_some_and(|s| !s.trim().is_empty())));
            if !strings {
                field(
                    sink,
                    doc,
                    "scope",
                    node,
                    format!("`scope` must be a list of tags, found {}", show(node)),
                    "write e.g. `scope: [e2e, tests]`, or leave `scope` out",
                );
            }
        }
    }
}

fn field<'s>(
    sink: &'s mut Sink,
    doc: &VotingDoc,
    name: &str,
    node: Node,
    message: String,
    help: &str,
) -> &'s mut Diagnostic {
    sink.emit(doc.path, super::at(doc.text, node), name, message).help(help)
}

/// Sets the scalar field `name` (written at `node`) to `value`.
fn set(doc: &VotingDoc, name: &str, node: Node, value: &str) -> Option<Fix> {
    node.scalar_text()?;
    let range = scalar_range(doc.text, node.line(), node.col(), false)?;
    Some(Fix::replace(format!("set `{name}: {value}`"), doc.path, range, value))
}
