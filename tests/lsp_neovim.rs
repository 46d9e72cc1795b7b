//! `gatehouse lsp` driven by a real editor: headless Neovim (Debian's
//! `neovim`, whose built-in LSP client is the one its users run) opens a
//! brief, types a mistake, reads the diagnostics, applies the code action
//! and hovers, as `tests/nvim/lsp.lua` says; this test reads what it saw.
//! And the set-up `docs/editors-and-agents.md` gives, as written there, is
//! the user's `init.lua`: opening a brief starts the server and shows its
//! diagnostics (`tests/nvim/documented.lua` reports them).
//!
//! Without `nvim` on the PATH the test is skipped with a note; under
//! `CI=true` (`.ci/run` installs it) it must run.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

mod lsp_client;
use lsp_client::{BRIEF, BRIEF_TEXT, workspace};

fn nvim() -> Option<PathBuf> {
    let found = std::env::var_os("PATH")
        .and_then(|paths| std::env::split_paths(&paths).map(|p| p.join("nvim")).find(|p| p.is_file()));
    if found.is_none() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "nvim is not on the PATH: .ci/run installs it (Debian's `neovim`)"
        );
        eprintln!("note: nvim is not on the PATH: skipping the Neovim LSP test (apt-get install neovim)");
    }
    found
}

/// Runs Neovim as `command` says; what its script wrote to `result`.
fn what_it_saw(command: &mut Command, result: &Path) -> Value {
    let status = command.status().unwrap();
    assert!(status.success(), "nvim exited with {status}");
    serde_json::from_str(&std::fs::read_to_string(result).expect("the script wrote its result")).unwrap()
}

/// A home of the test's for Neovim, which writes its log and state there
/// (and reads its config from `config/nvim/`); none of the user's.
fn home_of(home: &Path) -> [(&'static str, PathBuf); 5] {
    [
        ("HOME", home.to_path_buf()),
        ("XDG_CONFIG_HOME", home.join("config")),
        ("XDG_STATE_HOME", home.join("state")),
        ("XDG_DATA_HOME", home.join("data")),
        ("XDG_CACHE_HOME", home.join("cache")),
    ]
}

#[test]
fn neovim_shows_the_diagnostics_applies_the_fix_and_hovers() {
    let Some(nvim) = nvim() else { return };
    let dir = tempfile::tempdir().unwrap();
    workspace(dir.path());
    // The brief starts clean; Neovim types the mistake.
    std::fs::write(dir.path().join(BRIEF), BRIEF_TEXT.replace("\"80\"", "80")).unwrap();
    let result = dir.path().join("nvim-result.json");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/nvim/lsp.lua");
    let home = tempfile::tempdir().unwrap();
    let mut command = Command::new(nvim);
    command
        .args(["--headless", "-u", "NONE", "-i", "NONE", "-n", "-c"])
        .arg(format!("luafile {}", script.display()))
        .current_dir(dir.path())
        .envs(home_of(home.path()))
        .env("GATEHOUSE_BIN", env!("CARGO_BIN_EXE_gatehouse"))
        .env("GATEHOUSE_WORKSPACE", dir.path())
        .env("GATEHOUSE_BRIEF", BRIEF)
        .env("GATEHOUSE_RESULT", &result);
    let saw = what_it_saw(&mut command, &result);
    assert_eq!(saw.get("error"), None, "{saw:#}");
    assert_eq!(saw["attached"], true, "{saw:#}");
    assert_eq!(saw["typed"], "lines_estimate: \"80\"", "{saw:#}");
    assert_eq!(saw["diagnostics"], serde_json::json!(["brief/field-type"]), "{saw:#}");
    let message = saw["message"].as_str().unwrap();
    assert!(message.starts_with("`lines_estimate` must be a positive integer, found a string"), "{saw:#}");
    assert_eq!(saw["actions"], serde_json::json!(["write `lines_estimate: 80` (brief/field-type)"]), "{saw:#}");
    assert_eq!(saw["fixed"], "lines_estimate: 80", "{saw:#}");
    assert_eq!(saw["after_fix"], serde_json::json!([]), "{saw:#}");
    let hover = saw["hover"].as_str().unwrap_or_default();
    assert!(hover.contains("**ADR-095**: ADR-095: Backups are a host concern"), "{saw:#}");
    assert!(hover.contains("Status: accepted"), "{saw:#}");
}

/// The `lua` block of `docs/editors-and-agents.md`'s Neovim section.
fn documented_set_up() -> String {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/editors-and-agents.md")).unwrap();
    let section = &doc[doc.find("### Neovim").expect("a Neovim section")..];
    let block = &section[section.find("```lua\n").expect("a lua block") + "```lua\n".len()..];
    block[..block.find("```").expect("the block ends")].to_string()
}

#[test]
fn the_documented_set_up_starts_the_server_on_this_neovim() {
    let Some(nvim) = nvim() else { return };
    let dir = tempfile::tempdir().unwrap();
    // The brief as saved holds the mistake: opening it shows the finding.
    workspace(dir.path());
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config/nvim");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("init.lua"), documented_set_up()).unwrap();
    // `gatehouse` on the PATH, as the set-up runs it.
    let bin = Path::new(env!("CARGO_BIN_EXE_gatehouse")).parent().unwrap().to_path_buf();
    let path =
        std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())))
            .unwrap();
    let result = dir.path().join("nvim-result.json");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/nvim/documented.lua");
    let mut command = Command::new(nvim);
    command
        .args(["--headless", "-i", "NONE", "-n"])
        .arg(dir.path().join(BRIEF))
        .arg("-c")
        .arg(format!("luafile {}", script.display()))
        .current_dir(dir.path())
        .env("PATH", path)
        .envs(home_of(home.path()))
        .env("GATEHOUSE_RESULT", &result);
    let saw = what_it_saw(&mut command, &result);
    assert_eq!(saw["filetype"], "markdown", "{saw:#}");
    assert_eq!(saw["attached"], true, "the set-up started the server and attached the brief: {saw:#}");
    assert_eq!(saw["diagnostics"], serde_json::json!(["brief/field-type"]), "{saw:#}");
}
