//! Hover, go to definition and completion: what the word under the cursor
//! names (a rule id, a finding's range, an ADR id, a path, a CODEOWNERS
//! line's owners and the later lines overriding it), and what may be
//! written in a document's front matter.

use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionParams, GotoDefinitionParams, Hover, HoverContents, HoverParams,
    Location, MarkupContent, MarkupKind, Position, Range,
};

use super::convert;
use super::server::{Failure, Server};
use crate::docs::adr::{self, Adr};
use crate::model::Files;

/// An ADR of the workspace as hover and completion show it.
struct Record {
    adr: Adr,
    title: String,
}

/// The workspace's ADRs (the config's `adrs.paths`) in `head`, by number.
fn records(head: &Files, config: &crate::config::Config) -> Vec<Record> {
    let globs = crate::config::globset(&config.adrs.paths);
    let mut found: Vec<Record> = head
        .iter()
        .filter(|(path, _)| globs.is_match(path.as_str()))
        .filter_map(|(path, content)| {
            let text = content.text()?;
            let adr = Adr::parse(path, text)?;
            Some(Record { title: title(text), adr })
        })
        .collect();
    found.sort_by_key(|r| r.adr.number);
    found.dedup_by_key(|r| r.adr.number);
    found
}

/// The text of the document at `path`: as the rules read it, else (a file
/// they do not read, such as a source file or a config written since the
/// workspace was read) from disk, when it is text within the size limit.
fn document_text(head: &Files, workspace: &super::workspace::Workspace, path: &str) -> String {
    if let Some(text) = head.get(path).and_then(|c| c.text()) {
        return text.to_string();
    }
    let limit = workspace.config().limits.max_file_bytes;
    match crate::source::fs::read(workspace.root(), path, limit) {
        Ok(crate::model::FileContent::Text(text)) => text.to_string(),
        _ => String::new(),
    }
}

/// The first heading of a markdown text, else its `title:` field.
fn title(text: &str) -> String {
    let heading = text.lines().find_map(|l| l.strip_prefix("# ")).map(str::trim);
    let field = || text.lines().find_map(|l| l.strip_prefix("title:")).map(|t| t.trim().trim_matches('"'));
    heading.or_else(field).unwrap_or("(untitled)").to_string()
}

fn status(adr: &Adr) -> String {
    let word = adr.status.clone().unwrap_or_else(|| "no status".into());
    match adr.superseded_by {
        Some(next) => format!("{word}, superseded by ADR-{next:03}"),
        None => word,
    }
}

/// The word around byte `at` of `text`: the characters a path or an id
/// is spelled with.
fn word_at(text: &str, at: usize) -> Option<(usize, &str)> {
    let is_word = |c: char| c.is_alphanumeric() || "-_./@:#".contains(c);
    let start = text[..at].rfind(|c: char| !is_word(c)).map_or(0, |i| i + 1);
    let end = text[at..].find(|c: char| !is_word(c)).map_or(text.len(), |i| at + i);
    let word = text[start..end].trim_end_matches(['.', ':', ',']);
    (!word.is_empty()).then_some((start, word))
}

fn markdown(value: String) -> Hover {
    Hover { contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value }), range: None }
}

fn explain(rule: &crate::rules::RuleInfo) -> String {
    format!("```text\n{}```", crate::cli::explain_text(rule))
}

impl Server {
    /// The explain text of the findings or the rule id under the cursor,
    /// or the title and status of the ADR id under it.
    pub(super) fn hover(&mut self, p: HoverParams) -> Result<serde_json::Value, Failure> {
        let position = p.text_document_position_params.position;
        let path = self.document(&p.text_document_position_params.text_document.uri)?;
        let (report, head, workspace) = self.checked();
        let text = &document_text(head, workspace, &path);
        let mut parts: Vec<String> = Vec::new();
        for finding in report.findings().filter(|f| f.path == path) {
            let range = convert::span_range(text, finding.span);
            if range.start <= position && position <= range.end {
                let rule = crate::rules::find(finding.rule).expect("findings carry registered rule ids");
                parts.push(format!("**{}**: {}\n\n{}", finding.rule, finding.message, explain(rule)));
            }
        }
        if crate::owners::LOCATIONS.contains(&path.as_str()) {
            let codeowners = crate::owners::Codeowners::parse(&path, text);
            let line = position.line + 1;
            let files = workspace.files();
            let files: Vec<&str> = files.iter().map(String::as_str).collect();
            // A rejected line's finding says the same as its hover would.
            if parts.is_empty() || codeowners.rule_at(line).is_some() {
                parts.extend(crate::owners::explain::hover(&codeowners, line, &files));
            }
        }
        if let Some(at) = convert::position_offset(text, position) {
            if let Some(rule) = word_at(text, at).and_then(|(_, w)| crate::rules::find(w))
                && parts.is_empty()
            {
                parts.push(explain(rule));
            }
            if let Some(number) = mention_at(text, at) {
                let records = records(head, workspace.config());
                parts.push(match records.iter().find(|r| r.adr.number == number) {
                    Some(r) => {
                        format!("**ADR-{number:03}**: {}\n\nStatus: {} ({})", r.title, status(&r.adr), r.adr.path)
                    }
                    None => format!("**ADR-{number:03}**: no such ADR in the workspace"),
                });
            }
        }
        Ok(match parts.is_empty() {
            true => serde_json::Value::Null,
            false => serde_json::to_value(markdown(parts.join("\n\n---\n\n"))).expect("plain data"),
        })
    }

