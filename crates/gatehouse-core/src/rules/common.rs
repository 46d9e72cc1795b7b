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

/// Whether a file's name is a document's: Markdown, plain text, YAML or
/// JSON, or a name without an extension. Images, diagrams, PDFs and other
/// files kept beside documents in governed folders are not documents.
pub(crate) fn is_document_name(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    match name.rsplit_once('.') {
        None | Some(("", _)) => true,
        Some((_, extension)) => {
            ["md", "markdown", "txt", "yml", "yaml", "json"].iter().any(|d| extension.eq_ignore_ascii_case(d))
        }
    }
}

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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::is_document_name;
    use crate::model::{ChangeSet, FileContent, Files};

    #[test]
    fn files_beside_documents_are_no_documents_and_get_no_finding() {
        let mut head = Files::new();
        let beside = [
            "fondue/specs/retry-queue/diagram.png",
            "fondue/specs/retry-queue/plan/flow.pdf",
            "dark-factory/guidelines/chart.jpg",
            "dark-factory/briefs/screenshot.png",
            ".harnery/decisions/D-1/sketch.gif",
        ];
        for path in beside {
            head.insert(path.to_string(), FileContent::Binary);
        }
        head.insert("fondue/specs/retry-queue/flow.svg".into(), FileContent::Text(Arc::from("<svg/>")));
        let changes = ChangeSet { head: head.clone(), ..Default::default() };
        let findings: Vec<_> = crate::rules::evaluate(&changes).findings().map(|f| (f.rule, f.path.clone())).collect();
        assert!(
            findings.iter().all(|(_, path)| !beside.contains(&path.as_str()) && !path.ends_with(".svg")),
            "{findings:?}"
        );
        // A file with a document's name that is not text is still reported.
        head.insert("fondue/specs/retry-queue/spec.md".into(), FileContent::Binary);
        head.insert("dark-factory/guidelines/topic@v1.md".into(), FileContent::Binary);
        let changes = ChangeSet { head, ..Default::default() };
        let mut unreadable: Vec<String> = crate::rules::evaluate(&changes)
            .findings()
            .filter(|f| f.rule == "doc/unreadable")
            .map(|f| f.path.clone())
            .collect();
        unreadable.sort();
        assert_eq!(unreadable, ["dark-factory/guidelines/topic@v1.md", "fondue/specs/retry-queue/spec.md"]);
    }

    #[test]
    fn document_names_are_text_formats_or_no_extension() {
        for name in ["a/b.md", "a/B.MD", "x/state", "x/notes.txt", "c.yml", "d.json", "e.yaml", "f.markdown", ".keep"] {
            assert!(is_document_name(name), "{name}");
        }
        for name in ["a/b.png", "a/b.svg", "a/b.pdf", "a/b.drawio", "a/b.jpeg", "a/b.zip"] {
            assert!(!is_document_name(name), "{name}");
        }
    }
}
