//! The App manifest GitHub's manifest flow registers, read from
//! `app-manifest.yml` (the one source of the App's events and permissions),
//! and the answer of `POST /app-manifests/{code}/conversions`.

use std::collections::BTreeMap;

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

use crate::docs::yaml::{self, Node};
use crate::github::Token;

/// `app-manifest.yml`, compiled in: the binary registers exactly the events
/// and permissions its own webhook code handles, wherever it runs from (an
/// installed binary or a container has no checkout to read).
pub(crate) const APP_MANIFEST_YML: &str = include_str!("../../app-manifest.yml");

/// A GitHub App manifest: the fields gatehouse sets. Unknown keys in
/// `app-manifest.yml` are refused, so a misspelt one cannot be dropped silently.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Manifest {
    pub name: String,
    /// The App's homepage.
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub hook_attributes: HookAttributes,
    /// Where GitHub sends the browser, with `code` and `state`, once the App exists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect_url: Option<String>,
    pub public: bool,
    pub default_events: Vec<String>,
    pub default_permissions: BTreeMap<String, String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct HookAttributes {
    /// Where GitHub delivers webhooks: `gatehouse register --webhook-url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    pub active: bool,
}

impl Manifest {
    /// The compiled-in `app-manifest.yml`.
    pub(crate) fn bundled() -> Result<Manifest> {
        Manifest::from_yaml(APP_MANIFEST_YML)
    }

    /// Reads a manifest written as YAML.
    pub(crate) fn from_yaml(text: &str) -> Result<Manifest> {
        let tree = yaml::parse(text, 1).map_err(|e| anyhow::anyhow!("app-manifest.yml: {e}"))?;
        serde_json::from_value(to_json(tree.root())).context("app-manifest.yml is not a GitHub App manifest")
    }

    /// The manifest with the webhook and redirect URLs filled in.
    pub(crate) fn with_urls(mut self, webhook_url: &str, redirect_url: &str) -> Manifest {
        self.hook_attributes.url = Some(webhook_url.to_string());
        self.redirect_url = Some(redirect_url.to_string());
        self
    }

    /// The JSON GitHub takes as the `manifest` form field.
    pub(crate) fn to_json(&self) -> String {
        serde_json::to_string(self).expect("plain data")
    }
}

/// YAML as JSON, typing plain scalars as YAML 1.2's core schema does.
fn to_json(node: Node) -> Value {
    if let Some(entries) = node.as_map() {
        return Value::Object(entries.iter().map(|(k, v)| (k.name.to_string(), to_json(v))).collect::<Map<_, _>>());
    }
    if let Some(items) = node.as_seq() {
        return Value::Array(items.iter().map(to_json).collect());
    }
    let text = node.scalar_text().unwrap_or_default();
    if !node.is_plain() {
        Value::String(text.to_string())
    } else if yaml::plain_is_null(text) {
        Value::Null
    } else if let Some(b) = yaml::plain_bool(text) {
        Value::Bool(b)
    } else if let Some(n) = yaml::plain_i64(text) {
        Value::Number(n.into())
    } else if let Some(n) = yaml::plain_f64(text).and_then(Number::from_f64) {
        Value::Number(n)
    } else {
        Value::String(text.to_string())
    }
}

/// What `POST /app-manifests/{code}/conversions` answers (201): the new App,
/// with its private key and webhook secret, which GitHub shows only this once.
/// Fields gatehouse does not use (the OAuth client secret among them) are not kept.
#[derive(Debug, Deserialize)]
pub(crate) struct Conversion {
    pub id: u64,
    pub slug: String,
    pub name: String,
    /// The App's page, e.g. `https://github.com/apps/gatehouse`.
    pub html_url: String,
    pub owner: Option<Owner>,
    /// The private key, PEM.
    pub pem: Token,
    /// `null` when the manifest's webhook is inactive; gatehouse's never is.
    pub webhook_secret: Option<Token>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Owner {
    pub login: String,
}

impl Conversion {
    /// Where the owner installs the App on repositories.
    pub(crate) fn install_url(&self) -> String {
        format!("{}/installations/new", self.html_url.trim_end_matches('/'))
    }

    /// The webhook secret; a conversion without one cannot run `serve`.
    pub(crate) fn require_webhook_secret(&self) -> Result<&Token> {
        match &self.webhook_secret {
            Some(secret) if !secret.expose().is_empty() => Ok(secret),
            _ => bail!("GitHub issued no webhook secret for the App (is its webhook inactive?)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_manifest_subscribes_to_every_event_the_app_handles() {
        let manifest = Manifest::bundled().unwrap();
        assert_eq!(manifest.name, "gatehouse");
        assert!(manifest.hook_attributes.active);
        let events = [
            "pull_request",
            "pull_request_review",
            "check_suite",
            "check_run",
            "merge_group",
            "push",
            "issue_comment",
            "membership",
            "team",
        ];
        for event in events {
            assert!(manifest.default_events.iter().any(|e| e == event), "{event} missing");
        }
        // `push` needs Contents: read, which reading documents needs anyway; `issue_comment` needs
        // Issues, which the dashboard issue needs to write; `membership` and `team` need Members,
        // which reading the teams a review gate names needs; nothing broader.
        let permissions: Vec<(&str, &str)> =
            manifest.default_permissions.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(
            permissions,
            [
                ("checks", "write"),
                ("contents", "read"),
                ("issues", "write"),
                ("members", "read"),
                ("merge_queues", "read"),
                ("metadata", "read"),
                ("pull_requests", "write")
            ]
        );
    }

    #[test]
    fn urls_are_filled_in_and_yaml_types_carry_over() {
        let yml = "name: x\nurl: https://x.test\nhook_attributes:\n  active: true\npublic: false\n\
                   default_events: [pull_request]\ndefault_permissions:\n  checks: write\n";
        let manifest = Manifest::from_yaml(yml).unwrap().with_urls("https://h.test/webhook", "http://127.0.0.1:1/cb");
        let json: Value = serde_json::from_str(&manifest.to_json()).unwrap();
        assert_eq!(json["hook_attributes"], serde_json::json!({ "url": "https://h.test/webhook", "active": true }));
        assert_eq!(json["redirect_url"], "http://127.0.0.1:1/cb");
        assert_eq!(json["public"], false);
        assert!(json.get("description").is_none());
    }

    #[test]
    fn a_misspelt_key_is_refused() {
        let yml = "name: x\nurl: https://x.test\nhook_attributes: { active: true }\npublic: false\n\
                   default_event: [pull_request]\ndefault_events: []\ndefault_permissions: {}\n";
        let err = format!("{:#}", Manifest::from_yaml(yml).unwrap_err());
        assert!(err.contains("default_event"), "{err}");
    }

    #[test]
    fn a_conversion_never_shows_its_secrets() {
        let body = r#"{"id":9,"slug":"gh","name":"gh","html_url":"https://github.com/apps/gh","owner":{"login":"o"},
            "client_id":"Iv1.x","client_secret":"cs-secret","webhook_secret":"wh-secret","pem":"-----BEGIN RSA PRIVATE KEY-----k",
            "events":["pull_request"],"permissions":{"checks":"write"}}"#;
        let conversion: Conversion = serde_json::from_str(body).unwrap();
        let shown = format!("{conversion:?}");
        for secret in ["cs-secret", "wh-secret", "PRIVATE KEY"] {
            assert!(!shown.contains(secret), "{secret} shown: {shown}");
        }
        assert_eq!(conversion.install_url(), "https://github.com/apps/gh/installations/new");
        assert_eq!(conversion.require_webhook_secret().unwrap().expose(), "wh-secret");
    }
}
