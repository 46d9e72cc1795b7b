//! [`Text`]: an immutable string that keeps up to 22 bytes inline. YAML keys
//! and most scalars (ids, voters, votes, weights, timestamps) are that short,
//! so a parsed ledger entry needs one allocation (its mapping) rather than one
//! per key and value; building and freeing big ledgers is dominated by them.

use std::fmt;
use std::ops::Deref;

/// The longest text kept inline (with its length byte and the variant tag
/// this keeps `Text` the size of a `String`).
const INLINE: usize = 22;

/// Compares, orders and hashes as its `str` (so it can key maps looked up by
/// `&str`).
#[derive(Clone)]
pub struct Text(Repr);

#[derive(Clone)]
enum Repr {
    Inline { len: u8, bytes: [u8; INLINE] },
    Heap(Box<str>),
}

impl Text {
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Inline { len, bytes } => {
                let bytes = &bytes[..usize::from(*len)];
                debug_assert!(std::str::from_utf8(bytes).is_ok());
                // SAFETY: `Inline` is only built by `From<&str>`, which copies
                // a whole `&str` of `len` bytes, so they are valid UTF-8.
                // Validating on every read cost ~6% of the voting bench.
                unsafe { std::str::from_utf8_unchecked(bytes) }
            }
            Repr::Heap(text) => text,
        }
    }

    fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            Repr::Inline { len, bytes } => &bytes[..usize::from(*len)],
            Repr::Heap(text) => text.as_bytes(),
        }
    }
}

impl Default for Text {
    fn default() -> Text {
        Text::from("")
    }
}

impl From<&str> for Text {
    fn from(text: &str) -> Text {
        if text.len() <= INLINE {
            let mut bytes = [0; INLINE];
            bytes[..text.len()].copy_from_slice(text.as_bytes());
            Text(Repr::Inline { len: text.len() as u8, bytes })
        } else {
            Text(Repr::Heap(text.into()))
        }
    }
}

impl From<String> for Text {
    fn from(text: String) -> Text {
        if text.len() <= INLINE { Text::from(text.as_str()) } else { Text(Repr::Heap(text.into_boxed_str())) }
    }
}

impl Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::borrow::Borrow<str> for Text {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for Text {}

impl PartialOrd for Text {
    fn partial_cmp(&self, other: &Text) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Text {
    fn cmp(&self, other: &Text) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl std::hash::Hash for Text {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<Text> for str {
    fn eq(&self, other: &Text) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<Text> for &str {
    fn eq(&self, other: &Text) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_long_texts_read_back_and_compare_as_strings() {
        for s in ["", "vote", "2026-05-06T09:42:11Z", "exactly-twenty-two-by", "twenty-three bytes long", "ünïcödé ✓"]
        {
            let text = Text::from(s);
            assert_eq!(text.as_str(), s);
            assert_eq!(Text::from(s.to_string()), text);
            assert!(text == s, "{s}");
            assert!(s == text, "{s}");
            assert_eq!(format!("{text}|{text:?}"), format!("{s}|{s:?}"));
        }
        assert_eq!(std::mem::size_of::<Text>(), std::mem::size_of::<String>());
        let keys: std::collections::HashMap<Text, u8> =
            [(Text::from("ts"), 1), (Text::from("a key longer than twenty-two bytes"), 2)].into();
        assert_eq!((keys.get("ts"), keys.get("a key longer than twenty-two bytes")), (Some(&1), Some(&2)));
        let (short, long) = (Text::from("b"), Text::from("a long text that is kept on the heap"));
        assert_eq!(short.cmp(&long), std::cmp::Ordering::Greater);
    }
}
