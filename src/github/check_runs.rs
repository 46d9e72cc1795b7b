//! This App's check runs on a commit as GitHub lists them: each by its
//! `external_id` (`gatehouse:{job}:{name}`), its status, how many
//! annotations it carries, and the digest of its output its summary ends
//! with.

use std::collections::{BTreeMap, BTreeSet};

use super::answers::CheckRunList;
use super::{ApiError, RepoClient};

/// How the digest of a run's output is marked at the end of its summary (an
/// HTML comment: GitHub does not show it).
pub(crate) const DIGEST_MARK: &str = "<!-- gatehouse:output ";

pub(crate) fn external_id(job: i64, name: &str) -> String {
    format!("gatehouse:{job}:{name}")
}

/// The job in an external id `gatehouse:{job}:{name}`.
pub(crate) fn job_of(external_id: &str) -> Option<i64> {
    external_id.strip_prefix("gatehouse:")?.split_once(':')?.0.parse().ok()
}

/// The check name in an external id `gatehouse:{job}:{name}`.
pub(crate) fn check_name(external_id: &str) -> Option<&str> {
    external_id.strip_prefix("gatehouse:")?.split_once(':').map(|(_, name)| name)
}

/// One of our runs as GitHub lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Listed {
    pub id: u64,
    pub status: String,
    /// Set once the run is `completed`.
    pub conclusion: Option<String>,
    pub annotations: usize,
    /// The digest its summary ends with (none: an older version's run).
    pub digest: Option<String>,
}

/// What GitHub shows of this App's runs on one head, by external id.
#[derive(Clone, Debug, Default)]
pub(crate) struct Shown {
    pub runs: BTreeMap<String, Listed>,
}

impl Shown {
    /// The newest of our runs named `name` (the one GitHub shows for it).
    pub(crate) fn newest(&self, name: &str) -> Option<&Listed> {
        self.newest_with_id(name).map(|(_, l)| l)
    }

    /// The newest run named `name` with its external id.
    fn newest_with_id(&self, name: &str) -> Option<(&String, &Listed)> {
        self.runs.iter().filter(|(ext, _)| check_name(ext) == Some(name)).max_by_key(|(_, l)| l.id)
    }

    /// Whether a run of check `name` is on the head.
    pub(crate) fn has(&self, name: &str) -> bool {
        self.newest_with_id(name).is_some()
    }

    /// Whether the newest run of every check of `names` is completed, by
    /// one of the jobs `by`.
    pub(crate) fn all_completed_by(&self, names: &[String], by: &BTreeSet<i64>) -> bool {
        names.iter().all(|name| {
            self.newest_with_id(name)
                .is_some_and(|(ext, l)| l.status == "completed" && job_of(ext).is_some_and(|job| by.contains(&job)))
        })
    }
}

pub(crate) fn digest_in(summary: &str) -> Option<String> {
    let at = summary.rfind(DIGEST_MARK)?;
    let rest = &summary[at + DIGEST_MARK.len()..];
    rest.find(" -->").map(|end| rest[..end].to_string())
}

/// Our check runs on `sha`.
pub(crate) async fn shown(repo: &RepoClient, sha: &str) -> Result<Shown, ApiError> {
    // `filter=all`: by default GitHub lists only the latest run of each
    // name, which would hide an earlier job's runs of the same name.
    let mut url = format!("/commits/{sha}/check-runs?per_page=100&filter=all&app_id={}", repo.app_id());
    let mut out = Shown::default();
    for _ in 0..10 {
        let (list, next) = repo.page::<CheckRunList>(&url).await?;
        for run in list.check_runs {
            if let Some(ext) = run.external_id.filter(|ext| ext.starts_with("gatehouse:")) {
                let digest = run.output.summary.as_deref().and_then(digest_in);
                let listed = Listed {
                    id: run.id,
                    status: run.status,
                    conclusion: run.conclusion,
                    annotations: run.output.annotations_count as usize,
                    digest,
                };
                out.runs.insert(ext, listed);
            }
        }
        match next {
            Some(next) => url = next,
            None => break,
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(id: u64, status: &str) -> Listed {
        Listed { id, status: status.into(), conclusion: None, annotations: 0, digest: None }
    }

    #[test]
    fn a_head_is_answered_by_the_newest_runs_of_jobs_that_finished() {
        let names = vec!["gatehouse/briefs".to_string(), "gatehouse/review".to_string()];
        let mut shown = Shown::default();
        shown.runs.insert(external_id(4, "gatehouse/briefs"), listed(10, "completed"));
        shown.runs.insert(external_id(4, "gatehouse/review"), listed(11, "completed"));
        assert_eq!(job_of(&external_id(4, "gatehouse/review")), Some(4));
        assert!(shown.all_completed_by(&names, &BTreeSet::from([4])));
        assert!(!shown.all_completed_by(&names, &BTreeSet::new()), "job 4 was killed before it finished");
        shown.runs.insert(external_id(5, "gatehouse/review"), listed(12, "completed"));
        assert!(!shown.all_completed_by(&names, &BTreeSet::from([4])), "the newest review run is job 5's");
        assert!(shown.all_completed_by(&names, &BTreeSet::from([4, 5])));
        shown.runs.insert(external_id(6, "gatehouse/briefs"), listed(13, "in_progress"));
        assert!(!shown.all_completed_by(&names, &BTreeSet::from([4, 5, 6])));
    }
}
