//! `gatehouse lsp`: a Language Server Protocol server on stdio.
//!
//! Diagnostics for the open governed documents from the rules `gatehouse
//! check` runs, over the workspace on disk with the open buffers laid over
//! it; hover, go to definition, completion and the verified fixes as code
//! actions. One thread serves every message in order; changes are checked
//! once typing pauses ([`DEBOUNCE`]).

mod convert;
mod navigate;
mod server;
mod transport;
mod workspace;

use std::io::{Read, Write};

use anyhow::Result;

/// How long the server waits after a change before it checks: a burst of
/// keystrokes is checked once.
pub const DEBOUNCE: std::time::Duration = std::time::Duration::from_millis(150);

/// Serves the protocol on `input` and `output` until the client sends
/// `exit` or closes its end. Returns whether `shutdown` came first (the
/// protocol's exit status 0, else 1).
pub fn serve(input: impl Read + Send + 'static, output: impl Write + Send + 'static) -> Result<bool> {
    server::Server::new(transport::Writer::new(Box::new(output))).run(transport::spawn_reader(input))
}

pub use workspace::Workspace;
