//! Hostile input to the App's parsers never panics: webhook envelopes,
//! signature headers, diff hunks.

use gatehouse::diff::commentable_lines;
use gatehouse::webhook::Secrets;
use gatehouse::webhook::envelope::parse;
use proptest::prelude::*;

const EVENTS: &[&str] = &["pull_request", "check_suite", "check_run", "pull_request_review", "installation", "ping"];

proptest! {
    #[test]
    fn envelopes_never_panic(event in 0..EVENTS.len(), body in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = parse(EVENTS[event], &body);
    }

    #[test]
    fn json_shaped_envelopes_never_panic(
        action in "[a-z_]{0,12}",
        number in any::<i64>(),
        sha in "[0-9a-f]{0,40}",
        prs in proptest::collection::vec(any::<i64>(), 0..4),
    ) {
        let body = serde_json::json!({
            "action": action, "number": number,
            "pull_request": { "number": number, "head": { "sha": sha } },
            "check_suite": { "head_sha": sha, "pull_requests": prs.iter().map(|n| serde_json::json!({ "number": n })).collect::<Vec<_>>() },
            "repository": { "full_name": "acme/docs" }, "installation": { "id": number },
        });
        for event in EVENTS {
            let _ = parse(event, body.to_string().as_bytes());
        }
    }

    #[test]
    fn signature_headers_never_panic(header in proptest::collection::vec(any::<u8>(), 0..100), body in ".{0,64}") {
        let secrets = Secrets::parse("a,b");
        prop_assert!(secrets.verify(Some(&header), body.as_bytes()).is_none() || header.starts_with(b"sha256="));
    }

    #[test]
    fn patches_never_panic(patch in "(@@ [-+0-9, ]{0,20} @@[^\n]{0,10}\n|[-+ \\\\][^\n]{0,10}\n|[^\n]{0,10}\n){0,30}") {
        let _ = commentable_lines(&patch);
    }
}
