//! The gate attestation of a merged pull request: an in-toto Statement v1
//! (https://in-toto.io/Statement/v1) whose subjects are the governed
//! documents the pull request changed and whose predicate records the gate
//! they passed (checks, approvals, rule set). Pure: the App reads, calls
//! [`decide`], and signs and writes what it answers; `gatehouse verify`
//! reads statements back with [`Statement`] and answers with [`judge`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::gate::{self, ReviewState};
use crate::plan::{self, Authors, Presence, PullRequestRead};

/// The in-toto Statement layer's `_type`.
pub const STATEMENT_TYPE: &str = "https://in-toto.io/Statement/v1";

/// The DSSE `payloadType` of an in-toto statement.
pub const PAYLOAD_TYPE: &str = "application/vnd.in-toto+json";

/// gatehouse's predicate: the gate a pull request's documents passed
/// (documented in `docs/attestations.md`).
pub const PREDICATE_TYPE: &str = "https://github.com/gatehouse-dev/gatehouse/blob/main/docs/attestations.md#gate-v1";

/// The check run the App writes the signed envelope to, on the merge commit.
pub const ATTESTATION_CHECK: &str = "gatehouse/attestation";

/// DSSE v1's pre-authentication encoding, the bytes a signature signs:
/// `"DSSEv1" SP LEN(type) SP type SP LEN(body) SP body`, lengths in ASCII
/// decimal (written out here from the DSSE protocol's five-line definition,
/// https://github.com/secure-systems-lab/dsse/blob/master/protocol.md).
pub fn pae(payload_type: &str, payload: &[u8]) -> Vec<u8> {
    let mut out = format!("DSSEv1 {} {payload_type} {} ", payload_type.len(), payload.len()).into_bytes();
    out.extend_from_slice(payload);
    out
}

/// An in-toto Statement v1 with gatehouse's predicate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Statement {
    #[serde(rename = "_type")]
    pub statement_type: String,
    pub subject: Vec<Subject>,
    #[serde(rename = "predicateType")]
    pub predicate_type: String,
    pub predicate: Gate,
}

/// A governed document by path and digests: `gitBlob` (git's object id of
/// its bytes) always, `sha256` of the same bytes when they were read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Subject {
    pub name: String,
    pub digest: BTreeMap<String, String>,
}

impl Subject {
    pub fn git_blob(&self) -> Option<&str> {
        self.digest.get("gitBlob").map(String::as_str)
    }
}

/// The predicate: which gate the subjects passed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Gate {
    /// `owner/name`.
    pub repository: String,
    pub pull_request: PullRequestRef,
    /// Each gatehouse check run on the head, with its conclusion.
    pub checks: Vec<CheckResult>,
    pub rules: RuleSet,
    /// The approvals that counted on the head.
    pub approvals: Vec<Approval>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PullRequestRef {
    pub number: u64,
    /// The base branch's tip the gate read its config at.
    pub base: String,
    /// The head commit the checks and approvals are on.
    pub head: String,
    /// The commit the merge made on the base branch.
    pub merge: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckResult {
    pub name: String,
    pub conclusion: String,
}

/// The rules the checks ran: gatehouse's version, and the config's blob at
/// the base when the repository has one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleSet {
    pub gatehouse: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<Subject>,
}

/// One approval that counted: who, when, on which commit, and the content
/// it approved (each governed document's blob id at that commit, what
/// `gatehouse/review` binds approvals to).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Approval {
    pub login: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submitted_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// Path → `{"gitBlob": id}`; empty when the approval was given on the
    /// head with no document compared (the gate's policy names none).
    pub approved: BTreeMap<String, BTreeMap<String, String>>,
}

/// One of gatehouse's check runs on the head, as GitHub shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    pub name: String,
    pub status: String,
    pub conclusion: Option<String>,
}

/// A check that was not green when the pull request merged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Red {
    pub name: String,
    /// Its conclusion, `in progress`, or `no run`.
    pub shown: String,
}

/// A document the pull request changed, at its head.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Document {
    pub path: String,
    pub git_blob: String,
    pub sha256: Option<String>,
}

/// What a merged pull request was, as read after the merge.
#[derive(Clone, Debug)]
pub struct Merged<'a> {
    pub repository: &'a str,
    pub merge: &'a str,
    /// gatehouse's newest run of each name on the head.
    pub runs: &'a [Run],
    /// The governed documents the pull request changed, at its head.
    pub documents: Vec<Document>,
    /// The config at the base, by its blob id.
    pub config: Option<Document>,
    pub read: &'a PullRequestRead,
}

/// What the App does about a merged pull request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Every check and the review gate were green on the head: sign this.
    Attest(Box<Statement>),
    /// It merged past these red checks: no attestation, and the App says so.
    Bypassed(Vec<Red>),
    /// It changed no governed document: nothing to attest.
    NothingGoverned,
}

/// Whether `conclusion` lets a merge through: success, or neutral (a check
/// with nothing to check, a gate that does not apply) or skipped.
fn green(conclusion: &str) -> bool {
    matches!(conclusion, "success" | "neutral" | "skipped")
}

