//! CODEOWNERS read as GitHub reads it ("About code owners"): the first of
//! [`LOCATIONS`] at the base, one rule a line (a gitignore-like pattern and
//! its owners), the last matching line deciding a file's owners, a pattern
//! with no owners leaving its files unowned. A line GitHub would reject (a
//! `!` negation, a `[ ]` range, an owner that is no `@user`, `@org/team` or
//! email) is an error at its line and column and takes no part in matching,
//! as GitHub skips it.

mod directory;
pub mod explain;

pub use directory::{Directory, Members, RequiredReviewers, ReviewRules, RuleSource, TeamRef};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde::Serialize;

/// Where GitHub looks for the file, in the order it looks.
pub const LOCATIONS: [&str; 3] = [".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS"];

/// A file as the base holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BaseFile {
    pub path: String,
    pub text: String,
}

impl BaseFile {
    pub fn parse(&self) -> Codeowners {
        Codeowners::parse(&self.path, &self.text)
    }
}

/// One owner as a CODEOWNERS line writes it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(tag = "kind", content = "name", rename_all = "snake_case")]
pub enum Owner {
    /// `@login`, kept as written.
    User(String),
    /// `@org/team`.
    Team(TeamRef),
    /// An email address GitHub maps to the account it was added to.
    Email(String),
}

impl std::fmt::Display for Owner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Owner::User(login) => write!(f, "@{login}"),
            Owner::Team(team) => write!(f, "{team}"),
            Owner::Email(email) => f.write_str(email),
        }
    }
}

/// A valid line of the file: its pattern and owners (none: the files it
/// matches are unowned).
#[derive(Clone, Debug)]
pub struct OwnerRule {
    pub line: u32,
    pub pattern: String,
    pub owners: Vec<Owner>,
    matcher: GlobSet,
}

impl OwnerRule {
    pub fn matches(&self, path: &str) -> bool {
        self.matcher.is_match(path)
    }
}

/// A line GitHub would reject, in the terms of GitHub's "List CODEOWNERS
/// errors" (`kind` is its error kind, e.g. "Invalid pattern").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct CodeownersError {
    pub line: u32,
    pub column: u32,
    pub kind: String,
    pub message: String,
    /// How to fix it, when there is more to say than the message.
    #[serde(default)]
    pub suggestion: Option<String>,
}

/// A parsed CODEOWNERS file.
#[derive(Clone, Debug)]
pub struct Codeowners {
    /// Where it was read, one of [`LOCATIONS`].
    pub path: String,
    /// The valid lines, in file order.
    pub rules: Vec<OwnerRule>,
    pub errors: Vec<CodeownersError>,
}

/// Which later line takes a file from an earlier one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Override {
    pub line: u32,
    pub pattern: String,
    /// The files (of those asked about) the later line takes.
    pub paths: Vec<String>,
}

impl Codeowners {
    pub fn parse(path: &str, text: &str) -> Codeowners {
        let mut rules = Vec::new();
        let mut errors = Vec::new();
        for (at, raw) in text.lines().enumerate() {
            let line = at as u32 + 1;
            match parse_line(raw) {
                Ok(Some((pattern, owners))) => match matcher(&pattern) {
                    Ok(matcher) => rules.push(OwnerRule { line, pattern, owners, matcher }),
                    Err(message) => errors.push(CodeownersError {
                        line,
                        column: first_column(raw),
                        kind: "Invalid pattern".into(),
                        message,
                        suggestion: None,
                    }),
                },
                Ok(None) => {}
                Err(mut error) => {
                    error.line = line;
                    errors.push(error);
                }
            }
        }
        Codeowners { path: path.to_string(), rules, errors }
    }

    /// The rule deciding `file`'s owners: the last valid line matching it.
    pub fn rule_for(&self, file: &str) -> Option<&OwnerRule> {
        self.rules.iter().rev().find(|rule| rule.matches(file))
    }

    pub fn rule_at(&self, line: u32) -> Option<&OwnerRule> {
        self.rules.iter().find(|rule| rule.line == line)
    }

    /// For the line `line`, the later lines that take some of `files` it
    /// matches, each with the files it takes.
    pub fn overridden(&self, line: u32, files: &[&str]) -> Vec<Override> {
        let Some(rule) = self.rule_at(line) else { return Vec::new() };
        let mut out: Vec<Override> = Vec::new();
        for file in files.iter().filter(|f| rule.matches(f)) {
            let Some(winner) = self.rule_for(file).filter(|w| w.line != line) else { continue };
            match out.iter_mut().find(|o| o.line == winner.line) {
                Some(o) => o.paths.push(file.to_string()),
                None => out.push(Override {
                    line: winner.line,
                    pattern: winner.pattern.clone(),
                    paths: vec![file.to_string()],
                }),
            }
        }
        out
    }

    /// Every team the file names.
    pub fn teams(&self) -> impl Iterator<Item = &TeamRef> {
        self.rules.iter().flat_map(|r| &r.owners).filter_map(|o| match o {
            Owner::Team(team) => Some(team),
            _ => None,
        })
    }
}

