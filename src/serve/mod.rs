//! `prust serve`: the state space of a protocol object, walked live in a
//! browser. A small blocking HTTP server (std's `TcpListener`, a thread a
//! connection, no async runtime) serves one self-contained page and a
//! JSON API over the real object:
//!
//! - `GET /?path=TRAIL&step=K`: the page, at step K of the path;
//! - `GET /api/state?path=TRAIL&step=K`: the view there: the object's
//!   state, each role's enabled actions (each with the query of the path
//!   it leads to), the messages in transit, the path's sequence chart;
//! - `GET /api/check?formula=F`: a check from the initial state, with the
//!   counterexample's path to open.
//!
//! A path is a trail, the text `prust replay` reads, so a permalink is a
//! trail that replays: the server accepts a path only after the same
//! replay succeeds.
//!
//! Safety: the server binds to 127.0.0.1 unless told otherwise, answers
//! only to the Host names of a loopback address there, reads no file,
//! bounds a request's head ([`http::MAX_HEAD`]) and takes no body,
//! handles at most [`MAX_CONNECTIONS`] requests at once, and gives up on
//! a client silent for [`IDLE`].

pub(crate) mod api;
pub(crate) mod http;
mod router;
pub(crate) mod walk;

use std::io;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

pub use api::App;
use router::Hosts;

/// At most this many requests are served at once; more get a 503 at once
/// rather than a thread each.
pub const MAX_CONNECTIONS: usize = 32;

/// A client that sends or reads nothing for this long is dropped.
pub const IDLE: Duration = Duration::from_secs(10);

/// A bound server, not yet serving.
pub struct Server {
    listener: TcpListener,
    app: Arc<App>,
    hosts: Arc<Hosts>,
    stop: Arc<AtomicBool>,
}

/// Stops a running [`Server`] from another thread (the tests' way out;
/// the command runs until its process is stopped).
#[cfg(test)]
#[derive(Clone)]
pub struct Stopper {
    stop: Arc<AtomicBool>,
    addr: SocketAddr,
}

#[cfg(test)]
impl Stopper {
    /// Makes [`Server::run`] return (after the requests in progress).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop: it checks the flag after each connection.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
    }
}

impl Server {
    /// Binds `addr` for `app`.
    pub fn bind(addr: SocketAddr, app: App) -> io::Result<Server> {
        let listener = TcpListener::bind(addr)?;
        let port = listener.local_addr()?.port();
        let hosts = addr.ip().is_loopback().then(|| {
            ["127.0.0.1", "localhost", "[::1]"]
                .iter()
                .flat_map(|h| [h.to_string(), format!("{h}:{port}")])
                .collect()
        });
        Ok(Server {
            listener,
            app: Arc::new(app),
            hosts: Arc::new(hosts),
            stop: Arc::new(AtomicBool::new(false)),
        })
    }

    /// The address it listens on (the port chosen for port 0).
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// What stops it.
    #[cfg(test)]
    pub fn stopper(&self) -> io::Result<Stopper> {
        let mut addr = self.local_addr()?;
        if addr.ip().is_unspecified() {
            addr.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
        }
        Ok(Stopper {
            stop: self.stop.clone(),
            addr,
        })
    }

    /// Serves until stopped; returns once every request in progress has
    /// been answered (or its client dropped).
    pub fn run(self) {
        let active = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for conn in self.listener.incoming() {
                if self.stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = conn else { continue };
                let _ = stream.set_read_timeout(Some(IDLE));
                let _ = stream.set_write_timeout(Some(IDLE));
                if active.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
                    active.fetch_sub(1, Ordering::SeqCst);
                    let busy = http::Response::text(503, "busy: too many requests at once");
                    let _ = busy.write_to(&mut &stream, false);
                    continue;
                }
                let (app, hosts, active) = (&self.app, &self.hosts, &active);
                let spawned = std::thread::Builder::new()
                    .name("prust-serve".into())
                    .spawn_scoped(s, move || {
                        serve_one(app, hosts, stream);
                        active.fetch_sub(1, Ordering::SeqCst);
                    });
                if spawned.is_err() {
                    active.fetch_sub(1, Ordering::SeqCst);
                }
            }
        });
    }
}

/// Answers one request on `stream`, then closes it. A client that goes
/// away mid-request or mid-answer costs nothing but this thread's time.
fn serve_one(app: &App, hosts: &Hosts, stream: TcpStream) {
    let mut reader = &stream;
    let (response, head_only) = match http::read_request(&mut reader) {
        Ok(None) => return,
        Err(r) => (r, false),
        Ok(Some(req)) => {
            // The object's own code runs in the requests: a panic in it is
            // a 500 for that request, not the server's end.
            let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                router::route(app, hosts, &req, &|| client_gone(&stream))
            }));
            let r = answer.unwrap_or_else(|_| {
                http::Response::text(500, "the object panicked (the message is on stderr)")
            });
            (r, req.method == "HEAD")
        }
    };
    let _ = response.write_to(&mut &stream, head_only);
    let _ = stream.shutdown(std::net::Shutdown::Write);
}

/// Whether `arg` is a permalink of `prust serve` (a URL) rather than a
/// file name.
pub fn is_permalink(arg: &str) -> bool {
    arg.starts_with("http://") || arg.starts_with("https://")
}

/// The trail a permalink holds: its `path` parameter, decoded.
pub fn permalink_trail(url: &str) -> Result<String, String> {
    let url = url.split_once('#').map_or(url, |(u, _)| u);
    let target = url
        .find("://")
        .and_then(|i| url[i + 3..].find('/').map(|j| &url[i + 3 + j..]))
        .unwrap_or("/");
    let (_, params) = http::query(target)?;
    params
        .into_iter()
        .find(|(k, _)| k == "path")
        .map(|(_, v)| v)
        .ok_or_else(|| "the URL has no `path` parameter (the initial state has no steps)".into())
}

/// Whether the client of `stream` has closed its end (a browser tab
/// closed, a request cancelled): nothing it asked for is worth computing.
fn client_gone(stream: &TcpStream) -> bool {
    if stream.set_nonblocking(true).is_err() {
        return false;
    }
    let mut byte = [0u8; 1];
    let gone = match stream.peek(&mut byte) {
        Ok(0) => true,
        Ok(_) => false,
        Err(e) => e.kind() != io::ErrorKind::WouldBlock,
    };
    let _ = stream.set_nonblocking(false);
    gone
}

#[cfg(test)]
mod tests;
