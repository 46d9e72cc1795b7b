//! The simulated GitHub's webhook deliveries to the App and their history:
//! every delivery it makes is recorded as GitHub's "Recent deliveries" log
//! records it (refused ones and those that could not connect included),
//! the App lists and reads them with its JWT ("REST API endpoints for
//! GitHub App webhooks"), and asks for a redelivery, which sends the same
//! payload again under the same GUID.

use std::time::{Duration, Instant};

use axum::Json;
use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use gatehouse_core::docs::timestamp::format_utc;
use hmac::{Hmac, KeyInit, Mac};
use serde::Deserialize;
use serde_json::{Value, json};
use sha2::Sha256;

use super::Sim;
use super::routes::{Shared, error, lock, now, verify_jwt, with_next};

/// "Redelivering webhooks": deliveries from the past 3 days are listed and
/// can be redelivered; older ones are gone.
pub const HISTORY_S: u64 = 3 * 24 * 3600;
/// "Troubleshooting webhooks" (Timed out): GitHub waits 10 seconds for an
/// answer (GitHub Enterprise Server 30), then records the delivery as failed.
const DELIVERY_TIMEOUT: Duration = Duration::from_secs(10);

/// One delivery attempt as GitHub records it (the `hook-delivery` schema of
/// "Get a delivery for an app webhook").
#[derive(Clone, Debug)]
pub struct HookDelivery {
    pub id: u64,
    /// `X-GitHub-Delivery`: the same for every redelivery of one event.
    pub guid: String,
    /// Unix seconds.
    pub delivered_at: u64,
    pub redelivery: bool,
    /// Seconds the App took to answer.
    pub duration: f64,
    /// `OK`, `Invalid HTTP Response: 503`, `failed to connect to network`...
    pub status: String,
    /// The App's HTTP status; 0 when it never answered.
    pub status_code: u16,
    pub event: String,
    pub action: Option<String>,
    pub installation_id: Option<u64>,
    pub repository_id: Option<u64>,
    pub payload: Value,
    /// When the attempt began, or the redelivery was asked for (not part
    /// of GitHub's answer: for tests of how redelivery requests are paced).
    pub sent: Instant,
}

/// Where deliveries go and what was delivered.
#[derive(Debug, Default)]
pub(crate) struct Hooks {
    /// The App's webhook URL and secret.
    pub target: Option<(String, String)>,
    /// Every attempt, oldest first.
    pub log: Vec<HookDelivery>,
    next_id: u64,
    /// How long an answer is waited for (default 10 seconds).
    timeout: Option<Duration>,
}

impl Sim {
    /// Deliveries go to `url` from now on, signed with `secret` (the App
    /// registration's webhook URL and secret).
    pub fn set_webhook(&self, url: &str, secret: &str) {
        self.lock().hooks.target = Some((url.to_string(), secret.to_string()));
    }

    /// Delivers `payload` as an `event` to the App under a new GUID, as
    /// GitHub does when the event happens, and records the attempt.
    pub async fn deliver(&self, event: &str, payload: &Value) -> HookDelivery {
        let guid = {
            let mut s = self.lock();
            s.hooks.next_id += 1;
            format!("{:08x}-5e1d-4a7b-9c3f-{:012x}", s.app_id, s.hooks.next_id)
        };
        attempt(&self.state, event, &guid, payload, None).await
    }

    /// Waits `timeout` for the App's answer, as GitHub Enterprise Server
    /// does (30 seconds) instead of github.com's 10.
    pub fn set_delivery_timeout(&self, timeout: Duration) {
        self.lock().hooks.timeout = Some(timeout);
    }

    /// Every delivery attempt, oldest first.
    pub fn hook_deliveries(&self) -> Vec<HookDelivery> {
        self.lock().hooks.log.clone()
    }

    /// Moves every recorded delivery `secs` into the past (a history
    /// reaching past GitHub's 3-day window).
    pub fn age_hook_deliveries(&self, secs: u64) {
        for delivery in &mut self.lock().hooks.log {
            delivery.delivered_at = delivery.delivered_at.saturating_sub(secs);
        }
    }
}

