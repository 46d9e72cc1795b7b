//! The App's webhook deliveries as GitHub recorded them ("REST API
//! endpoints for GitHub App webhooks"), read and redelivered with the App's
//! JWT: the remedy "Handling failed webhook deliveries" gives, since GitHub
//! does not redeliver a failed delivery by itself.

use reqwest::Method;
use serde::Deserialize;

use super::client::{ApiError, Call, GitHub};

/// One delivery attempt, the `hook-delivery-item` of "List deliveries for
/// an app webhook".
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub(crate) struct HookDelivery {
    /// This attempt's id: what a redelivery is asked for by.
    pub id: u64,
    /// `X-GitHub-Delivery`: the same for every redelivery of one event.
    pub guid: String,
    /// ISO 8601, `2019-06-03T00:57:16Z`.
    pub delivered_at: String,
    pub redelivery: bool,
    pub duration: f64,
    /// `OK` for a delivery the App answered with a 2xx.
    pub status: String,
    /// The App's HTTP status; 0 when it never answered (down, unreachable).
    pub status_code: u16,
    pub event: String,
    pub action: Option<String>,
    pub installation_id: Option<u64>,
    pub repository_id: Option<u64>,
}

impl HookDelivery {
    /// Answered with a 2xx.
    pub(crate) fn succeeded(&self) -> bool {
        (200..300).contains(&self.status_code)
    }

    /// `delivered_at` in Unix milliseconds; `None` when unreadable.
    pub(crate) fn delivered_at_ms(&self) -> Option<i64> {
        super::auth::parse_rfc3339_utc(&self.delivered_at).map(|secs| secs as i64 * 1000)
    }
}

/// GitHub's largest page of deliveries.
pub(crate) const PER_PAGE: u32 = 100;

impl GitHub {
    /// One page of the App's deliveries, newest first: the first page when
    /// `page` is `None`, else the `Link` header's next page (cursor-based)
    /// that an earlier page named. Returns the page and the next one's URL.
    pub(crate) async fn hook_deliveries(
        &self,
        page: Option<&str>,
    ) -> Result<(Vec<HookDelivery>, Option<String>), ApiError> {
        let url = match page {
            Some(url) if url.starts_with(&format!("{}/app/hook/deliveries?", self.base)) => url.to_string(),
            Some(_) => {
                return Err(ApiError::Status {
                    status: 0,
                    what: "a page of hook deliveries".into(),
                    message: "the next page points off the API host".into(),
                });
            }
            None => format!("{}/app/hook/deliveries?per_page={PER_PAGE}", self.base),
        };
        let what = "GET /app/hook/deliveries";
        let jwt = self.creds.jwt().map_err(|e| ApiError::Auth(e.to_string()))?;
        let response = self.send(Method::GET, &url, None, &jwt, Call::Idempotent, what, None).await?;
        let items = response.typed().map_err(|e| ApiError::Malformed { what: what.into(), message: e.to_string() })?;
        Ok((items, response.next))
    }

    /// Asks GitHub to deliver delivery `id` again ("Redeliver a delivery for
    /// an app webhook": 202). A create: never repeated when its outcome is
    /// unknown.
    pub(crate) async fn redeliver(&self, id: u64) -> Result<(), ApiError> {
        let url = format!("{}/app/hook/deliveries/{id}/attempts", self.base);
        let jwt = self.creds.jwt().map_err(|e| ApiError::Auth(e.to_string()))?;
        let what = "POST /app/hook/deliveries/{delivery_id}/attempts";
        self.send(Method::POST, &url, None, &jwt, Call::Create, what, None).await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_delivery_as_github_lists_it() {
        let item = r#"{"id": 12345678, "guid": "0b989ba4-242f-11e5-81e1-c7b6966d2516",
            "delivered_at": "2019-06-03T00:57:16Z", "redelivery": false, "duration": 0.27,
            "status": "Invalid HTTP Response: 503", "status_code": 503, "event": "pull_request",
            "action": "opened", "installation_id": 123, "repository_id": null}"#;
        let delivery: HookDelivery = serde_json::from_str(item).unwrap();
        assert!(!delivery.succeeded());
        assert_eq!(delivery.delivered_at_ms(), Some(1_559_523_436_000));
        assert_eq!(delivery.repository_id, None);
        let missing = item.replace(r#""guid": "0b989ba4-242f-11e5-81e1-c7b6966d2516","#, "");
        assert!(serde_json::from_str::<HookDelivery>(&missing).is_err(), "a required field is never defaulted");
    }
}
