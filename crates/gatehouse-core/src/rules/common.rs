//! Pieces every family shares.

use super::{Example, RuleInfo};
use crate::model::{FileContent, Severity, Sink, Span};

pub static DOC_UNREADABLE: RuleInfo = RuleInfo {
    id: "doc/unreadable",
    default_severity: Severity::Error,
    summary: "a document gatehouse checks is UTF-8 text within the size limit, in a regular file",
    why: "Every family's rules read their documents as text. A document that is binary, not \
UTF-8 or larger than `limits.max_file_bytes` (1 MB by default) cannot be checked, so it cannot \
pass: gatehouse fails closed and says why instead of skipping it. A symbolic link is not a \
document either: gatehouse reads it as git stores it (the path it points to) and never follows \
it, so a link to a file outside the repository (`/etc/passwd`) is reported, never read; FIFOs \
and devices are never opened.",
    fix: None,
    bad: Example { path: "dark-factory/briefs/SWARM-AR-backup.md", text: "(a 3 MB file, or bytes that are not UTF-8)" },
    good: Example { path: "dark-factory/briefs/SWARM-AR-backup.md", text: "---\nagent: SWARM-AR\n…\n---\n" },
};

/// Reports a document that could not be read as text.
pub fn report_unreadable(path: &str, content: &FileContent, sink: &mut Sink) {
    let (line, message, help) = match content {
        FileContent::Text(_) => return,
        FileContent::Binary => {
            (1, "this is a binary file, not a text document".to_string(), "store documents as UTF-8 text")
        }
        FileContent::InvalidUtf8 { line } => {
            (*line, format!("line {line} is not valid UTF-8"), "re-save the file as UTF-8")
        }
        FileContent::TooLarge { bytes, limit } => (
            1,
            format!(
                "the file is {} ({bytes} bytes), over the {} limit, so it was not read",
                crate::render::size(*bytes),
                crate::render::size(*limit)
            ),
            "split the document, or raise `limits.max_file_bytes` in .github/gatehouse.yml",
        ),
        FileContent::Link { target, outside: true } => (
            1,
            format!("this is a symbolic link to `{target}`, outside the repository: gatehouse does not follow it"),
            "commit the document itself, not a link to a file outside the repository",
        ),
        FileContent::Link { target, outside: false } => (
            1,
            format!("this is a symbolic link to `{target}`, not a document: gatehouse reads links as git stores them"),
            "commit the document itself; the file the link points to is checked under its own path",
        ),
        FileContent::NotAFile { kind } => {
            (1, format!("this is {kind}, not a regular file, so it was not read"), "replace it with the document")
        }
    };
    sink.emit(path, Span::line(line), "unreadable", message).help(help);
}
