//! What the docket's surfaces (the site, the App's dashboard issue) read of
//! a manifest (ADR 0007): its status, its tier and when it was filed, and
//! which decisions are open. The engine stores `tier` (0/1/2) and `stakes`
//! without interpreting them; a tier-2 decision is one a human sees before
//! enactment.

use super::Manifest;
use super::lifecycle::Status;
use crate::docs::json::Json;
use crate::docs::timestamp;

/// The statuses of the queue, in lifecycle order: an open decision is in
/// one of them (`resolved` is a decision awaiting enactment); the rest are
/// enacted, reviewed, archived or closed without a resolution.
pub const QUEUE: [Status; 4] = [Status::Filed, Status::Triaged, Status::Deliberating, Status::Resolved];

/// The tier whose decisions a human sees before enactment.
pub const HUMAN_TIER: i64 = 2;

pub fn is_open(status: Status) -> bool {
    QUEUE.contains(&status)
}

/// One decision as the docket lists it.
#[derive(Clone, Debug)]
pub struct Docketed<'m> {
    /// The manifest's file name without `.json`.
    pub id: &'m str,
    pub manifest: &'m Manifest<'m>,
    /// `None` when the manifest has no valid status.
    pub status: Option<Status>,
    pub tier: Option<i64>,
    /// `filed_at`, in seconds since 1970, when it is a timestamp.
    pub filed_at: Option<i64>,
}

impl<'m> Docketed<'m> {
    pub fn new(id: &'m str, manifest: &'m Manifest<'m>) -> Docketed<'m> {
        Docketed {
            id,
            manifest,
            status: manifest.status().map(|(s, _)| s),
            tier: manifest.get("tier").and_then(Json::as_i64),
            filed_at: manifest.text_field("filed_at").and_then(seconds),
        }
    }

    pub fn is_open(&self) -> bool {
        self.status.is_some_and(is_open)
    }

    /// The question, else the id (a manifest may lack one).
    pub fn question(&self) -> &'m str {
        self.manifest.text_field("question").unwrap_or(self.id)
    }

    pub fn stakes(&self) -> Option<&'m str> {
        self.manifest.text_field("stakes")
    }

    /// The order a queue is worked in: oldest first, then by id; a decision
    /// without a filing time last.
    pub fn age_order(&self) -> (i64, &'m str) {
        (self.filed_at.unwrap_or(i64::MAX), self.id)
    }
}

/// A timestamp's seconds since 1970.
pub fn seconds(text: &str) -> Option<i64> {
    timestamp::parse(text).map(|t| t.seconds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_is_read_for_its_place_in_the_queue() {
        let text = r#"{"id": "x", "question": "Which backup tool?", "status": "resolved", "tier": 2,
                       "stakes": "high", "filed_at": "2026-07-06T10:00:00Z"}"#;
        let manifest = Manifest::parse("d/x.json", text);
        let d = Docketed::new("x", &manifest);
        assert_eq!(
            (d.status, d.tier, d.question(), d.stakes()),
            (Some(Status::Resolved), Some(2), "Which backup tool?", Some("high"))
        );
        assert!(d.is_open(), "resolved: awaiting enactment");
        assert_eq!(d.age_order(), (seconds("2026-07-06T10:00:00Z").unwrap(), "x"));
        let manifest = Manifest::parse("d/y.json", r#"{"status": "enacted", "tier": "two"}"#);
        let d = Docketed::new("y", &manifest);
        assert_eq!(
            (d.is_open(), d.tier, d.question(), d.stakes(), d.age_order()),
            (false, None, "y", None, (i64::MAX, "y"))
        );
        assert!(QUEUE.iter().all(|s| is_open(*s)));
        assert!(!is_open(Status::Wontfix) && !is_open(Status::Reviewed) && !is_open(Status::Archived));
    }
}