/// The column of a line's first non-blank character.
fn first_column(raw: &str) -> u32 {
    raw.chars().take_while(|c| c.is_whitespace()).count() as u32 + 1
}

/// One line's pattern and owners; `None` for a blank line or a comment.
fn parse_line(raw: &str) -> Result<Option<(String, Vec<Owner>)>, CodeownersError> {
    let tokens = tokens(raw);
    let Some((pattern_col, pattern)) = tokens.first().cloned() else { return Ok(None) };
    let error = |column: u32, kind: &str, message: String, suggestion: Option<String>| CodeownersError {
        line: 0,
        column,
        kind: kind.into(),
        message,
        suggestion,
    };
    if pattern.starts_with('!') {
        return Err(error(
            pattern_col,
            "Invalid pattern",
            format!("`{pattern}`: CODEOWNERS has no `!` negation"),
            Some("to leave files unowned, write their pattern on a later line with no owners".into()),
        ));
    }
    if let Some(at) = pattern.find(['[', ']']) {
        return Err(error(
            pattern_col + pattern[..at].chars().count() as u32,
            "Invalid pattern",
            format!("`{pattern}`: CODEOWNERS does not support `[ ]` character ranges"),
            Some("write one line per name the range stands for, or a `*` or `?` wildcard".into()),
        ));
    }
    let mut owners = Vec::new();
    for (col, token) in &tokens[1..] {
        match owner(token) {
            Some(o) => owners.push(o),
            None => {
                return Err(error(
                    *col,
                    "Invalid owner",
                    format!("`{token}` is not an owner: write `@user`, `@org/team` or an email address"),
                    token
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-')
                        .then(|| format!("did you mean `@{token}`?")),
                ));
            }
        }
    }
    Ok(Some((pattern, owners)))
}

/// The tokens of a line with their columns, up to a `#` that starts a
/// token (a comment); `\` escapes the character after it (`\#`, `\ `).
fn tokens(raw: &str) -> Vec<(u32, String)> {
    let mut out: Vec<(u32, String)> = Vec::new();
    let mut current: Option<(u32, String)> = None;
    let mut chars = raw.chars().enumerate().peekable();
    while let Some((at, c)) = chars.next() {
        let col = at as u32 + 1;
        match c {
            '\\' => {
                let escaped = chars.next().map_or('\\', |(_, next)| next);
                current.get_or_insert_with(|| (col, String::new())).1.push(escaped);
            }
            c if c.is_whitespace() => out.extend(current.take()),
            '#' if current.is_none() => break,
            c => current.get_or_insert_with(|| (col, String::new())).1.push(c),
        }
    }
    out.extend(current);
    out
}

/// An owner token, or `None` when it is none GitHub accepts.
fn owner(token: &str) -> Option<Owner> {
    let name_ok = |s: &str| {
        !s.is_empty()
            && s.len() <= 39
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            && !s.starts_with('-')
    };
    if let Some(name) = token.strip_prefix('@') {
        return match name.split_once('/') {
            Some((org, slug))
                if name_ok(org)
                    && !slug.is_empty()
                    && slug.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')) =>
            {
                Some(Owner::Team(TeamRef::new(org, slug)))
            }
            None if name_ok(name) => Some(Owner::User(name.to_string())),
            _ => None,
        };
    }
    let (local, domain) = token.split_once('@')?;
    (!local.is_empty() && domain.contains('.') && !domain.contains('@') && !domain.starts_with('.'))
        .then(|| Owner::Email(token.to_string()))
}

/// The globs a pattern stands for: anchored at the root when it starts with
/// or holds a `/`, else matching at any depth; a folder's files at any
/// depth below it, except where its last segment has a `*` (`docs/*` owns
/// `docs/a.md`, not `docs/b/c.md`).
fn matcher(pattern: &str) -> Result<GlobSet, String> {
    let body = pattern.trim_start_matches('/').trim_end_matches('/');
    if body.is_empty() {
        return Err(format!("`{pattern}` never matches a file; `*` matches every file"));
    }
    let anchored = pattern.starts_with('/') || body.contains('/');
    let base = if anchored { body.to_string() } else { format!("**/{body}") };
    let last = body.rsplit('/').next().unwrap_or(body);
    let mut globs = Vec::new();
    if !pattern.ends_with('/') {
        globs.push(base.clone());
    }
    if pattern.ends_with('/') || !last.contains('*') || last == "**" {
        globs.push(format!("{base}/**"));
    }
    let mut set = GlobSetBuilder::new();
    for glob in globs {
        let glob = GlobBuilder::new(&glob)
            .literal_separator(true)
            .backslash_escape(false)
            .build()
            .map_err(|e| format!("`{pattern}` is not a pattern GitHub can read: {}", e.kind()))?;
        set.add(glob);
    }
    set.build().map_err(|e| format!("`{pattern}` is not a pattern GitHub can read: {e}"))
}

#[cfg(test)]
mod tests;
