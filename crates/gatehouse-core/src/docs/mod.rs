//! Parsers: text in, typed documents with line spans out. No IO.

pub mod adr;
pub mod brief;
pub mod decision;
pub mod frontmatter;
pub mod json;
pub mod label;
pub mod lines;
pub mod markdown;
pub mod pathref;
pub mod seen;
pub mod spec;
pub mod timestamp;
pub mod tree;
pub mod voting;
pub mod yaml;
pub mod yaml_block;
mod yaml_diagnose;

/// ASCII letters and digits, `_`, `-` and `.`: the bytes of the plain YAML
/// keys the fast reader takes.
pub(crate) fn is_word_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'-' | b'.')
}
