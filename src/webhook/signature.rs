//! `X-Hub-Signature-256` verification: HMAC-SHA256 over the raw body, compared
//! in constant time, against every configured secret (rotation).

use hmac::{KeyInit, Mac};
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

    /// True when `header` (`sha256=<hex>`) is a valid signature of `body`
    /// under any secret. Malformed headers are simply invalid.
    pub fn verify(&self, header: Option<&[u8]>, body: &[u8]) -> bool {
        let Some(header) = header else { return false };
        let Some(hex_sig) = header.strip_prefix(b"sha256=") else { return false };
        let Ok(expected) = hex::decode(hex_sig) else { return false };
        // Every secret is tried (no early exit) so timing does not reveal which matched.
        self.0.iter().fold(false, |ok, secret| {
            let mut mac = HmacSha256::new_from_slice(&secret.0).expect("HMAC takes keys of any length");
            mac.update(body);
            mac.verify_slice(&expected).is_ok() | ok
        })
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
        assert!(secrets.verify(Some(old.as_bytes()), body));
        assert!(secrets.verify(Some(sign(b"new-secret", body).as_bytes()), body));
        assert!(!secrets.verify(Some(sign(b"other", body).as_bytes()), body));
        assert!(!secrets.verify(Some(old.as_bytes()), b"{}"));
        assert!(!secrets.verify(None, body));
        assert!(!secrets.verify(Some(b"sha256=zz"), body));
        assert!(!secrets.verify(Some(b"sha1=00"), body));
        assert_eq!(format!("{secrets:?}"), "Secrets([Secret(***), Secret(***)])");
    }
}