/// The checks the head answers for: those its plan writes (the checks its
/// change concerns and those the base branch requires) and any with a run
/// on the head, in the plan's order, the review gate last. A check the plan
/// leaves out had nothing to say.
fn expected(merged: &Merged) -> Vec<String> {
    let ran = |name: &str| merged.runs.iter().any(|r| r.name == name);
    plan::pull_request(merged.read)
        .checks
        .into_iter()
        .filter(|c| c.presence == Presence::Written || ran(&c.output.name))
        .map(|c| c.output.name)
        .collect()
}

/// The checks of `expected` that were not green on the head.
fn red_checks(expected: &[String], runs: &[Run]) -> Vec<Red> {
    expected
        .iter()
        .filter_map(|name| {
            let shown = match runs.iter().find(|r| &r.name == name) {
                None => "no run".to_string(),
                Some(run) if run.status != "completed" => "in progress".to_string(),
                Some(run) => match run.conclusion.as_deref() {
                    Some(c) if green(c) => return None,
                    Some(c) => c.to_string(),
                    None => "no conclusion".to_string(),
                },
            };
            Some(Red { name: name.clone(), shown })
        })
        .collect()
}

/// Decides the attestation of a merged pull request.
pub fn decide(merged: &Merged) -> Decision {
    if merged.documents.is_empty() {
        return Decision::NothingGoverned;
    }
    let expected = expected(merged);
    let red = red_checks(&expected, merged.runs);
    if !red.is_empty() {
        return Decision::Bypassed(red);
    }
    Decision::Attest(Box::new(statement(merged, &expected)))
}

fn digest_of(document: &Document) -> BTreeMap<String, String> {
    let mut digest = BTreeMap::from([("gitBlob".to_string(), document.git_blob.clone())]);
    if let Some(sha256) = &document.sha256 {
        digest.insert("sha256".into(), sha256.clone());
    }
    digest
}

fn statement(merged: &Merged, expected: &[String]) -> Statement {
    let read = merged.read;
    let subject = merged.documents.iter().map(|d| Subject { name: d.path.clone(), digest: digest_of(d) }).collect();
    let checks = expected
        .iter()
        .filter_map(|name| merged.runs.iter().find(|r| &r.name == name))
        .map(|r| CheckResult { name: r.name.clone(), conclusion: r.conclusion.clone().unwrap_or_default() })
        .collect();
    let config = merged.config.as_ref().map(|c| Subject { name: c.path.clone(), digest: digest_of(c) });
    Statement {
        statement_type: STATEMENT_TYPE.into(),
        subject,
        predicate_type: PREDICATE_TYPE.into(),
        predicate: Gate {
            repository: merged.repository.to_string(),
            pull_request: PullRequestRef {
                number: read.number,
                base: read.base_sha.clone(),
                head: read.head.clone(),
                merge: merged.merge.to_string(),
            },
            checks,
            rules: RuleSet { gatehouse: env!("CARGO_PKG_VERSION").into(), config },
            approvals: approvals(read, &merged.documents),
        },
    }
}

/// The approvals that counted on the head, each with the documents' blob
/// ids at the commit it was given on: for one on the head, every document
/// at the head; for one on an earlier commit (it counts because the
/// documents the gate reads did not change since), those documents there.
fn approvals(read: &PullRequestRead, at_head: &[Document]) -> Vec<Approval> {
    let (Some(policy), Some(gate_read)) = (&read.changes.config.review, &read.gate) else { return Vec::new() };
    let authors = match &gate_read.authors {
        Authors::Read(authors) => authors.as_slice(),
        Authors::Capped(_) => &[],
    };
    let outcome = gate::evaluate_contents(policy, &gate_read.reviews, authors, &read.head, &gate_read.contents);
    let contents = &gate_read.contents;
    outcome
        .standings
        .iter()
        .filter(|s| s.counts)
        .map(|standing| {
            let review = gate_read
                .reviews
                .iter()
                .filter(|r| gate::same_login(&r.login, &standing.login) && r.state == ReviewState::Approved)
                .max_by(|a, b| a.submitted_at.cmp(&b.submitted_at));
            let git_blob = |blob: &str| BTreeMap::from([("gitBlob".to_string(), blob.to_string())]);
            let earlier = standing.commit.as_deref().filter(|c| !gate::same_commit(c, &read.head));
            let approved = match earlier.and_then(|c| contents.approved.get(c)) {
                Some(at) => {
                    at.iter().filter_map(|(path, blob)| blob.as_deref().map(|b| (path.clone(), git_blob(b)))).collect()
                }
                None => at_head.iter().map(|d| (d.path.clone(), git_blob(&d.git_blob))).collect(),
            };
            Approval {
                login: standing.login.clone(),
                submitted_at: review.and_then(|r| r.submitted_at.clone()),
                commit: standing.commit.clone(),
                approved,
            }
        })
        .collect()
}

