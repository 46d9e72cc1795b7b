//! `gatehouse verify` on a clone of the demo repository: three briefs
//! answer `verified` (an attestation covers its blob), `changed after the
//! gate` (an attestation covers an earlier blob; the diff shows the edit made
//! on main) and `unattested` (none names it; the commit that last changed it
//! is named), from envelopes saved in the clone or named with `--from`; a
//! tampered envelope and an untrusted key are `bad signature`; several
//! trusted keys rotate. `fixtures/attest/demo-envelopes.json`, which the
//! README's tour verifies, is what the fixture key signs today
//! (`BLESS_FIXTURES=1` writes it again).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use base64::Engine;
use gatehouse::attest::{Approval, CheckResult, Gate, PREDICATE_TYPE, PullRequestRef, RuleSet, STATEMENT_TYPE};
use gatehouse::attest::{Statement, Subject};
use gatehouse::attestation::{Envelope, SigningKey};
use gatehouse::schema::{Kind, schema};
use serde_json::Value;

const AP: &str = "dark-factory/briefs/SWARM-AP-buzzy-features.md";
const AQ: &str = "dark-factory/briefs/SWARM-AQ-manifest-tools.md";
const AR: &str = "dark-factory/briefs/SWARM-AR-pg-backup.md";

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn key(name: &str) -> SigningKey {
    SigningKey::from_pem(&std::fs::read_to_string(manifest().join("fixtures/attest").join(name)).unwrap()).unwrap()
}

