//! gatehouse: structural merge gates for the documents AI agents run from.
//!
//! Data flows one way: a source (git or GitHub) builds a [`model::ChangeSet`];
//! the pure [`rules`] turn it into a [`model::Report`]; a renderer or the
//! publisher shows it.

pub mod app;
pub mod cli;
pub mod config;
pub mod demo;
pub mod docs;
pub mod gate;
pub mod github;
pub mod model;
pub mod publish;
pub mod register;
pub mod render;
pub mod rules;
pub mod schema;
pub mod sim;
pub mod site;
pub mod source;
pub mod store;
pub mod webhook;