/// The `X-Hub-Signature-256` header of `body` under the webhook `secret`
/// ("Validating webhook deliveries": `sha256=` and the hex HMAC-SHA256 digest
/// of the payload).
fn signature(secret: &[u8], body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes keys of any length");
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

/// One attempt at delivering `payload`: POSTed to the App signed with the
/// webhook secret ("Validating webhook deliveries": `X-Hub-Signature-256`),
/// recorded whatever comes of it. "Troubleshooting webhooks": a refused
/// connection is recorded as `failed to connect to network`, an answer
/// after 10 seconds as `timed out`, a 4xx or 5xx as an invalid HTTP
/// response; none of them is retried ("Handling failed webhook
/// deliveries": GitHub does not redeliver failed deliveries by itself).
/// `asked`: a redelivery, asked for then.
async fn attempt(state: &Shared, event: &str, guid: &str, payload: &Value, asked: Option<Instant>) -> HookDelivery {
    let (target, timeout) = {
        let s = lock(state);
        (s.hooks.target.clone(), s.hooks.timeout.unwrap_or(DELIVERY_TIMEOUT))
    };
    let body = serde_json::to_vec(payload).unwrap_or_default();
    let started = Instant::now();
    let (status, status_code) = match target {
        None => ("failed to connect to host".to_string(), 0),
        Some((url, secret)) => {
            let signature = signature(secret.as_bytes(), &body);
            let sent = reqwest::Client::new()
                .post(&url)
                .timeout(timeout)
                .header("content-type", "application/json")
                .header("user-agent", "GitHub-Hookshot/sim")
                .header("x-github-event", event)
                .header("x-github-delivery", guid)
                .header("x-hub-signature-256", signature)
                .body(body)
                .send()
                .await;
            match sent {
                Ok(response) if response.status().is_success() => ("OK".to_string(), response.status().as_u16()),
                Ok(response) => {
                    let code = response.status().as_u16();
                    (format!("Invalid HTTP Response: {code}"), code)
                }
                Err(err) if err.is_timeout() => ("timed out".to_string(), 0),
                Err(_) => ("failed to connect to network".to_string(), 0),
            }
        }
    };
    let mut s = lock(state);
    s.hooks.next_id += 1;
    let record = HookDelivery {
        id: s.hooks.next_id,
        guid: guid.to_string(),
        delivered_at: now(),
        redelivery: asked.is_some(),
        duration: started.elapsed().as_secs_f64(),
        status,
        status_code,
        event: event.to_string(),
        action: payload.get("action").and_then(Value::as_str).map(str::to_string),
        installation_id: payload.pointer("/installation/id").and_then(Value::as_u64),
        repository_id: payload.pointer("/repository/id").and_then(Value::as_u64),
        payload: payload.clone(),
        sent: asked.unwrap_or(started),
    };
    s.hooks.log.push(record.clone());
    record
}

/// The list item of "List deliveries for an app webhook" (`hook-delivery-item`).
fn item_json(d: &HookDelivery) -> Value {
    json!({
        "id": d.id,
        "guid": d.guid,
        "delivered_at": format_utc(d.delivered_at),
        "redelivery": d.redelivery,
        "duration": d.duration,
        "status": d.status,
        "status_code": d.status_code,
        "event": d.event,
        "action": d.action,
        "installation_id": d.installation_id,
        "repository_id": d.repository_id,
    })
}

pub(crate) fn routes() -> Router<Shared> {
    Router::new()
        .route("/app/hook/deliveries", get(list))
        .route("/app/hook/deliveries/{id}", get(one))
        .route("/app/hook/deliveries/{id}/attempts", post(redeliver))
}

#[derive(Deserialize)]
struct ListQuery {
    per_page: Option<usize>,
    cursor: Option<String>,
    redelivery: Option<bool>,
}

/// "List deliveries for an app webhook": JWT-authenticated, newest first,
/// `per_page` up to 100 (default 30), the next page named by a `cursor` in
/// the `Link` header ("Using pagination in the REST API": cursor-based
/// pagination), only the past 3 days' deliveries.
async fn list(State(state): State<Shared>, Query(q): Query<ListQuery>, headers: HeaderMap) -> Response {
    let s = lock(&state);
    if let Err(message) = verify_jwt(&s, &headers) {
        return error(StatusCode::UNAUTHORIZED, message);
    }
    let before = match q.cursor.as_deref().map(|c| c.strip_prefix("v1_").and_then(|id| id.parse::<u64>().ok())) {
        None => u64::MAX,
        Some(Some(id)) => id,
        Some(None) => return error(StatusCode::BAD_REQUEST, "Invalid cursor"),
    };
    let per_page = q.per_page.unwrap_or(30).clamp(1, 100);
    let since = now().saturating_sub(HISTORY_S);
    let mut listed = s
        .hooks
        .log
        .iter()
        .rev()
        .filter(|d| d.id <= before && d.delivered_at >= since)
        .filter(|d| q.redelivery.is_none_or(|r| d.redelivery == r));
    let page: Vec<&HookDelivery> = listed.by_ref().take(per_page).collect();
    let more = listed.next().map(|d| d.id);
    let response = Json(page.iter().map(|d| item_json(d)).collect::<Vec<_>>()).into_response();
    match more {
        Some(id) => {
            let filter = q.redelivery.map(|r| format!("&redelivery={r}")).unwrap_or_default();
            with_next(response, &headers, &format!("/app/hook/deliveries?per_page={per_page}&cursor=v1_{id}{filter}"))
        }
        None => response,
    }
}

/// The recorded delivery `id` within the 3-day history, or GitHub's
/// refusal (status, message): 401 without the App's JWT, else 404.
fn find(state: &Shared, id: &str, headers: &HeaderMap) -> Result<HookDelivery, (StatusCode, &'static str)> {
    let s = lock(state);
    verify_jwt(&s, headers).map_err(|message| (StatusCode::UNAUTHORIZED, message))?;
    let since = now().saturating_sub(HISTORY_S);
    id.parse::<u64>()
        .ok()
        .and_then(|id| s.hooks.log.iter().find(|d| d.id == id && d.delivered_at >= since).cloned())
        .ok_or((StatusCode::NOT_FOUND, "Not Found"))
}

/// "Get a delivery for an app webhook": the item with the request GitHub
/// sent and what the App answered.
async fn one(State(state): State<Shared>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    let delivery = match find(&state, &id, &headers) {
        Ok(delivery) => delivery,
        Err((status, message)) => return error(status, message),
    };
    let mut body = item_json(&delivery);
    body["url"] = json!(lock(&state).hooks.target.as_ref().map(|(url, _)| url.clone()));
    body["request"] = json!({
        "headers": { "X-GitHub-Event": delivery.event, "X-GitHub-Delivery": delivery.guid },
        "payload": delivery.payload,
    });
    body["response"] = json!({ "headers": {}, "payload": null });
    Json(body).into_response()
}

/// "Redeliver a delivery for an app webhook": 202, then the same payload
/// is delivered again under the same GUID, recorded with `redelivery: true`.
async fn redeliver(State(state): State<Shared>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    let delivery = match find(&state, &id, &headers) {
        Ok(delivery) => delivery,
        Err((status, message)) => return error(status, message),
    };
    let (shared, asked) = (state.clone(), Instant::now());
    tokio::spawn(async move {
        attempt(&shared, &delivery.event, &delivery.guid, &delivery.payload, Some(asked)).await;
    });
    (StatusCode::ACCEPTED, Json(json!({}))).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn sim() -> Sim {
        let public =
            std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/app/test-app-key.pub.pem")).unwrap();
        Sim::start(4242, &public, 77).await.unwrap()
    }

    /// The App's JWT as "Generating a JSON Web Token (JWT) for a GitHub App"
    /// describes it: RS256, issued a minute ago, expiring within ten minutes.
    fn jwt() -> String {
        let pem = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/app/test-app-key.pem")).unwrap();
        let key = jsonwebtoken::EncodingKey::from_rsa_pem(&pem).unwrap();
        let claims = json!({ "iat": now() - 60, "exp": now() + 9 * 60, "iss": "4242" });
        jsonwebtoken::encode(&jsonwebtoken::Header::new(jsonwebtoken::Algorithm::RS256), &claims, &key).unwrap()
    }

    /// A receiver on loopback answering every delivery with `status`,
    /// keeping the GUIDs and signatures it was sent.
    async fn receiver(status: u16) -> (String, std::sync::Arc<std::sync::Mutex<Vec<(String, String)>>>) {
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let kept = seen.clone();
        let app = Router::new().route(
            "/webhook",
            post(move |headers: HeaderMap| {
                let kept = kept.clone();
                async move {
                    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
                    kept.lock().unwrap().push((header("x-github-delivery"), header("x-hub-signature-256")));
                    StatusCode::from_u16(status).unwrap()
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/webhook", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        (url, seen)
    }

    fn payload(n: u64) -> Value {
        json!({ "action": "opened", "number": n, "installation": { "id": 77 }, "repository": { "id": 9, "full_name": "acme/docs" } })
    }

    #[test]
    fn signs_as_githubs_documented_example() {
        // "Validating webhook deliveries" (Testing the webhook payload validation).
        assert_eq!(
            signature(b"It's a Secret to Everybody", b"Hello, World!"),
            "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
        );
    }

    #[tokio::test]
    async fn records_accepted_refused_and_unreachable_deliveries() {
        let sim = sim().await;
        let (url, seen) = receiver(202).await;
        sim.set_webhook(&url, "s3cret");
        let ok = sim.deliver("pull_request", &payload(1)).await;
        assert_eq!((ok.status.as_str(), ok.status_code), ("OK", 202));
        let body = serde_json::to_vec(&payload(1)).unwrap();
        let (guid, signature) = seen.lock().unwrap()[0].clone();
        assert_eq!(guid, ok.guid);
        assert_eq!(signature, super::signature(b"s3cret", &body), "signed with the secret");
        let (refusing, _) = receiver(503).await;
        sim.set_webhook(&refusing, "s3cret");
        let refused = sim.deliver("pull_request", &payload(2)).await;
        assert_eq!((refused.status.as_str(), refused.status_code), ("Invalid HTTP Response: 503", 503));
        let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let nobody = format!("http://{}/webhook", closed.local_addr().unwrap());
        drop(closed);
        sim.set_webhook(&nobody, "s3cret");
        let down = sim.deliver("pull_request", &payload(3)).await;
        assert_eq!((down.status.as_str(), down.status_code), ("failed to connect to network", 0));
        let guids: Vec<String> = sim.hook_deliveries().iter().map(|d| d.guid.clone()).collect();
        assert_eq!(guids.len(), 3);
        assert!(guids[0] != guids[1] && guids[1] != guids[2], "a new GUID per event: {guids:?}");
        assert_eq!(down.installation_id, Some(77));
        assert_eq!(down.repository_id, Some(9));
        assert_eq!(down.action.as_deref(), Some("opened"));
    }

    #[tokio::test]
    async fn lists_newest_first_in_cursor_pages_within_three_days() {
        let sim = sim().await;
        for n in 0..5 {
            sim.deliver("pull_request", &payload(n)).await;
        }
        let client = reqwest::Client::new();
        let get = |url: String| client.get(url).bearer_auth(jwt()).send();
        let first = get(format!("{}/app/hook/deliveries?per_page=2", sim.url())).await.unwrap();
        let link = first.headers()["link"].to_str().unwrap().to_string();
        let items: Vec<Value> = first.json().await.unwrap();
        let ids: Vec<u64> = items.iter().map(|i| i["id"].as_u64().unwrap()).collect();
        assert!(ids[0] > ids[1], "newest first: {ids:?}");
        assert_eq!(items[0]["status"], "failed to connect to host", "no webhook URL set: {items:?}");
        let next = link.split(';').next().unwrap().trim_matches(['<', '>']).to_string();
        assert!(next.contains("cursor="), "{link}");
        let mut seen = ids;
        let mut url = Some(next);
        while let Some(page) = url.take() {
            let response = get(page).await.unwrap();
            url = response
                .headers()
                .get("link")
                .map(|l| l.to_str().unwrap().split(';').next().unwrap().trim_matches(['<', '>']).to_string());
            let items: Vec<Value> = response.json().await.unwrap();
            seen.extend(items.iter().map(|i| i["id"].as_u64().unwrap()));
        }
        let mut sorted = seen.clone();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        sorted.dedup();
        assert_eq!(seen, sorted, "every delivery once, newest first");
        assert_eq!(seen.len(), 5);
        let unauthenticated = client.get(format!("{}/app/hook/deliveries", sim.url())).send().await.unwrap();
        assert_eq!(unauthenticated.status(), 401, "the App's JWT is required");
        sim.age_hook_deliveries(HISTORY_S + 60);
        let old: Vec<Value> = get(format!("{}/app/hook/deliveries", sim.url())).await.unwrap().json().await.unwrap();
        assert!(old.is_empty(), "older than 3 days is gone: {old:?}");
        let gone = get(format!("{}/app/hook/deliveries/{}", sim.url(), seen[0])).await.unwrap();
        assert_eq!(gone.status(), 404);
    }

    #[tokio::test]
    async fn redelivers_the_same_payload_under_the_same_guid() {
        let sim = sim().await;
        let (refusing, _) = receiver(503).await;
        sim.set_webhook(&refusing, "s3cret");
        let failed = sim.deliver("pull_request", &payload(7)).await;
        let (url, seen) = receiver(202).await;
        sim.set_webhook(&url, "s3cret");
        let client = reqwest::Client::new();
        let one: Value = client
            .get(format!("{}/app/hook/deliveries/{}", sim.url(), failed.id))
            .bearer_auth(jwt())
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(one["request"]["payload"], payload(7));
        assert_eq!(one["status_code"], 503);
        let asked = client
            .post(format!("{}/app/hook/deliveries/{}/attempts", sim.url(), failed.id))
            .bearer_auth(jwt())
            .send()
            .await
            .unwrap();
        assert_eq!(asked.status(), 202);
        for _ in 0..200 {
            if sim.hook_deliveries().len() == 2 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let log = sim.hook_deliveries();
        assert_eq!(log.len(), 2, "{log:?}");
        let again = &log[1];
        assert!(again.redelivery && again.guid == failed.guid && again.id != failed.id, "{again:?}");
        assert_eq!((again.status.as_str(), again.status_code), ("OK", 202));
        assert_eq!(again.payload, failed.payload);
        assert_eq!(seen.lock().unwrap()[0].0, failed.guid, "the App sees the same X-GitHub-Delivery");
        let unknown = client
            .post(format!("{}/app/hook/deliveries/999999/attempts", sim.url()))
            .bearer_auth(jwt())
            .send()
            .await
            .unwrap();
        assert_eq!(unknown.status(), 404);
    }
}
