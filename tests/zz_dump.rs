use std::path::Path;
#[test]
fn dump() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/rules/voting");
    let shared = root.join("_shared");
    let mut rules: Vec<_> = std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().path()).filter(|p| !p.ends_with("_shared")).collect();
    rules.sort();
    for rule in rules {
        for kind in ["fail", "pass"] {
            let case = rule.join(kind);
            let tmp = tempfile::tempdir().unwrap();
            let cp = |from: &Path, to: &Path| { if from.exists() { for rel in gatehouse::source::fs::list(from).unwrap() { let t = to.join(&rel); std::fs::create_dir_all(t.parent().unwrap()).unwrap(); std::fs::copy(from.join(&rel), t).unwrap(); } } };
            let head = tmp.path().join("head"); std::fs::create_dir_all(&head).unwrap();
            cp(&shared, &head); cp(&case.join("head"), &head);
            let base = case.join("base").exists().then(|| { let b = tmp.path().join("base"); std::fs::create_dir_all(&b).unwrap(); cp(&shared, &b); cp(&case.join("base"), &b); b });
            let mut ch = gatehouse::source::fs::changeset(&head, base.as_deref(), None, &[]).unwrap();
            ch.pr.body = std::fs::read_to_string(case.join("pr-body.md")).ok();
            let r = gatehouse::rules::evaluate(&ch);
            println!("== {} {kind}", rule.file_name().unwrap().to_string_lossy());
            for f in r.findings().filter(|f| f.rule != "voting/tally" && f.rule != "voting/format-cite") { println!("  {}:{} {} [{:?}] {} | {}", f.path.rsplit('/').next().unwrap(), f.span.line, f.rule, f.severity, f.message, f.help.as_deref().unwrap_or("")); }
        }
    }
}
