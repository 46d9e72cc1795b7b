//! GitHub App authentication: an RS256 JWT signed with the App's private key
//! (issued 60 s in the past against clock drift, expiring in 9 minutes, under
//! GitHub's 10), exchanged for installation tokens that are cached per
//! installation and refreshed before they expire.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde::Serialize;

/// Refresh an installation token this long before GitHub says it expires.
const REFRESH_MARGIN: Duration = Duration::from_secs(5 * 60);

/// A secret string (private key, token). `Debug` and `Display` never show it.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl Token {
    pub fn new(value: impl Into<String>) -> Token {
        Token(value.into())
    }

    /// The secret itself, for an `Authorization` header only.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

/// Read from a JSON string (a private key or secret in a GitHub answer).
impl<'de> serde::Deserialize<'de> for Token {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Token, D::Error> {
        String::deserialize(deserializer).map(Token)
    }
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(***)")
    }
}

/// The App's identity.
#[derive(Clone)]
pub struct AppCredentials {
    pub app_id: u64,
    key: EncodingKey,
}

impl std::fmt::Debug for AppCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AppCredentials {{ app_id: {}, key: *** }}", self.app_id)
    }
}

#[derive(Serialize)]
struct Claims {
    iat: u64,
    exp: u64,
    iss: String,
}

fn unix_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

impl AppCredentials {
    /// From the PEM GitHub issues (PKCS#1 or PKCS#8).
    pub fn new(app_id: u64, private_key_pem: &[u8]) -> Result<AppCredentials> {
        // The key's bytes never reach the error: only what kind of key it is.
        let fix = "give the App's private key, the .pem file its settings page on GitHub downloads \
                   (`-----BEGIN RSA PRIVATE KEY-----`)";
        if String::from_utf8_lossy(private_key_pem).contains("PUBLIC KEY-----") {
            anyhow::bail!("the App private key is a public key, which cannot sign the App's JWTs: {fix}");
        }
        let key = EncodingKey::from_rsa_pem(private_key_pem)
            .map_err(|_| anyhow::anyhow!("the App private key is not an RSA key in PEM form: {fix}"))?;
        let credentials = AppCredentials { app_id, key };
        // A key that parses may still not sign: found now, not at the first job.
        credentials
            .jwt()
            .map_err(|_| anyhow::anyhow!("the App private key cannot sign the App's JWTs (RS256): {fix}"))?;
        Ok(credentials)
    }

    /// A fresh App JWT.
    pub(crate) fn jwt(&self) -> Result<Token> {
        let now = unix_now();
        let claims = Claims { iat: now - 60, exp: now + 9 * 60, iss: self.app_id.to_string() };
        let jwt = jsonwebtoken::encode(&Header::new(Algorithm::RS256), &claims, &self.key)
            .context("cannot sign the App JWT")?;
        Ok(Token(jwt))
    }
}

/// What a token is minted for: an installation, and the one repository it
/// is scoped to (`None`: every repository of the installation).
pub(crate) type TokenKey = (u64, Option<String>);

/// Installation tokens by what they are for, with when to refresh them
/// (Unix seconds).
#[derive(Debug, Default)]
pub(crate) struct TokenCache {
    tokens: tokio::sync::Mutex<HashMap<TokenKey, (Token, u64)>>,
    /// Held while a token is minted for a key, so that callers asking at
    /// once wait for that one token instead of each minting their own.
    minting: std::sync::Mutex<HashMap<TokenKey, Arc<tokio::sync::Mutex<()>>>>,
}

/// When a token minted at `now` and expiring at `expires_at` is refreshed:
/// when less than the smaller of five minutes and half its life is left.
fn refresh_at(now: u64, expires_at: u64) -> u64 {
    let life = expires_at.saturating_sub(now);
    expires_at - REFRESH_MARGIN.as_secs().min(life / 2)
}

impl TokenCache {
    /// The cached token until its refresh time.
    pub(crate) async fn get(&self, key: &TokenKey) -> Option<Token> {
        let tokens = self.tokens.lock().await;
        let (token, refresh) = tokens.get(key)?;
        (*refresh > unix_now()).then(|| token.clone())
    }

