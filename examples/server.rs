//! A server that `select!`s between a client's requests and an admin's
//! shutdown: it answers requests until told to shut down, and shuts down
//! gracefully, answering what the client still asks until the client
//! closes its request channel.
//!
//! ```text
//! cargo run --example server
//! ```
//!
//! The specification says that the client's loop of a request and its
//! answer, ended by the client's close, runs side by side with the one
//! shutdown: the shutdown may come at any point of the client's loop.
//!
//! The planted bug: the server stops at the shutdown at once. Whenever the
//! shutdown overtakes one of the client's requests, the client waits for
//! an answer that never comes. On real threads that happens only in some
//! runs (a deadlock error then, never a hang); `prust::explore` runs the
//! schedule where it happens, and passes the graceful server in every one.

use prust::channel::{Ends, RecvError, SessionEnds};
use prust::explore::{explore, Outcome, Roles};
use prust::session::{BlockingEndpoint, Session, SplitSession};
use prust::spec::{close, msg, par, seq, Spec};
use prust::{Liberal, Protocol, Strict};

/// A request: double `0`.
#[derive(Clone, Debug, PartialEq)]
pub struct Req(pub u64);
/// An answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Resp(pub u64);
/// Stop serving.
#[derive(Clone, Debug, PartialEq)]
pub struct Shutdown;

/// What the client asks.
pub const REQUESTS: [u64; 2] = [1, 2];

/// The client's loop, ended by its close, side by side with the shutdown.
pub fn spec() -> Spec {
    Spec::new(
        "server",
        par([
            seq([
                seq([
                    msg("Req", "client", "server"),
                    msg("Resp", "server", "client"),
                ])
                .star(),
                close("client", "server"),
            ]),
            msg("Shutdown", "admin", "server"),
        ]),
    )
}

/// The client: asks, waits for each answer, and closes (its sender's drop)
/// when done. The answers, or why one did not come.
pub fn client<E: BlockingEndpoint + 'static>(
    ends: Ends<E>,
    requests: &[u64],
) -> Result<Vec<u64>, RecvError> {
    let ask = ends.sender::<Req>("server").unwrap();
    let answers = ends.receiver::<Resp>("server").unwrap();
    let mut got = Vec::new();
    for &n in requests {
        ask.send(Req(n)).unwrap();
        got.push(answers.recv()?.0);
    }
    Ok(got)
}

/// The admin: shuts the server down.
pub fn admin<E: BlockingEndpoint + 'static>(ends: Ends<E>) {
    ends.sender::<Shutdown>("server")
        .unwrap()
        .send(Shutdown)
        .unwrap();
}

/// The server: answers requests until the shutdown, then (unless
/// `planted_bug`) the requests still coming, until the client closes.
/// How many it answered.
pub fn server<E: BlockingEndpoint + 'static>(ends: Ends<E>, planted_bug: bool) -> usize {
    let requests = ends.receiver::<Req>("client").unwrap();
    let answers = ends.sender::<Resp>("client").unwrap();
    let shutdown = ends.receiver::<Shutdown>("admin").unwrap();
    let mut served = 0;
    loop {
        prust::select! {
            recv(requests) -> req => {
                let Req(n) = req.unwrap();
                answers.send(Resp(2 * n)).unwrap();
                served += 1;
            }
            recv(shutdown) -> s => {
                s.unwrap();
                if !planted_bug {
                    // Graceful: the client's loop may not be over yet.
                    for Req(n) in requests.iter() {
                        answers.send(Resp(2 * n)).unwrap();
                        served += 1;
                    }
                }
                return served;
            }
        }
    }
}

/// The server on real threads: the client's answers and how many the
/// server gave.
pub fn run<E: BlockingEndpoint + Send + 'static>(
    ends: Vec<Ends<E>>,
    planted_bug: bool,
) -> (Result<Vec<u64>, RecvError>, usize) {
    let [c, s, a]: [Ends<E>; 3] = ends.try_into().expect("three roles");
    let server = std::thread::spawn(move || server(s, planted_bug));
    let admin = std::thread::spawn(move || admin(a));
    let answers = client(c, &REQUESTS);
    admin.join().unwrap();
    (answers, server.join().unwrap())
}

/// The program as `prust::explore` runs it (the client checking its
/// answers): the same role functions.
pub fn serve<P: Protocol>(planted_bug: bool) -> impl Fn(&mut Roles<'_, P>) + Sync {
    move |r: &mut Roles<'_, P>| {
        r.spawn("client", |ep| {
            assert_eq!(client(Ends::new(ep), &REQUESTS), Ok(vec![2, 4]));
        });
        r.spawn("server", move |ep| server(Ends::new(ep), planted_bug));
        r.spawn("admin", |ep| admin(Ends::new(ep)));
    }
}

fn main() -> std::process::ExitCode {
    let spec = spec();
    let (strict, liberal) = (
        Strict::from_spec(&spec).unwrap(),
        Liberal::from_spec(&spec).unwrap(),
    );
    let (answers, served) = run(Session::new(strict.clone()).into_ends(), false);
    println!("strict session:  answers {answers:?}, {served} served");
    let (answers, served) = run(SplitSession::new(liberal).into_ends(), false);
    println!("liberal session: answers {answers:?}, {served} served");

    let bug = explore(strict.clone(), serve(true));
    println!("\nthe server that stops at the shutdown at once:\n{bug}");
    let fixed = explore(strict, serve(false));
    println!("\nthe server that shuts down gracefully:\n{fixed}");
    let found = bug
        .failures()
        .iter()
        .any(|f| matches!(f.outcome, Outcome::Deadlock { .. }));
    if found && fixed.is_successful() {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    }
}
