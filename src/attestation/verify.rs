//! `gatehouse verify`: whether the governed documents at a checkout's HEAD
//! are the texts that passed the gate. Each document's blob id is judged
//! (`attest::judge`) against the statements of the envelopes the trusted
//! keys verify; the envelopes come from a file or folder saved beside the
//! clone (by default `.git/gatehouse/attestations/`) or from the App.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use super::{Envelope, Opened, TrustedKey};
use crate::attest::{Answer, Statement, judge};
use crate::source::git::Checkout;

/// Where the folder of saved envelopes sits in a clone's git directory.
pub const SAVED: &str = "gatehouse/attestations";

/// Exit status when every document is verified.
pub const EXIT_VERIFIED: i32 = 0;
/// Exit status when a document is unattested or changed after the gate.
pub const EXIT_UNGATED: i32 = 1;
/// Exit status when verification cannot run.
pub const EXIT_ERROR: i32 = 2;
/// Exit status when an envelope claiming a document has a bad signature.
pub const EXIT_BAD_SIGNATURE: i32 = 3;

/// Where envelopes are read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// The App's `GET /attestations/{owner}/{name}` (any http(s) URL
    /// answering a JSON array of envelopes).
    Url(String),
    /// A file holding an envelope or an array of them, or a folder of such
    /// `.json` files.
    Path(PathBuf),
}

impl Source {
    pub fn parse(value: &str) -> Source {
        if value.starts_with("http://") || value.starts_with("https://") {
            Source::Url(value.to_string())
        } else {
            Source::Path(PathBuf::from(value))
        }
    }
}

/// What to verify.
#[derive(Clone, Debug)]
pub struct Request {
    /// A folder of the checkout.
    pub repo: PathBuf,
    /// Documents to verify, relative to the checkout's root; empty: every
    /// governed document at HEAD.
    pub paths: Vec<String>,
    pub keys: Vec<TrustedKey>,
}

/// One document's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub path: String,
    pub blob: String,
    pub status: Status,
    /// What `--format text` shows after the status.
    pub message: String,
    pub statement: Option<Statement>,
    pub keyid: Option<String>,
    pub gated_blob: Option<String>,
    pub diff: Option<String>,
    pub last_commit: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Verified,
    Unattested,
    ChangedAfterGate,
    BadSignature,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Verified => "verified",
            Status::Unattested => "unattested",
            Status::ChangedAfterGate => "changed_after_gate",
            Status::BadSignature => "bad_signature",
        }
    }

    fn shown(self) -> &'static str {
        match self {
            Status::Verified => "verified",
            Status::Unattested => "unattested",
            Status::ChangedAfterGate => "changed after the gate",
            Status::BadSignature => "bad signature",
        }
    }
}

/// Every document's answer, in path order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verification {
    pub verdicts: Vec<Verdict>,
}

