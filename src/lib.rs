//! gatehouse: structural merge gates for the documents AI agents run from.
//!
//! Data flows one way: a source (git or GitHub) builds a [`model::ChangeSet`];
//! the pure [`rules`] turn it into a [`model::Report`]; a renderer or the
//! publisher shows it.

#![warn(unreachable_pub)]

pub use gatehouse_core::{
    attest, config, depends, diff, docs, gate, model, owners, plan, reads, render, rules, schema,
};

pub mod app;
pub mod attestation;
pub mod cli;
#[cfg(feature = "demo")]
mod demo;
pub mod github;
pub mod lsp;
pub mod mcp;
pub mod metrics;
pub mod publish;
pub mod register;
pub mod site;
pub mod source;
pub mod store;
pub mod webhook;
