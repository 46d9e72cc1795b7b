//! `gatehouse probe` (the container healthcheck) against a running App, a
//! closed port, a wrong route and a server that never answers; and
//! `gatehouse serve --env-file` with the folder `gatehouse register` writes.

mod common;

use std::process::{Command, Output, Stdio};
use std::time::Duration;

use common::*;

fn gatehouse(args: &[&str], bind: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_gatehouse"));
    command.args(args).env_remove("GATEHOUSE_BIND").env_remove("HTTP_PROXY").env_remove("http_proxy");
    if let Some(bind) = bind {
        command.env("GATEHOUSE_BIND", bind);
    }
    command.output().unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A port nothing listens on.
fn closed_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

#[tokio::test]
async fn probe_exits_0_only_when_readyz_answers_200() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    let app = start_app(config(&Db::sqlite(&dir), &sim.url())).await;
    let url = format!("http://{}/readyz", app.addr);

    let ready = tokio::task::spawn_blocking(move || gatehouse(&["probe", &url], None)).await.unwrap();
    assert_eq!(ready.status.code(), Some(0), "{}", stderr(&ready));
    assert!(String::from_utf8_lossy(&ready.stdout).contains("answered 200"));

    // No URL: /readyz on GATEHOUSE_BIND, every interface reached over loopback.
    let bind = format!("0.0.0.0:{}", app.addr.port());
    let by_bind = tokio::task::spawn_blocking(move || gatehouse(&["probe"], Some(&bind))).await.unwrap();
    assert_eq!(by_bind.status.code(), Some(0), "{}", stderr(&by_bind));

    // --env-file, as `serve` reads it: its GATEHOUSE_BIND wins over the environment's.
    let env = dir.path().join("gatehouse.env");
    std::fs::write(&env, format!("GATEHOUSE_BIND=127.0.0.1:{}\n", app.addr.port())).unwrap();
    let closed = format!("127.0.0.1:{}", closed_port());
    let args = ["probe".to_string(), "--env-file".to_string(), env.display().to_string()];
    let by_file = tokio::task::spawn_blocking(move || {
        gatehouse(&args.iter().map(String::as_str).collect::<Vec<_>>(), Some(&closed))
    })
    .await
    .unwrap();
    assert_eq!(by_file.status.code(), Some(0), "{}", stderr(&by_file));

    let missing = format!("http://{}/nowhere", app.addr);
    let not_found = tokio::task::spawn_blocking(move || gatehouse(&["probe", &missing], None)).await.unwrap();
    assert_eq!(not_found.status.code(), Some(1));
    assert!(stderr(&not_found).contains("answered 404"), "{}", stderr(&not_found));
    app.shutdown().await;
}

#[test]
fn probe_gives_one_line_and_exit_1_for_every_failure() {
    let port = closed_port();
    let closed = gatehouse(&["probe", &format!("http://127.0.0.1:{port}/readyz")], None);
    assert_eq!(closed.status.code(), Some(1));
    assert_eq!(stderr(&closed).lines().count(), 1, "{}", stderr(&closed));
    assert!(stderr(&closed).contains("cannot connect"), "{}", stderr(&closed));

    let default_closed = gatehouse(&["probe"], Some(&format!("0.0.0.0:{port}")));
    assert_eq!(default_closed.status.code(), Some(1));
    assert!(stderr(&default_closed).contains(&format!("http://127.0.0.1:{port}/readyz")));

    // Docker reads exit status 2 as reserved: bad input is a plain failure too.
    for args in [vec!["probe", "ftp://x"], vec!["probe"]] {
        let bad = gatehouse(&args, Some("not-an-address"));
        assert_eq!(bad.status.code(), Some(1), "{args:?}: {}", stderr(&bad));
        assert_eq!(stderr(&bad).lines().count(), 1);
    }

    // Accepts the connection and never answers.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/readyz", silent.local_addr().unwrap());
    let hung = gatehouse(&["probe", &url], None);
    assert_eq!(hung.status.code(), Some(1));
    assert!(stderr(&hung).contains("no answer within 1s"), "{}", stderr(&hung));
}

