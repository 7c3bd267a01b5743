//! Which request gets which answer. Only three things are served: the
//! page, a view of a path, a check; no file is ever read, so nothing
//! outside the protocol given on the command line can be reached.

use super::api::{parse_view, App, Refusal};
use super::http::{query, Request, Response};
use crate::cli::json::Object;

/// The page: one self-contained document (its script and style inline).
const PAGE: &str = include_str!("page.html");

/// The hosts a loopback server answers to, so that a page of another
/// site cannot reach it through a DNS name that points at 127.0.0.1
/// (DNS rebinding); `None` accepts any (a server bound elsewhere on
/// purpose).
pub type Hosts = Option<Vec<String>>;

/// The answer to `req`; `gone` tells whether its client has left.
pub fn route(app: &App, hosts: &Hosts, req: &Request, gone: &dyn Fn() -> bool) -> Response {
    if let (Some(allowed), Some(host)) = (hosts, &req.host) {
        if !allowed.iter().any(|h| h.eq_ignore_ascii_case(host)) {
            return Response::text(
                400,
                format!("bad request: unexpected Host `{}`", host.escape_debug()),
            );
        }
    }
    let (path, params) = match query(&req.target) {
        Ok(q) => q,
        Err(e) => {
            return refused(
                &req.target,
                Refusal {
                    status: 400,
                    message: e,
                },
            )
        }
    };
    let get = |name: &str| {
        params
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    let known = |names: &[&str]| {
        params
            .iter()
            .find(|(k, _)| !names.contains(&k.as_str()))
            .map(|(k, _)| Refusal {
                status: 400,
                message: format!("unknown parameter `{}`", k.escape_debug()),
            })
    };
    match path.as_str() {
        "/" | "/index.html" => {
            if let Some(r) = known(&["path", "step"]) {
                return refused(&path, r);
            }
            // The view is computed here too: a permalink that does not
            // replay is refused with the reason, not shown as a blank page.
            match parse_view(get("path"), get("step")).and_then(|(t, s)| app.state(t, s)) {
                Ok(_) => Response::html(200, page(app)),
                Err(r) => refused(&path, r),
            }
        }
        "/api/state" => {
            if let Some(r) = known(&["path", "step"]) {
                return refused(&path, r);
            }
            match parse_view(get("path"), get("step")).and_then(|(t, s)| app.state(t, s)) {
                Ok(json) => Response::json(200, json),
                Err(r) => refused(&path, r),
            }
        }
        "/api/check" => {
            if let Some(r) = known(&["formula"]) {
                return refused(&path, r);
            }
            match app.check(get("formula").unwrap_or_default(), gone) {
                Ok(json) => Response::json(200, json),
                Err(r) => refused(&path, r),
            }
        }
        _ => refused(
            &path,
            Refusal {
                status: 404,
                message: "not found: the explorer serves `/`, `/api/state` and `/api/check`".into(),
            },
        ),
    }
}

/// A refusal as the asker reads it: JSON for the API, a short page else.
fn refused(path: &str, r: Refusal) -> Response {
    if path.starts_with("/api/") {
        let mut o = Object::new();
        o.str("error", &r.message);
        Response::json(r.status, o.finish())
    } else {
        let body = format!(
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>prust serve: \
             error</title></head><body><h1>{}</h1><pre id=\"error\">{}</pre>\
             <p><a href=\"/\">the initial state</a></p></body></html>\n",
            r.status,
            escape(&r.message)
        );
        Response::html(r.status, body)
    }
}

/// The page with the protocol's name and the command line's formulas.
fn page(app: &App) -> String {
    PAGE.replace("{{PROTOCOL}}", &escape(&app.protocol))
        // No `<` inside the script: `</script>` or `<!--` in a formula
        // must not end or change it.
        .replace("{{FORMULAS}}", &app.formulas_json().replace('<', "\\u003c"))
}

/// `s` safe in HTML text.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
