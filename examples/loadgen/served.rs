//! `gatehouse serve` as a process of its own, as a load balancer sees it:
//! SQLite in a temporary folder, the simulated GitHub as its GitHub, every
//! other setting at its default unless `env` says otherwise.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use anyhow::{Context, Result, bail};

use super::{APP_ID, SECRET};

/// The release binary `cargo build --release` leaves.
pub fn default_binary() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/release/gatehouse")
}

/// The SQLite database a server started in `dir` opens.
pub fn database(dir: &Path) -> PathBuf {
    dir.join("gatehouse.db")
}

pub struct Served {
    child: Child,
    pub addr: SocketAddr,
    _dir: tempfile::TempDir,
}

impl Served {
    /// Starts `binary serve` with `github` as its GitHub and its database
    /// in `dir` (see [`database`]), and waits until it listens.
    pub fn start(
        binary: &Path,
        dir: tempfile::TempDir,
        github: &str,
        workers: usize,
        env: &[(&str, String)],
    ) -> Result<Served> {
        if !binary.exists() {
            bail!("{} is missing: build it first (cargo build --release)", binary.display());
        }
        let key = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/app/test-app-key.pem");
        let mut command = Command::new(binary);
        command
            .arg("serve")
            .env("GATEHOUSE_APP_ID", APP_ID.to_string())
            .env("GATEHOUSE_PRIVATE_KEY_PATH", key)
            .env("GATEHOUSE_WEBHOOK_SECRET", SECRET)
            .env("GATEHOUSE_DATABASE_URL", format!("sqlite://{}", database(dir.path()).display()))
            .env("GATEHOUSE_BIND", "127.0.0.1:0")
            .env("GATEHOUSE_GITHUB_API_URL", github)
            .env("GATEHOUSE_WORKERS", workers.to_string())
            .env("NO_COLOR", "1")
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (name, value) in env {
            command.env(name, value);
        }
        let mut child = command.spawn().with_context(|| format!("cannot run {}", binary.display()))?;
        let mut lines = BufReader::new(child.stderr.take().context("serve's stderr")?).lines();
        let addr = loop {
            let Some(line) = lines.next() else { bail!("gatehouse serve stopped before it listened") };
            let line = line?;
            if line.contains("gatehouse is serving")
                && let Some(at) = line.find("127.0.0.1:")
            {
                let addr: String =
                    line[at..].chars().take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ':').collect();
                break addr.parse()?;
            }
        };
        // The log keeps being read, so the server never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        Ok(Served { child, addr, _dir: dir })
    }

    /// A field of /proc/PID/status in bytes (`VmHWM`: the peak resident set;
    /// `VmRSS`: the resident set now).
    pub fn memory(&self, field: &str) -> Result<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))?;
        let line = status.lines().find_map(|l| l.strip_prefix(field)?.strip_prefix(':')).context("no such field")?;
        Ok(line.trim().trim_end_matches("kB").trim().parse::<u64>()? * 1024)
    }

    /// A counter of `GET /metrics` (0 when absent).
    pub async fn counter(&self, series: &str) -> Result<u64> {
        let metrics = reqwest::get(format!("http://{}/metrics", self.addr)).await?.text().await?;
        let prefix = format!("{series} ");
        Ok(metrics.lines().find_map(|l| l.strip_prefix(&prefix)).map_or(Ok(0), str::parse)?)
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
