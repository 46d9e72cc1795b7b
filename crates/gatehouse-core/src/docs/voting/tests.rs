use super::*;

const DOC: &str = "---\nformat: voting/v1\ndoc: smoke-spec-path\nversion: 1\n---\n# Smoke specs\n\nIntro.\n\n## Where smoke specs live\n\n```voting\nsection: smoke-spec-path\nactive_argument: A\narguments:\n  - id: A\n    proposer: jon-laptop/operator-seed\n    vote_ledger:\n      - voter: lin/opus-4.7\n        vote: +1\n        weight: 1.4\n        ts: 2026-05-06T09:42:11Z\n```\n\n## Empty\n\nNo block.\n";

#[test]
fn sections_blocks_and_lines() {
    let doc = VotingDoc::parse("dark-factory/guidelines/smoke-spec-path@v1.md", DOC);
    assert_eq!(doc.file_name(), Ok(FileName { doc: "smoke-spec-path", version: 1 }));
    assert_eq!(doc.field("version").unwrap().as_i64(), Some(1));
    assert_eq!(doc.sections.len(), 2);
    let (section, block) = doc.blocks().next().unwrap();
    assert_eq!((section.line, section.fences.as_slice()), (10, &[12][..]));
    assert_eq!(block.section_id(), Some("smoke-spec-path"));
    let arg = block.arguments().next().unwrap();
    assert_eq!((arg.id(), arg.node.line()), (Some("A"), 16));
    let vote = arg.votes().next().unwrap();
    assert_eq!(
        (vote.voter(), vote.value(), vote.weight(), vote.node.line()),
        (Some("lin/opus-4.7"), Some(1), Some(1.4), 19)
    );
    assert_eq!(vote.field("ts").unwrap().line(), 22);
    assert!(doc.sections[1].block.is_none());
    assert_eq!(doc.sections[1].line, 25);
}

#[test]
fn well_formed_votes_are_exactly_those_with_every_field_right() {
    let good = "voter: lin/opus-4.7\nvote: -1\nweight: 0.5\nts: 2026-05-06T09:42:11Z\nrationale: \"The smoke spec moved under tests/e2e in gyrum-labs/platform#12.\"";
    let well_formed = |entry: &str| {
        let entry = entry.replace('\n', "\n        ");
        let text =
            format!("## S\n```voting\nsection: s\narguments:\n  - id: A\n    vote_ledger:\n      - {entry}\n```\n");
        let doc = VotingDoc::parse("x@v1.md", &text);
        let (_, block) = doc.blocks().next().expect("a block");
        let argument = block.arguments().next().expect("an argument");
        argument.votes().next().expect("a vote").is_well_formed()
    };
    assert!(well_formed(good));
    assert!(well_formed(&format!("{good}\nscope_match: 0.9")));
    for bad in [
        good.replace("lin/opus-4.7", "lin"),
        good.replace("lin/opus-4.7", "'1'").replace("voter: '1'", "voter: 1"),
        good.replace("vote: -1", "vote: 2"),
        good.replace("weight: 0.5", "weight: 0"),
        good.replace("09:42:11Z", "09:42:11"),
        good.replace("The smoke spec moved under tests/e2e in gyrum-labs/platform#12.", "too short"),
        good.replace("\"The smoke spec moved under tests/e2e in gyrum-labs/platform#12.\"", "[a, b]"),
        format!("{good}\nscope_match: 1.5"),
        good.replace("\nweight: 0.5", ""),
    ] {
        assert!(!well_formed(&bad), "{bad}");
    }
}

