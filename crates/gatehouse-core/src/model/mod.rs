//! The plain data every rule sees and every renderer prints: no IO lives here.

mod changeset;
mod finding;
mod report;

pub use changeset::{
    ChangeSet, ChangedFile, FileContent, Files, LOCAL_REPO, Object, PR_BODY, PathLookup, PrInfo, RepoIndex, RepoTree,
};
pub use finding::{Diagnostic, Finding, Severity, Sink, Span, fingerprint};
pub use report::{Check, CheckReport, Conclusion, Report};
