//! Generated corpora for `cargo bench --bench validate`: one module per
//! document family, each adding its files to a base and a head file map.

pub mod briefs;
pub mod decisions;
pub mod specs;
pub mod voting;
