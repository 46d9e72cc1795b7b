//! The credentials folder `gatehouse register` writes: the App's private key
//! and an env file `gatehouse serve --env-file` (or Docker Compose's
//! `env_file`) reads. The folder is 0700, both files 0600; it is assembled
//! under a temporary name beside its destination and renamed into place, so
//! it appears whole or not at all, and never over an existing one.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::github::Token;

pub(crate) const KEY_FILE: &str = "private-key.pem";
pub(crate) const ENV_FILE: &str = "gatehouse.env";

/// What the folder holds.
pub struct Credentials<'a> {
    pub app_id: u64,
    pub private_key: &'a Token,
    pub webhook_secret: &'a Token,
    /// Written as `GATEHOUSE_GITHUB_API_URL` (GitHub Enterprise) when given.
    pub api_url: Option<&'a str>,
}

/// Where the files went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    pub dir: PathBuf,
    pub env_file: PathBuf,
    pub key_file: PathBuf,
}

/// Fails when anything (a folder, a file, a dangling link) is at `out`.
pub(crate) fn ensure_absent(out: &Path) -> Result<()> {
    if fs::symlink_metadata(out).is_ok() {
        bail!(
            "{} already exists: it may hold another App's credentials. Choose another --out, or move it away first",
            out.display()
        );
    }
    Ok(())
}

/// Writes the folder at `out`; nothing is left behind when it fails.
pub fn write(out: &Path, credentials: &Credentials<'_>) -> Result<Written> {
    ensure_absent(out)?;
    let name = out.file_name().with_context(|| format!("--out {} does not name a folder", out.display()))?;
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&parent).with_context(|| format!("cannot create {}", parent.display()))?;
    let parent = parent.canonicalize().with_context(|| format!("cannot resolve {}", parent.display()))?;
    let dir = parent.join(name);
    let key_file = dir.join(KEY_FILE);
    let key_path =
        key_file.to_str().filter(|p| !p.contains('\n')).context("the --out path must be UTF-8 on one line")?;

    // Removed, files and all, on any early return.
    let staging = tempfile::Builder::new()
        .prefix(".gatehouse-credentials-")
        .tempdir_in(&parent)
        .with_context(|| format!("cannot create a folder in {}", parent.display()))?;
    #[cfg(unix)]
    fs::set_permissions(staging.path(), std::os::unix::fs::PermissionsExt::from_mode(0o700))
        .context("cannot make the credentials folder private")?;
    write_secret_file(&staging.path().join(KEY_FILE), credentials.private_key.expose().as_bytes())?;
    let mut env = format!(
        "# The gatehouse App's credentials, written by `gatehouse register`. Keep them secret.\n\
         GATEHOUSE_APP_ID={}\nGATEHOUSE_PRIVATE_KEY_PATH={key_path}\nGATEHOUSE_WEBHOOK_SECRET={}\n",
        credentials.app_id,
        credentials.webhook_secret.expose(),
    );
    if let Some(url) = credentials.api_url {
        env.push_str(&format!("GATEHOUSE_GITHUB_API_URL={url}\n"));
    }
    write_secret_file(&staging.path().join(ENV_FILE), env.as_bytes())?;

    // Checked again: the folder may have appeared while the browser was at GitHub.
    ensure_absent(&dir)?;
    // rename(2) moves a folder onto an empty folder only: existing credentials are never replaced.
    fs::rename(staging.path(), &dir).with_context(|| format!("cannot move the credentials into {}", dir.display()))?;
    let _ = staging.keep();
    if let Ok(parent) = File::open(&parent) {
        let _ = parent.sync_all();
    }
    Ok(Written { env_file: dir.join(ENV_FILE), key_file, dir })
}

fn write_secret_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path).with_context(|| format!("cannot create {}", path.display()))?;
    file.write_all(bytes).and_then(|()| file.sync_all()).with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample<'a>(key: &'a Token, secret: &'a Token) -> Credentials<'a> {
        Credentials { app_id: 12, private_key: key, webhook_secret: secret, api_url: None }
    }

    #[test]
    fn writes_the_folder_whole_and_never_over_another() {
        let root = tempfile::tempdir().unwrap();
        let out = root.path().join("nested/creds");
        let (key, secret) = (Token::new("PEM"), Token::new("hook"));
        let written = write(&out, &sample(&key, &secret)).unwrap();
        assert_eq!(fs::read_to_string(&written.key_file).unwrap(), "PEM");
        let env = fs::read_to_string(&written.env_file).unwrap();
        assert!(env.contains("GATEHOUSE_APP_ID=12\n") && env.contains("GATEHOUSE_WEBHOOK_SECRET=hook\n"), "{env}");
        assert!(env.contains(&format!("GATEHOUSE_PRIVATE_KEY_PATH={}\n", written.key_file.display())), "{env}");
        assert!(written.key_file.is_absolute());

        let again = write(&out, &sample(&Token::new("OTHER"), &secret)).unwrap_err();
        assert!(again.to_string().contains("already exists"), "{again}");
        assert_eq!(fs::read_to_string(&written.key_file).unwrap(), "PEM");
        let names: Vec<_> = fs::read_dir(root.path().join("nested")).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["creds"], "no staging folder is left behind");
    }

    #[cfg(unix)]
    #[test]
    fn the_folder_and_files_are_private() {
        use std::os::unix::fs::PermissionsExt;
        let root = tempfile::tempdir().unwrap();
        let (key, secret) = (Token::new("PEM"), Token::new("hook"));
        let written = write(&root.path().join("c"), &sample(&key, &secret)).unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&written.dir), 0o700);
        assert_eq!(mode(&written.key_file), 0o600);
        assert_eq!(mode(&written.env_file), 0o600);
    }
}