fn public(name: &str) -> PathBuf {
    manifest().join("fixtures/attest").join(name)
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=Lin", "-c", "user.email=lin@example.com"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// git's blob id of `text` (`git hash-object --stdin`).
fn blob_id(text: &[u8]) -> String {
    use std::io::Write;
    let mut child = Command::new("git")
        .args(["hash-object", "--stdin"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(text).unwrap();
    String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap().trim().to_string()
}

/// A commit id standing for `what`.
fn commit_id(what: &str) -> String {
    hex::encode(<sha2::Sha256 as sha2::Digest>::digest(what.as_bytes()))[..40].to_string()
}

/// The statement of PR `number` merging `documents` (path, blob), approved
/// by Lin and Priya.
fn statement(number: u64, documents: &[(&str, String)]) -> Statement {
    let git_blob = |b: &str| BTreeMap::from([("gitBlob".to_string(), b.to_string())]);
    let approved: BTreeMap<String, BTreeMap<String, String>> =
        documents.iter().map(|(p, b)| (p.to_string(), git_blob(b))).collect();
    let head = commit_id(&format!("head of #{number}"));
    let approval = |login: &str| Approval {
        login: login.into(),
        submitted_at: Some("2026-11-30T10:00:00Z".into()),
        commit: Some(head.clone()),
        approved: approved.clone(),
    };
    Statement {
        statement_type: STATEMENT_TYPE.into(),
        subject: documents.iter().map(|(p, b)| Subject { name: p.to_string(), digest: git_blob(b) }).collect(),
        predicate_type: PREDICATE_TYPE.into(),
        predicate: Gate {
            repository: "gyrum-labs/dark-factory".into(),
            pull_request: PullRequestRef {
                number,
                base: commit_id(&format!("base of #{number}")),
                head: head.clone(),
                merge: commit_id(&format!("merge of #{number}")),
            },
            checks: vec![
                CheckResult { name: "gatehouse/briefs".into(), conclusion: "success".into() },
                CheckResult { name: "gatehouse/review".into(), conclusion: "success".into() },
            ],
            rules: RuleSet { gatehouse: "0.1.0".into(), config: None },
            approvals: vec![approval("gyrum-priya"), approval("gyrum-lin")],
        },
    }
}

/// The demo repository committed as `main`, then the manifest brief edited
/// on main after its merge.
fn demo_clone(dir: &Path) -> PathBuf {
    let clone = dir.join("demo-repo");
    copy_dir(&manifest().join("fixtures/demo-repo"), &clone);
    git(&clone, &["init", "-q", "-b", "main"]);
    git(&clone, &["add", "-A"]);
    git(&clone, &["commit", "-qm", "Merge pull request #41"]);
    clone
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn demo_text(path: &str) -> Vec<u8> {
    std::fs::read(manifest().join("fixtures/demo-repo").join(path)).unwrap()
}

/// PR #41's statement: AP and AQ as the demo has them.
fn demo_statement() -> Statement {
    statement(41, &[(AP, blob_id(&demo_text(AP))), (AQ, blob_id(&demo_text(AQ)))])
}

fn verify(clone: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gatehouse")).current_dir(clone).arg("verify").args(args).output().unwrap()
}

fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

fn statuses(report: &Value) -> Vec<(String, String)> {
    let docs = report["documents"].as_array().unwrap();
    docs.iter().map(|d| (d["path"].as_str().unwrap().into(), d["status"].as_str().unwrap().into())).collect()
}

fn save(clone: &Path, envelopes: &[Envelope]) {
    let folder = clone.join(".git/gatehouse/attestations");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("dark-factory.json"), serde_json::to_string_pretty(envelopes).unwrap()).unwrap();
}

#[test]
fn three_briefs_answer_verified_changed_after_the_gate_and_unattested() {
    let dir = tempfile::tempdir().unwrap();
    let clone = demo_clone(dir.path());
    let edited = format!("{}\nAlso delete the old manifests.\n", String::from_utf8(demo_text(AQ)).unwrap());
    std::fs::write(clone.join(AQ), &edited).unwrap();
    git(&clone, &["commit", "-qam", "Widen the manifest brief on main"]);
    save(&clone, &[key("signing-key.pem").sign(&demo_statement())]);

    let key_file = public("signing-key.pub.pem");
    let out = verify(&clone, &[AP, AQ, AR, "--key", key_file.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let report = json_of(&out);
    let validator = jsonschema::draft202012::new(&schema(Kind::Verify)).unwrap();
    assert!(validator.is_valid(&report), "{report:#}");
    let expected = [(AP, "verified"), (AQ, "changed_after_gate"), (AR, "unattested")];
    assert_eq!(statuses(&report), expected.map(|(p, s)| (p.to_string(), s.to_string())));
    let [ap, aq, ar] = [0, 1, 2].map(|i| &report["documents"][i]);
    assert_eq!(ap["pull_request"]["number"], 41);
    assert_eq!(ap["approvals"][0]["login"], "gyrum-priya");
    assert_eq!(ap["approvals"][0]["approved"][AP]["gitBlob"], blob_id(&demo_text(AP)));
    assert_eq!(ap["keyid"], key("signing-key.pem").keyid());
    assert_eq!(aq["gated_blob"], blob_id(&demo_text(AQ)));
    assert_eq!(aq["blob"], blob_id(edited.as_bytes()));
    assert!(aq["diff"].as_str().unwrap().contains("\n+Also delete the old manifests.\n"), "{aq:#}");
    assert!(ar["last_commit"].as_str().unwrap().ends_with(" \"Merge pull request #41\""), "{ar:#}");
    assert_eq!(
        report["counts"],
        serde_json::json!({"verified": 1, "unattested": 1, "changed_after_gate": 1, "bad_signature": 0})
    );

    let text = verify(&clone, &[AP, AQ, AR, "--key", key_file.to_str().unwrap()]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains(&format!("changed after the gate {AQ}  gated in #41")), "{text}");
    assert!(text.contains("    +Also delete the old manifests."), "{text}");
    assert!(text.ends_with("1 verified, 1 unattested, 1 changed after the gate, 0 bad signature\n"), "{text}");

    // Every governed document at HEAD when no path is named; verified alone exits 0.
    let all = json_of(&verify(&clone, &["--key", key_file.to_str().unwrap(), "--format", "json"]));
    let paths: Vec<String> = statuses(&all).into_iter().map(|(p, _)| p).collect();
    assert!(paths.contains(&".github/gatehouse.yml".to_string()) && paths.contains(&AR.to_string()), "{paths:?}");
    assert!(!paths.iter().any(|p| p.starts_with("dark-factory/docs/decisions/")), "ADRs are not gated: {paths:?}");
    assert_eq!(verify(&clone, &[AP, "--key", key_file.to_str().unwrap()]).status.code(), Some(0));
}

#[test]
fn a_tampered_envelope_or_an_untrusted_key_is_a_bad_signature_and_keys_rotate() {
    let dir = tempfile::tempdir().unwrap();
    let clone = demo_clone(dir.path());
    let key_file = public("signing-key.pub.pem");
    let key_file = key_file.to_str().unwrap();
    // Someone adds AR to the signed payload and keeps the signature.
    let mut tampered = key("signing-key.pem").sign(&demo_statement());
    let mut claimed = tampered.claimed().unwrap();
    claimed.subject.push(Subject { name: AR.into(), digest: [("gitBlob".into(), blob_id(&demo_text(AR)))].into() });
    tampered.payload = base64::engine::general_purpose::STANDARD.encode(serde_json::to_vec(&claimed).unwrap());
    let file = dir.path().join("tampered.json");
    std::fs::write(&file, serde_json::to_string(&tampered).unwrap()).unwrap();
    let out = verify(&clone, &[AP, AR, "--key", key_file, "--from", file.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(3));
    let report = json_of(&out);
    assert_eq!(
        statuses(&report),
        [(AP.to_string(), "bad_signature".to_string()), (AR.to_string(), "bad_signature".to_string())]
    );

    // Signed by a key that is not trusted: bad signature; trusted beside the old one: verified.
    let other = key("other-key.pem").sign(&demo_statement());
    let file = dir.path().join("other.json");
    std::fs::write(&file, serde_json::to_string(&[other]).unwrap()).unwrap();
    let out = verify(&clone, &[AP, "--key", key_file, "--from", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with(&format!("bad signature          {AP}")));
    let both = dir.path().join("both.pub.pem");
    let pems =
        [public("signing-key.pub.pem"), public("other-key.pub.pem")].map(|p| std::fs::read_to_string(p).unwrap());
    std::fs::write(&both, pems.concat()).unwrap();
    let out = verify(&clone, &[AP, "--key", both.to_str().unwrap(), "--from", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));

    // Usage and setup failures exit 2.
    let out = verify(&clone, &["nowhere.md", "--key", key_file]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("`nowhere.md` is not a file at HEAD"));
    let out = verify(&clone, &[AP, "--key", public("signing-key.pem").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "a private key is no trusted key");
}

#[test]
fn attest_key_prints_the_public_key_verify_takes() {
    let out = Command::new(env!("CARGO_BIN_EXE_gatehouse"))
        .args(["attest", "key", "--key-path"])
        .arg(public("signing-key.pem"))
        .arg("--trusted-keys")
        .arg(public("other-key.pub.pem"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let expected =
        [public("signing-key.pub.pem"), public("other-key.pub.pem")].map(|p| std::fs::read_to_string(p).unwrap());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), expected.concat());
}

#[test]
fn the_saved_demo_envelopes_are_current() {
    // The README's tour: AP as the demo has it, AQ as it was gated before
    // a later edit (another text), AR never gated.
    let gated_aq = String::from_utf8(demo_text(AQ)).unwrap().replace("Put the tools", "Put the two tools");
    let statement = statement(41, &[(AP, blob_id(&demo_text(AP))), (AQ, blob_id(gated_aq.as_bytes()))]);
    let signed = vec![key("signing-key.pem").sign(&statement)];
    let text = serde_json::to_string_pretty(&signed).unwrap() + "\n";
    let path = manifest().join("fixtures/attest/demo-envelopes.json");
    if std::env::var_os("BLESS_FIXTURES").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    assert_eq!(std::fs::read_to_string(&path).unwrap_or_default(), text, "BLESS_FIXTURES=1 writes it again");
}
