//! Just enough HTTP/1.1 for one local page and its JSON: a request head
//! read within a byte bound, percent-decoding of the query, and a
//! response written with `Connection: close`. Only GET (and HEAD) exist:
//! the explorer changes nothing on the server, so no request has a body.

use std::fmt::Write as _;
use std::io::{self, Read, Write};

/// The longest request head read (request line and headers). A path of a
/// few thousand steps fits; more is refused before it is buffered, so a
/// client cannot make the server hold an unbounded request.
pub const MAX_HEAD: usize = 256 * 1024;

/// A request the router can answer: its method and target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// `GET` or `HEAD`.
    pub method: String,
    /// The origin-form target: `/path?query`.
    pub target: String,
    /// The `Host` header, if any.
    pub host: Option<String>,
}

/// An answer: status, content type and body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// The `Content-Type` header.
    pub content_type: &'static str,
    /// The body.
    pub body: Vec<u8>,
}

impl Response {
    /// A JSON body.
    pub fn json(status: u16, body: String) -> Response {
        Response {
            status,
            content_type: "application/json; charset=utf-8",
            body: body.into_bytes(),
        }
    }

    /// An HTML body.
    pub fn html(status: u16, body: String) -> Response {
        Response {
            status,
            content_type: "text/html; charset=utf-8",
            body: body.into_bytes(),
        }
    }

    /// A plain-text error (for what is not the page or the API: a request
    /// that is not HTTP, a head too large).
    pub fn text(status: u16, body: impl Into<String>) -> Response {
        let mut body = body.into();
        body.push('\n');
        Response {
            status,
            content_type: "text/plain; charset=utf-8",
            body: body.into_bytes(),
        }
    }

    /// Writes the response (without its body for `HEAD`).
    pub fn write_to(&self, out: &mut impl Write, head_only: bool) -> io::Result<()> {
        let mut head = String::new();
        let _ = write!(
            head,
            "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n\
             Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n\
             Connection: close\r\n",
            self.status,
            reason(self.status),
            self.content_type,
            self.body.len()
        );
        if self.status == 405 {
            head.push_str("Allow: GET, HEAD\r\n");
        }
        head.push_str("\r\n");
        out.write_all(head.as_bytes())?;
        if !head_only {
            out.write_all(&self.body)?;
        }
        out.flush()
    }
}

/// The reason phrase of the statuses the server sends.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        413 => "Content Too Large",
        414 => "URI Too Long",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "",
    }
}

/// Reads one request head from `input` (at most [`MAX_HEAD`] bytes) and
/// parses it; `Err` is the response to send instead, `Ok(None)` a client
/// that closed (or stalled past the socket's timeout) before a whole head.
pub fn read_request(input: &mut impl Read) -> Result<Option<Request>, Response> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    let end = loop {
        if let Some(end) = find_head_end(&buf) {
            break end;
        }
        if buf.len() >= MAX_HEAD {
            // Still on the request line: the target is what is too long.
            return Err(if buf.contains(&b'\n') {
                Response::text(431, "the request's headers are too large")
            } else {
                Response::text(
                    414,
                    format!("the request's URL is longer than {MAX_HEAD} bytes"),
                )
            });
        }
        let want = chunk.len().min(MAX_HEAD - buf.len());
        match input.read(&mut chunk[..want]) {
            Ok(0) => return Ok(None),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return Ok(None),
        }
    };
    parse_head(&buf[..end]).map(Some)
}

/// Where the head ends (the index after its blank line), if it does.
fn find_head_end(buf: &[u8]) -> Option<usize> {
    buf.windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| i + 4)
        .or_else(|| buf.windows(2).position(|w| w == b"\n\n").map(|i| i + 2))
}

/// Parses a request head (request line, headers).
pub fn parse_head(head: &[u8]) -> Result<Request, Response> {
    let bad = |why: &str| Response::text(400, format!("bad request: {why}"));
    let text = std::str::from_utf8(head).map_err(|_| bad("the head is not UTF-8"))?;
    let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    let line = lines.next().unwrap_or_default();
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(bad("the request line is not `METHOD TARGET HTTP/1.1`"));
    };
    if !matches!(version, "HTTP/1.1" | "HTTP/1.0") {
        return Err(bad("only HTTP/1.0 and HTTP/1.1 are spoken"));
    }
    if !target.starts_with('/') || target.bytes().any(|b| b <= b' ' || b == 0x7f) {
        return Err(bad("the target must be a path starting with `/`"));
    }
    let mut host = None;
    for h in lines.filter(|l| !l.is_empty()) {
        let Some((name, value)) = h.split_once(':') else {
            return Err(bad("a header without `:`"));
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("host") {
            host = Some(value.to_string());
        } else if (name.eq_ignore_ascii_case("content-length") && value != "0")
            || name.eq_ignore_ascii_case("transfer-encoding")
        {
            return Err(Response::text(413, "the explorer takes no request body"));
        }
    }
    if !matches!(method, "GET" | "HEAD") {
        return Err(Response::text(405, "only GET and HEAD"));
    }
    Ok(Request {
        method: method.to_string(),
        target: target.to_string(),
        host,
    })
}