    /// The file and line an ADR id or a path under the cursor names.
    pub(super) fn definition(&mut self, p: GotoDefinitionParams) -> Result<serde_json::Value, Failure> {
        let position = p.text_document_position_params.position;
        let path = self.document(&p.text_document_position_params.text_document.uri)?;
        let (_, head, workspace) = self.checked();
        let text = &document_text(head, workspace, &path);
        let Some(at) = convert::position_offset(text, position) else { return Ok(serde_json::Value::Null) };
        let target = if let Some(number) = mention_at(text, at) {
            records(head, workspace.config())
                .into_iter()
                .find(|r| r.adr.number == number)
                .map(|r| (r.adr.path.clone(), r.adr.status_line.saturating_sub(1)))
        } else {
            word_at(text, at).and_then(|(_, word)| locate(word.trim_matches(['`', '(', ')']), &path, head, workspace))
        };
        Ok(match target {
            Some((file, line)) => {
                let uri = self.uri_of(&file);
                let range = Range::new(Position::new(line, 0), Position::new(line, 0));
                serde_json::to_value(Location::new(uri, range)).expect("plain data")
            }
            None => serde_json::Value::Null,
        })
    }

    /// In a brief's front matter: ADR ids with their titles (retired ones
    /// marked), paths that exist, and the schema's fields and enum values.
    pub(super) fn completion(&mut self, p: CompletionParams) -> Result<serde_json::Value, Failure> {
        let position = p.text_document_position.position;
        let path = self.document(&p.text_document_position.text_document.uri)?;
        let (_, head, workspace) = self.checked();
        let text = &document_text(head, workspace, &path);
        let Some(at) = convert::position_offset(text, position) else { return Ok(serde_json::json!([])) };
        if !in_front_matter(text, at) {
            return Ok(serde_json::json!([]));
        }
        let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let before = &text[line_start..at];
        let typed = word_at(text, at).map_or("", |(start, w)| if start < at { &text[start..at] } else { w });
        let typed = if typed.len() > at - line_start { "" } else { typed };
        let mut items = Vec::new();
        match before.split_once(':') {
            None if !before.trim_start().starts_with('-') => items.extend(fields(&path, workspace)),
            _ => {
                let key = front_matter_key(text, line_start);
                if key.as_deref().is_some_and(|k| k.starts_with("adrs")) || typed.starts_with("ADR") {
                    for r in records(head, workspace.config()) {
                        let retired = r.adr.is_retired();
                        items.push(CompletionItem {
                            label: format!("ADR-{:03}", r.adr.number),
                            detail: Some(match retired {
                                true => format!("{} (retired: {})", r.title, status(&r.adr)),
                                false => r.title.clone(),
                            }),
                            kind: Some(CompletionItemKind::REFERENCE),
                            deprecated: Some(retired),
                            ..CompletionItem::default()
                        });
                    }
                } else if key.as_deref() == Some("repos_touched") {
                    items.extend(repositories(head, workspace).into_iter().map(|name| CompletionItem {
                        label: name,
                        kind: Some(CompletionItemKind::MODULE),
                        ..CompletionItem::default()
                    }));
                } else if typed.contains('/') || typed.contains('.') {
                    let files = workspace.files();
                    items.extend(files.into_iter().filter(|f| f.starts_with(typed)).take(200).map(|f| {
                        CompletionItem { label: f, kind: Some(CompletionItemKind::FILE), ..CompletionItem::default() }
                    }));
                } else if let Some(key) = key {
                    items.extend(enum_values(&key).into_iter().map(|v| CompletionItem {
                        label: v,
                        kind: Some(CompletionItemKind::ENUM_MEMBER),
                        ..CompletionItem::default()
                    }));
                }
            }
        }
        Ok(serde_json::to_value(items).expect("plain data"))
    }
}

