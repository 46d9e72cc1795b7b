//! `gatehouse serve`'s command line. Each flag falls back to `--env-file`,
//! then to its environment variable (clap's `env`); secrets come from the env
//! file or the environment only. The command line is read twice: first
//! alone, to find the env file, then with the file's variables standing in
//! front of the environment.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::parser::ValueSource;
use clap::{CommandFactory, FromArgMatches};

use super::{Cli, Command};
use crate::app::{AppConfig, Settings, env_file};

const PRIVATE_KEY: &str = "GATEHOUSE_PRIVATE_KEY";
const PRIVATE_KEY_PATH: &str = "GATEHOUSE_PRIVATE_KEY_PATH";
const WEBHOOK_SECRET: &str = "GATEHOUSE_WEBHOOK_SECRET";

#[derive(clap::Args, Debug)]
pub(super) struct ServeArgs {
    /// The App's numeric id.
    #[arg(long, env = "GATEHOUSE_APP_ID", hide_env_values = true)]
    app_id: Option<u64>,
    /// A file holding the App's private key, PEM.
    #[arg(long, value_name = "FILE", env = PRIVATE_KEY_PATH, hide_env_values = true)]
    private_key_path: Option<PathBuf>,
    /// KEY=VALUE lines standing in for the environment, such as the
    /// gatehouse.env `gatehouse register` writes. They win over the environment.
    #[arg(long, value_name = "FILE")]
    env_file: Option<PathBuf>,
    #[command(flatten)]
    settings: Settings,
    /// The env file's variables (none without one).
    #[arg(skip)]
    file: HashMap<String, String>,
    /// `--private-key-path` was given on the command line.
    #[arg(skip)]
    key_path_flag: bool,
}

/// Reads the command line `args`; a `clap::Error` is a usage error (or help).
pub(super) fn parse(args: Vec<OsString>) -> Result<Cli> {
    let alone = Cli::command().mut_subcommand("serve", |serve| fallbacks(serve, None));
    let first = match alone.try_get_matches_from(&args) {
        Ok(first) => first,
        // Reported as the whole command reports it: its help names the variables.
        Err(error) => {
            return Err(with_fallbacks(&HashMap::new()).try_get_matches_from(&args).err().unwrap_or(error).into());
        }
    };
    let Some(("serve", serve)) = first.subcommand() else { return Ok(Cli::from_arg_matches(&first)?) };
    let file = serve.get_one::<PathBuf>("env_file").map(|path| env_file::read(path)).transpose()?.unwrap_or_default();
    let matches = with_fallbacks(&file).try_get_matches_from(&args)?;
    let mut cli = Cli::from_arg_matches(&matches)?;
    if let Command::Serve(serve) = &mut cli.command {
        let source = matches.subcommand_matches("serve").and_then(|m| m.value_source("private_key_path"));
        serve.key_path_flag = source == Some(ValueSource::CommandLine);
        serve.file = file;
    }
    Ok(cli)
}

fn with_fallbacks(file: &HashMap<String, String>) -> clap::Command {
    Cli::command().mut_subcommand("serve", |serve| fallbacks(serve, Some(file)))
}

/// `serve` with each flag falling back to `file`, then to its variable: a
/// variable the file sets becomes the flag's default instead of the
/// environment's, and one set blank (in the file or the environment) counts
/// as not set. `None`: flags read nothing but the command line.
fn fallbacks(serve: clap::Command, file: Option<&HashMap<String, String>>) -> clap::Command {
    let changes: Vec<(clap::Id, Option<String>)> = serve
        .get_arguments()
        .filter_map(|arg| {
            let name = arg.get_env()?.to_str()?;
            let default = match file {
                None => None,
                Some(file) => match file.get(name) {
                    Some(value) => Some(value.clone()).filter(|v| !v.trim().is_empty()),
                    None if std::env::var(name).is_ok_and(|v| v.trim().is_empty()) => None,
                    None => return None,
                },
            };
            Some((arg.get_id().clone(), default))
        })
        .collect();
    changes.into_iter().fold(serve, |serve, (id, default)| {
        serve.mut_arg(id, |arg| match default {
            Some(value) => arg.env(None::<&str>).default_value(value),
            None => arg.env(None::<&str>),
        })
    })
}