/// What `gatehouse verify` answers for one document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer<'s> {
    /// A statement signed by a trusted key covers exactly this blob.
    Verified(&'s Statement),
    /// No statement names this path.
    Unattested,
    /// A trusted statement names this path, for another blob: the newest
    /// such (by pull request number).
    ChangedAfterGate { statement: &'s Statement, gated_blob: String },
    /// Only a statement whose signature no trusted key verifies claims this
    /// blob or path.
    BadSignature,
}

/// Judges the document at `path` with blob id `blob` against the statements
/// whose signature verified (`trusted`) and those whose did not (`bad`).
pub fn judge<'s>(path: &str, blob: &str, trusted: &'s [Statement], bad: &[Statement]) -> Answer<'s> {
    let names = |s: &Statement| s.subject.iter().any(|x| x.name == path);
    let covers = |s: &Statement| s.subject.iter().any(|x| x.name == path && x.git_blob() == Some(blob));
    if let Some(statement) = trusted.iter().filter(|s| covers(s)).max_by_key(|s| s.predicate.pull_request.number) {
        return Answer::Verified(statement);
    }
    if bad.iter().any(names) {
        return Answer::BadSignature;
    }
    let newest = trusted.iter().filter(|s| names(s)).max_by_key(|s| s.predicate.pull_request.number);
    match newest {
        Some(statement) => {
            let gated = statement.subject.iter().find(|x| x.name == path).and_then(Subject::git_blob);
            Answer::ChangedAfterGate { statement, gated_blob: gated.unwrap_or_default().to_string() }
        }
        None => Answer::Unattested,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ChangeSet;
    use crate::plan::RequiredChecks;

    fn read() -> PullRequestRead {
        PullRequestRead {
            number: 7,
            base_sha: "base0000".into(),
            head: "head0000".into(),
            draft: false,
            changes: ChangeSet::default(),
            files: Vec::new(),
            gate: None,
            review: Default::default(),
            dependencies: Vec::new(),
            previous: None,
            required: RequiredChecks::Read(Default::default()),
        }
    }

    fn run(name: &str, conclusion: &str) -> Run {
        Run { name: name.into(), status: "completed".into(), conclusion: Some(conclusion.into()) }
    }

    fn document() -> Document {
        Document { path: "dark-factory/briefs/SWARM-AR-x.md".into(), git_blob: "b1".into(), sha256: None }
    }

    #[test]
    fn pae_is_dssev1() {
        assert_eq!(
            pae("http://example.com/HelloWorld", b"hello world"),
            b"DSSEv1 29 http://example.com/HelloWorld 11 hello world"
        );
    }

    #[test]
    fn green_heads_are_attested_and_red_ones_are_bypasses() {
        let read = read();
        let runs = vec![run("gatehouse/briefs", "success"), run("gatehouse/review", "neutral")];
        let merged = Merged {
            repository: "acme/docs",
            merge: "merge000",
            runs: &runs,
            documents: vec![document()],
            config: None,
            read: &read,
        };
        let Decision::Attest(statement) = decide(&merged) else { panic!("green is attested") };
        assert_eq!(statement.subject[0].git_blob(), Some("b1"));
        assert_eq!(statement.predicate.pull_request.merge, "merge000");
        assert_eq!(statement.predicate.checks.len(), 2);
        let red = vec![run("gatehouse/briefs", "failure")];
        let bypass = Merged { runs: &red, ..merged.clone() };
        let failed = Red { name: "gatehouse/briefs".into(), shown: "failure".into() };
        assert_eq!(decide(&bypass), Decision::Bypassed(vec![failed.clone()]), "a check left out had nothing to say");
        // A check the base branch requires and the head has no run of is not green.
        let mut required = read.clone();
        required.required = RequiredChecks::Read([plan::REVIEW_CHECK.to_string()].into());
        let unanswered = Merged { read: &required, ..bypass.clone() };
        let no_run = Red { name: plan::REVIEW_CHECK.into(), shown: "no run".into() };
        assert_eq!(decide(&unanswered), Decision::Bypassed(vec![failed, no_run]));
        assert_eq!(decide(&Merged { documents: Vec::new(), ..merged }), Decision::NothingGoverned);
    }

    #[test]
    fn judging_prefers_a_trusted_exact_blob() {
        let read = read();
        let runs = vec![run("gatehouse/briefs", "success")];
        let merged = Merged {
            repository: "acme/docs",
            merge: "m",
            runs: &runs,
            documents: vec![document()],
            config: None,
            read: &read,
        };
        let Decision::Attest(statement) = decide(&merged) else { panic!() };
        let trusted = vec![*statement];
        let path = "dark-factory/briefs/SWARM-AR-x.md";
        assert!(matches!(judge(path, "b1", &trusted, &[]), Answer::Verified(_)));
        assert!(
            matches!(judge(path, "b2", &trusted, &[]), Answer::ChangedAfterGate { gated_blob, .. } if gated_blob == "b1")
        );
        assert_eq!(judge("other.md", "b1", &trusted, &[]), Answer::Unattested);
        assert_eq!(judge(path, "b2", &[], &trusted), Answer::BadSignature);
    }
}
