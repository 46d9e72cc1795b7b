//! The errors only GitHub can know of a CODEOWNERS file ("List CODEOWNERS
//! errors", `GET /repos/{o}/{r}/codeowners/errors?ref=`: an owner with no
//! account or no write access), which the config check reports at their
//! lines beside the ones gatehouse's reader finds. The file itself is read
//! at the base with the config (`pull_request`).

use serde::Deserialize;

use crate::github::{ApiError, RepoClient};
use crate::owners::CodeownersError;

/// `codeowners-errors`.
#[derive(Deserialize)]
struct Errors {
    errors: Vec<Error>,
}

#[derive(Deserialize)]
struct Error {
    line: u32,
    column: u32,
    kind: String,
    message: String,
    #[serde(default)]
    suggestion: Option<String>,
}

/// GitHub's errors of the CODEOWNERS file at `commit`; none when GitHub
/// will not say (no file there, or no access).
pub(crate) async fn github_errors(repo: &RepoClient, commit: &str) -> Result<Vec<CodeownersError>, ApiError> {
    match repo.get::<Errors>(&format!("/codeowners/errors?ref={commit}")).await {
        Ok(answer) => Ok(answer
            .errors
            .into_iter()
            .map(|e| CodeownersError {
                line: e.line,
                column: e.column,
                kind: e.kind,
                message: e.message,
                suggestion: e.suggestion,
            })
            .collect()),
        Err(err) if err.is_transient() => Err(err),
        Err(_) => Ok(Vec::new()),
    }
}
