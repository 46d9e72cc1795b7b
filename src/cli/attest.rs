//! `gatehouse attest key` and `gatehouse verify`: the public half of the
//! App's attestation key, and whether a checkout's governed documents are
//! the texts that passed the gate.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};

use super::{TextOrJson, emit};
use crate::attestation::verify::{self, Request, Source};
use crate::attestation::{SigningKey, TrustedKey};

#[derive(clap::Args, Debug)]
pub(super) struct KeyArgs {
    /// The Ed25519 private key (PKCS#8 PEM) `serve` signs with.
    #[arg(long, value_name = "FILE", env = "GATEHOUSE_ATTESTATION_KEY_PATH", hide_env_values = true)]
    key_path: PathBuf,
    /// Public keys (PEM) `serve` also trusts, printed after the signing key's.
    #[arg(long, value_name = "FILE", env = "GATEHOUSE_ATTESTATION_TRUSTED_KEYS", hide_env_values = true)]
    trusted_keys: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
pub(super) struct VerifyArgs {
    /// Documents to verify [default: every governed document at HEAD].
    paths: Vec<String>,
    /// The checkout.
    #[arg(long, default_value = ".")]
    repo: PathBuf,
    /// The trusted public keys, PEM (one file may hold several).
    #[arg(long, value_name = "PUB.pem", required = true)]
    key: Vec<PathBuf>,
    /// Where the envelopes are: the App's URL (…/attestations/OWNER/NAME), a
    /// file or a folder of them [default: .git/gatehouse/attestations/].
    #[arg(long, value_name = "URL|FILE")]
    from: Option<String>,
    #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
    format: TextOrJson,
}

pub(super) fn key(args: KeyArgs) -> Result<ExitCode> {
    let pem = std::fs::read_to_string(&args.key_path)
        .with_context(|| format!("cannot read the attestation key {}", args.key_path.display()))?;
    let key = SigningKey::from_pem(&pem).with_context(|| args.key_path.display().to_string())?;
    let mut out = key.public().pem();
    if let Some(path) = &args.trusted_keys {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        for trusted in TrustedKey::all_from_pem(&text).with_context(|| path.display().to_string())? {
            if trusted.keyid() != key.keyid() {
                out.push_str(&trusted.pem());
            }
        }
    }
    emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// The trusted keys of every `--key` file.
pub(crate) fn trusted_keys(files: &[PathBuf]) -> Result<Vec<TrustedKey>> {
    let mut keys = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file).with_context(|| format!("cannot read the key {}", file.display()))?;
        keys.extend(TrustedKey::all_from_pem(&text).with_context(|| file.display().to_string())?);
    }
    Ok(keys)
}

pub(super) fn run(args: VerifyArgs) -> Result<ExitCode> {
    let keys = trusted_keys(&args.key)?;
    let from = args.from.as_deref().map(Source::parse);
    let source = match &from {
        Some(source) => source.clone(),
        None => Source::Path(verify::saved_folder(&args.repo)?),
    };
    let envelopes = match &source {
        // The default folder may not exist yet: no envelope saved.
        Source::Path(path) if from.is_none() && !path.exists() => Vec::new(),
        source => verify::envelopes(source)?,
    };
    let request = Request { repo: args.repo, paths: args.paths, keys };
    let verification = verify::verify(&request, &envelopes)?;
    emit(&match args.format {
        TextOrJson::Text => verification.text(),
        TextOrJson::Json => serde_json::to_string_pretty(&verification.to_json()).expect("plain data") + "\n",
    })?;
    Ok(ExitCode::from(verification.exit_code() as u8))
}
