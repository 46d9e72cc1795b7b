//! A TCP proxy on loopback in front of PostgreSQL, for database outages in
//! tests: `cut` drops every connection it carries and refuses new ones until
//! `restore`. The shared server itself is never touched.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

pub struct Proxy {
    pub addr: SocketAddr,
    cuts: watch::Sender<u64>,
    refusing: Arc<AtomicBool>,
}

impl Proxy {
    pub async fn start(upstream: SocketAddr) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (cuts, _) = watch::channel(0u64);
        let refusing = Arc::new(AtomicBool::new(false));
        let (watcher, refused) = (cuts.clone(), refusing.clone());
        tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                if refused.load(Ordering::SeqCst) {
                    continue;
                }
                let mut cut = watcher.subscribe();
                tokio::spawn(async move {
                    let Ok(mut server) = TcpStream::connect(upstream).await else { return };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
                        _ = cut.changed() => {}
                    }
                });
            }
        });
        Proxy { addr, cuts, refusing }
    }

    /// Drops every connection and refuses new ones.
    pub fn cut(&self) {
        self.refusing.store(true, Ordering::SeqCst);
        self.cuts.send_modify(|n| *n += 1);
    }

    /// Takes connections again.
    pub fn restore(&self) {
        self.refusing.store(false, Ordering::SeqCst);
    }

    /// Drops every connection, and refuses new ones for `outage`.
    pub async fn outage(&self, outage: Duration) {
        self.cut();
        tokio::time::sleep(outage).await;
        self.restore();
    }
}
