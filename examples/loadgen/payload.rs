//! `pull_request.opened` bodies the size GitHub sends (about 28 KB): the
//! simulated GitHub's event with the objects GitHub adds to it, shaped as
//! its webhook payload documentation shows them (a repository object for
//! the event, the head and the base; a user object for the author, the
//! sender and the assignee; the links of the pull request), and a
//! description. The App reads a few fields of it; the rest is what its
//! receiver must read, verify and parse all the same.

use serde_json::{Map, Value, json};

/// What a body should weigh, in bytes.
pub const BODY_BYTES: usize = 28 * 1024;

const API: &str = "https://api.github.com";
const WEB: &str = "https://github.com";

/// A user object as webhook payloads carry one.
fn user(login: &str, id: u64) -> Value {
    let api = format!("{API}/users/{login}");
    json!({
        "login": login, "id": id, "node_id": format!("MDQ6VXNlcj{id:08}"),
        "avatar_url": format!("https://avatars.githubusercontent.com/u/{id}?v=4"), "gravatar_id": "",
        "url": api, "html_url": format!("{WEB}/{login}"),
        "followers_url": format!("{api}/followers"), "following_url": format!("{api}/following{{/other_user}}"),
        "gists_url": format!("{api}/gists{{/gist_id}}"), "starred_url": format!("{api}/starred{{/owner}}{{/repo}}"),
        "subscriptions_url": format!("{api}/subscriptions"), "organizations_url": format!("{api}/orgs"),
        "repos_url": format!("{api}/repos"), "events_url": format!("{api}/events{{/privacy}}"),
        "received_events_url": format!("{api}/received_events"), "type": "User", "user_view_type": "public",
        "site_admin": false
    })
}

/// A repository object as webhook payloads carry one.
fn repository(full_name: &str, id: u64) -> Value {
    let (owner, name) = full_name.split_once('/').unwrap_or((full_name, full_name));
    let api = format!("{API}/repos/{full_name}");
    let mut repo = Map::new();
    let mut put = |key: &str, value: Value| {
        repo.insert(key.to_string(), value);
    };
    put("id", id.into());
    put("node_id", format!("R_kgDO{id:08}").into());
    put("name", name.into());
    put("full_name", full_name.into());
    put("private", false.into());
    put("owner", user(owner, id + 1));
    put("html_url", format!("{WEB}/{full_name}").into());
    put("description", "Agent briefs, standards and decisions.".into());
    put("fork", false.into());
    put("url", api.clone().into());
    for (key, path) in [
        ("forks_url", "/forks"),
        ("keys_url", "/keys{/key_id}"),
        ("collaborators_url", "/collaborators{/collaborator}"),
        ("teams_url", "/teams"),
        ("hooks_url", "/hooks"),
        ("issue_events_url", "/issues/events{/number}"),
        ("events_url", "/events"),
        ("assignees_url", "/assignees{/user}"),
        ("branches_url", "/branches{/branch}"),
        ("tags_url", "/tags"),
        ("blobs_url", "/git/blobs{/sha}"),
        ("git_tags_url", "/git/tags{/sha}"),
        ("git_refs_url", "/git/refs{/sha}"),
        ("trees_url", "/git/trees{/sha}"),
        ("statuses_url", "/statuses/{sha}"),
        ("languages_url", "/languages"),
        ("stargazers_url", "/stargazers"),
        ("contributors_url", "/contributors"),
        ("subscribers_url", "/subscribers"),
        ("subscription_url", "/subscription"),
        ("commits_url", "/commits{/sha}"),
        ("git_commits_url", "/git/commits{/sha}"),
        ("comments_url", "/comments{/number}"),
        ("issue_comment_url", "/issues/comments{/number}"),
        ("contents_url", "/contents/{+path}"),
        ("compare_url", "/compare/{base}...{head}"),
        ("merges_url", "/merges"),
        ("archive_url", "/{archive_format}{/ref}"),
        ("downloads_url", "/downloads"),
        ("issues_url", "/issues{/number}"),
        ("pulls_url", "/pulls{/number}"),
        ("milestones_url", "/milestones{/number}"),
        ("notifications_url", "/notifications{?since,all,participating}"),
        ("labels_url", "/labels{/name}"),
        ("releases_url", "/releases{/id}"),
        ("deployments_url", "/deployments"),
    ] {
        put(key, format!("{api}{path}").into());
    }
    put("created_at", "2026-01-05T09:12:44Z".into());
    put("updated_at", "2026-11-30T17:02:10Z".into());
    put("pushed_at", "2026-12-01T08:41:57Z".into());
    put("git_url", format!("git://github.com/{full_name}.git").into());
    put("ssh_url", format!("git@github.com:{full_name}.git").into());
    put("clone_url", format!("{WEB}/{full_name}.git").into());
    put("svn_url", format!("{WEB}/{full_name}").into());
    put("homepage", Value::Null);
    for (key, n) in [("size", 2841), ("stargazers_count", 12), ("watchers_count", 12), ("forks_count", 3)] {
        put(key, n.into());
    }
    put("language", "Rust".into());
    for (key, on) in [
        ("has_issues", true),
        ("has_projects", true),
        ("has_downloads", true),
        ("has_wiki", false),
        ("has_pages", false),
        ("has_discussions", false),
        ("archived", false),
        ("disabled", false),
        ("allow_forking", true),
        ("is_template", false),
        ("web_commit_signoff_required", false),
    ] {
        put(key, on.into());
    }
    put("mirror_url", Value::Null);
    put("open_issues_count", 7.into());
    put(
        "license",
        json!({"key": "mit", "name": "MIT License", "spdx_id": "MIT", "url": format!("{API}/licenses/mit"), "node_id": "MDc6TGljZW5zZTEz"}),
    );
    put("topics", json!(["agents", "governance"]));
    put("visibility", "public".into());
    put("forks", 3.into());
    put("open_issues", 7.into());
    put("watchers", 12.into());
    put("default_branch", "main".into());
    put("custom_properties", json!({}));
    Value::Object(repo)
}

