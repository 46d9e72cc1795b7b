//! `gatehouse register` end to end over loopback against the simulated
//! GitHub: the page's form, GitHub's redirect, the code exchange, the files
//! and their modes, and every way it refuses (wrong state, a used or expired
//! code, an existing credentials folder). The page is also read by headless
//! Chromium where it is installed (and must be under CI=true).

mod chromium;
mod common;

use std::path::Path;
use std::time::Duration;

use common::*;
use gatehouse::docs::yaml::{self, Node};
use gatehouse::register::{self, RegisterConfig, Registration};
use gatehouse_sim::Sim;
use serde_json::{Value, json};

const WEBHOOK: &str = "https://gatehouse.acme.test/webhook";

/// The form on the registration page.
#[derive(Debug, PartialEq)]
struct PageForm {
    method: String,
    action: String,
    manifest: String,
}

fn unescape(text: &str) -> String {
    text.replace("&quot;", "\"").replace("&#39;", "'").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
}

/// `name="value"` of the first `<tag …>` for which `pick` holds.
fn attr(html: &str, tag: &str, pick: impl Fn(&str) -> bool, name: &str) -> Option<String> {
    let mut rest = html;
    while let Some(at) = rest.find(&format!("<{tag} ")) {
        let end = rest[at..].find('>')? + at;
        let element = &rest[at..end];
        rest = &rest[end..];
        if !pick(element) {
            continue;
        }
        let start = element.find(&format!(" {name}=\""))? + name.len() + 3;
        let len = element[start..].find('"')?;
        return Some(unescape(&element[start..start + len]));
    }
    None
}

fn page_form(html: &str) -> PageForm {
    let forms = html.matches("<form ").count();
    assert_eq!(forms, 1, "one form: {html}");
    PageForm {
        method: attr(html, "form", |_| true, "method").expect("form method"),
        action: attr(html, "form", |_| true, "action").expect("form action"),
        manifest: attr(html, "input", |e| e.contains("name=\"manifest\""), "value").expect("manifest field"),
    }
}

/// `app-manifest.yml` as JSON, read here independently of the code under test.
fn yaml_json(node: Node) -> Value {
    if let Some(entries) = node.as_map() {
        return entries.iter().map(|(k, v)| (k.name.to_string(), yaml_json(v))).collect();
    }
    if let Some(items) = node.as_seq() {
        return items.iter().map(yaml_json).collect();
    }
    match (node.as_bool(), node.as_str()) {
        (Some(b), _) => json!(b),
        (None, Some(s)) => json!(s),
        (None, None) => panic!("app-manifest.yml holds a value the test does not expect: {node:?}"),
    }
}

fn expected_manifest(redirect_url: &str) -> Value {
    let text = std::fs::read_to_string(manifest_dir().join("app-manifest.yml")).unwrap();
    let mut manifest = yaml_json(yaml::parse(&text, 1).unwrap().root());
    manifest["hook_attributes"]["url"] = json!(WEBHOOK);
    manifest["redirect_url"] = json!(redirect_url);
    manifest
}

async fn manifest_sim() -> Sim {
    let sim = sim().await;
    sim.accept_manifests(&private_key());
    sim
}

fn config(sim: &Sim, out: &Path, org: Option<&str>) -> RegisterConfig {
    RegisterConfig {
        github_url: sim.url(),
        api_url: sim.url(),
        org: org.map(str::to_string),
        webhook_url: WEBHOOK.into(),
        out: out.to_path_buf(),
        bind: "127.0.0.1:0".parse().unwrap(),
    }
}

fn no_redirects() -> reqwest::Client {
    reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap()
}

async fn get_page(registration: &Registration) -> PageForm {
    let response = reqwest::get(registration.page_url()).await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["cache-control"], "no-store");
    page_form(&response.text().await.unwrap())
}

