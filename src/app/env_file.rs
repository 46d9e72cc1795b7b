//! `gatehouse serve --env-file` and `gatehouse probe --env-file`: `KEY=VALUE`
//! lines, as `gatehouse register` writes them and Docker Compose's `env_file`
//! reads them. Blank lines and `#` comments are skipped; a value wrapped in
//! matching quotes loses them; anything else is taken as written.
//!
//! Hand-written rather than dotenvy (0.15.7), because `register` writes the
//! key path and the webhook secret unquoted, and dotenvy reads such a value
//! differently as soon as it holds a space, `\`, a lone quote (errors),
//! `$NAME` (substituted from the environment) or ` #` (cut there as a
//! comment).

use std::collections::HashMap;
use std::path::Path;

use anyhow::{Context, Result, bail};

/// Reads an env file into its variables (a later line wins).
pub fn read(path: &Path) -> Result<HashMap<String, String>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read --env-file {}", path.display()))?;
    parse(&text).with_context(|| format!("--env-file {}", path.display()))
}

pub(crate) fn parse(text: &str) -> Result<HashMap<String, String>> {
    let mut vars = HashMap::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim_start();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").unwrap_or(line);
        let Some((key, value)) = line.split_once('=') else {
            bail!("line {}: expected KEY=VALUE", n + 1);
        };
        let key = key.trim();
        if key.is_empty() || !key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            bail!("line {}: {key:?} is not a variable name", n + 1);
        }
        let value = value.trim_end();
        let unquoted =
            ['"', '\''].iter().find_map(|q| value.strip_prefix(*q).and_then(|v| v.strip_suffix(*q))).unwrap_or(value);
        vars.insert(key.to_string(), unquoted.to_string());
    }
    Ok(vars)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_register_writes_and_compose_takes() {
        let vars = parse("# comment\n\nGATEHOUSE_APP_ID=12\nexport A='x y'\nB=\"q\"\nC=a=b\n").unwrap();
        assert_eq!(vars["GATEHOUSE_APP_ID"], "12");
        assert_eq!((vars["A"].as_str(), vars["B"].as_str(), vars["C"].as_str()), ("x y", "q", "a=b"));
        let err = parse("A=1\nnot a line\n").unwrap_err().to_string();
        assert!(err.contains("line 2"), "{err}");
        assert!(parse("A B=1\n").is_err());
    }

    #[test]
    fn unquoted_values_are_taken_as_written() {
        for value in ["/tmp/My Apps/gatehouse.pem", "/tmp/a$HOME/key.pem", "/tmp/a\\b", "/tmp/it's", "a #1", "ab\"cd"] {
            let vars = parse(&format!("GATEHOUSE_PRIVATE_KEY_PATH={value}\n")).unwrap();
            assert_eq!(vars["GATEHOUSE_PRIVATE_KEY_PATH"], value);
        }
    }
}
