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
pub mod text;
pub mod timestamp;
pub mod tree;
pub mod voting;
pub mod yaml;
pub mod yaml_block;