/// The file and 0-based line `word` names, seen from the document at
/// `path`: a path that exists (`path` or `path:line`, from the repository's
/// root, or a spec's artefact from its spec folder), or a voting doc's
/// version (`name@v1`, `name@v1#section` to the section's `voting` block).
fn locate(word: &str, path: &str, head: &Files, workspace: &super::workspace::Workspace) -> Option<(String, u32)> {
    let (file, line) = match word.rsplit_once(':') {
        Some((file, line)) if line.parse::<u32>().is_ok() => (file, line.parse::<u32>().unwrap_or(1)),
        _ => (word, 1),
    };
    let config = workspace.config();
    let spec = spec_folder(path, &config.specs.paths).map(|folder| format!("{folder}/{file}"));
    if let Some(found) =
        [Some(file.to_string()), spec].into_iter().flatten().find(|f| workspace.root().join(f).is_file())
    {
        return Some((found, line.saturating_sub(1)));
    }
    let (version, section) = word.split_once('#').map_or((word, None), |(v, s)| (v, Some(s)));
    if !version.contains("@v") {
        return None;
    }
    let globs = crate::config::globset(&config.voting.paths);
    let (doc, content) = head.iter().find(|(p, _)| {
        globs.is_match(p.as_str()) && p.rsplit('/').next().and_then(|f| f.strip_suffix(".md")) == Some(version)
    })?;
    let line = section
        .and_then(|section| {
            let text = content.text()?;
            text.lines().position(|l| l.trim().strip_prefix("section:").is_some_and(|id| id.trim() == section))
        })
        .unwrap_or(0);
    Some((doc.clone(), line as u32))
}

/// The spec folder a document lies in (`fondue/specs/<spec>`, or
/// `fondue/specs/archive/<spec>`), when it lies in one.
fn spec_folder(path: &str, folders: &[String]) -> Option<String> {
    folders.iter().find_map(|folder| {
        let folder = folder.trim_end_matches('/');
        let rest = path.strip_prefix(folder)?.strip_prefix('/')?;
        let mut parts = rest.split('/');
        let first = parts.next()?;
        let spec = if first == "archive" { format!("archive/{}", parts.next()?) } else { first.to_string() };
        parts.next()?;
        Some(format!("{folder}/{spec}"))
    })
}

/// The ADR number of the `ADR-NNN` mention around byte `at`.
fn mention_at(text: &str, at: usize) -> Option<u32> {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    adr::mentions(&text[line_start..line_end])
        .into_iter()
        .find(|m| (line_start + m.offset..=line_start + m.offset + m.len).contains(&at))
        .map(|m| m.number)
}

/// Whether byte `at` lies between a document's opening `---` and its closing one.
fn in_front_matter(text: &str, at: usize) -> bool {
    let Some(rest) = text.strip_prefix("---\n").or_else(|| text.strip_prefix("---\r\n")) else { return false };
    let open = text.len() - rest.len();
    let close = rest.find("\n---").map_or(text.len(), |i| open + i + 1);
    (open..=close).contains(&at)
}

/// The top-level key the line at `line_start` belongs to (its own, or the
/// one above a `- item` or an indented line).
fn front_matter_key(text: &str, line_start: usize) -> Option<String> {
    let mut lines = text[..line_start].lines().rev();
    let own = text[line_start..].lines().next().unwrap_or("");
    std::iter::once(own).chain(lines.by_ref()).find_map(|line| {
        let (key, _) = line.split_once(':')?;
        (!key.starts_with([' ', '-', '\t'])).then(|| key.trim().to_string())
    })
}

/// The schema of the family a document at `path` belongs to (briefs have
/// front matter; the other families keep their fields in fenced blocks).
fn brief_schema(path: &str, workspace: &super::workspace::Workspace) -> Option<serde_json::Value> {
    let globs = crate::config::globset(&workspace.config().briefs.paths);
    globs.is_match(path).then(|| crate::schema::schema(crate::schema::Kind::Brief))
}

fn fields(path: &str, workspace: &super::workspace::Workspace) -> Vec<CompletionItem> {
    let Some(schema) = brief_schema(path, workspace) else { return Vec::new() };
    let required: Vec<&str> = schema["required"].as_array().into_iter().flatten().filter_map(|v| v.as_str()).collect();
    schema["properties"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(name, property)| CompletionItem {
            label: name.clone(),
            kind: Some(CompletionItemKind::FIELD),
            detail: Some(if required.contains(&name.as_str()) { "required" } else { "optional" }.into()),
            documentation: property["description"].as_str().map(|d| lsp_types::Documentation::String(d.into())),
            insert_text: Some(format!("{name}: ")),
            ..CompletionItem::default()
        })
        .collect()
}

/// The repositories the workspace knows, sorted: its own (when it has a
/// name) and every one its briefs' `repos_touched` name.
fn repositories(head: &Files, workspace: &super::workspace::Workspace) -> Vec<String> {
    let briefs = crate::config::PathFilter::globs(&workspace.config().briefs.paths);
    let mut names: Vec<String> = briefs
        .select(head)
        .filter_map(|(path, content)| Some(crate::docs::brief::Brief::parse(path, content.text()?)))
        .flat_map(|brief| {
            brief.strings("repos_touched").into_iter().map(|(name, _)| name.to_string()).collect::<Vec<_>>()
        })
        .chain(workspace.repository().map(str::to_string))
        .collect();
    names.sort();
    names.dedup();
    names
}

/// The enum values the brief schema allows for `key` (or its items).
fn enum_values(key: &str) -> Vec<String> {
    let schema = crate::schema::schema(crate::schema::Kind::Brief);
    let property = &schema["properties"][key];
    let values = property["enum"].as_array().or_else(|| property["items"]["enum"].as_array());
    values.into_iter().flatten().filter_map(|v| v.as_str().map(str::to_string)).collect()
}
