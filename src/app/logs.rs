//! Where logs go: stderr, filtered by `RUST_LOG`. Text is coloured only when
//! stderr is a terminal (and `NO_COLOR` is unset), so a file or a pipe gets
//! plain lines; `json` writes one JSON object a line, for log collectors.

use std::io::IsTerminal;

/// `--log-format` (`GATEHOUSE_LOG_FORMAT`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    #[default]
    Text,
    Json,
}

/// Sends logs to stderr in `format`, `RUST_LOG` or else `default_filter`
/// choosing what is logged; does nothing when the caller set up tracing.
pub(crate) fn init(default_filter: &str, format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_filter));
    let logs = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
    let _ = match format {
        LogFormat::Text => logs.with_ansi(colour()).try_init(),
        LogFormat::Json => logs.json().try_init(),
    };
}

/// Colour on a terminal only, unless `NO_COLOR` asks for none
/// (<https://no-color.org>).
fn colour() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}
