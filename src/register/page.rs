//! The pages `gatehouse register` shows: one form that posts the manifest to
//! GitHub, and what happened on GitHub's return, styled with the site's
//! stylesheet. No scripts, nothing loaded from elsewhere.

use askama::Template;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};

use crate::site::html::put;

/// What a page says.
enum Body<'a> {
    /// The form that posts the manifest to GitHub.
    Start {
        action: &'a str,
        account: &'a str,
        webhook: &'a str,
        manifest: &'a str,
        pretty: &'a str,
    },
    Registered {
        name: &'a str,
        install: &'a str,
        dir: &'a str,
    },
    Failed {
        message: &'a str,
    },
}

#[derive(Template)]
#[template(
    ext = "html",
    source = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{{ title }}</title>\
<style>\n{{ crate::site::html::STYLE|safe }}</style></head>\n<body>\n<header><nav aria-label=\"gatehouse\"><ul>\
<li><strong>gatehouse register</strong></li></ul></nav></header>\n<main>\n{% match body %}\
{% when Body::Start { action, account, webhook, manifest, pretty } %}<h1>Register the gatehouse GitHub App</h1>\n\
<p>This creates a GitHub App owned by {{ account }}, with the events and permissions of gatehouse's \
<code>app-manifest.yml</code>, delivering webhooks to <code>{{ webhook }}</code>. GitHub asks you to confirm and lets \
you change the App's name (names are unique on GitHub).</p>\n<form method=\"post\" action=\"{{ action }}\">\n\
<input type=\"hidden\" name=\"manifest\" value=\"{{ manifest }}\">\n\
<button type=\"submit\">Create the App on GitHub</button>\n</form>\n\
<details><summary>The manifest</summary><pre>{{ pretty }}</pre></details>\n\
{% when Body::Registered { name, install, dir } %}<h1>{{ name }} is registered</h1>\n<p>Its id, private key and \
webhook secret are in <code>{{ dir }}</code>. The terminal shows the command that starts <code>gatehouse serve</code> \
with them.</p>\n<p><a href=\"{{ install }}\">Install the App on your repositories</a>. You can close this tab.</p>\n\
{% when Body::Failed { message } %}<h1>Registration failed</h1>\n<p>{{ message }}</p>\n{% endmatch %}</main></body></html>\n"
)]
struct Document<'a> {
    title: &'a str,
    body: Body<'a>,
}

/// A page with headers that keep it private: not cached, not framed, no
/// referrer (the callback's address holds the one-time code), no scripts.
fn respond(status: StatusCode, title: &str, body: Body) -> Response {
    let mut html = String::new();
    put(&mut html, &Document { title, body });
    let mut response = (status, Html(html)).into_response();
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
pub(super) fn start(action: &str, account: &str, webhook_url: &str, manifest_json: &str) -> Response {
    let pretty = serde_json::from_str::<serde_json::Value>(manifest_json)
        .and_then(|v| serde_json::to_string_pretty(&v))
        .unwrap_or_else(|_| manifest_json.to_string());
    let body = Body::Start { action, account, webhook: webhook_url, manifest: manifest_json, pretty: &pretty };
    respond(StatusCode::OK, "Register gatehouse", body)
}

pub(super) fn registered(name: &str, install_url: &str, dir: &str) -> Response {
    let body = Body::Registered { name, install: install_url, dir };
    respond(StatusCode::OK, "gatehouse is registered", body)
}

pub(super) fn failed(status: StatusCode, message: &str) -> Response {
    respond(status, "Registration failed", Body::Failed { message })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_could_end_an_attribute_or_open_a_tag() {
        let mut html = String::new();
        let body = Body::Failed { message: r#"{"a":"<b>&'"}"# };
        put(&mut html, &Document { title: "t", body });
        assert!(html.contains("<p>{&quot;a&quot;:&quot;&lt;b&gt;&amp;&#39;&quot;}</p>"), "{html}");
    }
}
