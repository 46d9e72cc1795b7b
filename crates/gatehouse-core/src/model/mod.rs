//! The plain data every rule sees and every renderer prints: no IO lives here.

mod agents;
mod changeset;
mod files;
mod finding;
mod report;

pub use agents::AgentIndex;
pub use changeset::{
    ChangeSet, ChangedFile, FileContent, LOCAL_REPO, Object, PR_BODY, PathLookup, PrInfo, RepoIndex, RepoTree,
};
pub use files::{Entries, Files};
pub use finding::{Diagnostic, Finding, Severity, Sink, Span, fingerprint};
pub use report::{Check, CheckReport, Conclusion, Report};
