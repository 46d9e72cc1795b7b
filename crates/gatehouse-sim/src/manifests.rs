//! GitHub's App manifest flow, simulated: the form post to
//! `/settings/apps/new` (or `/organizations/{org}/settings/apps/new`) that
//! registers an App and sends the browser to the manifest's `redirect_url`
//! with a one-time `code` and the `state` it was given, and
//! `POST /app-manifests/{code}/conversions`, which hands out the App's id,
//! private key and webhook secret once. GitHub asks its user to confirm
//! before the redirect; the simulation confirms at once.

use std::collections::HashMap;

use axum::Form;
use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use gatehouse_core::docs::timestamp::format_utc;
use serde::Deserialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::routes::{Shared, lock, now};

/// GitHub's manifest codes last an hour.
pub const CODE_LIFE_S: u64 = 3600;

/// An App registered through the manifest flow.
#[derive(Clone, Debug)]
pub struct ManifestApp {
    /// The account or organization that owns it.
    pub owner: String,
    /// The manifest as posted.
    pub manifest: Value,
    /// The webhook secret, once the code was exchanged.
    pub webhook_secret: Option<String>,
}

#[derive(Debug, Default)]
pub(crate) struct Registry {
    /// The private key conversions hand out; `None`: the flow is closed (404).
    pub key_pem: Option<String>,
    pub apps: Vec<ManifestApp>,
    /// code → (index in `apps`, issued at, Unix seconds).
    pub codes: HashMap<String, (usize, u64)>,
}

#[derive(Deserialize)]
pub(crate) struct ManifestForm {
    manifest: String,
}

fn error(status: StatusCode, message: &str) -> Response {
    (status, Json(json!({ "message": message }))).into_response()
}

pub(crate) async fn new_personal(
    State(state): State<Shared>,
    Query(query): Query<HashMap<String, String>>,
    Form(form): Form<ManifestForm>,
) -> Response {
    register(&state, "sim-user", query.get("state"), &form.manifest)
}

pub(crate) async fn new_for_org(
    State(state): State<Shared>,
    Path(org): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    Form(form): Form<ManifestForm>,
) -> Response {
    register(&state, &org, query.get("state"), &form.manifest)
}

/// Why GitHub would not take this manifest, if it would not.
fn refuse(manifest: &Value) -> Option<&'static str> {
    let text = |v: &Value| v.as_str().is_some_and(|s| s.starts_with("http://") || s.starts_with("https://"));
    if !manifest.is_object() {
        return Some("the manifest is not a JSON object");
    }
    if manifest["name"].as_str().is_none_or(|n| n.trim().is_empty()) {
        return Some("name can't be blank");
    }
    if !text(&manifest["url"]) {
        return Some("url must be an http(s) URL");
    }
    let hook = &manifest["hook_attributes"];
    if hook["active"].as_bool().unwrap_or(true) && !text(&hook["url"]) {
        return Some("hook_attributes.url is required for an active webhook");
    }
    if !text(&manifest["redirect_url"]) {
        return Some("redirect_url must be an http(s) URL");
    }
    None
}

fn register(state: &Shared, owner: &str, form_state: Option<&String>, manifest: &str) -> Response {
    let mut s = lock(state);
    if s.manifests.key_pem.is_none() {
        return error(StatusCode::NOT_FOUND, "Not Found");
    }
    let Ok(manifest) = serde_json::from_str::<Value>(manifest) else {
        return error(StatusCode::UNPROCESSABLE_ENTITY, "the manifest is not JSON");
    };
    if let Some(reason) = refuse(&manifest) {
        return error(StatusCode::UNPROCESSABLE_ENTITY, reason);
    }
    let n = s.id();
    let code = hex::encode(Sha256::digest(format!("manifest-code-{n}-{}", now())))[..20].to_string();
    let redirect = manifest["redirect_url"].as_str().unwrap_or_default().to_string();
    s.manifests.apps.push(ManifestApp { owner: owner.to_string(), manifest, webhook_secret: None });
    let index = s.manifests.apps.len() - 1;
    s.manifests.codes.insert(code.clone(), (index, now()));
    let separator = if redirect.contains('?') { '&' } else { '?' };
    let mut location = format!("{redirect}{separator}code={code}");
    if let Some(form_state) = form_state {
        location.push_str(&format!("&state={}", percent_encode(form_state)));
    }
    (StatusCode::FOUND, [(header::LOCATION, location)]).into_response()
}

pub(crate) async fn conversion(State(state): State<Shared>, Path(code): Path<String>) -> Response {
    let mut s = lock(&state);
    let Some(pem) = s.manifests.key_pem.clone() else {
        return error(StatusCode::NOT_FOUND, "Not Found");
    };
    let Some((index, issued)) = s.manifests.codes.remove(&code) else {
        return error(StatusCode::NOT_FOUND, "Not Found");
    };
    if now() >= issued + CODE_LIFE_S {
        return error(StatusCode::UNPROCESSABLE_ENTITY, "Validation Failed");
    }
    let app_id = s.app_id;
    let base = s.base_url.clone();
    let n = s.id();
    let secret = hex::encode(Sha256::digest(format!("webhook-secret-{n}-{}", now())))[..40].to_string();
    let app = &mut s.manifests.apps[index];
    let manifest = &app.manifest;
    let active = manifest["hook_attributes"]["active"].as_bool().unwrap_or(true);
    let name = manifest["name"].as_str().unwrap_or_default().to_string();
    let slug: String =
        name.to_ascii_lowercase().chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    let created = format_utc(now());
    let body = json!({
        "id": app_id,
        "slug": slug,
        "node_id": format!("A_sim{app_id}"),
        "owner": { "login": app.owner, "id": n, "type": "User" },
        "name": name,
        "description": manifest["description"],
        "external_url": manifest["url"],
        "html_url": format!("{base}/apps/{slug}"),
        "created_at": created,
        "updated_at": created,
        "permissions": manifest["default_permissions"],
        "events": manifest["default_events"],
        "client_id": format!("Iv1.sim{n:08}"),
        "client_secret": hex::encode(Sha256::digest(format!("client-secret-{n}")))[..40].to_string(),
        "webhook_secret": if active { Value::String(secret.clone()) } else { Value::Null },
        "pem": pem,
    });
    if active {
        app.webhook_secret = Some(secret);
    }
    (StatusCode::CREATED, Json(body)).into_response()
}

fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