/// Decodes a query component: `+` is a space (as forms and
/// `URLSearchParams` write it), `%XX` a byte; the result must be UTF-8.
pub fn decode(s: &str) -> Result<String, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = b
                    .get(i + 1..i + 3)
                    .and_then(|h| std::str::from_utf8(h).ok());
                let byte = hex
                    .filter(|h| h.bytes().all(|c| c.is_ascii_hexdigit()))
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or_else(|| format!("bad percent-escape at byte {}", i + 1))?;
                out.push(byte);
                i += 2;
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8(out).map_err(|_| "the decoded text is not UTF-8".to_string())
}

/// Encodes `s` for a query component: every byte but the unreserved ones
/// (RFC 3986) as `%XX`, so that [`decode`] gives `s` back.
pub fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 2);
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// The query of `target` as name/value pairs, decoded; a name may appear
/// once.
pub fn query(target: &str) -> Result<(String, Vec<(String, String)>), String> {
    let (path, q) = target.split_once('?').unwrap_or((target, ""));
    let mut pairs: Vec<(String, String)> = Vec::new();
    for part in q.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = part.split_once('=').unwrap_or((part, ""));
        let k = decode(k)?;
        let v = decode(v)?;
        if pairs.iter().any(|(n, _)| *n == k) {
            return Err(format!("the parameter `{k}` is given twice"));
        }
        pairs.push((k, v));
    }
    Ok((path.to_string(), pairs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_round_trips_any_text() {
        for s in [
            "",
            "a b+c",
            "prust-trail 1\nwhite SEND <Move> TO black\n",
            "é→ω%&=?#",
        ] {
            assert_eq!(decode(&encode(s)).unwrap(), s);
        }
        assert_eq!(decode("a+b%20c").unwrap(), "a b c");
    }

    #[test]
    fn bad_escapes_are_errors() {
        for bad in ["%", "%4", "%zz", "%+1", "%C3%28", "%FF"] {
            assert!(decode(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn heads_are_parsed_and_bounded() {
        let r = parse_head(b"GET /api/state?step=1 HTTP/1.1\r\nHost: 127.0.0.1:8\r\n\r\n").unwrap();
        assert_eq!(r.target, "/api/state?step=1");
        assert_eq!(r.host.as_deref(), Some("127.0.0.1:8"));
        let status = |h: &[u8]| parse_head(h).unwrap_err().status;
        assert_eq!(status(b"POST / HTTP/1.1\r\n\r\n"), 405);
        assert_eq!(status(b"GET / HTTP/1.1\r\nContent-Length: 5\r\n\r\n"), 413);
        assert_eq!(status(b"GET http://x/ HTTP/1.1\r\n\r\n"), 400);
        assert_eq!(status(b"GET / SPDY\r\n\r\n"), 400);
        assert_eq!(status(b"GET /\xff HTTP/1.1\r\n\r\n"), 400);
        assert_eq!(status(b"\r\n\r\n"), 400);

        let long = format!("GET /?path={} HTTP/1.1\r\n\r\n", "a".repeat(MAX_HEAD));
        let e = read_request(&mut long.as_bytes()).unwrap_err();
        assert_eq!(e.status, 414);
        let headers = format!("GET / HTTP/1.1\r\nX: {}\r\n\r\n", "a".repeat(MAX_HEAD));
        assert_eq!(
            read_request(&mut headers.as_bytes()).unwrap_err().status,
            431
        );
        // A client gone before a whole head: nothing to answer.
        assert_eq!(read_request(&mut &b"GET / HT"[..]).unwrap(), None);
    }

    #[test]
    fn a_parameter_may_appear_once() {
        let (path, q) = query("/api/check?formula=F+%22END%22").unwrap();
        assert_eq!(path, "/api/check");
        assert_eq!(q, [("formula".to_string(), "F \"END\"".to_string())]);
        assert!(query("/?step=1&step=2").is_err());
    }
}
