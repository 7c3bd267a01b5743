use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};

use engine::Checker;
use protocols::{Object, Strict};

use super::api::{parse_view, view_query, App};
use super::http::{query, Request};
use super::router::{route, Hosts};
use super::walk::Walk;
use super::Server;

fn chess() -> App {
    let lts = protocols::bundled::spec_by_name("chess")
        .unwrap()
        .compile()
        .unwrap();
    App::new(
        "chess".into(),
        Walk::new(Object::from(Strict::new(lts))),
        vec![r#"F "END""#.into()],
        Checker::new(),
    )
}

fn get(app: &App, target: &str) -> (u16, String) {
    let req = Request {
        method: "GET".into(),
        target: target.into(),
        host: Some("127.0.0.1:1".into()),
    };
    let r = route(app, &None, &req, &|| false);
    (r.status, String::from_utf8(r.body).unwrap())
}

/// The string field `key` of a JSON text whose values have no escapes
/// beyond `\"`, `\\` and `\n`.
fn field(json: &str, key: &str) -> String {
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
fn bad_urls_are_400_never_a_panic() {
    let app = chess();
    let bad = [
        "/?path=%",
        "/?path=%zz",
        "/?path=%FF",
        "/api/state?path=not+a+trail",
        "/api/state?step=x",
        "/api/state?step=-1",
        "/api/state?step=1",
        "/api/state?step=99999999999999999999999",
        "/api/state?path=prust-trail+1%0Awhite+SEND+%3CMove%3E+TO+nobody%0Aend+violated",
        // Black cannot move first: the object does not follow it.
        "/api/state?path=prust-trail+1%0Ablack+SEND+%3CMove%3E+TO+white%0Aend+violated",
        "/api/state?path=prust-trail+1%0Aend+deadlock",
        "/api/state?bogus=1",
        "/api/state?step=0&step=0",
        "/api/check",
        "/api/check?formula=",
        "/api/check?formula=G+%28",
        "/api/check?formula=F+%22nobody+SEND+*%22",
        "/?step=3",
        "/?path=x&other=y",
    ];
    for target in bad {
        let (status, body) = get(&app, target);
        assert_eq!(status, 400, "{target}: {body}");
        if target.starts_with("/api/") {
            assert!(body.starts_with("{\"error\":"), "{target}: {body}");
        }
    }
    let long = format!("/api/check?formula={}", "a".repeat(5000));
    assert_eq!(get(&app, &long).0, 400);
    // No file is served, whatever the path says.
    for target in [
        "/etc/passwd",
        "/../../etc/passwd",
        "/%2e%2e/Cargo.toml",
        "/api/",
    ] {
        let (status, body) = get(&app, target);
        assert_eq!(status, 404, "{target}");
        assert!(!body.contains("root:"), "{body}");
    }
}

#[test]
fn a_path_round_trips_through_its_query() {
    let app = chess();
    let (status, initial) = get(&app, "/api/state");
    assert_eq!(status, 200, "{initial}");
    assert!(initial.contains(r#""step":0,"length":0"#), "{initial}");
    // White moves first: the one enabled action of the initial state.
    let at = initial.find("\"moves\":[{").expect("a move");
    let query_of_move = field(&initial[at..], "query");
    let (status, moved) = get(&app, &format!("/api/state?{query_of_move}"));
    assert_eq!(status, 200, "{moved}");
    assert!(moved.contains(r#""step":1,"length":1"#), "{moved}");
    assert!(moved.contains("white SEND <Move> TO black"), "{moved}");
    // The canonical query reads back to the same view.
    let canonical = field(&moved, "query");
    let (_, again) = get(&app, &format!("/api/state?{canonical}"));
    assert_eq!(field(&again, "path"), field(&moved, "path"));
    assert_eq!(field(&again, "query"), canonical);
    // And the path is a trail that `prust replay` reads.
    let (_, params) = query(&format!("/?{canonical}")).unwrap();
    let (trail, step) = parse_view(Some(&params[0].1), None).unwrap();
    assert_eq!(step, None);
    assert_eq!(trail.prefix.len(), 1);
    assert_eq!(trail.protocol.as_deref(), Some("chess"));
    assert_eq!(view_query(&trail, None), canonical);
    // The step is kept: back to the start of the same path.
    let start = field(&moved, "start_query");
    let (_, back) = get(&app, &format!("/api/state?{start}"));
    assert!(back.contains(r#""step":0,"length":1"#), "{back}");
}

#[test]
fn a_check_opens_its_counterexample() {
    let app = chess();
    let (status, json) = get(&app, "/api/check?formula=F+%22END%22");
    assert_eq!(status, 200, "{json}");
    assert_eq!(field(&json, "tone"), "bad");
    let q = field(&json, "query");
    let (status, view) = get(&app, &format!("/api/state?{q}"));
    assert_eq!(status, 200, "{view}");
    assert!(view.contains("\"formula\":\"F \\\"END\\\"\""), "{view}");
    assert!(field(&view, "chart").contains("<section class=\"chart\""));
    let (_, holds) = get(&app, "/api/check?formula=G+%21%22DEADLOCK%22");
    assert_eq!(field(&holds, "tone"), "good", "{holds}");
    assert!(holds.contains("\"query\":null"), "{holds}");
}

#[test]
fn a_check_whose_client_left_is_not_run() {
    let app = chess();
    let held = app.checking.lock().unwrap();
    // The client leaves while another check runs: this one never starts.
    let e = app.check(r#"F "END""#, &|| true).unwrap_err();
    assert!(e.message.contains("left"), "{}", e.message);
    drop(held);
    assert!(app.check(r#"F "END""#, &|| false).is_ok());
}

#[test]
fn permalinks_give_their_trail() {
    let trail = "prust-trail 1\nwhite SEND <Move> TO black\nend violated\n";
    let url = format!(
        "http://127.0.0.1:7878/?path={}&step=1#x",
        super::http::encode(trail)
    );
    assert_eq!(super::permalink_trail(&url).unwrap(), trail);
    assert!(super::permalink_trail("http://127.0.0.1:7878/").is_err());
    assert!(super::permalink_trail("http://h/?path=%zz").is_err());
    assert!(super::is_permalink("https://x/") && !super::is_permalink("run.trail"));
}

#[test]
fn the_page_carries_the_formulas_inert() {
    let mut app = chess();
    app.formulas = vec![r#"G !"x</script><!--""#.into()];
    let (status, page) = get(&app, "/");
    assert_eq!(status, 200);
    assert_eq!(page.matches("</script>").count(), 1, "{page}");
    assert!(
        page.contains(r#"const FORMULAS = ["G !\"x\u003c/script>\u003c!--\""];"#),
        "{page}"
    );
}

#[test]
fn a_foreign_host_is_refused_on_loopback() {
    let app = chess();
    let hosts: Hosts = Some(vec!["127.0.0.1:9".into()]);
    let req = |host: &str| Request {
        method: "GET".into(),
        target: "/api/state".into(),
        host: Some(host.into()),
    };
    assert_eq!(
        route(&app, &hosts, &req("127.0.0.1:9"), &|| false).status,
        200
    );
    assert_eq!(
        route(&app, &hosts, &req("evil.example:9"), &|| false).status,
        400
    );
}

#[test]
fn the_server_answers_and_stops_with_its_threads() {
    let server = Server::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)), chess()).unwrap();
    let addr = server.local_addr().unwrap();
    let stopper = server.stopper().unwrap();
    let running = std::thread::spawn(move || server.run());
    let mut s = TcpStream::connect(addr).unwrap();
    write!(s, "GET /api/state HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
    // A client that leaves mid-request holds nothing up.
    let mut gone = TcpStream::connect(addr).unwrap();
    gone.write_all(b"GET /api/st").unwrap();
    drop(gone);
    stopper.stop();
    running.join().unwrap();
}