    /// The right to mint the token for `key`: one caller at a time, and each
    /// asks [`TokenCache::get`] again once it holds it.
    pub(crate) async fn minting(&self, key: &TokenKey) -> tokio::sync::OwnedMutexGuard<()> {
        let lock = {
            let mut minting = self.minting.lock().unwrap_or_else(|e| e.into_inner());
            minting.entry(key.clone()).or_default().clone()
        };
        lock.lock_owned().await
    }

    /// Caches a token just minted.
    pub(crate) async fn put(&self, key: TokenKey, token: Token, expires_at: u64) {
        let refresh = refresh_at(unix_now(), expires_at);
        self.tokens.lock().await.insert(key, (token, refresh));
    }

    /// Forgets a token GitHub refused.
    pub(crate) async fn drop_token(&self, key: &TokenKey) {
        self.tokens.lock().await.remove(key);
    }
}

/// Parses GitHub's `expires_at` (`2026-11-29T19:00:00Z`) to Unix seconds;
/// unreadable means "treat as expiring in an hour", GitHub's documented life.
pub(crate) fn parse_expiry(text: &str) -> u64 {
    parse_rfc3339_utc(text).unwrap_or_else(|| unix_now() + 3600)
}

pub(crate) fn parse_rfc3339_utc(text: &str) -> Option<u64> {
    let b = text.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| text.get(r)?.parse::<i64>().ok();
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hh, mm, ss) = (num(11..13)?, num(14..16)?, num(17..19)?);
    // Days from civil (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146097 + doe - 719468;
    u64::try_from(days * 86400 + hh * 3600 + mm * 60 + ss).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::docs::timestamp::format_utc;

    #[test]
    fn expiry_round_trips() {
        for secs in [0, 951_782_400, 1_795_000_000, 4_102_444_799] {
            assert_eq!(parse_rfc3339_utc(&format_utc(secs)), Some(secs));
        }
        assert_eq!(format_utc(1_764_442_800), "2025-11-29T19:00:00Z");
    }

    #[tokio::test]
    async fn tokens_are_refreshed_before_they_expire() {
        let cache = TokenCache::default();
        let key = |n: u64| (n, Some("docs".to_string()));
        cache.put(key(1), Token::new("fresh"), unix_now() + 3600).await;
        cache.put(key(2), Token::new("short-lived"), unix_now() + 60).await;
        cache.put(key(3), Token::new("expired"), unix_now()).await;
        assert_eq!(cache.get(&key(1)).await, Some(Token::new("fresh")));
        assert_eq!(cache.get(&(1, None)).await, None, "a token of one repository is not the installation's");
        assert_eq!(
            cache.get(&key(2)).await,
            Some(Token::new("short-lived")),
            "a minute's token is used for half of it"
        );
        assert_eq!(cache.get(&key(3)).await, None);
        cache.drop_token(&key(1)).await;
        assert_eq!(cache.get(&key(1)).await, None);
    }

    #[test]
    fn refresh_comes_at_the_earlier_of_five_minutes_left_and_half_life() {
        let now = 1_000_000;
        assert_eq!(refresh_at(now, now + 3600), now + 3300, "an hour's token: five minutes before expiry");
        assert_eq!(refresh_at(now, now + 60), now + 30, "a minute's token: half its life");
        assert_eq!(refresh_at(now, now + 600), now + 300, "ten minutes: both say five");
        assert_eq!(refresh_at(now, now), now);
    }

    #[test]
    fn secrets_are_redacted() {
        assert_eq!(format!("{:?}", Token::new("ghs_secret")), "Token(***)");
        let pem = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/app/test-app-key.pem")).unwrap();
        let creds = AppCredentials::new(7, &pem).unwrap();
        assert!(!format!("{creds:?}").contains("PRIVATE"));
        assert!(AppCredentials::new(7, b"not a key").unwrap_err().to_string().contains("not an RSA key"));
    }
}