/// Submits the form as the browser does; GitHub answers with the redirect
/// back to the registration page, whose address this returns.
async fn submit(form: &PageForm) -> String {
    assert_eq!(form.method, "post");
    let encoded: String = form
        .manifest
        .bytes()
        .map(|b| if b.is_ascii_alphanumeric() { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect();
    let response = no_redirects()
        .post(&form.action)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!("manifest={encoded}"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 302, "{}", response.text().await.unwrap());
    response.headers()["location"].to_str().unwrap().to_string()
}

async fn follow(location: &str) -> (u16, String) {
    let response = no_redirects().get(location).send().await.unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

fn with_state(location: &str, state: &str) -> String {
    let (base, query) = location.split_once('?').unwrap();
    let kept: Vec<_> = query.split('&').filter(|p| !p.starts_with("state=")).collect();
    format!("{base}?{}&state={state}", kept.join("&"))
}

fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// The names in a folder, sorted.
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<_> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

#[tokio::test]
async fn the_page_registers_the_manifest_and_the_return_writes_working_credentials() {
    let sim = manifest_sim().await;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("creds");
    let registration = register::start(config(&sim, &out, None)).await.unwrap();
    let form = get_page(&registration).await;
    assert!(form.action.starts_with(&format!("{}/settings/apps/new?state=", sim.url())), "{}", form.action);
    let manifest: Value = serde_json::from_str(&form.manifest).unwrap();
    let redirect = format!("http://{}/callback", registration.addr);
    assert_eq!(manifest, expected_manifest(&redirect));

    let location = submit(&form).await;
    assert!(location.starts_with(&format!("{redirect}?code=")), "{location}");
    let state = form.action.split_once("state=").unwrap().1;
    assert!(location.ends_with(&format!("&state={state}")), "GitHub sends the state back: {location}");
    assert_eq!(sim.manifest_apps()[0].manifest, manifest, "GitHub got the manifest the page shows");

    // A return whose state is not this run's is refused and changes nothing.
    for forged in [with_state(&location, "0123abcd"), location.split("&state=").next().unwrap().to_string()] {
        let (status, body) = follow(&forged).await;
        assert_eq!(status, 400, "{body}");
        assert!(body.contains("state does not match"), "{body}");
        assert!(!out.exists());
    }

    let (status, body) = follow(&location).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("is registered") && body.contains("/apps/gatehouse/installations/new"), "{body}");
    let registered = registration.finish().await.unwrap();
    assert_eq!((registered.app_id, registered.slug.as_str()), (APP_ID, "gatehouse"));
    assert_eq!(registered.install_url, format!("{}/apps/gatehouse/installations/new", sim.url()));

    let written = &registered.written;
    assert_eq!(entries(dir.path()), ["creds"], "nothing else is left beside it");
    assert_eq!(entries(&out), ["gatehouse.env", "private-key.pem"]);
    assert_eq!(written.dir, out.canonicalize().unwrap());
    assert_eq!((mode(&out), mode(&written.key_file), mode(&written.env_file)), (0o700, 0o600, 0o600));
    assert_eq!(std::fs::read_to_string(&written.key_file).unwrap(), private_key());
    let secret = sim.manifest_apps()[0].webhook_secret.clone().expect("a webhook secret was issued");
    let env = gatehouse::app::env_file::read(&written.env_file).unwrap();
    assert_eq!(env["GATEHOUSE_APP_ID"], APP_ID.to_string());
    assert_eq!(env["GATEHOUSE_WEBHOOK_SECRET"], secret);
    assert_eq!(Path::new(&env["GATEHOUSE_PRIVATE_KEY_PATH"]), written.key_file);
    assert_eq!(env["GATEHOUSE_GITHUB_API_URL"], sim.url());

    // The App runs on what was written: a delivery signed with the new secret
    // is taken, and the new key mints the token that posts its check runs.
    let db = tempfile::tempdir().unwrap();
    let (env_file, db_url) = (written.env_file.to_str().unwrap(), Db::sqlite(&db).url());
    let serve = ["--env-file", env_file, "--database-url", &db_url, "--bind", "127.0.0.1:0"];
    let app = start_app(gatehouse::cli::serve_config(&serve).unwrap()).await;
    let (adr_path, adr_text) = adr();
    let base = tree(&[(adr_path, adr_text)]);
    let pr = sim.open_pr("acme/docs", 1, base.clone(), base, "");
    let body = serde_json::to_vec(&sim.pull_request_event("acme/docs", 1, "opened")).unwrap();
    let signature = gatehouse::webhook::signature::sign(secret.as_bytes(), &body);
    assert_eq!(post_raw(app.addr, "pull_request", Some("reg-1"), Some(&signature), body).await, 202);
    wait_for("check runs", || !sim.check_runs("acme/docs", &pr.head_sha).is_empty()).await;
    app.shutdown().await;
}

#[tokio::test]
async fn a_used_or_expired_code_is_refused_and_writes_nothing() {
    let sim = manifest_sim().await;
    let dir = tempfile::tempdir().unwrap();

    let first = register::start(config(&sim, &dir.path().join("first"), Some("acme"))).await.unwrap();
    let form = get_page(&first).await;
    assert!(form.action.starts_with(&format!("{}/organizations/acme/settings/apps/new?state=", sim.url())));
    let used = submit(&form).await;
    assert_eq!(follow(&used).await.0, 200);
    first.finish().await.unwrap();
    assert_eq!(sim.manifest_apps()[0].owner, "acme");

    // The same code again, brought back with the second run's own state.
    let out = dir.path().join("second");
    let second = register::start(config(&sim, &out, None)).await.unwrap();
    let state = get_page(&second).await.action.split_once("state=").unwrap().1.to_string();
    let code = used.split("code=").nth(1).unwrap().split('&').next().unwrap();
    let (status, body) = follow(&format!("{}callback?code={code}&state={state}", second.page_url())).await;
    assert_eq!(status, 502, "{body}");
    let err = format!("{:#}", second.finish().await.unwrap_err());
    assert!(err.contains("refused the code") && err.contains("404"), "{err}");
    assert!(!out.exists());

    let out = dir.path().join("third");
    let third = register::start(config(&sim, &out, None)).await.unwrap();
    let location = submit(&get_page(&third).await).await;
    sim.expire_manifest_codes();
    let (status, body) = follow(&location).await;
    assert_eq!(status, 502);
    assert!(body.contains("expired"), "{body}");
    let err = format!("{:#}", third.finish().await.unwrap_err());
    assert!(err.contains("422"), "{err}");
    assert!(!out.exists());
    assert_eq!(entries(dir.path()), ["first"]);
}

#[tokio::test]
async fn an_existing_credentials_folder_is_never_touched() {
    let sim = manifest_sim().await;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("creds");
    std::fs::create_dir(&out).unwrap();
    let err = register::start(config(&sim, &out, None)).await.err().expect("refused before serving");
    assert!(err.to_string().contains("already exists"), "{err}");

    // It appears while the browser is at GitHub: refused before writing.
    std::fs::remove_dir(&out).unwrap();
    let registration = register::start(config(&sim, &out, None)).await.unwrap();
    let location = submit(&get_page(&registration).await).await;
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("gatehouse.env"), "GATEHOUSE_APP_ID=1\n").unwrap();
    let (status, body) = follow(&location).await;
    assert_eq!(status, 502, "{body}");
    let err = format!("{:#}", registration.finish().await.unwrap_err());
    assert!(err.contains("already exists") && err.contains("settings/apps/gatehouse"), "{err}");
    assert_eq!(std::fs::read_to_string(out.join("gatehouse.env")).unwrap(), "GATEHOUSE_APP_ID=1\n");
    assert_eq!(entries(dir.path()), ["creds"], "no staging folder is left behind");
    assert_eq!(entries(&out), ["gatehouse.env"]);
}

#[tokio::test]
async fn the_page_answers_only_to_its_own_address() {
    let sim = manifest_sim().await;
    let dir = tempfile::tempdir().unwrap();
    let registration = register::start(config(&sim, &dir.path().join("c"), None)).await.unwrap();
    let rebound = reqwest::Client::new()
        .get(registration.page_url())
        .header("host", format!("attacker.test:{}", registration.addr.port()))
        .send()
        .await
        .unwrap();
    assert_eq!(rebound.status(), 403);
    let mut wide = config(&sim, &dir.path().join("d"), None);
    wide.bind = "0.0.0.0:0".parse().unwrap();
    let err = register::start(wide).await.err().expect("refused");
    assert!(err.to_string().contains("not a loopback address"), "{err}");
}

#[tokio::test]
async fn headless_chromium_sees_the_form_and_its_manifest() {
    let Some(chromium) = chromium::find("the headless browser check of the registration page") else { return };
    let sim = manifest_sim().await;
    let dir = tempfile::tempdir().unwrap();
    let registration = register::start(config(&sim, &dir.path().join("c"), Some("acme"))).await.unwrap();
    let profile = tempfile::tempdir().unwrap();
    let run = tokio::process::Command::new(&chromium)
        .args(chromium::HEADLESS)
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("--dump-dom")
        .arg(registration.page_url())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(120), run).await.expect("chromium finishes").unwrap();
    let dom = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "chromium failed: {}", String::from_utf8_lossy(&output.stderr));
    let form = page_form(&dom);
    assert_eq!(form, get_page(&registration).await, "the browser reads the form the server sent");
    assert!(form.action.starts_with(&format!("{}/organizations/acme/settings/apps/new?state=", sim.url())));
    let manifest: Value = serde_json::from_str(&form.manifest).unwrap();
    assert_eq!(manifest, expected_manifest(&format!("http://{}/callback", registration.addr)));
    assert!(
        dom.contains(gatehouse::site::html::STYLE) && dom.contains("name=\"viewport\""),
        "the page carries the site's stylesheet and fits a phone: {dom}"
    );
    assert!(dom.contains("<button type=\"submit\">Create the App on GitHub</button>"), "{dom}");

    for ((width, height), name) in
        [(chromium::DESKTOP, "register-desktop.png"), (chromium::PHONE, "register-phone.png")]
    {
        let shot = dir.path().join(name);
        let profile = tempfile::tempdir().unwrap();
        let run = tokio::process::Command::new(&chromium)
            .args(chromium::HEADLESS)
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg(format!("--screenshot={}", shot.display()))
            .arg(format!("--window-size={width},{height}"))
            .arg("--hide-scrollbars")
            .arg(registration.page_url())
            .kill_on_drop(true)
            .output();
        let output = tokio::time::timeout(Duration::from_secs(120), run).await.expect("chromium finishes").unwrap();
        assert!(output.status.success(), "chromium failed: {}", String::from_utf8_lossy(&output.stderr));
        let png = std::fs::read(&shot).unwrap();
        assert!(png.len() > 10_000, "{name} is a screenshot");
        chromium::keep_screenshot(&png, name, (width, height));
    }
}

