//! Turning a Report into what people and tools read: rustc-style text, JSON
//! for agents, SARIF for code-scanning tools, GitHub workflow commands.

mod github;
mod json;
mod sarif;
mod text;

pub use github::github;
pub use json::json;
pub use sarif::sarif;
pub use text::{findings as text_findings, text};

/// The output formats of `gatehouse check`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
    Sarif,
    Github,
}
