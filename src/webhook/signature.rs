//! `X-Hub-Signature-256` verification: HMAC-SHA256 over the raw body, compared
//! in constant time, against every configured secret (rotation).

use hmac::{KeyInit, Mac as _};
use sha2::Sha256;

type HmacSha256 = hmac::Hmac<Sha256>;

/// A webhook secret. `Debug` never shows it.
#[derive(Clone)]
pub(crate) struct Secret(Vec<u8>);

impl Secret {
    pub(crate) fn new(value: impl Into<Vec<u8>>) -> Secret {
        Secret(value.into())
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// A body's HMAC-SHA256 under the secret it was signed with, verified. It
/// names the body as well as a digest of it would (the same body signed
/// with the same secret has the same HMAC; another body with it would take
/// a SHA-256 collision), without a second pass over the bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mac(pub [u8; 32]);

/// The secrets a delivery may be signed with: the current one and, during a
/// rotation, the previous ones.
#[derive(Clone, Debug, Default)]
pub struct Secrets(Vec<Secret>);

impl Secrets {
    /// From `GATEHOUSE_WEBHOOK_SECRET`'s comma-separated form; blanks ignored.
    pub fn parse(list: &str) -> Secrets {
        Secrets(list.split(',').map(str::trim).filter(|s| !s.is_empty()).map(Secret::new).collect())
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The HMAC of `body` when `header` (`sha256=<hex>`) is a valid
    /// signature of it under any secret; `None` otherwise (malformed headers
    /// are simply invalid).
    pub fn verify(&self, header: Option<&[u8]>, body: &[u8]) -> Option<Mac> {
        let hex_sig = header?.strip_prefix(b"sha256=")?;
        let expected: [u8; 32] = hex::decode(hex_sig).ok()?.try_into().ok()?;
        // Every secret is tried (no early exit) so timing does not reveal which matched.
        let valid = self.0.iter().fold(false, |ok, secret| {
            let mut mac = HmacSha256::new_from_slice(&secret.0).expect("HMAC takes keys of any length");
            mac.update(body);
            mac.verify_slice(&expected).is_ok() | ok
        });
        valid.then_some(Mac(expected))
    }
}

/// `sha256=<hex>` for `body` under `secret`.
pub fn sign(secret: &[u8], body: &[u8]) -> String {
    let mut mac = HmacSha256::new_from_slice(secret).expect("HMAC takes keys of any length");
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_any_rotated_secret_and_rejects_the_rest() {
        let secrets = Secrets::parse("new-secret, old-secret");
        let body = br#"{"zen":"Design for failure."}"#;
        let old = sign(b"old-secret", body);
        let mac = secrets.verify(Some(old.as_bytes()), body).expect("signed with a rotated secret");
        assert_eq!(format!("sha256={}", hex::encode(mac.0)), old);
        assert!(secrets.verify(Some(sign(b"new-secret", body).as_bytes()), body).is_some());
        assert!(secrets.verify(Some(sign(b"other", body).as_bytes()), body).is_none());
        assert!(secrets.verify(Some(old.as_bytes()), b"{}").is_none());
        assert!(secrets.verify(None, body).is_none());
        assert!(secrets.verify(Some(b"sha256=zz"), body).is_none());
        assert!(secrets.verify(Some(b"sha256=00"), body).is_none());
        assert!(secrets.verify(Some(b"sha1=00"), body).is_none());
        assert_eq!(format!("{secrets:?}"), "Secrets([Secret(***), Secret(***)])");
    }
}
