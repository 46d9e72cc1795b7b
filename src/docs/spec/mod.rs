//! Spec folders of the fondue `spec` protocol v9 (seed 003; DESIGN §3.3):
//! the state grammar, the transition table, and the files of a spec folder.

pub mod files;
pub mod review;
pub mod state;
pub mod transitions;
