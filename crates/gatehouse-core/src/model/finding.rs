use serde::Serialize;
use sha2::{Digest, Sha256};

use super::Fix;

/// How much a finding matters: an `Error` fails its check, the others annotate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Notice,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Notice => "notice",
        }
    }
}

/// A 1-based line/column range in the HEAD version of a file. `col == 0` means
/// "the whole line": the renderer underlines nothing in particular.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Span {
    pub line: u32,
    pub col: u32,
    pub end_line: u32,
    pub end_col: u32,
}

impl Span {
    /// The whole of one line.
    pub fn line(line: u32) -> Span {
        let line = line.max(1);
        Span { line, col: 0, end_line: line, end_col: 0 }
    }

    /// `len` characters on one line starting at 1-based `col`.
    pub fn at(line: u32, col: u32, len: u32) -> Span {
        let line = line.max(1);
        Span { line, col: col.max(1), end_line: line, end_col: col.max(1) + len.max(1) }
    }

    /// Several whole lines.
    pub fn lines(line: u32, end_line: u32) -> Span {
        let line = line.max(1);
        Span { line, col: 0, end_line: end_line.max(line), end_col: 0 }
    }
}

/// What a rule reports, before the engine stamps its rule id, severity and
/// fingerprint on it. Rules cannot mislabel what they emit.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub path: String,
    pub span: Span,
    /// A stable name for what is wrong (a field, an argument id, a path), used
    /// for the fingerprint so it survives edits that move the line.
    pub anchor: String,
    pub message: String,
    pub help: Option<String>,
    /// A rule that reports at two levels (e.g. missing vs. merely not on top)
    /// sets this for the milder case; repo config still wins.
    pub severity: Option<Severity>,
    /// A fix the rule proposes; the engine offers it only once verified.
    pub fix: Option<Fix>,
}

impl Diagnostic {
    pub fn help(&mut self, help: impl Into<String>) -> &mut Self {
        self.help = Some(help.into());
        self
    }

    pub fn severity(&mut self, severity: Severity) -> &mut Self {
        self.severity = Some(severity);
        self
    }

    /// Proposes `fix`, when the rule has one.
    pub fn fix(&mut self, fix: Option<Fix>) -> &mut Self {
        self.fix = fix;
        self
    }
}

/// Where a rule writes what it found.
#[derive(Debug, Default)]
pub struct Sink {
    pub(crate) items: Vec<Diagnostic>,
}

impl Sink {
    pub fn emit(
        &mut self,
        path: &str,
        span: Span,
        anchor: impl Into<String>,
        message: impl Into<String>,
    ) -> &mut Diagnostic {
        self.items.push(Diagnostic {
            path: path.to_string(),
            span,
            anchor: anchor.into(),
            message: message.into(),
            help: None,
            severity: None,
            fix: None,
        });
        self.items.last_mut().expect("just pushed")
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn take(&mut self) -> Vec<Diagnostic> {
        std::mem::take(&mut self.items)
    }
}

/// One reported problem, as users and agents see it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub rule: &'static str,
    pub severity: Severity,
    pub path: String,
    #[serde(flatten)]
    pub span: Span,
    pub message: String,
    pub help: Option<String>,
    pub fingerprint: String,
    /// A verified fix: applying it clears this finding and adds no error or
    /// warning.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<Fix>,
}

/// A fingerprint that identifies a finding across pushes: rule, path and a
/// stable anchor, never the line number.
pub fn fingerprint(rule: &str, path: &str, anchor: &str) -> String {
    let mut hasher = Sha256::new();
    for part in [rule, path, anchor] {
        hasher.update(part.as_bytes());
        hasher.update([0u8]);
    }
    let digest = hasher.finalize();
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}
