//! The members of the teams a review gate names ("List team members",
//! `GET /orgs/{org}/teams/{team_slug}/members`, the organisation's Members
//! read permission), kept for a while by installation and forgotten when
//! GitHub says a team or its membership changed (`membership` and `team`
//! events). A team the App cannot read is handed to the gate as unreadable,
//! with GitHub's answer: the gate reports it and never takes it as empty.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::Deserialize;

use crate::depends::Dependency;
use crate::github::reviews::User;
use crate::github::{ApiError, RepoClient};
use crate::owners::{Directory, Members, TeamRef};
use crate::plan::dependencies::AtBase;

/// How long a team's members are taken as read: a membership event that
/// never arrives (a lost delivery) costs at most this.
const KEPT_FOR: Duration = Duration::from_secs(600);

/// Pages of members read at most (100 a page).
const MAX_PAGES: usize = 10;

/// Teams' members by installation, as read lately.
#[derive(Debug, Default)]
pub(crate) struct TeamCache {
    kept: Mutex<HashMap<(u64, TeamRef), (Instant, Members)>>,
}

impl TeamCache {
    fn get(&self, installation: u64, team: &TeamRef) -> Option<Members> {
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        let (since, members) = kept.get(&(installation, team.clone()))?;
        (since.elapsed() < KEPT_FOR).then(|| members.clone())
    }

    fn put(&self, installation: u64, team: &TeamRef, members: &Members) {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.insert((installation, team.clone()), (Instant::now(), members.clone()));
    }

    /// GitHub says `team` changed: it is read again when next wanted.
    pub(crate) fn forget(&self, installation: u64, team: &TeamRef) {
        self.kept.lock().unwrap_or_else(|e| e.into_inner()).remove(&(installation, team.clone()));
    }
}

/// The members of each of `teams`, from `cache` when it holds them, else
/// from GitHub; `fresh` reads every team from GitHub (a job that comes of a
/// team's change, which may run in a process that kept the old members).
pub(crate) async fn members(
    repo: &RepoClient,
    teams: &[TeamRef],
    cache: &TeamCache,
    fresh: bool,
) -> Result<BTreeMap<TeamRef, Members>, ApiError> {
    let mut out = BTreeMap::new();
    for team in teams {
        let members = match cache.get(repo.installation, team).filter(|_| !fresh) {
            Some(members) => members,
            None => {
                let members = read(repo, team).await?;
                cache.put(repo.installation, team, &members);
                members
            }
        };
        out.insert(team.clone(), members);
    }
    Ok(out)
}

async fn read(repo: &RepoClient, team: &TeamRef) -> Result<Members, ApiError> {
    let path = format!("/teams/{}/members?per_page=100", team.slug);
    match repo.org_pages::<User>(&team.org, &path, MAX_PAGES).await {
        Ok(users) => Ok(Members::Read(users.into_iter().map(|u| u.login).collect())),
        Err(err) if err.is_transient() => Err(err),
        Err(err) => Ok(Members::Unreadable(format!(
            "GitHub refused to list its members ({err}): the team must exist in `{}`, and the App needs the \
             organisation's Members read permission",
            team.org
        ))),
    }
}

/// `team` of "Get rules for a branch"'s required reviewers names a team by
/// id; "List teams" maps ids to slugs.
#[derive(Deserialize)]
struct Team {
    id: u64,
    slug: String,
}

/// The slugs of the organisation's teams (of `repo`'s owner) by id; empty
/// when GitHub refuses to list them.
pub(crate) async fn slugs(repo: &RepoClient) -> Result<BTreeMap<u64, String>, ApiError> {
    match repo.org_pages::<Team>(&repo.repo.owner, "/teams?per_page=100", MAX_PAGES).await {
        Ok(teams) => Ok(teams.into_iter().map(|t| (t.id, t.slug)).collect()),
        Err(err) if err.is_transient() => Err(err),
        Err(_) => Ok(BTreeMap::new()),
    }
}

/// Each team the gate read, for the dependency index: a change of its
/// members (a `membership` event) evaluates the pull request again.
pub(crate) fn dependencies(directory: &Directory) -> Vec<AtBase> {
    directory
        .teams
        .iter()
        .map(|(team, members)| AtBase {
            dependency: Dependency {
                path: team.to_string(),
                why: "a team the review gate reads".into(),
                touched: false,
            },
            digest: match members {
                Members::Read(logins) => {
                    let mut sorted: Vec<String> = logins.iter().map(|l| l.to_ascii_lowercase()).collect();
                    sorted.sort();
                    Some(super::dependencies::digest(&crate::model::FileContent::Text(sorted.join("\n").into())))
                }
                Members::Unreadable(_) => None,
            },
        })
        .collect()
}
