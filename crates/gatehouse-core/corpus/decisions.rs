//! 2,000 decision manifests on base and head: most unchanged, some moving
//! along the lifecycle, some archived (moved into `archive/`).

use gatehouse::model::{FileContent, Files};

pub const DECISIONS: usize = 2_000;
/// Every `MOVE_EVERY`-th decision changes status in the change (and so is a
/// document of the check); a reviewed one is archived into `archive/`.
const MOVE_EVERY: usize = 5;

const STATUSES: [&str; 4] = ["filed", "triaged", "resolved", "reviewed"];

fn manifest(id: &str, i: usize, status: &str) -> String {
    let mut text = format!(
        "{{\n  \"schema_version\": 1,\n  \"decision_id\": \"{id}\",\n  \"status\": \"{status}\",\n  \"tier\": {tier},\n  \
\"stakes\": \"{stakes}\",\n  \"question\": \"Which retry policy should service {i} use for upstream fetch {i}?\",\n  \
\"context\": \"Service {i} gives up after the first failed fetch; the nightly import loses rows.\",\n  \
\"filed_by\": \"agent-{agent}\",\n  \"filed_at\": \"2026-07-{day:02}T09:00:00Z\"",
        tier = i % 3,
        stakes = ["small", "medium", "high"][i % 3],
        agent = i % 17,
        day = 1 + i % 20,
    );
    if matches!(status, "resolved" | "enacted" | "reviewed" | "archived") {
        text.push_str(&format!(
            ",\n  \"resolution\": {{\n    \"recommendation\": \"Retry {n} times with jittered backoff.\",\n    \
\"evidence\": [\"docs/incidents/{i}.md\", \"council:retry-{i}\"],\n    \"resolved_by\": \"sweeper\",\n    \
\"resolved_at\": \"2026-07-{day:02}T12:00:00Z\",\n    \"confidence\": \"medium\"\n  }}",
            n = 3 + i % 4,
            day = 1 + i % 20,
        ));
    }
    if matches!(status, "reviewed" | "archived") {
        text.push_str(&format!(
            ",\n  \"review\": {{ \"verdict\": \"ratified\", \"note\": \"Held up.\", \"reviewed_at\": \"2026-07-{:02}T15:00:00Z\" }}",
            1 + i % 20
        ));
    }
    text.push_str(",\n  \"updated_at\": \"2026-07-28T10:00:00+02:00\"\n}\n");
    text
}

/// Adds the manifests; returns how many the change touches (the check's documents).
pub fn add(base: &mut Files, head: &mut Files) -> usize {
    let mut touched = 0;
    for i in 0..DECISIONS {
        let id = format!("retry-policy-{i}-2026-07-{:02}-{:04x}", 1 + i % 20, i % 0x10000);
        let path = format!(".harnery/decisions/{id}.json");
        let status = STATUSES[i % STATUSES.len()];
        let before = FileContent::Text(manifest(&id, i, status).into());
        base.insert(path.clone(), before.clone());
        if i % MOVE_EVERY != 0 {
            head.insert(path, before);
            continue;
        }
        touched += 1;
        let (to, path) = match status {
            "filed" => ("triaged", path),
            "triaged" => ("resolved", path),
            "resolved" => ("enacted", path),
            _ => ("archived", format!(".harnery/decisions/archive/{id}.json")),
        };
        head.insert(path, FileContent::Text(manifest(&id, i, to).into()));
    }
    touched
}