/// Reads the envelopes of `source`.
pub fn envelopes(source: &Source) -> Result<Vec<Envelope>> {
    match source {
        Source::Url(url) => fetch(url),
        Source::Path(path) if path.is_dir() => {
            let mut files: Vec<PathBuf> = std::fs::read_dir(path)
                .with_context(|| format!("cannot list {}", path.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect();
            files.sort();
            let mut out = Vec::new();
            for file in files {
                out.extend(read_file(&file)?);
            }
            Ok(out)
        }
        Source::Path(path) => read_file(path),
    }
}

fn read_file(path: &Path) -> Result<Vec<Envelope>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    parse(&text).with_context(|| format!("{} holds no DSSE envelope", path.display()))
}

/// An envelope, or a JSON array of them.
fn parse(text: &str) -> Result<Vec<Envelope>> {
    let value: Value = serde_json::from_str(text).context("not JSON")?;
    Ok(match value {
        Value::Array(items) => items.into_iter().map(serde_json::from_value).collect::<Result<_, _>>()?,
        one => vec![serde_json::from_value(one)?],
    })
}

/// Fetches the envelopes the App serves at `url`, on a thread of its own
/// (callers may or may not run on an async runtime).
fn fetch(url: &str) -> Result<Vec<Envelope>> {
    let url = url.to_string();
    let fetched = std::thread::spawn(move || -> Result<String> {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        runtime.block_on(async {
            let client = reqwest::Client::builder().timeout(std::time::Duration::from_secs(30)).build()?;
            let response = client.get(&url).send().await.with_context(|| format!("cannot reach {url}"))?;
            let status = response.status();
            if !status.is_success() {
                bail!("{url} answered {status}");
            }
            Ok(response.text().await?)
        })
    });
    let text = fetched.join().map_err(|_| anyhow::anyhow!("the fetch stopped"))??;
    parse(&text).context("the App's answer holds no DSSE envelope")
}

/// Verifies the request's documents against `envelopes`.
pub fn verify(request: &Request, envelopes: &[Envelope]) -> Result<Verification> {
    let checkout = Checkout::find(&request.repo)?
        .with_context(|| format!("{} is not in a git checkout", request.repo.display()))?;
    let (mut trusted, mut keyids, mut bad) = (Vec::new(), Vec::new(), Vec::new());
    for envelope in envelopes {
        match envelope.open(&request.keys) {
            Opened::Trusted { statement, keyid } => {
                trusted.push(statement);
                keyids.push(keyid);
            }
            Opened::Bad { statement: Some(statement), .. } => bad.push(statement),
            Opened::Bad { statement: None, .. } => {}
        }
    }
    let tree = checkout.tree("HEAD")?;
    let wanted: Vec<(String, String)> = if request.paths.is_empty() {
        let config = tree
            .iter()
            .find(|e| e.path == crate::config::CONFIG_PATH)
            .and_then(|e| checkout.blob(&e.blob))
            .map(|bytes| crate::rules::read_config(&String::from_utf8_lossy(&bytes)).0)
            .unwrap_or_default();
        tree.iter().filter(|e| config.governs(&e.path)).map(|e| (e.path.clone(), e.blob.clone())).collect()
    } else {
        let mut wanted = Vec::new();
        for path in &request.paths {
            let Some(entry) = tree.iter().find(|e| &e.path == path) else {
                bail!("`{path}` is not a file at HEAD of {}", checkout.root().display());
            };
            wanted.push((entry.path.clone(), entry.blob.clone()));
        }
        wanted
    };
    let verdicts =
        wanted.into_iter().map(|(path, blob)| verdict(&checkout, path, blob, &trusted, &keyids, &bad)).collect();
    Ok(Verification { verdicts })
}

fn verdict(
    checkout: &Checkout,
    path: String,
    blob: String,
    trusted: &[Statement],
    keyids: &[String],
    bad: &[Statement],
) -> Verdict {
    let mut v = Verdict {
        path,
        blob,
        status: Status::Unattested,
        message: String::new(),
        statement: None,
        keyid: None,
        gated_blob: None,
        diff: None,
        last_commit: None,
    };
    match judge(&v.path, &v.blob, trusted, bad) {
        Answer::Verified(statement) => {
            let at = trusted.iter().position(|s| std::ptr::eq(s, statement));
            v.keyid = at.map(|i| keyids[i].clone());
            v.status = Status::Verified;
            v.message = format!("gated in {}, {}", gated_in(statement), approved_by(statement));
            v.statement = Some(statement.clone());
        }
        Answer::Unattested => {
            v.last_commit = checkout.last_commit(&v.path);
            v.message = match &v.last_commit {
                Some(commit) => format!("no attestation names it; last changed by commit {commit}"),
                None => "no attestation names it".to_string(),
            };
        }
        Answer::ChangedAfterGate { statement, gated_blob } => {
            v.status = Status::ChangedAfterGate;
            v.diff = diff(checkout, &v.path, &gated_blob, &v.blob);
            let no_diff = if v.diff.is_none() { " (the gated text is not in this clone: no diff)" } else { "" };
            v.message = format!(
                "gated in {} as blob {}, HEAD has blob {}{no_diff}",
                gated_in(statement),
                short(&gated_blob),
                short(&v.blob)
            );
            v.gated_blob = Some(gated_blob);
            v.statement = Some(statement.clone());
            v.last_commit = checkout.last_commit(&v.path);
        }
        Answer::BadSignature => {
            v.status = Status::BadSignature;
            v.message = "an attestation names it, but no trusted key verifies its signature".into();
        }
    }
    v
}

fn short(sha: &str) -> &str {
    &sha[..sha.len().min(7)]
}

/// "#12 (merge 1a2b3c4)".
fn gated_in(statement: &Statement) -> String {
    let pr = &statement.predicate.pull_request;
    format!("#{} (merge {})", pr.number, short(&pr.merge))
}

/// "approved by lin, priya", or that the gate asked for no approval.
fn approved_by(statement: &Statement) -> String {
    let logins: Vec<&str> = statement.predicate.approvals.iter().map(|a| a.login.as_str()).collect();
    if logins.is_empty() { "no approval required".to_string() } else { format!("approved by {}", logins.join(", ")) }
}

/// The unified diff from the gated text to HEAD's, when git holds both.
fn diff(checkout: &Checkout, path: &str, gated: &str, head: &str) -> Option<String> {
    let before = checkout.blob(gated)?;
    let after = checkout.blob(head)?;
    let (before, after) = (String::from_utf8_lossy(&before), String::from_utf8_lossy(&after));
    let diff = similar::TextDiff::from_lines(before.as_ref(), after.as_ref());
    let gated_name = format!("a/{path} (gated, blob {})", short(gated));
    let head_name = format!("b/{path} (HEAD, blob {})", short(head));
    Some(diff.unified_diff().context_radius(2).header(&gated_name, &head_name).to_string())
}

impl Verification {
    fn count(&self, status: Status) -> usize {
        self.verdicts.iter().filter(|v| v.status == status).count()
    }

    /// 0 every document verified, 1 one is unattested or changed after the
    /// gate, 3 an attestation naming one has a bad signature.
    pub fn exit_code(&self) -> i32 {
        if self.count(Status::BadSignature) > 0 {
            EXIT_BAD_SIGNATURE
        } else if self.verdicts.iter().all(|v| v.status == Status::Verified) {
            EXIT_VERIFIED
        } else {
            EXIT_UNGATED
        }
    }

    /// The JSON `--format json` prints (`schemas/verify.schema.json`).
    pub fn to_json(&self) -> Value {
        let documents: Vec<Value> = self
            .verdicts
            .iter()
            .map(|v| {
                let mut doc =
                    json!({ "path": v.path, "blob": v.blob, "status": v.status.name(), "message": v.message });
                if let Some(statement) = &v.statement {
                    doc["pull_request"] = serde_json::to_value(&statement.predicate.pull_request).expect("plain data");
                    doc["approvals"] = serde_json::to_value(&statement.predicate.approvals).expect("plain data");
                }
                for (key, value) in [
                    ("keyid", &v.keyid),
                    ("gated_blob", &v.gated_blob),
                    ("diff", &v.diff),
                    ("last_commit", &v.last_commit),
                ] {
                    if let Some(value) = value {
                        doc[key] = json!(value);
                    }
                }
                doc
            })
            .collect();
        json!({
            "version": 1,
            "documents": documents,
            "counts": {
                "verified": self.count(Status::Verified),
                "unattested": self.count(Status::Unattested),
                "changed_after_gate": self.count(Status::ChangedAfterGate),
                "bad_signature": self.count(Status::BadSignature),
            },
        })
    }

    /// One line per document, each changed one followed by its diff.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for v in &self.verdicts {
            out.push_str(&format!("{:<22} {}  {}\n", v.status.shown(), v.path, v.message));
            if let Some(diff) = &v.diff {
                for line in diff.lines() {
                    out.push_str(&format!("    {line}\n"));
                }
            }
        }
        out.push_str(&format!(
            "{} verified, {} unattested, {} changed after the gate, {} bad signature\n",
            self.count(Status::Verified),
            self.count(Status::Unattested),
            self.count(Status::ChangedAfterGate),
            self.count(Status::BadSignature)
        ));
        out
    }
}

/// The default folder of saved envelopes for the checkout holding `repo`.
pub fn saved_folder(repo: &Path) -> Result<PathBuf> {
    let checkout = Checkout::find(repo)?.with_context(|| format!("{} is not in a git checkout", repo.display()))?;
    Ok(checkout.git_dir()?.join(SAVED))
}