#[tokio::test]
async fn the_command_prints_the_install_url_and_the_serve_command_and_no_secret() {
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
    let sim = manifest_sim().await;
    let dir = tempfile::tempdir().unwrap();
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_gatehouse"))
        .current_dir(dir.path())
        .args(["register", "--bind", "127.0.0.1:0", "--webhook-url", "https://gatehouse.acme.test"])
        .args(["--github-url", &sim.url(), "--api-url", &sim.url()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).await.unwrap();
    let page = first.split_whitespace().nth(1).expect("the page's address").to_string();
    assert!(page.starts_with("http://127.0.0.1:") && page.ends_with('/'), "{first}");

    let response = reqwest::get(&page).await.unwrap();
    let form = page_form(&response.text().await.unwrap());
    let manifest: Value = serde_json::from_str(&form.manifest).unwrap();
    assert_eq!(manifest["hook_attributes"]["url"], WEBHOOK, "a bare host gets /webhook");
    assert_eq!(follow(&submit(&form).await).await.0, 200);

    let status = tokio::time::timeout(Duration::from_secs(60), child.wait()).await.unwrap().unwrap();
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).await.unwrap();
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).await.unwrap();
    assert!(status.success(), "{first}{rest}{stderr}");
    assert!(rest.contains(&format!("{}/apps/gatehouse/installations/new", sim.url())), "{rest}");
    assert!(rest.contains("\n  gatehouse serve --env-file gatehouse-credentials/gatehouse.env\n"), "{rest}");
    let secret = sim.manifest_apps()[0].webhook_secret.clone().unwrap();
    for shown in [&first, &rest, &stderr] {
        assert!(!shown.contains(&secret) && !shown.contains("PRIVATE KEY"), "a secret was printed: {shown}");
    }
    let env = gatehouse::app::env_file::read(&dir.path().join("gatehouse-credentials/gatehouse.env")).unwrap();
    assert_eq!(env["GATEHOUSE_WEBHOOK_SECRET"], secret);

    // Run again: the folder is there, so it stops before serving anything.
    let again = std::process::Command::new(env!("CARGO_BIN_EXE_gatehouse"))
        .current_dir(dir.path())
        .args(["register", "--bind", "127.0.0.1:0", "--webhook-url", WEBHOOK])
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(2));
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(err.contains("gatehouse-credentials already exists"), "{err}");
}
