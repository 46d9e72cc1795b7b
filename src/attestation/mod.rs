//! Gate attestations as signed envelopes: the statement the core decides
//! (`gatehouse_core::attest`) serialised as a DSSE v1 envelope, signed with
//! an Ed25519 key read from PKCS#8 PEM, and opened again with the trusted
//! public keys (SPKI PEM). A key is named by its key id, the lowercase hex
//! SHA-256 of its public key's DER (SubjectPublicKeyInfo), which every
//! signature carries: `openssl pkey -pubin -in key.pub.pem -outform DER |
//! sha256sum` prints the same.

pub mod verify;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use ed25519_dalek::pkcs8::{DecodePrivateKey, DecodePublicKey, EncodePublicKey, spki::der::pem::LineEnding};
use ed25519_dalek::{Signer, Verifier};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::attest::{PAYLOAD_TYPE, Statement, pae};

/// Why a key cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("not an Ed25519 private key in PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`): {0}")]
    Private(String),
    #[error("not an Ed25519 public key in PEM (`-----BEGIN PUBLIC KEY-----`): {0}")]
    Public(String),
}

/// The key the App signs attestations with.
#[derive(Clone)]
pub struct SigningKey {
    key: ed25519_dalek::SigningKey,
    keyid: String,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKey").field("keyid", &self.keyid).finish_non_exhaustive()
    }
}

/// A public key whose signatures are trusted.
#[derive(Clone, Debug)]
pub struct TrustedKey {
    key: ed25519_dalek::VerifyingKey,
    keyid: String,
}

fn keyid_of(key: &ed25519_dalek::VerifyingKey) -> String {
    let der = key.to_public_key_der().expect("an Ed25519 key encodes");
    hex::encode(Sha256::digest(der.as_bytes()))
}

impl SigningKey {
    pub fn from_pem(pem: &str) -> Result<SigningKey, KeyError> {
        let key =
            ed25519_dalek::SigningKey::from_pkcs8_pem(pem.trim()).map_err(|e| KeyError::Private(e.to_string()))?;
        let keyid = keyid_of(&key.verifying_key());
        Ok(SigningKey { key, keyid })
    }

    pub fn keyid(&self) -> &str {
        &self.keyid
    }

    /// The public half, as trusted keys are given.
    pub fn public(&self) -> TrustedKey {
        TrustedKey { key: self.key.verifying_key(), keyid: self.keyid.clone() }
    }

    /// The statement in a DSSE envelope, signed.
    pub fn sign(&self, statement: &Statement) -> Envelope {
        let payload = serde_json::to_vec(statement).expect("plain data");
        let signature = self.key.sign(&pae(PAYLOAD_TYPE, &payload));
        Envelope {
            payload: BASE64.encode(&payload),
            payload_type: PAYLOAD_TYPE.into(),
            signatures: vec![EnvelopeSignature { keyid: self.keyid.clone(), sig: BASE64.encode(signature.to_bytes()) }],
        }
    }
}

impl TrustedKey {
    pub fn from_pem(pem: &str) -> Result<TrustedKey, KeyError> {
        let key = ed25519_dalek::VerifyingKey::from_public_key_pem(pem.trim())
            .map_err(|e| KeyError::Public(e.to_string()))?;
        Ok(TrustedKey { keyid: keyid_of(&key), key })
    }

    /// Every public key in a PEM text holding one or more.
    pub fn all_from_pem(text: &str) -> Result<Vec<TrustedKey>, KeyError> {
        const END: &str = "-----END PUBLIC KEY-----";
        let keys: Vec<TrustedKey> = text
            .split_inclusive(END)
            .filter(|block| block.contains(END))
            .map(TrustedKey::from_pem)
            .collect::<Result<_, _>>()?;
        if keys.is_empty() {
            return Err(KeyError::Public("no `-----BEGIN PUBLIC KEY-----` block".into()));
        }
        Ok(keys)
    }

    pub fn keyid(&self) -> &str {
        &self.keyid
    }

    pub fn pem(&self) -> String {
        self.key.to_public_key_pem(LineEnding::LF).expect("an Ed25519 key encodes")
    }
}

/// The App's keys: the one it signs with, and the public keys it serves
/// besides (older keys, trusted while their attestations stand).
#[derive(Clone, Debug, Default)]
pub struct AttestationKeys {
    pub key: Option<SigningKey>,
    pub trusted: Vec<TrustedKey>,
}

impl AttestationKeys {
    /// The signing key's public half first, then the others, each once.
    pub fn public_keys(&self) -> Vec<TrustedKey> {
        let mut keys: Vec<TrustedKey> = self.key.iter().map(SigningKey::public).collect();
        for key in &self.trusted {
            if !keys.iter().any(|k| k.keyid == key.keyid) {
                keys.push(key.clone());
            }
        }
        keys
    }
}

