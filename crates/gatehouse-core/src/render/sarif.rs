use serde_json::{Value, json};

use crate::model::{Fix, PR_BODY, Report, Severity};
use crate::rules::all_rules;

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Notice => "note",
    }
}

/// A SARIF `fix` (§3.55): one `artifactChange` per file, each edit a
/// `replacement` whose `deletedRegion` is the edit's byte range (§3.30.12:
/// `byteOffset`, `byteLength`) and whose `insertedContent` is its text.
fn fix_object(fix: &Fix) -> Value {
    let changes: Vec<Value> = fix
        .paths()
        .into_iter()
        .map(|path| {
            let replacements: Vec<Value> = fix
                .edits
                .iter()
                .filter(|e| e.path == path)
                .map(|e| {
                    json!({
                        "deletedRegion": { "byteOffset": e.start, "byteLength": e.end - e.start },
                        "insertedContent": { "text": e.replacement },
                    })
                })
                .collect();
            json!({ "artifactLocation": { "uri": path }, "replacements": replacements })
        })
        .collect();
    json!({ "description": { "text": fix.message }, "artifactChanges": changes })
}

/// SARIF 2.1.0, for code-scanning uploads.
pub fn sarif(report: &Report) -> String {
    let rules: Vec<Value> = all_rules()
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "shortDescription": { "text": r.summary },
                "fullDescription": { "text": r.why },
                "defaultConfiguration": { "level": level(r.default_severity) },
                "help": { "text": format!("gatehouse explain {}", r.id) },
            })
        })
        .collect();
    let results: Vec<Value> = report
        .findings()
        .map(|f| {
            let mut region = json!({ "startLine": f.span.line, "endLine": f.span.end_line.max(f.span.line) });
            if f.span.col > 0 {
                region["startColumn"] = json!(f.span.col);
                region["endColumn"] = json!(f.span.end_col.max(f.span.col + 1));
            }
            let message = match &f.help {
                Some(help) => format!("{}\nhelp: {help}", f.message),
                None => f.message.clone(),
            };
            // The pull request's body is no file: a logical location, and
            // its line in the message.
            let (message, location) = match f.path == PR_BODY {
                true => (
                    format!("in the pull request body, line {}: {message}", f.span.line),
                    json!({ "logicalLocations": [{ "name": "pull request body", "kind": "resource" }] }),
                ),
                false => (
                    message,
                    json!({ "physicalLocation": { "artifactLocation": { "uri": f.path }, "region": region } }),
                ),
            };
            let mut result = json!({
                "ruleId": f.rule,
                "level": level(f.severity),
                "message": { "text": message },
                "locations": [location],
                "partialFingerprints": { "gatehouse/v1": f.fingerprint },
            });
            if let Some(fix) = &f.fix {
                result["fixes"] = json!([fix_object(fix)]);
            }
            result
        })
        .collect();
    let doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": { "name": "gatehouse", "version": env!("CARGO_PKG_VERSION"), "rules": rules } },
            "results": results,
        }],
    });
    serde_json::to_string_pretty(&doc).expect("plain data serializes")
}
