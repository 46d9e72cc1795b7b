//! Spec folders of the fondue `spec` protocol v9 (seed 003; docs/seed-coverage.md, Engine formats):
//! the state grammar, the transition table, and the files of a spec folder.

pub mod files;
pub mod review;
pub mod state;
pub mod transitions;