#[test]
fn crlf_docs_read_as_their_lf_twins() {
    let lf = VotingDoc::parse("x@v1.md", DOC);
    let crlf_text = DOC.replace('\n', "\r\n");
    let crlf = VotingDoc::parse("x@v1.md", &crlf_text);
    let tree = |doc: &VotingDoc| doc.blocks().map(|(_, b)| format!("{:?}", b.root())).collect::<Vec<_>>();
    assert_eq!(tree(&crlf), tree(&lf));
    let vote = |doc: &VotingDoc| {
        let (_, block) = doc.blocks().next().unwrap();
        let vote = block.arguments().next().unwrap().votes().next().unwrap();
        (vote.voter().map(str::to_string), vote.weight(), vote.instant())
    };
    assert_eq!(vote(&crlf), vote(&lf));
    assert!(vote(&lf).2.is_some());
}

#[test]
fn stray_and_second_blocks() {
    let text = "```voting\na: 1\n```\n## S\n```voting\nsection: s\n```\n```voting\nsection: t\n```\n# Top\n```voting\nx: 1\n```\n";
    let doc = VotingDoc::parse("x@v1.md", text);
    assert_eq!(doc.stray_blocks, vec![1, 12]);
    assert_eq!(doc.sections[0].fences, vec![5, 8]);
    assert_eq!(doc.blocks().next().unwrap().1.section_id(), Some("s"));
}

#[test]
fn file_names() {
    assert_eq!(parse_file_name("smoke-spec-path.md@v2"), Ok(FileName { doc: "smoke-spec-path", version: 2 }));
    assert_eq!(parse_file_name("go-handler@v10.md"), Ok(FileName { doc: "go-handler", version: 10 }));
    for bad in [
        "smoke.md",
        "Smoke@v1.md",
        "smoke@v0.md",
        "smoke@v01.md",
        "smoke@vx.md",
        "smoke.txt@v1",
        "smoke@v1.txt",
        "@v1.md",
    ] {
        assert!(parse_file_name(bad).is_err(), "{bad}");
    }
}

#[test]
fn shapes() {
    assert!(is_persona_pin("lin/opus-4.7") && is_persona_pin("jon-laptop/operator-seed"));
    for good in ["zoë/opus-4.7", "lin/claude-3-5-sonnet@20240620", "jon/llama3.1:70b", "陈/qwen2.5"] {
        assert!(is_persona_pin(good), "{good}");
    }
    for bad in ["lin", "lin/", "/opus", "lin/opus/4", "lin opus/4", "lin/\u{7}x"] {
        assert!(!is_persona_pin(bad), "{bad}");
    }
    assert_eq!(persona_pin_problem("zoë opus/4.7").as_deref(), Some("has a space at column 4"));
    assert_eq!(
        persona_pin_problem("lin/opus/4").as_deref(),
        Some("has a second `/` at column 9; there is exactly one")
    );
    assert_eq!(parse_timestamp("2026-05-06 09:42:11Z"), parse_timestamp("2026-05-06T09:42:11Z"));
    assert!(parse_timestamp("2026-05-06 09:42:11Z").is_ok());
    assert_eq!(short_rationale(&"x".repeat(50)), None);
    assert_eq!(short_rationale(&format!("  {}  ", "x".repeat(49))), Some(49));
    assert_eq!(short_rationale(&"ü".repeat(30)), Some(30));
    assert_eq!(short_rationale(&"ü".repeat(50)), None);
    assert!(is_date("2024-02-29") && !is_date("2026-02-29") && !is_date("2026-13-01") && !is_date("2026-5-6"));
    assert_eq!(parse_timestamp("1970-01-01T00:00:01Z"), Ok(1_000_000));
    assert_eq!(parse_timestamp("1970-01-01T02:00:01.5+02:00"), Ok(1_500_000));
    assert!(parse_timestamp("2026-05-06T09:42:11").unwrap_err().contains("no time zone"));
    assert!(parse_timestamp("2026-05-06 09:42:11").unwrap_err().contains("no time zone"));
    assert!(parse_timestamp("2026-05-06T25:42:11Z").is_err());
    assert!(parse_timestamp("2026-05-06T09:42:11+2").is_err());
    assert!(parse_timestamp("2026-05-0€T09:42:11Z").is_err());
    assert!(parse_timestamp("2026-02-30T09:42:11Z").unwrap_err().contains("date part"));
}
