//! Between gatehouse's shapes and the protocol's: file URIs and repository
//! paths, 1-based character spans and 0-based UTF-16 positions, findings
//! and diagnostics, fixes and workspace edits.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use lsp_types::{Diagnostic, DiagnosticSeverity, NumberOrString, Position, Range, TextEdit, Uri, WorkspaceEdit};

use crate::model::{Finding, Fix, Severity, Span};

/// The `file:` URI of an absolute path, every byte outside the unreserved
/// set, `/` and `@` percent-encoded.
pub(crate) fn file_uri(path: &Path) -> Uri {
    let mut uri = String::from("file://");
    for byte in path.to_string_lossy().bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/@".contains(&byte) {
            uri.push(byte as char);
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    Uri::from_str(&uri).expect("percent-encoded ASCII is a URI")
}

/// The path a `file:` URI names; `None` for another scheme or a remote host.
pub(crate) fn uri_path(uri: &Uri) -> Option<PathBuf> {
    let rest = uri.as_str().strip_prefix("file://")?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let bytes = rest.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'%'
            && let Some(byte) = rest.get(at + 1..at + 3).and_then(|hex| u8::from_str_radix(hex, 16).ok())
        {
            decoded.push(byte);
            at += 3;
            continue;
        }
        decoded.push(bytes[at]);
        at += 1;
    }
    Some(PathBuf::from(String::from_utf8(decoded).ok()?))
}

/// The text of 0-based `line`, without its line break; empty past the end.
fn line_text(text: &str, line: u32) -> &str {
    let line = text.split('\n').nth(line as usize).unwrap_or("");
    line.strip_suffix('\r').unwrap_or(line)
}

/// UTF-16 code units in the first `chars` characters of `line`.
fn utf16_of_chars(line: &str, chars: u32) -> u32 {
    line.chars().take(chars as usize).map(|c| c.len_utf16() as u32).sum()
}

/// A finding's span (1-based lines, 1-based character columns, `col == 0`
/// for the whole line) as a protocol range in `text`.
pub(crate) fn span_range(text: &str, span: Span) -> Range {
    let (line, end_line) = (span.line.max(1) - 1, span.end_line.max(span.line).max(1) - 1);
    if span.col == 0 {
        let end = line_text(text, end_line).encode_utf16().count() as u32;
        return Range::new(Position::new(line, 0), Position::new(end_line, end));
    }
    let start = utf16_of_chars(line_text(text, line), span.col - 1);
    let end = utf16_of_chars(line_text(text, end_line), span.end_col.max(1) - 1);
    Range::new(Position::new(line, start), Position::new(end_line, end))
}

/// The position of byte `offset` of `text` (clamped to the text, and back
/// to a character boundary).
pub(crate) fn offset_position(text: &str, offset: usize) -> Position {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() as u32;
    let start = before.rfind('\n').map_or(0, |at| at + 1);
    Position::new(line, before[start..].encode_utf16().count() as u32)
}

/// The byte offset of a protocol position in `text`; `None` past its lines.
pub(crate) fn position_offset(text: &str, position: Position) -> Option<usize> {
    let mut start = 0;
    for _ in 0..position.line {
        start += text[start..].find('\n')? + 1;
    }
    let line = &text[start..text[start..].find('\n').map_or(text.len(), |at| start + at)];
    let mut units = 0;
    for (at, c) in line.char_indices() {
        if units >= position.character {
            return Some(start + at);
        }
        units += c.len_utf16() as u32;
    }
    Some(start + line.len())
}

fn severity(severity: Severity) -> DiagnosticSeverity {
    match severity {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Notice => DiagnosticSeverity::INFORMATION,
    }
}

/// A finding on `text` as a diagnostic: its rule id the code, its help
/// after the message. Rules have no web page to link as a code
/// description, so their `explain` text is the hover on the diagnostic's
/// range and the `data` carries the rule id and fingerprint for it.
pub(crate) fn diagnostic(text: &str, finding: &Finding) -> Diagnostic {
    let message = match &finding.help {
        Some(help) => format!("{}\nhelp: {help}", finding.message),
        None => finding.message.clone(),
    };
    Diagnostic {
        range: span_range(text, finding.span),
        severity: Some(severity(finding.severity)),
        code: Some(NumberOrString::String(finding.rule.to_string())),
        source: Some("gatehouse".into()),
        message,
        data: Some(serde_json::json!({
            "rule": finding.rule,
            "fingerprint": finding.fingerprint,
            "explain": format!("gatehouse explain {}", finding.rule),
        })),
        ..Diagnostic::default()
    }
}

/// A finding the document already held on the base, which the change did
/// not earn: information whatever its severity, and its message says so,
/// so a reader sees it and an author knows it does not block the change.
pub(crate) fn on_base(text: &str, finding: &Finding) -> Diagnostic {
    let mut diagnostic = diagnostic(text, finding);
    let held = match finding.severity {
        Severity::Error => "An error",
        Severity::Warning => "A warning",
        Severity::Notice => "A notice",
    };
    diagnostic.severity = Some(DiagnosticSeverity::INFORMATION);
    diagnostic.message =
        format!("{held} already on the base, so it does not block this change: {}", diagnostic.message);
    if let Some(data) = diagnostic.data.as_mut() {
        data["on_base"] = serde_json::json!(true);
    }
    diagnostic
}

/// A fix's edits as a workspace edit: `text_of` gives the text each edited
/// path's byte offsets count in, `uri_of` its URI.
// lsp-types keys a workspace edit's changes by `Uri`, whose parse cache
// is never changed through a key.
#[allow(clippy::mutable_key_type)]
pub(crate) fn workspace_edit(
    fix: &Fix,
    text_of: impl Fn(&str) -> Option<std::sync::Arc<str>>,
    uri_of: impl Fn(&str) -> Uri,
) -> Option<WorkspaceEdit> {
    let mut changes: HashMap<Uri, Vec<TextEdit>> = HashMap::new();
    for edit in &fix.edits {
        let text = text_of(&edit.path)?;
        let range = Range::new(offset_position(&text, edit.start), offset_position(&text, edit.end));
        changes.entry(uri_of(&edit.path)).or_default().push(TextEdit::new(range, edit.replacement.clone()));
    }
    Some(WorkspaceEdit { changes: Some(changes), ..WorkspaceEdit::default() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_and_paths_round_trip() {
        let path = Path::new("/tmp/a dir/é#1.md");
        let uri = file_uri(path);
        assert_eq!(uri.as_str(), "file:///tmp/a%20dir/%C3%A9%231.md");
        assert_eq!(uri_path(&uri).as_deref(), Some(path));
        assert_eq!(uri_path(&Uri::from_str("untitled:Untitled-1").unwrap()), None);
    }

    #[test]
    fn spans_count_characters_and_positions_count_utf16() {
        let text = "a: 1\r\né😀: x\n";
        // `x` is the 5th character of line 2, after a 2-unit emoji.
        let range = span_range(text, Span::at(2, 5, 1));
        assert_eq!(range, Range::new(Position::new(1, 5), Position::new(1, 6)));
        assert_eq!(span_range(text, Span::line(1)), Range::new(Position::new(0, 0), Position::new(0, 4)));
        let x = text.find('x').unwrap();
        assert_eq!(offset_position(text, x), Position::new(1, 5));
        assert_eq!(position_offset(text, Position::new(1, 5)), Some(x));
        assert_eq!(position_offset(text, Position::new(9, 0)), None);
    }
}
