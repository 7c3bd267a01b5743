//! `prust serve`: the server run as a child process on an ephemeral port,
//! talked to over plain HTTP; and (gated as the HTML reports' tests are)
//! its page clicked through in headless Chromium.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::cli::{prust, stdout};

/// A `prust serve` child, killed when dropped (a failing test leaves no
/// server behind).
pub struct Served {
    child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Served {
    /// Starts `prust serve ARGS --port 0` and reads the address it prints.
    pub fn start(args: &[&str]) -> Served {
        let mut child = Command::new(env!("CARGO_BIN_EXE_prust"))
            .arg("serve")
            .args(args)
            .args(["--port", "0"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("prust serve starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no URL in {line:?}"));
        let addr = url["http://".len()..]
            .trim_end_matches('/')
            .parse()
            .unwrap();
        Served { child, addr }
    }

    /// Whether the process is still running.
    pub fn alive(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }

    /// `GET target`: the status and body.
    pub fn get(&self, target: &str) -> (u16, String) {
        self.raw(&format!(
            "GET {target} HTTP/1.1\r\nHost: {}\r\n\r\n",
            self.addr
        ))
    }

    /// Sends `request` as it is; the status and body of the answer.
    pub fn raw(&self, request: &str) -> (u16, String) {
        let mut s = TcpStream::connect(self.addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
        // The server may answer (and close) before it has read all of an
        // oversized request: a failed write is no failure here.
        let _ = s.write_all(request.as_bytes());
        let mut answer = Vec::new();
        let _ = s.read_to_end(&mut answer);
        let answer = String::from_utf8_lossy(&answer).into_owned();
        let status = answer
            .strip_prefix("HTTP/1.1 ")
            .and_then(|r| r.get(..3))
            .and_then(|c| c.parse().ok())
            .unwrap_or_else(|| panic!("not an HTTP answer: {answer:?}"));
        let body = answer
            .split_once("\r\n\r\n")
            .map_or("", |(_, b)| b)
            .to_string();
        (status, body)
    }
}

/// The string field `key` of a JSON text (values without escapes other
/// than `\"`, `\\`, `\n`).
pub fn field(json: &str, key: &str) -> String {
    let at = json
        .find(&format!("\"{key}\":\""))
        .unwrap_or_else(|| panic!("no {key} in {json}"));
    let mut out = String::new();
    let mut chars = json[at + key.len() + 4..].chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return out,
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some(c) => out.push(c),
                None => break,
            },
            c => out.push(c),
        }
    }
    panic!("unterminated {key} in {json}")
}