/// `event` (the simulated GitHub's `pull_request` event for `repo`) with
/// GitHub's other objects, and a description that brings the body to
/// [`BODY_BYTES`].
pub fn github_sized(mut event: Value, repo: &str, n: usize) -> Vec<u8> {
    let repo_id = 700_000 + n as u64 % 1000;
    let number = event["number"].as_u64().unwrap_or(1);
    let full = repository(repo, repo_id);
    let pr_api = format!("{API}/repos/{repo}/pulls/{number}");
    let link = |href: String| json!({ "href": href });
    if let Some(pr) = event["pull_request"].as_object_mut() {
        pr.insert("user".into(), user("author", 9001));
        pr.insert("assignee".into(), user("author", 9001));
        pr.insert("assignees".into(), json!([user("author", 9001)]));
        pr.insert("url".into(), pr_api.clone().into());
        pr.insert("html_url".into(), format!("{WEB}/{repo}/pull/{number}").into());
        pr.insert("diff_url".into(), format!("{WEB}/{repo}/pull/{number}.diff").into());
        pr.insert("patch_url".into(), format!("{WEB}/{repo}/pull/{number}.patch").into());
        pr.insert(
            "_links".into(),
            json!({
                "self": link(pr_api.clone()), "html": link(format!("{WEB}/{repo}/pull/{number}")),
                "issue": link(format!("{API}/repos/{repo}/issues/{number}")),
                "comments": link(format!("{API}/repos/{repo}/issues/{number}/comments")),
                "review_comments": link(format!("{pr_api}/comments")),
                "review_comment": link(format!("{API}/repos/{repo}/pulls/comments{{/number}}")),
                "commits": link(format!("{pr_api}/commits")),
                "statuses": link(format!("{API}/repos/{repo}/statuses/{number}")),
            }),
        );
        for side in ["head", "base"] {
            if let Some(side) = pr.get_mut(side).and_then(Value::as_object_mut) {
                side.insert("repo".into(), full.clone());
                side.insert("user".into(), user(repo.split('/').next().unwrap_or(repo), repo_id + 1));
            }
        }
    }
    event["repository"] = full;
    event["sender"] = user("author", 9001);
    let size = serde_json::to_vec(&event).map_or(0, |b| b.len());
    let sentence = "This brief hands the backup dry run to an agent; the ADR it follows is cited. ";
    let description: String = sentence.chars().cycle().take(BODY_BYTES.saturating_sub(size + 12)).collect();
    event["pull_request"]["body"] = description.into();
    serde_json::to_vec(&event).expect("a JSON value serialises")
}
