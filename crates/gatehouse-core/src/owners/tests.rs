use super::*;

const FILE: &str = "\
# the default owners
*       @acme/core
*.md    @docs-lead docs@acme.example
/infra/ @acme/SRE
docs/*  @writer
**/logs @ops
/infra/scratch/
\\#notes.txt @alice
";

fn owners_of(codeowners: &Codeowners, file: &str) -> Option<(u32, Vec<String>)> {
    codeowners.rule_for(file).map(|r| (r.line, r.owners.iter().map(|o| o.to_string()).collect()))
}

#[test]
fn the_last_matching_line_decides_and_an_ownerless_line_unowns() {
    let c = Codeowners::parse(".github/CODEOWNERS", FILE);
    assert_eq!(c.errors, vec![]);
    assert_eq!(owners_of(&c, "src/main.rs"), Some((2, vec!["@acme/core".into()])));
    assert_eq!(owners_of(&c, "src/README.md"), Some((3, vec!["@docs-lead".into(), "docs@acme.example".into()])));
    assert_eq!(owners_of(&c, "infra/db/main.tf"), Some((4, vec!["@acme/sre".into()])), "teams are lowercased");
    assert_eq!(owners_of(&c, "docs/guide.txt"), Some((5, vec!["@writer".into()])));
    assert_eq!(owners_of(&c, "docs/deep/guide.txt"), Some((2, vec!["@acme/core".into()])), "`docs/*` is one level");
    assert_eq!(owners_of(&c, "build/logs/today.txt"), Some((6, vec!["@ops".into()])));
    assert_eq!(owners_of(&c, "infra/scratch/x.tf"), Some((7, vec![])), "owned by nobody");
    assert_eq!(owners_of(&c, "#notes.txt"), Some((8, vec!["@alice".into()])), "`\\#` escapes the hash");
    assert_eq!(owners_of(&c, "Infra/db/main.tf").map(|(l, _)| l), Some(2), "paths are case sensitive");
}

#[test]
fn an_anchored_pattern_matches_from_the_root_only() {
    let c = Codeowners::parse("CODEOWNERS", "/build/ @a\napps/ @b\n/*.txt @c\n");
    assert_eq!(owners_of(&c, "build/x").map(|(l, _)| l), Some(1));
    assert_eq!(owners_of(&c, "src/build/x"), None);
    assert_eq!(owners_of(&c, "deep/apps/x.rs").map(|(l, _)| l), Some(2));
    assert_eq!(owners_of(&c, "a.txt").map(|(l, _)| l), Some(3));
    assert_eq!(owners_of(&c, "d/a.txt"), None);
}

#[test]
fn lines_github_rejects_are_errors_at_their_column_and_match_nothing() {
    let text = "* @a\n!secret.txt @b\nfile[0-9].txt @c\n*.rs alice\n/ @d\n*.go @ok # a comment\n";
    let c = Codeowners::parse("CODEOWNERS", text);
    let found: Vec<(u32, u32, &str)> = c.errors.iter().map(|e| (e.line, e.column, e.kind.as_str())).collect();
    assert_eq!(
        found,
        vec![(2, 1, "Invalid pattern"), (3, 5, "Invalid pattern"), (4, 6, "Invalid owner"), (5, 1, "Invalid pattern")]
    );
    assert!(c.errors[0].message.contains("no `!` negation"), "{}", c.errors[0].message);
    assert_eq!(c.errors[2].suggestion.as_deref(), Some("did you mean `@alice`?"));
    assert_eq!(owners_of(&c, "main.rs").map(|(l, _)| l), Some(1), "the rejected line takes no file");
    assert_eq!(owners_of(&c, "main.go"), Some((6, vec!["@ok".into()])), "a `#` token starts a comment");
}

#[test]
fn overridden_names_the_later_lines_and_their_files() {
    let c = Codeowners::parse(".github/CODEOWNERS", FILE);
    let files = ["src/main.rs", "README.md", "infra/a.tf", "infra/scratch/b.tf"];
    let over = c.overridden(2, &files);
    let shown: Vec<(u32, Vec<String>)> = over.into_iter().map(|o| (o.line, o.paths)).collect();
    assert_eq!(
        shown,
        vec![(3, vec!["README.md".into()]), (4, vec!["infra/a.tf".into()]), (7, vec!["infra/scratch/b.tf".into()])]
    );
    assert_eq!(c.teams().map(|t| t.to_string()).collect::<Vec<_>>(), ["@acme/core", "@acme/sre"]);
    assert_eq!(TeamRef::parse("@Acme/Core"), Some(TeamRef::new("acme", "core")));
    assert_eq!(TeamRef::parse("alice"), None);
}

#[test]
fn no_input_panics() {
    for text in ["\\", "@", "* @", "* @/x", "* a@b@c.d", "**", "/**/ @x", "\u{feff}* @x", "a\\ b @x\n\t* @y"] {
        let c = Codeowners::parse("CODEOWNERS", text);
        let _ = c.rule_for("a b");
    }
}