/// `gatehouse serve`.
pub(super) fn run(args: ServeArgs) -> Result<ExitCode> {
    crate::app::serve(config(args)?)?;
    Ok(ExitCode::SUCCESS)
}

/// The App configuration `serve` runs with: a key file named by one layer
/// (flags, env file, environment) wins over a PEM given further down. Every
/// setting that is wrong is named at once, before anything is opened: the
/// identity settings missing, with where to get them; then a key that
/// cannot be read or cannot sign, and a URL of the wrong kind, each with
/// its variable, its file and the fix.
pub(super) fn config(args: ServeArgs) -> Result<AppConfig> {
    let pem = if args.key_path_flag {
        None
    } else if args.file.contains_key(PRIVATE_KEY_PATH) {
        in_file(&args.file, PRIVATE_KEY)
    } else {
        in_file_or_env(&args.file, PRIVATE_KEY)
    };
    let secret = in_file_or_env(&args.file, WEBHOOK_SECRET);
    let mut missing = Vec::new();
    if args.app_id.is_none() {
        missing.push("GATEHOUSE_APP_ID (or --app-id): the App's numeric id");
    }
    if pem.is_none() && args.private_key_path.is_none() {
        missing.push(
            "GATEHOUSE_PRIVATE_KEY (the PEM itself) or GATEHOUSE_PRIVATE_KEY_PATH (or --private-key-path): the App's \
             private key",
        );
    }
    if secret.as_deref().is_none_or(|s| s.split(',').all(|p| p.trim().is_empty())) {
        missing.push("GATEHOUSE_WEBHOOK_SECRET: the App's webhook secret (comma-separated to rotate)");
    }
    let Some(app_id) = args.app_id.filter(|_| missing.is_empty()) else {
        anyhow::bail!(
            "gatehouse serve needs the App's identity; not set:\n{}\n\n`gatehouse register` registers an App on GitHub \
             and writes all three to gatehouse-credentials/gatehouse.env; then run `gatehouse serve --env-file \
             gatehouse-credentials/gatehouse.env`. Each can also be given in the environment or an --env-file.",
            missing.iter().map(|m| format!("  - {m}")).collect::<Vec<_>>().join("\n")
        );
    };
    let mut wrong = Vec::new();
    let key_source = match &args.private_key_path {
        Some(path) if pem.is_none() => {
            format!("{PRIVATE_KEY_PATH} (or --private-key-path), the file {}", path.display())
        }
        _ => PRIVATE_KEY.to_string(),
    };
    let key = match crate::app::private_key(pem, args.private_key_path.clone()) {
        Ok(key) => match crate::github::AppCredentials::new(app_id, key.expose().as_bytes()) {
            Ok(_) => Some(key),
            Err(err) => {
                wrong.push(format!("{key_source}: {err:#}"));
                None
            }
        },
        Err(err) => {
            wrong.push(format!("{key_source}: {err:#}"));
            None
        }
    };
    let settings = &args.settings;
    if let Some(url) = &settings.database_url
        && !["sqlite://", "postgres://", "postgresql://"].iter().any(|scheme| url.starts_with(scheme))
    {
        wrong.push(format!(
            "GATEHOUSE_DATABASE_URL (or --database-url) {:?} is neither sqlite://PATH nor postgres://USER@HOST/DB",
            crate::store::redact_url(url)
        ));
    }
    if let Some(url) = &settings.github_api_url
        && !(url.starts_with("https://") || url.starts_with("http://"))
    {
        wrong.push(format!(
            "GATEHOUSE_GITHUB_API_URL (or --github-api-url) {url:?} is not an http(s) URL: https://api.github.com, or \
             https://HOST/api/v3 for GitHub Enterprise Server"
        ));
    }
    let attestation = settings.attestation_keys().unwrap_or_else(|err| {
        wrong.push(err);
        Default::default()
    });
    let (Some(key), true) = (key, wrong.is_empty()) else {
        anyhow::bail!(
            "gatehouse serve cannot start; wrong:\n{}",
            wrong.iter().map(|w| format!("  - {w}")).collect::<Vec<_>>().join("\n")
        );
    };
    let secrets = crate::app::webhook_secrets(secret)?;
    let mut config = AppConfig::new(app_id, key, secrets);
    settings.apply(&mut config);
    config.attestation = attestation;
    Ok(config)
}

