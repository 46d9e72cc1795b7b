//! What `gatehouse serve` answers of its attestations, to anyone who can
//! reach it (the envelopes name documents and reviewers a collaborator sees
//! on GitHub already, and are worth nothing without the trusted keys):
//! `GET /attestations/keys` the public keys (PEM), `GET
//! /attestations/{owner}/{name}` every envelope of a repository and `GET
//! /attestations/{owner}/{name}/{blob}` those naming a blob, each a JSON
//! array of DSSE envelopes.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::Value;

use crate::attestation::AttestationKeys;
use crate::store::Store;

#[derive(Clone)]
struct Served {
    store: Store,
    keys: Arc<AttestationKeys>,
}

pub(crate) fn router(store: Store, keys: Arc<AttestationKeys>) -> Router {
    Router::new()
        .route("/attestations/keys", get(public_keys))
        .route("/attestations/{owner}/{name}", get(of_repository))
        .route("/attestations/{owner}/{name}/{blob}", get(of_blob))
        .with_state(Served { store, keys })
}

async fn public_keys(State(served): State<Served>) -> Response {
    let pem: String = served.keys.public_keys().iter().map(|k| k.pem()).collect();
    if pem.is_empty() {
        return (StatusCode::NOT_FOUND, "no attestation key is configured\n").into_response();
    }
    ([(header::CONTENT_TYPE, "application/x-pem-file")], pem).into_response()
}

async fn of_repository(State(served): State<Served>, Path((owner, name)): Path<(String, String)>) -> Response {
    envelopes(&served.store, &format!("{owner}/{name}"), None).await
}

async fn of_blob(State(served): State<Served>, Path((owner, name, blob)): Path<(String, String, String)>) -> Response {
    if blob.is_empty() || blob.len() > 64 || !blob.bytes().all(|b| b.is_ascii_hexdigit()) {
        return (StatusCode::BAD_REQUEST, "a blob digest is 40 or 64 hex digits\n").into_response();
    }
    envelopes(&served.store, &format!("{owner}/{name}"), Some(&blob.to_ascii_lowercase())).await
}

async fn envelopes(store: &Store, repo: &str, blob: Option<&str>) -> Response {
    match store.attestations(repo, blob).await {
        Ok(stored) => {
            let parsed: Vec<Value> = stored.iter().filter_map(|text| serde_json::from_str(text).ok()).collect();
            axum::Json(parsed).into_response()
        }
        Err(err) => {
            tracing::warn!(error = %format!("{err:#}"), "cannot read the attestations");
            (StatusCode::SERVICE_UNAVAILABLE, "the store does not answer\n").into_response()
        }
    }
}
