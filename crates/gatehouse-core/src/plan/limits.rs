//! GitHub's limits on the texts gatehouse sends, and cutting a text to fit
//! one: on a UTF-8 character boundary, ending with a visible marker, so a
//! long finding is shown cut instead of failing the whole request.

use std::borrow::Cow;

/// An annotation's `message` and `raw_details`: "64 KB", read at its
/// smallest (64,000 bytes).
pub const ANNOTATION_BYTES: usize = 64_000;
/// An annotation's `title`, in characters.
pub const ANNOTATION_TITLE_CHARS: usize = 255;
/// A check run's `output.summary` and `output.text`, in characters.
pub const OUTPUT_CHARS: usize = 65_535;
/// A check run's `output.title`: GitHub documents no limit; gatehouse keeps
/// it to an annotation title's 255 characters (GitHub shows one line).
pub const CHECK_TITLE_CHARS: usize = 255;
/// A review's body, a review comment's body and an issue comment's body, in
/// characters.
pub const COMMENT_CHARS: usize = 65_536;

/// Ends a text that was cut.
pub const MARKER: &str = "\n\n… [cut here to fit GitHub's length limit]";
/// Ends a one-line text (a title) that was cut.
const SHORT_MARKER: &str = " […]";

fn marker(max: usize) -> &'static str {
    if max < 1000 { SHORT_MARKER } else { MARKER }
}

/// `text` in at most `max` bytes, cut on a character boundary.
pub fn bytes(text: &str, max: usize) -> Cow<'_, str> {
    if text.len() <= max {
        return Cow::Borrowed(text);
    }
    let marker = if marker(max).len() < max { marker(max) } else { "" };
    let mut keep = max - marker.len();
    while !text.is_char_boundary(keep) {
        keep -= 1;
    }
    Cow::Owned(format!("{}{marker}", &text[..keep]))
}

/// `text` in at most `max` characters.
pub fn chars(text: &str, max: usize) -> Cow<'_, str> {
    let Some((cut, _)) = text.char_indices().nth(max) else { return Cow::Borrowed(text) };
    let marker = if marker(max).chars().count() < max { marker(max) } else { "" };
    let keep = max - marker.chars().count();
    let end = text.char_indices().nth(keep).map_or(cut, |(at, _)| at);
    Cow::Owned(format!("{}{marker}", &text[..end]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multi_byte_text_is_cut_on_a_character_boundary_with_a_marker() {
        let japanese = "基準".repeat(20_000); // 120,000 bytes, 40,000 characters
        let cut = bytes(&japanese, ANNOTATION_BYTES);
        assert!(cut.len() <= ANNOTATION_BYTES, "{} bytes", cut.len());
        assert!(cut.len() > ANNOTATION_BYTES - 10);
        assert!(cut.ends_with(MARKER));
        assert!(cut.starts_with("基準基準"));
        let accents = "é".repeat(70_000);
        let cut = chars(&accents, COMMENT_CHARS);
        assert_eq!(cut.chars().count(), COMMENT_CHARS);
        assert!(cut.ends_with(MARKER));
        let long_title = "題".repeat(300);
        let title = chars(&long_title, CHECK_TITLE_CHARS);
        assert_eq!(title.chars().count(), CHECK_TITLE_CHARS);
        assert!(title.ends_with(" […]"));
    }

    #[test]
    fn text_within_the_limit_is_kept() {
        assert!(matches!(bytes("短い", 6), Cow::Borrowed("短い")));
        assert!(matches!(chars("短い", 2), Cow::Borrowed("短い")));
        assert_eq!(bytes("短い", 5), "短", "too short for the marker: cut on a boundary alone");
    }
}