#[tokio::test]
async fn serve_runs_on_the_env_file_register_writes() {
    let sim = sim().await;
    let dir = tempfile::tempdir().unwrap();
    let key = gatehouse::github::Token::new(private_key());
    let secret = gatehouse::github::Token::new(SECRET);
    let credentials = gatehouse::register::credentials::Credentials {
        app_id: APP_ID,
        private_key: &key,
        webhook_secret: &secret,
        api_url: Some(&sim.url()),
    };
    let written = gatehouse::register::credentials::write(&dir.path().join("creds"), &credentials).unwrap();
    let port = closed_port();
    let mut serve = tokio::process::Command::new(env!("CARGO_BIN_EXE_gatehouse"))
        .arg("serve")
        .arg("--env-file")
        .arg(&written.env_file)
        .args(["--database-url", &format!("sqlite://{}", dir.path().join("g.db").display())])
        .env("GATEHOUSE_BIND", format!("127.0.0.1:{port}"))
        // The env file wins over the environment.
        .env("GATEHOUSE_WEBHOOK_SECRET", "stale-secret")
        .env("GATEHOUSE_PRIVATE_KEY", "not a key")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let bind = format!("127.0.0.1:{port}");
    let mut ready = false;
    for _ in 0..600 {
        let bind = bind.clone();
        let probe = tokio::task::spawn_blocking(move || gatehouse(&["probe"], Some(&bind))).await.unwrap();
        if probe.status.success() {
            ready = true;
            break;
        }
        assert!(serve.try_wait().unwrap().is_none(), "serve exited: {}", stderr(&probe));
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(ready, "serve never became ready");
    let addr = bind.parse().unwrap();
    let (adr_path, adr_text) = adr();
    sim.open_pr("acme/docs", 1, tree(&[(adr_path, adr_text)]), tree(&[(adr_path, adr_text)]), "");
    let payload = sim.pull_request_event("acme/docs", 1, "opened");
    assert_eq!(deliver(addr, "pull_request", "env-file-1", &payload).await, 202, "the env file's secret is in use");
    serve.kill().await.unwrap();
}

#[test]
fn serve_names_every_wrong_setting_at_once_before_it_opens_anything() {
    let dir = tempfile::tempdir().unwrap();
    let public = manifest_dir().join("fixtures/app/test-app-key.pub.pem");
    let db = dir.path().join("never.db");
    let output = Command::new(env!("CARGO_BIN_EXE_gatehouse"))
        .arg("serve")
        .env("GATEHOUSE_APP_ID", APP_ID.to_string())
        .env("GATEHOUSE_PRIVATE_KEY_PATH", &public)
        .env_remove("GATEHOUSE_PRIVATE_KEY")
        .env("GATEHOUSE_WEBHOOK_SECRET", SECRET)
        .env("GATEHOUSE_DATABASE_URL", format!("mysql://{}", db.display()))
        .env("GATEHOUSE_GITHUB_API_URL", "api.github.com")
        .env("GATEHOUSE_BIND", format!("127.0.0.1:{}", closed_port()))
        .output()
        .unwrap();
    assert!(!output.status.success());
    let err = stderr(&output);
    let key = format!("GATEHOUSE_PRIVATE_KEY_PATH (or --private-key-path), the file {}: ", public.display());
    assert!(err.contains(&key), "the variable and the file: {err}");
    assert!(err.contains("is a public key, which cannot sign the App's JWTs: give the App's private key"), "{err}");
    assert!(err.contains("GATEHOUSE_DATABASE_URL (or --database-url)"), "the second wrong setting too: {err}");
    assert!(err.contains("GATEHOUSE_GITHUB_API_URL (or --github-api-url) \"api.github.com\""), "{err}");
    assert!(!db.exists() && std::fs::read_dir(dir.path()).unwrap().next().is_none(), "nothing was opened");
}

#[tokio::test]
async fn an_app_github_refuses_is_not_ready_and_the_probe_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim().await;
    // The simulated GitHub knows the key under APP_ID: another id's JWTs get 401.
    let mut wrong_id = config(&Db::sqlite(&dir), &sim.url());
    wrong_id.app_id = APP_ID + 1;
    let app = start_app(wrong_id).await;
    let url = format!("http://{}/readyz", app.addr);
    let mut refused = None;
    for _ in 0..100 {
        let url = url.clone();
        let probe = tokio::task::spawn_blocking(move || gatehouse(&["probe", &url], None)).await.unwrap();
        if !probe.status.success() {
            refused = Some(probe);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let probe = refused.expect("the App became not ready");
    assert_eq!(probe.status.code(), Some(1));
    let err = stderr(&probe);
    assert!(
        err.contains(
            "answered 503 Service Unavailable: GitHub refuses the App's credentials: check GATEHOUSE_APP_ID and that \
             the private key is this App's"
        ),
        "{err}"
    );
    let health = reqwest::get(format!("http://{}/healthz", app.addr)).await.unwrap();
    assert_eq!(health.status(), 200, "the process itself is alive");
    app.kill();
}