/// A variable of the env file, unless blank.
fn in_file(file: &HashMap<String, String>, name: &str) -> Option<String> {
    file.get(name).filter(|v| !v.trim().is_empty()).cloned()
}

/// A variable of the env file, else of the environment, unless blank.
fn in_file_or_env(file: &HashMap<String, String>, name: &str) -> Option<String> {
    match file.get(name) {
        Some(_) => in_file(file, name),
        None => std::env::var(name).ok().filter(|v| !v.trim().is_empty()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn serve_args(args: &[&str]) -> ServeArgs {
        let args = ["gatehouse", "serve"].iter().chain(args).map(OsString::from).collect();
        match parse(args).unwrap().command {
            Command::Serve(serve) => *serve,
            other => panic!("parsed as {other:?}"),
        }
    }

    #[test]
    fn flags_win_over_the_env_file_which_wins_over_the_environment() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gatehouse.env");
        std::fs::write(&path, "GATEHOUSE_WORKERS=5\nGATEHOUSE_BIND=127.0.0.1:9\nGATEHOUSE_MAX_CONNECTIONS=\n").unwrap();
        let path = path.to_str().unwrap();
        let serve = serve_args(&["--env-file", path, "--workers", "3", "--private-key-path", "key.pem"]);
        assert_eq!(serve.settings.workers, Some(3), "the flag");
        assert_eq!(serve.settings.bind, Some("127.0.0.1:9".parse().unwrap()), "the file");
        assert_eq!(serve.settings.max_connections, None, "blank in the file: not set");
        assert!(serve.key_path_flag);
        assert_eq!(serve.file["GATEHOUSE_WORKERS"], "5");
        let serve = serve_args(&["--env-file", path]);
        assert_eq!(serve.settings.workers, Some(5));
        assert!(!serve.key_path_flag);
    }

    #[test]
    fn every_missing_identity_setting_is_named_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("empty.env");
        let blank =
            "GATEHOUSE_APP_ID=\nGATEHOUSE_PRIVATE_KEY=\nGATEHOUSE_PRIVATE_KEY_PATH=\nGATEHOUSE_WEBHOOK_SECRET=\n";
        std::fs::write(&path, blank).unwrap();
        let error = config(serve_args(&["--env-file", path.to_str().unwrap()])).unwrap_err().to_string();
        for setting in
            ["GATEHOUSE_APP_ID", "GATEHOUSE_PRIVATE_KEY_PATH", "GATEHOUSE_WEBHOOK_SECRET", "gatehouse register"]
        {
            assert!(error.contains(setting), "{setting} named: {error}");
        }
        std::fs::write(&path, "GATEHOUSE_APP_ID=7\nGATEHOUSE_PRIVATE_KEY=\nGATEHOUSE_WEBHOOK_SECRET=s\n").unwrap();
        let error = config(serve_args(&["--env-file", path.to_str().unwrap(), "--private-key-path", "k.pem"]))
            .unwrap_err()
            .to_string();
        assert!(error.contains("k.pem") && !error.contains("GATEHOUSE_APP_ID"), "only the unreadable key: {error}");
    }

    #[test]
    fn a_bad_value_in_the_env_file_is_a_usage_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gatehouse.env");
        std::fs::write(&path, "GATEHOUSE_WORKERS=many\n").unwrap();
        let args = ["gatehouse", "serve", "--env-file", path.to_str().unwrap()].map(OsString::from).to_vec();
        let error = parse(args).unwrap_err();
        assert!(error.downcast_ref::<clap::Error>().is_some_and(|e| e.to_string().contains("many")), "{error:#}");
    }
}
