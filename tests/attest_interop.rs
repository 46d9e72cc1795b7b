//! The envelope gatehouse signs verifies with an implementation of DSSE the
//! project did not write: securesystemslib (PyPI), through
//! `tests/attest/verify_envelope.py`, which computes the key id from the
//! public key itself and must refuse a tampered envelope.
//!
//! The Python with `securesystemslib` is `GATEHOUSE_ATTEST_PYTHON` (`.ci/run`
//! sets it to the venv it creates), else `python3` when it can import it.
//! Without one the test is skipped with a note; under `CI=true` it must run.

use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine;
use gatehouse::attestation::SigningKey;
use serde_json::Value;

fn python() -> Option<PathBuf> {
    let candidate = std::env::var_os("GATEHOUSE_ATTEST_PYTHON").map_or_else(|| PathBuf::from("python3"), PathBuf::from);
    let imports = ["-c", "import securesystemslib.dsse, cryptography"];
    if Command::new(&candidate).args(imports).output().is_ok_and(|out| out.status.success()) {
        return Some(candidate);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "no Python with `securesystemslib` ({}): .ci/run creates a venv with it and sets GATEHOUSE_ATTEST_PYTHON",
        candidate.display()
    );
    eprintln!(
        "note: no Python with `securesystemslib`: skipping the interop test (pip install securesystemslib[crypto])"
    );
    None
}

#[test]
fn securesystemslib_verifies_the_envelope_and_refuses_a_tampered_one() {
    let Some(python) = python() else { return };
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    // The README's envelopes, signed by gatehouse's code (tests/verify.rs keeps them current).
    let saved = std::fs::read_to_string(manifest.join("fixtures/attest/demo-envelopes.json")).unwrap();
    let envelopes: Vec<Value> = serde_json::from_str(&saved).unwrap();
    let envelope = &envelopes[0];
    std::fs::write(dir.path().join("envelope.json"), envelope.to_string()).unwrap();
    let mut tampered = envelope.clone();
    let engine = base64::engine::general_purpose::STANDARD;
    let payload = String::from_utf8(engine.decode(envelope["payload"].as_str().unwrap()).unwrap()).unwrap();
    tampered["payload"] = engine.encode(payload.replace("gyrum-lin", "gyrum-eve")).into();
    std::fs::write(dir.path().join("tampered.json"), tampered.to_string()).unwrap();
    let result = dir.path().join("result.json");
    let status = Command::new(python)
        .arg(manifest.join("tests/attest/verify_envelope.py"))
        .arg(dir.path().join("envelope.json"))
        .arg(manifest.join("fixtures/attest/signing-key.pub.pem"))
        .arg(dir.path().join("tampered.json"))
        .arg(&result)
        .status()
        .unwrap();
    assert!(status.success(), "securesystemslib refused the envelope: {status}");
    let saw: Value = serde_json::from_str(&std::fs::read_to_string(&result).unwrap()).unwrap();
    let key = SigningKey::from_pem(&std::fs::read_to_string(manifest.join("fixtures/attest/signing-key.pem")).unwrap())
        .unwrap();
    assert_eq!(saw["keyid"], key.keyid(), "the key id is the SHA-256 of the key's DER");
    assert_eq!(saw["accepted_keyids"], serde_json::json!([key.keyid()]));
    assert_eq!(saw["payload_type"], "application/vnd.in-toto+json");
    assert_eq!(saw["statement_type"], gatehouse::attest::STATEMENT_TYPE);
    assert_eq!(saw["predicate_type"], gatehouse::attest::PREDICATE_TYPE);
    assert_eq!(saw["subjects"].as_array().unwrap().len(), 2);
    assert_eq!(saw["payload_is_base64"], true);
    assert_eq!(saw["tampered_refused"], true);
}
