//! Paths named in documents: `src/a.rs`, `owner/repo:src/a.rs`,
//! `owner/repo@ref:src/a.rs`. Deciding which inline code spans are paths, and
//! refusing paths that would leave the repository.

/// A path a document names, with the repo and revision when it says them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathRef {
    pub repo: Option<String>,
    pub rev: Option<String>,
    /// Repo-relative; a trailing `/` names a directory.
    pub path: String,
}

/// What an inline code span is, for path checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SpanKind {
    NotAPath,
    Path(PathRef),
    /// Looks like a path but escapes the repository (`..`, absolute, a scheme).
    Unsafe {
        reason: &'static str,
    },
}

/// File extensions that make a slash-less span a path (`Cargo.toml`), so that
/// identifiers such as `config.paths` are not mistaken for files.
const EXTENSIONS: &[&str] = &[
    "md",
    "markdown",
    "txt",
    "rs",
    "go",
    "py",
    "ts",
    "tsx",
    "js",
    "jsx",
    "mjs",
    "cjs",
    "json",
    "yaml",
    "yml",
    "toml",
    "sh",
    "bash",
    "zsh",
    "sql",
    "lock",
    "html",
    "css",
    "scss",
    "proto",
    "tf",
    "hcl",
    "rb",
    "java",
    "kt",
    "swift",
    "c",
    "h",
    "cc",
    "cpp",
    "hpp",
    "cs",
    "ex",
    "exs",
    "erl",
    "mod",
    "sum",
    "cfg",
    "ini",
    "conf",
    "env",
    "xml",
    "csv",
    "svg",
    "png",
    "jpg",
    "gif",
    "pdf",
    "nix",
    "lua",
    "php",
    "pl",
    "r",
    "scala",
    "vue",
    "svelte",
    "gradle",
    "mk",
    "dockerfile",
    "service",
    "timer",
    "j2",
    "tpl",
    "graphql",
    "gql",
];

/// File names that are paths without an extension.
const EXTENSIONLESS: &[&str] = &["Dockerfile", "Makefile", "Justfile", "Procfile"];

/// `owner/name` as GitHub spells repositories.
pub fn is_repo_name(s: &str) -> bool {
    let Some((owner, name)) = s.split_once('/') else { return false };
    let owner_ok = !owner.is_empty()
        && owner.len() <= 39
        && owner.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        && !owner.starts_with('-');
    let name_ok = !name.is_empty()
        && name.len() <= 100
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        && name != "."
        && name != "..";
    owner_ok && name_ok
}

