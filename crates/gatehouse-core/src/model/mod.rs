//! The plain data every rule sees and every renderer prints: no IO lives here.

mod agents;
mod changeset;
mod files;
mod finding;
mod fix;
mod report;

pub use agents::AgentIndex;
pub use changeset::{
    ChangeSet, ChangedFile, FileContent, LOCAL_REPO, Object, PR_BODY, PathLookup, PrInfo, RepoIndex, RepoTree,
};
pub use files::{Entries, Files};
pub use finding::{Diagnostic, Finding, Severity, Sink, Span, fingerprint};
pub use fix::{Edit, Fix, LineChange, apply as apply_edits, fixed_texts, line_change};
pub use report::{Check, CheckReport, Conclusion, NOT_EVALUATED, Report};
