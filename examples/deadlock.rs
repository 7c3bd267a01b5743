//! A buggy load balancer whose threads would hang forever, and the error
//! that the blocking API gives them instead.
//!
//! ```text
//! cargo run --example deadlock              # strict object, locked session
//! cargo run --example deadlock -- --liberal # liberal object, split session
//! ```
//!
//! The protocol (bundled `load-balancer`): the client sends a `Request` to
//! the balancer, the balancer forwards it to `server1` or `server2`, and
//! that server sends the `Response` to the client. Two bugs, both common:
//!
//! - the client waits for the response from `server2`, but the balancer
//!   forwarded the request to `server1`;
//! - the servers loop waiting for the next request, which never comes.
//!
//! With plain channels this program hangs in `join`. Here, once every
//! thread that is still running waits on its endpoint, every one of them
//! gets `Err(Deadlock)` naming who waits for what, and the program ends.
//!
//! Exit status: 0 when the deadlock is reported (what this example is
//! about), 1 if it is not (which would be a bug in prust).

use std::process::ExitCode;

use prust::protocols;
use prust::session::{BlockingEndpoint, Error, Session, SplitSession};

#[derive(Clone, Debug)]
struct Request(u32);
#[derive(Clone, Debug)]
struct Response(u32);

fn client(mut ep: impl BlockingEndpoint) -> Result<(), Error> {
    ep.send("balancer", Request(7))?;
    // BUG: the answer comes from whichever server the balancer chose.
    let Response(r) = ep.recv_from("server2")?.downcast().expect("a response");
    println!("client: got {r}");
    Ok(())
}

fn balancer(mut ep: impl BlockingEndpoint) -> Result<(), Error> {
    let Request(x) = ep.recv_from("client")?.downcast().expect("a request");
    println!("balancer: forwarding request {x} to server1");
    ep.send("server1", Request(x))
}

fn server(mut ep: impl BlockingEndpoint, name: &str) -> Result<(), Error> {
    // BUG: a server loop that never learns that no more requests will come.
    loop {
        let Request(x) = ep.recv_from("balancer")?.downcast().expect("a request");
        println!("{name}: answering request {x}");
        ep.send("client", Response(x * x))?;
    }
}

fn run<C, B, S1, S2>(c: C, b: B, s1: S1, s2: S2) -> Vec<(&'static str, Result<(), Error>)>
where
    C: BlockingEndpoint,
    B: BlockingEndpoint,
    S1: BlockingEndpoint,
    S2: BlockingEndpoint,
{
    std::thread::scope(|s| {
        let handles = [
            ("client", s.spawn(move || client(c))),
            ("balancer", s.spawn(move || balancer(b))),
            ("server1", s.spawn(move || server(s1, "server1"))),
            ("server2", s.spawn(move || server(s2, "server2"))),
        ];
        handles
            .into_iter()
            .map(|(n, h)| (n, h.join().expect("no panic")))
            .collect()
    })
}

fn main() -> ExitCode {
    let results = if std::env::args().any(|a| a == "--liberal") {
        println!("load balancer on the liberal object (split session)");
        let [c, b, s1, s2] = SplitSession::new(protocols::load_balancer::spec().liberal().unwrap())
            .into_endpoints()
            .try_into()
            .expect("four roles");
        run(c, b, s1, s2)
    } else {
        println!("load balancer on the strict object (locked session)");
        let [c, b, s1, s2] = Session::new(protocols::load_balancer::strict())
            .into_endpoints()
            .try_into()
            .expect("four roles");
        run(c, b, s1, s2)
    };
    let mut report = None;
    for (name, result) in results {
        match result {
            Ok(()) => println!("{name}: finished"),
            Err(Error::Deadlock(d)) => {
                println!("{name}: stopped by the deadlock");
                report = Some(d);
            }
            Err(e) => println!("{name}: {e}"),
        }
    }
    match report {
        Some(d) => {
            println!("\n{d}");
            ExitCode::SUCCESS
        }
        None => {
            eprintln!("error: the deadlock was not reported");
            ExitCode::FAILURE
        }
    }
}