/// `owner/repo#123`.
pub fn is_issue_ref(s: &str) -> bool {
    s.split_once('#')
        .is_some_and(|(repo, n)| is_repo_name(repo) && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Classifies an inline code span's text. `repos` are the document's own
/// repositories: a bare `owner/repo` listed there names the repo, not a path.
pub fn classify(text: &str, repos: &[&str]) -> SpanKind {
    let text = text.trim();
    if text.is_empty() || text.chars().any(char::is_whitespace) {
        return SpanKind::NotAPath;
    }
    if text.contains("://") || text.starts_with("mailto:") || text.starts_with("www.") {
        return SpanKind::NotAPath;
    }
    if super::adr::parse_id(text).is_some() || is_issue_ref(text) {
        return SpanKind::NotAPath;
    }
    if repos.iter().any(|r| r.eq_ignore_ascii_case(text)) {
        return SpanKind::NotAPath;
    }
    if text.contains(['*', '<', '>', '{', '}', '$', '|', '(', ')', '=', '"', '\'', ',', ';', '?', '[', ']', '%'])
        || is_pattern(text)
    {
        return SpanKind::NotAPath;
    }
    let text = strip_location(text);
    let (repo, rev, path) = split_qualified(text);
    if repo.is_none() && !text.contains('/') && !has_extension(text) {
        return SpanKind::NotAPath;
    }
    // Only what looks like a path gets here; now refuse the unsafe ones.
    if path.starts_with('/') || path.starts_with('~') {
        return SpanKind::Unsafe { reason: "is an absolute path; document paths are relative to the repository root" };
    }
    if path.contains(':') {
        return SpanKind::NotAPath;
    }
    if path.split('/').any(|seg| seg == "..") {
        return SpanKind::Unsafe { reason: "climbs out with `..`; name the path from the repository root" };
    }
    let path = path.trim_start_matches("./");
    if path.is_empty() {
        return SpanKind::NotAPath;
    }
    SpanKind::Path(PathRef { repo: repo.map(str::to_string), rev: rev.map(str::to_string), path: path.to_string() })
}

/// Classifies a word of prose or an argument of a command (`scripts/x.sh`
/// in `` `scripts/x.sh --latest` ``), where a word is a path only when it has
/// a path's shape: it names a file by a known extension (in prose with a
/// folder too, so that `Node.js` is no file), ends in `/`, starts with `./`
/// or names its repository. A web address without its scheme
/// (`github.com/o/r`) is no path, and an unsafe word is none either: prose
/// and commands name host paths (`/etc/hosts`) that no repository holds.
pub fn classify_word(word: &str, repos: &[&str], in_prose: bool) -> SpanKind {
    if may_be_path_word(word) { word_shape(word, repos, in_prose) } else { SpanKind::NotAPath }
}

/// Whether `word` has a `/` or a `.`, or starts with an extension-less file
/// name (`Makefile`, `Makefile:12`): no other word has a path's shape. Most
/// words of prose are none, and are told so without `classify`.
fn may_be_path_word(word: &str) -> bool {
    word.contains(['/', '.']) || EXTENSIONLESS.iter().any(|name| word.starts_with(name))
}

fn word_shape(word: &str, repos: &[&str], in_prose: bool) -> SpanKind {
    let kind = classify(word, repos);
    let SpanKind::Path(path) = &kind else { return SpanKind::NotAPath };
    let first = path.path.split('/').next().unwrap_or("");
    if path.repo.is_none() && first.contains('.') && !first.starts_with('.') && path.path.contains('/') {
        return SpanKind::NotAPath;
    }
    let shaped = path.repo.is_some()
        || path.path.ends_with('/') && path.path.len() > 1
        || word.starts_with("./")
        || has_extension(&path.path) && (!in_prose || path.path.contains('/'));
    if shaped { kind } else { SpanKind::NotAPath }
}

/// A name pattern, not a path: placeholder words such as `NNNN`, `XXX` or
/// `YYYY-MM-DD` (`docs/adr/NNNN-title.md`), or an elided segment (`src/…/a.rs`).
pub fn is_pattern(text: &str) -> bool {
    text.contains("...")
        || text.contains('…')
        || text.split(['/', '-', '_', '.']).any(|word| {
            let mut letters = word.chars();
            letters.next().is_some_and(|first| {
                matches!(first, 'N' | 'X' | 'Y' | 'M' | 'D' | 'H' | 'S')
                    && word.len() >= 2
                    && letters.all(|c| c == first)
            })
        })
}

/// Splits `owner/repo[@rev]:path`; an unqualified text is all path.
fn split_qualified(text: &str) -> (Option<&str>, Option<&str>, &str) {
    if let Some((head, path)) = text.split_once(':') {
        let (repo, rev) = match head.split_once('@') {
            Some((repo, rev)) => (repo, Some(rev)),
            None => (head, None),
        };
        if is_repo_name(repo) && rev.is_none_or(|r| !r.is_empty()) {
            return (Some(repo), rev, path);
        }
    }
    (None, None, text)
}

/// Drops a `:42`, `:42-50` or `#L42` location suffix.
fn strip_location(path: &str) -> &str {
    let path = match path.rfind("#L") {
        Some(at) if path[at + 2..].bytes().all(|b| b.is_ascii_digit() || b == b'-' || b == b'L') => &path[..at],
        _ => path,
    };
    match path.rfind(':') {
        Some(at) if !path[at + 1..].is_empty() && path[at + 1..].bytes().all(|b| b.is_ascii_digit() || b == b'-') => {
            &path[..at]
        }
        _ => path,
    }
}

fn has_extension(text: &str) -> bool {
    let file = text.rsplit('/').next().unwrap_or(text);
    match file.rsplit_once('.') {
        Some((stem, ext)) => !stem.is_empty() && EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str()),
        None => EXTENSIONLESS.contains(&file),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(repo: Option<&str>, rev: Option<&str>, p: &str) -> SpanKind {
        SpanKind::Path(PathRef { repo: repo.map(Into::into), rev: rev.map(Into::into), path: p.into() })
    }

    #[test]
    fn classifies_spans() {
        let repos = ["gyrum-labs/infra"];
        assert_eq!(classify("scripts/backup.sh", &repos), path(None, None, "scripts/backup.sh"));
        assert_eq!(classify("Cargo.toml", &repos), path(None, None, "Cargo.toml"));
        assert_eq!(classify("buzzy/src/", &repos), path(None, None, "buzzy/src/"));
        assert_eq!(classify("src/main.rs:42", &repos), path(None, None, "src/main.rs"));
        assert_eq!(
            classify("gyrum-labs/infra:hosts/a.yml", &repos),
            path(Some("gyrum-labs/infra"), None, "hosts/a.yml")
        );
        assert_eq!(classify("o/r@abc123:x/y.md", &repos), path(Some("o/r"), Some("abc123"), "x/y.md"));
        for not in [
            "gyrum-labs/infra",
            "o/r#12",
            "ADR-095",
            "https://x.y/z",
            "config.paths",
            "cargo test",
            "src/*.rs",
            "<feature>/x",
            "--dry-run",
            "a",
            "docs/adr/NNNN-title.md",
            "notes/YYYY-MM-DD.md",
            "src/.../mod.rs",
            "src/**/*.rs",
            "<name>.md",
            "docs/my%20notes.md",
        ] {
            assert_eq!(classify(not, &repos), SpanKind::NotAPath, "{not}");
        }
        assert!(matches!(classify("../etc/passwd", &repos), SpanKind::Unsafe { .. }));
        assert!(matches!(classify("/etc/hosts", &repos), SpanKind::Unsafe { .. }));
        assert!(matches!(classify("o/r:../x.md", &repos), SpanKind::Unsafe { .. }));
    }

    #[test]
    fn words_are_paths_only_in_a_paths_shape() {
        let repos = ["gyrum-labs/infra"];
        for (word, in_prose) in [
            ("runbooks/restore.md", true),
            ("buzzy/src/", true),
            ("gyrum-labs/infra:hosts/a.yml", true),
            (".github/workflows/ci.yml", true),
            ("scripts/restore.sh", false),
            ("Cargo.toml", false),
            ("./restore", false),
            ("Makefile:12", false),
        ] {
            assert!(matches!(classify_word(word, &repos, in_prose), SpanKind::Path(_)), "{word}");
        }
        for (word, in_prose) in [
            ("and/or", true),
            ("origin/main", false),
            ("Node.js", true),
            ("github.com/o/r/a.md", true),
            ("/etc/hosts", false),
            ("../x.md", true),
            ("24/7", true),
            ("gyrum-labs/infra", true),
            ("--latest", false),
            ("Makefile", true),
            ("Node", true),
        ] {
            assert_eq!(classify_word(word, &repos, in_prose), SpanKind::NotAPath, "{word}");
        }
    }

    proptest::proptest! {
        #[test]
        fn a_word_passed_over_has_no_paths_shape(
            word in "(Makefile|Dockerfile)?[A-Za-z0-9:#@~_*<>=-]{0,12}(Makefile|md)?",
            in_prose: bool,
        ) {
            if !may_be_path_word(&word) {
                proptest::prop_assert_eq!(word_shape(&word, &["o/r"], in_prose), SpanKind::NotAPath);
            }
        }
    }
}