/// A DSSE v1 envelope (https://github.com/secure-systems-lab/dsse/blob/master/envelope.md).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Envelope {
    pub payload: String,
    #[serde(rename = "payloadType")]
    pub payload_type: String,
    pub signatures: Vec<EnvelopeSignature>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvelopeSignature {
    #[serde(default)]
    pub keyid: String,
    pub sig: String,
}

/// An envelope opened with the trusted keys.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Opened {
    /// A trusted key (`keyid`) signed the statement.
    Trusted { statement: Statement, keyid: String },
    /// No trusted key verifies a signature: the statement it claims, when
    /// its payload reads as one, and why.
    Bad { statement: Option<Statement>, reason: String },
}

impl Envelope {
    /// The statement the payload holds, read without checking a signature.
    pub fn claimed(&self) -> Result<Statement, String> {
        let payload = BASE64.decode(&self.payload).map_err(|e| format!("the payload is not base64: {e}"))?;
        serde_json::from_slice(&payload).map_err(|e| format!("the payload is not an in-toto statement: {e}"))
    }

    /// Verifies a signature with the trusted key it names (any trusted key
    /// when it names none), then reads the statement.
    pub fn open(&self, keys: &[TrustedKey]) -> Opened {
        let claimed = self.claimed();
        let bad = |reason: String| Opened::Bad { statement: claimed.clone().ok(), reason };
        if self.payload_type != PAYLOAD_TYPE {
            return bad(format!("payloadType is {:?}, not {PAYLOAD_TYPE:?}", self.payload_type));
        }
        let Ok(payload) = BASE64.decode(&self.payload) else {
            return bad("the payload is not base64".into());
        };
        let signed = pae(&self.payload_type, &payload);
        for signature in &self.signatures {
            let Ok(bytes) = BASE64.decode(&signature.sig) else { continue };
            let Ok(sig) = ed25519_dalek::Signature::from_slice(&bytes) else { continue };
            let named = keys.iter().filter(|k| signature.keyid.is_empty() || k.keyid == signature.keyid);
            if let Some(key) = named.into_iter().find(|k| k.key.verify(&signed, &sig).is_ok()) {
                return match &claimed {
                    Ok(statement) => Opened::Trusted { statement: statement.clone(), keyid: key.keyid.clone() },
                    Err(reason) => bad(reason.clone()),
                };
            }
        }
        let ids: Vec<&str> = self.signatures.iter().map(|s| s.keyid.as_str()).collect();
        bad(format!("no trusted key verifies its signatures (key ids {ids:?})"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attest::{Gate, PullRequestRef, RuleSet, STATEMENT_TYPE, Subject};

    const KEY: &str = include_str!("../../fixtures/attest/signing-key.pem");
    const OTHER: &str = include_str!("../../fixtures/attest/other-key.pem");

    fn statement() -> Statement {
        Statement {
            statement_type: STATEMENT_TYPE.into(),
            subject: vec![Subject { name: "a.md".into(), digest: [("gitBlob".into(), "b1".into())].into() }],
            predicate_type: "p".into(),
            predicate: Gate {
                repository: "acme/docs".into(),
                pull_request: PullRequestRef { number: 1, base: "b".into(), head: "h".into(), merge: "m".into() },
                checks: Vec::new(),
                rules: RuleSet { gatehouse: "0.1.0".into(), config: None },
                approvals: Vec::new(),
            },
        }
    }

    #[test]
    fn a_signed_envelope_opens_with_its_key_only() {
        let key = SigningKey::from_pem(KEY).unwrap();
        let other = SigningKey::from_pem(OTHER).unwrap();
        let envelope = key.sign(&statement());
        assert_eq!(envelope.signatures[0].keyid, key.keyid());
        let trusted = TrustedKey::all_from_pem(&format!("{}{}", other.public().pem(), key.public().pem())).unwrap();
        assert_eq!(trusted.len(), 2);
        assert_eq!(envelope.open(&trusted), Opened::Trusted { statement: statement(), keyid: key.keyid().into() });
        assert!(matches!(envelope.open(&[other.public()]), Opened::Bad { statement: Some(_), .. }));
        let mut tampered = envelope.clone();
        let text = serde_json::to_string(&statement()).unwrap().replace("\"b1\"", "\"b2\"");
        tampered.payload = BASE64.encode(text);
        assert!(matches!(tampered.open(&trusted), Opened::Bad { .. }));
    }

    #[test]
    fn keys_of_the_wrong_kind_are_refused_with_a_reason() {
        assert!(matches!(SigningKey::from_pem("not a key"), Err(KeyError::Private(_))));
        let public = SigningKey::from_pem(KEY).unwrap().public().pem();
        assert!(SigningKey::from_pem(&public).is_err());
        assert!(TrustedKey::from_pem(KEY).is_err());
    }
}