#[test]
fn serve_gives_the_page_the_api_and_permalinks_that_replay() {
    let served = Served::start(&["chess", r#"F "END""#]);
    assert_eq!(served.addr.ip().to_string(), "127.0.0.1");
    let (status, page) = served.get("/");
    assert_eq!(status, 200);
    assert!(page.contains("<title>prust serve chess</title>"), "{page}");
    // The command line's formula is offered on the page, safely quoted.
    assert!(
        page.contains(r#"const FORMULAS = ["F \"END\""];"#),
        "{page}"
    );
    assert!(!page.contains("src=\"http"), "no network: {page}");

    let (status, check) = served.get("/api/check?formula=F+%22END%22");
    assert_eq!(status, 200, "{check}");
    assert!(field(&check, "verdict").contains("violated"), "{check}");
    let query = field(&check, "query");
    let (status, view) = served.get(&format!("/api/state?{query}"));
    assert_eq!(status, 200, "{view}");
    assert_eq!(
        field(&view, "query"),
        query,
        "the permalink reads back as it is"
    );
    let (status, _) = served.get(&format!("/?{query}"));
    assert_eq!(status, 200);

    // The permalink replays on the command line, and so does its trail.
    let url = format!("http://{}/?{query}", served.addr);
    let o = prust(&["replay", "chess", &url]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("the trail replays"), "{}", stdout(&o));
    let trail = field(&view, "path");
    assert!(
        trail.starts_with("prust-trail 1\nprotocol chess\nformula F \"END\"\n"),
        "{trail}"
    );

    // A path walked by hand: the first move, then its permalink.
    let (_, initial) = served.get("/api/state");
    let at = initial.find("\"moves\":[{").expect("white may move");
    let step = field(&initial[at..], "query");
    let (status, moved) = served.get(&format!("/api/state?{step}"));
    assert_eq!(status, 200, "{moved}");
    let url = format!("http://{}/?{}", served.addr, field(&moved, "query"));
    let o = prust(&["replay", "chess", &url]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("1. white SEND <Move> TO black"),
        "{}",
        stdout(&o)
    );
    // A URL without a path is an error, not a replay of nothing.
    let o = prust(&["replay", "chess", &format!("http://{}/", served.addr)]);
    assert_eq!(o.status.code(), Some(3));
}

#[test]
fn serve_survives_clients_that_leave_and_a_thousand_bad_urls() {
    let mut served = Served::start(&["chess"]);
    // Browsers that close mid-request, and mid-answer (fewer than the
    // connections served at once: none of these may get a 503).
    for _ in 0..10 {
        let mut s = TcpStream::connect(served.addr).unwrap();
        let _ = s.write_all(b"GET /api/state?path=prust-trail");
        drop(s);
        let mut s = TcpStream::connect(served.addr).unwrap();
        let _ = s.write_all(b"GET /api/check?formula=F+%22END%22 HTTP/1.1\r\n\r\n");
        drop(s);
    }
    let templates = [
        "/?path=%{}",
        "/api/state?step=x{}",
        "/api/state?step={}",
        "/api/state?path=prust-trail+{}",
        "/api/state?path=prust-trail+1%0Awhite+SEND+%3CMove{}%3E+TO+black%0Aend+violated",
        "/api/state?a{}=1",
        "/api/check?formula=G+({}",
        "/?path=%FF%{}",
    ];
    for i in 0..1000 {
        let target = templates[i % templates.len()].replace("{}", &(i + 1).to_string());
        let (status, body) = served.get(&target);
        assert_eq!(status, 400, "{target}: {body}");
    }
    // Not HTTP, too large, not GET: refused with their own statuses.
    assert_eq!(served.raw("hello\r\n\r\n").0, 400);
    let long = format!("GET /?path={} HTTP/1.1\r\n\r\n", "a".repeat(300 * 1024));
    assert_eq!(served.raw(&long).0, 414);
    assert_eq!(
        served
            .raw("POST / HTTP/1.1\r\nContent-Length: 1\r\n\r\nx")
            .0,
        413
    );
    assert_eq!(served.raw("DELETE / HTTP/1.1\r\n\r\n").0, 405);
    assert_eq!(
        served.raw("GET / HTTP/1.1\r\nHost: evil.example\r\n\r\n").0,
        400
    );
    assert_eq!(served.get("/../Cargo.toml").0, 404);
    assert!(served.alive(), "the server died");
    assert_eq!(served.get("/api/state").0, 200);
    // The checks whose browsers left hold no later check up for long.
    let (status, check) = served.get("/api/check?formula=F+%22END%22");
    assert_eq!(status, 200, "{check}");
}

#[test]
fn serve_reports_a_port_in_use_and_a_bad_protocol() {
    let served = Served::start(&["chess"]);
    let port = served.addr.port().to_string();
    let o = prust(&["serve", "chess", "--port", &port]);
    assert_eq!(o.status.code(), Some(3));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("cannot listen on 127.0.0.1:"), "{err}");
    assert!(err.contains("hint:"), "{err}");
    let o = prust(&["serve", "no-such-protocol", "--port", "0"]);
    assert_eq!(o.status.code(), Some(3));
}

/// The page's self-check (`#selftest=FORMULA`): its `key=value` lines.
fn page_selftest(dom: &str) -> std::collections::HashMap<String, String> {
    let start = dom
        .find("<pre id=\"selftest\">")
        .unwrap_or_else(|| panic!("the page did not finish its self-check: {dom}"));
    let body = &dom[start + "<pre id=\"selftest\">".len()..];
    body[..body.find("</pre>").unwrap()]
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.replace("&amp;", "&")))
        .collect()
}

