//! YAML frontmatter between `---` lines at the top of a markdown file.

use super::yaml::{self, Tree, YamlError};

/// A document split into its frontmatter and its body.
#[derive(Clone, Debug)]
pub struct Split<'a> {
    /// The parsed frontmatter (a mapping), or why it could not be read.
    pub frontmatter: Result<Tree<'a>, FrontmatterError>,
    /// The markdown after the closing `---` (the whole text when there is no
    /// frontmatter).
    pub body: &'a str,
    /// The file line the body starts on.
    pub body_line: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FrontmatterError {
    #[error("the file is empty")]
    Empty,
    #[error("the file does not start with a `---` line, so it has no frontmatter")]
    Missing,
    #[error("the frontmatter opened on line {open} is never closed by a `---` line")]
    Unterminated { open: u32 },
    #[error("invalid YAML in the frontmatter at {0}")]
    Yaml(YamlError),
    #[error("the frontmatter on line {line} must be a mapping of `key: value` lines, found {found}")]
    NotMapping { line: u32, found: &'static str },
}

impl FrontmatterError {
    /// The file line the error points at.
    pub fn line(&self) -> u32 {
        match self {
            FrontmatterError::Empty | FrontmatterError::Missing => 1,
            FrontmatterError::Unterminated { open } => *open,
            FrontmatterError::Yaml(e) => e.line,
            FrontmatterError::NotMapping { line, .. } => *line,
        }
    }
}

fn is_fence(line: &str) -> bool {
    line.trim_end() == "---"
}

/// The byte just past the closing fence of `text`'s frontmatter (the
/// opening fence may follow a BOM), or 0 when `text` has no closed
/// frontmatter: where its Markdown starts.
pub fn end(text: &str) -> usize {
    let bom = text.len() - text.strip_prefix('\u{feff}').unwrap_or(text).len();
    let mut lines = text[bom..].split_inclusive('\n');
    let Some(first) = lines.next().filter(|l| is_fence(l)) else { return 0 };
    let mut offset = bom + first.len();
    for line in lines {
        offset += line.len();
        if is_fence(line) || line.trim_end() == "..." {
            return offset;
        }
    }
    0
}

/// Splits `text` into frontmatter and body.
pub fn split(text: &str) -> Split<'_> {
    let text_no_bom = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text_no_bom.trim().is_empty() {
        return Split { frontmatter: Err(FrontmatterError::Empty), body: text_no_bom, body_line: 1 };
    }
    let mut lines = text_no_bom.split_inclusive('\n');
    let Some(first) = lines.next().filter(|l| is_fence(l)) else {
        return Split { frontmatter: Err(FrontmatterError::Missing), body: text_no_bom, body_line: 1 };
    };
    let yaml_start = first.len();
    let mut offset = yaml_start;
    let mut line_no = 1u32;
    for line in lines {
        line_no += 1;
        if is_fence(line) || line.trim_end() == "..." {
            let yaml_text = &text_no_bom[yaml_start..offset];
            let body = &text_no_bom[offset + line.len()..];
            let frontmatter = match yaml::parse(yaml_text, 2) {
                Err(e) => Err(FrontmatterError::Yaml(e)),
                Ok(y) if y.root().as_map().is_some() => Ok(y),
                Ok(y) => {
                    Err(FrontmatterError::NotMapping { line: y.root().line().max(2), found: y.root().type_name() })
                }
            };
            return Split { frontmatter, body, body_line: line_no + 1 };
        }
        offset += line.len();
    }
    Split {
        frontmatter: Err(FrontmatterError::Unterminated { open: 1 }),
        body: &text_no_bom[yaml_start..],
        body_line: 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_and_keeps_file_lines() {
        let s = split("---\nagent: SWARM-AR\n---\n# Title\n");
        assert_eq!(s.frontmatter.unwrap().root().get("agent").unwrap().line(), 2);
        assert_eq!(s.body, "# Title\n");
        assert_eq!(s.body_line, 4);
    }

    #[test]
    fn the_markdown_starts_past_a_closed_frontmatter() {
        assert_eq!(end("---\nagent: x\n---\n# Title\n"), 17);
        assert_eq!(end("\u{feff}---\na: 1\n...\nbody"), 3 + 13);
        assert_eq!(end("---\nagent: x\n"), 0, "never closed");
        assert_eq!(end("# Title\n---\n"), 0);
    }

    #[test]
    fn reports_missing_unterminated_and_non_mapping() {
        assert_eq!(split("# Title\n").frontmatter.unwrap_err(), FrontmatterError::Missing);
        assert_eq!(split("").frontmatter.unwrap_err(), FrontmatterError::Empty);
        assert_eq!(split("\u{feff} \n\n").frontmatter.unwrap_err(), FrontmatterError::Empty);
        assert_eq!(split("---\nagent: x\n").frontmatter.unwrap_err(), FrontmatterError::Unterminated { open: 1 });
        let err = split("---\n- a\n---\n").frontmatter.unwrap_err();
        assert!(matches!(err, FrontmatterError::NotMapping { line: 2, .. }), "{err:?}");
        let err = split("---\na: [1\nb: 2\n---\n").frontmatter.unwrap_err();
        assert!(matches!(err, FrontmatterError::Yaml(_)));
        assert!(err.line() >= 2);
    }
}
