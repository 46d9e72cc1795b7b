//! The pages `gatehouse register` shows: one form that posts the manifest to
//! GitHub, and what happened on GitHub's return. No scripts, nothing loaded
//! from elsewhere.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};

const STYLE: &str = "body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:3rem auto;padding:0 1rem}\
code,pre{font-size:.9em}pre{background:#f4f4f4;padding:1rem;overflow:auto}\
button{font-size:1.1rem;padding:.6rem 1.2rem;cursor:pointer}";

/// Text for HTML content and quoted attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn document(title: &str, body: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style></head>\n\
         <body><main>\n{body}</main></body></html>\n",
        escape(title)
    )
}

/// A page with headers that keep it private: not cached, not framed, no
/// referrer (the callback's address holds the one-time code), no scripts.
pub fn respond(status: StatusCode, title: &str, body: &str) -> Response {
    let mut response = (status, Html(document(title, body))).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"),
    );
    response
}

/// The start page: one button that posts `manifest_json` to `action`.
pub fn start(action: &str, account: &str, webhook_url: &str, manifest_json: &str) -> Response {
    let pretty = serde_json::from_str::<serde_json::Value>(manifest_json)
        .and_then(|v| serde_json::to_string_pretty(&v))
        .unwrap_or_else(|_| manifest_json.to_string());
    let body = format!(
        "<h1>Register the gatehouse GitHub App</h1>\n\
         <p>This creates a GitHub App owned by {account}, with the events and permissions of gatehouse's \
         <code>app-manifest.yml</code>, delivering webhooks to <code>{webhook}</code>. GitHub asks you to \
         confirm and lets you change the App's name (names are unique on GitHub).</p>\n\
         <form method=\"post\" action=\"{action}\">\n\
         <input type=\"hidden\" name=\"manifest\" value=\"{manifest}\">\n\
         <button type=\"submit\">Create the App on GitHub</button>\n</form>\n\
         <details><summary>The manifest</summary><pre>{pretty}</pre></details>\n",
        account = escape(account),
        webhook = escape(webhook_url),
        action = escape(action),
        manifest = escape(manifest_json),
        pretty = escape(&pretty),
    );
    respond(StatusCode::OK, "Register gatehouse", &body)
}

pub fn registered(name: &str, install_url: &str, dir: &str) -> Response {
    let body = format!(
        "<h1>{name} is registered</h1>\n\
         <p>Its id, private key and webhook secret are in <code>{dir}</code>. \
         The terminal shows the command that starts <code>gatehouse serve</code> with them.</p>\n\
         <p><a href=\"{install}\">Install the App on your repositories</a>. You can close this tab.</p>\n",
        name = escape(name),
        dir = escape(dir),
        install = escape(install_url),
    );
    respond(StatusCode::OK, "gatehouse is registered", &body)
}

pub fn failed(status: StatusCode, message: &str) -> Response {
    let body = format!("<h1>Registration failed</h1>\n<p>{}</p>\n", escape(message));
    respond(status, "Registration failed", &body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_could_end_an_attribute_or_open_a_tag() {
        assert_eq!(escape(r#"{"a":"<b>&'"}"#), "{&quot;a&quot;:&quot;&lt;b&gt;&amp;&#39;&quot;}");
    }
}
