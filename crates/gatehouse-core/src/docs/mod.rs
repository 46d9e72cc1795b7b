//! Parsers: text in, typed documents with line spans out. No IO.

pub mod adr;
pub mod brief;
pub mod decision;
pub mod frontmatter;
pub mod json;
pub mod lines;
pub mod markdown;
pub mod pathref;
pub mod spec;
pub mod timestamp;
pub mod tree;
pub mod voting;
pub mod yaml;
pub mod yaml_block;

/// ASCII letters and digits, `_`, `-` and `.`: the bytes of the plain YAML
/// keys the fast reader takes, and of persona pins' parts. A table: both
/// are read for every line of a ledger.
pub(crate) fn is_word_byte(byte: u8) -> bool {
    static WORD: [bool; 256] = {
        let mut table = [false; 256];
        let mut b = 0;
        while b < 256 {
            let c = b as u8;
            table[b] = c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c == b'.';
            b += 1;
        }
        table
    };
    WORD[usize::from(byte)]
}
