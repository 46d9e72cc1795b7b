//! A job's check runs on one head: what GitHub showed when the job began,
//! the runs it showed in progress while it was slow, and writing each
//! check's planned output where it differs from what GitHub shows.

use anyhow::Result;

use super::checks;
use crate::github::RepoClient;
use crate::github::check_runs::Shown;
use crate::model::Finding;
use crate::plan::{CheckOutput, CheckPlan, Presence, summary};

/// Which job writes the runs, and how.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Writer {
    pub job: i64,
    /// A check completed on this head by another job is not written again.
    pub once_per_head: bool,
    /// A person asked for a re-run: every check is written anew.
    pub rerun: bool,
}

pub(crate) struct HeadRuns {
    pub head: String,
    pub names: Vec<String>,
    writer: Writer,
    shown: Shown,
    started: checks::CheckRuns,
}

impl HeadRuns {
    /// The job evaluates the checks `names` on `head`, where GitHub shows
    /// our runs `shown` and the job showed `started` in progress.
    pub(crate) fn new(
        writer: Writer,
        head: &str,
        names: Vec<String>,
        shown: Shown,
        started: checks::CheckRuns,
    ) -> HeadRuns {
        HeadRuns { head: head.to_string(), names, writer, shown, started }
    }

    /// Writes every planned check of this job; `note` (what changed on the
    /// base) is added to each summary written.
    pub(crate) async fn publish_all(&self, repo: &RepoClient, planned: &[CheckPlan], note: Option<&str>) -> Result<()> {
        for check in planned.iter().filter(|check| self.writes(check)) {
            let annotations: Vec<&Finding> = check.annotations.iter().collect();
            self.publish(repo, check.output.clone(), &annotations, note).await?;
        }
        Ok(())
    }

    /// Whether a planned check is written: it is to be, or a run of it is on
    /// the head (shown in progress by this job, or another's) to bring up
    /// to date.
    fn writes(&self, check: &CheckPlan) -> bool {
        let name = &check.output.name;
        check.presence == Presence::Written || self.started.ids.contains_key(name) || self.shown.has(name)
    }

    /// Writes one check's output where it differs from what GitHub shows;
    /// `note` is added to a summary written anyway.
    async fn publish(
        &self,
        repo: &RepoClient,
        mut output: CheckOutput,
        findings: &[&Finding],
        note: Option<&str>,
    ) -> Result<()> {
        if !self.names.contains(&output.name) {
            return Ok(());
        }
        let Writer { job, once_per_head, rerun } = self.writer;
        let digest = checks::digest(&output, findings);
        let unchanged_skips = (!rerun).then_some(digest.as_str());
        let planned = checks::plan(&self.shown, &self.started, job, &output.name, unchanged_skips, once_per_head);
        if let Some(note) = note {
            output.summary = summary::fit(format!("{}\n\n{note}\n", output.summary.trim_end()));
        }
        checks::publish(repo, &self.head, job, planned, &output, findings, &digest).await?;
        Ok(())
    }

    /// Fails every check closed, saying why.
    pub(crate) async fn fail_closed(&self, repo: &RepoClient, reason: &str) -> Result<()> {
        for name in &self.names {
            self.publish(repo, summary::fail_closed(name, reason), &[], None).await?;
        }
        Ok(())
    }
}
