//! `gatehouse register`: the CLI around [`crate::register`].

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Result, bail};

use super::outln;

use crate::register::{self, DEFAULT_BIND, DEFAULT_GITHUB_URL, DEFAULT_OUT, RegisterConfig, credentials};

#[derive(clap::Args, Debug)]
pub(super) struct RegisterArgs {
    /// Where GitHub will deliver webhooks: `gatehouse serve`'s public address
    /// (a bare https://HOST gets /webhook).
    #[arg(long, value_name = "URL")]
    webhook_url: String,
    /// Register the App under this organization [default: your personal account].
    #[arg(long, value_name = "ORG")]
    org: Option<String>,
    /// The credentials folder to create (it must not exist).
    #[arg(long, value_name = "DIR", default_value = DEFAULT_OUT)]
    out: PathBuf,
    /// The loopback address of the registration page.
    #[arg(long, value_name = "HOST:PORT", default_value = DEFAULT_BIND)]
    bind: SocketAddr,
    /// GitHub's web address, for GitHub Enterprise.
    #[arg(long, value_name = "URL", default_value = DEFAULT_GITHUB_URL)]
    github_url: String,
    /// GitHub's API [default: https://api.github.com; with --github-url, URL/api/v3].
    #[arg(long, value_name = "URL", alias = "github-api-url")]
    api_url: Option<String>,
}

pub(super) fn run(args: RegisterArgs) -> Result<ExitCode> {
    crate::app::logs::init("gatehouse=warn", crate::app::logs::LogFormat::Text);
    let github_url = args.github_url.trim_end_matches('/').to_string();
    let api_url = args.api_url.clone().unwrap_or_else(|| {
        if github_url == DEFAULT_GITHUB_URL {
            crate::app::DEFAULT_API_URL.to_string()
        } else {
            format!("{github_url}/api/v3")
        }
    });
    let config = RegisterConfig {
        github_url,
        api_url,
        org: args.org.clone(),
        webhook_url: args.webhook_url.clone(),
        out: args.out.clone(),
        bind: args.bind,
    };
    tokio::runtime::Builder::new_multi_thread().enable_all().build()?.block_on(async move {
        let registration = register::start(config).await?;
        outln!(
            "Open {} in a browser signed in to GitHub and press \"Create the App on GitHub\".",
            registration.page_url()
        );
        outln!("Waiting for GitHub's return (Ctrl-C stops; nothing is written before it).");
        let registered = tokio::select! {
            outcome = registration.finish() => outcome?,
            _ = tokio::signal::ctrl_c() => bail!("stopped before GitHub's return: nothing was written"),
        };
        let owner = registered.owner.as_deref().map(|o| format!(" for {o}")).unwrap_or_default();
        outln!("\nRegistered the GitHub App {:?} (id {}){owner}.", registered.name, registered.app_id);
        outln!(
            "Its private key and webhook secret are in {} (keep it secret; it is never printed).",
            registered.written.dir.display()
        );
        outln!("\nInstall it on your repositories:\n  {}", registered.install_url);
        outln!(
            "\nThen start the App:\n  gatehouse serve --env-file {}",
            shell_word(&args.out.join(credentials::ENV_FILE))
        );
        Ok(ExitCode::SUCCESS)
    })
}

/// A path as one shell word: as is when it is plain, single-quoted otherwise.
fn shell_word(path: &Path) -> String {
    let text = path.display().to_string();
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_alphanumeric() || b"/._-+:@%,".contains(&b)) {
        text
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_quoted_for_the_shell_when_needed() {
        assert_eq!(shell_word(Path::new("gatehouse-credentials/gatehouse.env")), "gatehouse-credentials/gatehouse.env");
        assert_eq!(shell_word(Path::new("my creds/it's.env")), r"'my creds/it'\''s.env'");
    }
}
