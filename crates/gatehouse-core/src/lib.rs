//! gatehouse's pure core: the document models, the rules, the repository
//! config, the review policy, the report renderers and the JSON Schemas of
//! the document formats.
//!
//! Nothing here does IO, reads a clock or knows GitHub: a source (a git
//! checkout, GitHub's API) builds a [`ChangeSet`], [`rules::evaluate`] turns it
//! into findings, [`Report`] collects them and [`render`] shows them. The
//! crate's dependencies hold that line: no async runtime, HTTP, database or
//! TLS crate can be reached from here.

#![warn(unreachable_pub)]

pub mod attest;
pub mod config;
pub mod depends;
pub mod diff;
pub mod docs;
pub mod gate;
pub mod model;
pub mod owners;
pub mod plan;
pub mod reads;
pub mod render;
pub mod rules;
pub mod schema;
pub mod suggest;

pub use config::Config;
pub use model::{ChangeSet, Finding, Report, Severity};
