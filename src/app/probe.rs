//! `gatehouse probe`: the container healthcheck. Asks `/readyz` (the App is
//! up and its database reachable) and says why not in one line. The image
//! has no shell tools for this, and needs none.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

/// How long the App has to answer.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(1);

/// `/readyz` on the address `serve` listens on (`bind`, from
/// `GATEHOUSE_BIND` or the default), reached over loopback when it listens
/// on every interface.
pub(crate) fn default_url(bind: Option<&str>) -> Result<String, String> {
    let bind = bind.filter(|b| !b.trim().is_empty()).unwrap_or(super::DEFAULT_BIND);
    let addr: SocketAddr = bind.trim().parse().map_err(|_| format!("GATEHOUSE_BIND {bind:?} is not host:port"))?;
    let ip = match addr.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    Ok(format!("http://{}/readyz", SocketAddr::new(ip, addr.port())))
}

/// `Ok` when `url` answers 200 within [`TIMEOUT`]; otherwise the reason.
pub(crate) async fn probe(url: &str) -> Result<(), String> {
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(format!("{url:?} is not an http(s) URL"));
    }
    // No proxy: a proxy set for the App's GitHub calls must not stand between
    // the probe and the App beside it.
    let client = reqwest::Client::builder().timeout(TIMEOUT).no_proxy().build().map_err(|e| e.to_string())?;
    let response = client.get(url).send().await.map_err(|e| {
        if e.is_timeout() {
            format!("{url}: no answer within {}s", TIMEOUT.as_secs())
        } else if e.is_connect() {
            format!("{url}: cannot connect (is `gatehouse serve` running there?)")
        } else {
            format!("{url}: {e}")
        }
    })?;
    let status = response.status();
    if status == reqwest::StatusCode::OK {
        return Ok(());
    }
    let body = response.text().await.unwrap_or_default();
    let first_line = body.lines().next().unwrap_or("").trim();
    let detail: String = first_line.chars().take(200).collect();
    Err(if detail.is_empty() {
        format!("{url}: answered {status}")
    } else {
        format!("{url}: answered {status}: {detail}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_follows_serve_s_bind() {
        assert_eq!(default_url(None).unwrap(), "http://127.0.0.1:3000/readyz");
        assert_eq!(default_url(Some("0.0.0.0:8080")).unwrap(), "http://127.0.0.1:8080/readyz");
        assert_eq!(default_url(Some("[::]:9000")).unwrap(), "http://[::1]:9000/readyz");
        assert_eq!(default_url(Some("10.1.2.3:80")).unwrap(), "http://10.1.2.3:80/readyz");
        assert!(default_url(Some("nonsense")).is_err());
    }
}
