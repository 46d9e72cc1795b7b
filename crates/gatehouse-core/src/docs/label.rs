//! Labels that open a line (`Verdict: approved`, `**Verdict:** approved`,
//! `**Existing code**: …`, `__Skill:__ spec`), read the same however they are
//! emphasised: CommonMark emphasis (§6.2, `*`/`_` runs of one to three)
//! changes how a label looks, never what it says, and the colon may sit
//! inside the emphasis or after it.

/// The label opening `line` and the text after it: `(name, rest)`, the name
/// trimmed and without its colon, the rest trimmed and without a colon that
/// follows the emphasis. An emphasised label needs no colon (`**Landed
/// work** - …`); a plain one is the text before the line's first `:`, of at
/// most four words and no markup.
pub fn label(line: &str) -> Option<(&str, &str)> {
    let line = line.trim();
    let marker = line.chars().next().filter(|c| matches!(c, '*' | '_'))?;
    let run = line.chars().take_while(|c| *c == marker).count().min(3);
    let closing = &line[..run];
    let inner = &line[run..];
    let end = inner.find(closing)?;
    let name = inner[..end].trim();
    if name.is_empty() || name.starts_with([marker, ' ']) {
        return None;
    }
    let rest = inner[end + run..].trim_start_matches(marker).trim_start();
    let rest = rest.strip_prefix(':').unwrap_or(rest).trim();
    Some((name.trim_end_matches(':').trim_end(), rest))
}

/// [`label`], or a plain `Name: rest` label.
pub fn any_label(line: &str) -> Option<(&str, &str)> {
    let trimmed = line.trim();
    if let Some(found) = label(trimmed) {
        return Some(found);
    }
    let (name, rest) = trimmed.split_once(':')?;
    let plain = !name.is_empty()
        && name.split_whitespace().count() <= 4
        && !name.contains(['*', '_', '`', '[', ']', '#', '>', '|', '<']);
    plain.then(|| (name.trim(), rest.trim()))
}

/// A list item's text: after a bullet (`-`, `*`, `+`) or an ordered marker
/// (`1.`, `1)`) and a space (CommonMark §5.2), else `None`.
pub fn list_item(line: &str) -> Option<&str> {
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    let rest = if (1..=9).contains(&digits) {
        line[digits..].strip_prefix(['.', ')'])?
    } else {
        line.strip_prefix(['-', '*', '+'])?
    };
    rest.starts_with([' ', '\t']).then_some(rest)
}

/// Whether a heading's or label's text names the section `name`: the name
/// first (any case, any emphasis), then nothing, or a break before the
/// words that follow it (`Landed work (from landed.md)`, `Earlier attempts:
/// 01 and 02`, `Existing code — what is there`).
pub fn names_section(text: &str, name: &str) -> bool {
    let text = text.trim().trim_matches(['*', '_']).trim_start();
    let Some(head) = text.get(..name.len()) else { return false };
    let after = &text[name.len()..];
    head.eq_ignore_ascii_case(name) && after.chars().next().is_none_or(|c| !c.is_alphanumeric() && c != '-' && c != '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_read_the_same_however_emphasised() {
        for line in [
            "Verdict: approved plan",
            "**Verdict:** approved plan",
            "**Verdict**: approved plan",
            "__Verdict:__ approved plan",
            "*Verdict:* approved plan",
            "_Verdict_: approved plan",
            "***Verdict:*** approved plan",
            "  **Verdict:**   approved plan  ",
        ] {
            assert_eq!(any_label(line), Some(("Verdict", "approved plan")), "{line}");
        }
        assert_eq!(label("**Existing code**"), Some(("Existing code", "")));
        assert_eq!(label("**Landed work** - every commit"), Some(("Landed work", "- every commit")));
        for none in ["** not bold", "**", "*a", "plain: x", "- item"] {
            assert_eq!(label(none), None, "{none}");
        }
        assert_eq!(any_label("See `a: b`"), None);
        assert_eq!((list_item("- a"), list_item("12) a"), list_item("3. a")), (Some(" a"), Some(" a"), Some(" a")));
        assert_eq!((list_item("-a"), list_item("2024-02-01 x"), list_item("**a**")), (None, None, None));
        for text in ["Landed work", "landed work:", "**Landed work** (from landed.md)", "Landed work - kept"] {
            assert!(names_section(text, "Landed work"), "{text}");
        }
        for text in ["Landed workflow", "Landed", "Work landed", "Landed work_items"] {
            assert!(!names_section(text, "Landed work"), "{text}");
        }
        assert_eq!(any_label("The deploy runs, then the tests run and report: ok"), None);
    }
}