#[test]
fn serve_page_clicks_through_a_counterexample_in_a_real_browser() {
    let Some(chrome) = crate::html_reports::chromium() else {
        return;
    };
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("serve-browser");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let served = Served::start(&["chess"]);
    // Where the walk below must end: the counterexample's last step, as
    // the server writes its URL.
    let (_, check) = served.get("/api/check?formula=F+%22END%22");
    let (_, view) = served.get(&format!("/api/state?{}", field(&check, "query")));
    let n: usize = view
        .split("\"length\":")
        .nth(1)
        .and_then(|r| r.split(',').next())
        .and_then(|k| k.parse().ok())
        .unwrap_or_else(|| panic!("no length in {view}"));
    let expected_end = format!("/?{}&step={n}", field(&check, "query"));
    // Chromium waits for the page's requests within this much virtual
    // time: the self-check's clicks each wait for the server's answer.
    let budget = "--virtual-time-budget=60000".to_string();
    let walk = format!("http://{}/#selftest=F%20%22END%22", served.addr);
    let reopen = format!("http://{}{expected_end}", served.addr);
    // Both at once: each run is mostly Chromium starting.
    let (dom, reopened) = std::thread::scope(|s| {
        let a = s.spawn(|| {
            let args = [budget.clone(), "--dump-dom".into(), walk];
            crate::html_reports::headless(&chrome, &dir.join("walk"), &args)
        });
        let b = s.spawn(|| {
            let args = [budget.clone(), "--dump-dom".into(), reopen];
            crate::html_reports::headless(&chrome, &dir.join("reopen"), &args)
        });
        (a.join().unwrap(), b.join().unwrap())
    });
    let seen = page_selftest(&dom);
    eprintln!("the page's self-check: {seen:?}");
    let get = |k: &str| {
        seen.get(k)
            .cloned()
            .unwrap_or_else(|| panic!("no {k}: {seen:?}"))
    };
    assert_eq!(get("error"), "none", "{seen:?}");
    assert_eq!(get("verdict_tone"), "bad", "{seen:?}");
    assert_eq!(get("length"), n.to_string(), "{seen:?}");
    assert!(n > 0, "{seen:?}");
    assert_eq!(get("at_start"), "0");
    assert_eq!(
        get("walked"),
        n.to_string(),
        "each forward click moved one step"
    );
    assert_eq!(
        get("chart_steps"),
        n.to_string(),
        "the chart has a row a step"
    );
    assert_eq!(get("after_back"), (n - 1).to_string());
    // An action taken one step before the end: a path of the same length.
    assert_ne!(get("move"), "none", "{seen:?}");
    assert_eq!(get("after_move_length"), n.to_string(), "{seen:?}");
    assert_eq!(get("after_move_step"), n.to_string(), "{seen:?}");

    // The URL round-trips: the walk ends on the server's URL of the last
    // step, and that URL opened afresh is the same view under itself.
    let end = get("end_url");
    assert_eq!(end, expected_end);
    assert!(
        reopened.contains(&format!("<span id=\"where\">step {n} of {n}</span>")),
        "{reopened}"
    );
    let href = format!("<a id=\"permalink\" href=\"{}\"", end.replace('&', "&amp;"));
    assert!(reopened.contains(&href), "{href} in {reopened}");
    // And `prust replay` takes the browser's URL.
    let o = prust(&["replay", "chess", &format!("http://{}{end}", served.addr)]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
}
