//! `prust serve`: the state space of a protocol, walked live in the
//! browser (the server is [`crate::serve`]).

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use engine::env::Reader;
use engine::hint::Audience;
use engine::Checker;

use crate::serve::walk::Walk;
use crate::serve::{App, Server};
use prust::Runtime;

use super::object::{object, read_env};
use super::out::Out;
use super::values;
use super::{CmdResult, Exit, Failure};

/// The long help of `prust serve`.
pub const LONG_ABOUT: &str = "Walk the state space of a protocol in the browser: a small local \
    web server over the real object. The page shows the object's state, the messages in \
    transit and each role's enabled actions; click one to take it, go back or jump to any \
    step of the path, and check a formula to open its counterexample in the same view. \
    The path is in the page's URL as a trail (the format `prust replay` reads): a \
    permalink, which `prust replay PROTOCOL URL` re-executes.\n\n\
    The server binds to 127.0.0.1 (only this machine can reach it) unless --bind says \
    otherwise, reads no file, and runs until it is stopped (Ctrl-C).";

/// The budget of a check the page runs when neither `--timeout` nor
/// `PRUST_TIMEOUT` gives one.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The arguments of `prust serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// A bundled protocol with an optional parameter (token-star:4, chess;
    /// see `prust list`), a path to an Aldebaran .aut file, or a Discourje
    /// specification FILE.dcj[:SESSION[:ARG,ARG]]
    #[arg(value_name = "PROTOCOL")]
    pub protocol: String,
    /// Formulas to offer on the page (each checks with one click)
    #[arg(value_name = "FORMULA")]
    pub formulas: Vec<String>,
    /// The port to listen on; 0 picks a free one (the URL printed says
    /// which)
    #[arg(long, default_value_t = 7878)]
    pub port: u16,
    /// The address to listen on. Any address but a loopback one lets
    /// other machines walk the protocol and run checks: give it only on
    /// purpose
    #[arg(long, value_name = "ADDR", default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    pub bind: IpAddr,
    /// The protocol object (as for `prust check`)
    #[arg(long, value_parser = values::runtime(), default_value_t = Runtime::Strict)]
    pub runtime: Runtime,
    /// Wall-clock budget of each check the page runs, in seconds; a check
    /// that runs out is inconclusive [default: PRUST_TIMEOUT, else 60]
    #[arg(long, value_name = "SECS", value_parser = super::check::parse_timeout)]
    pub timeout: Option<Duration>,
}

/// Runs `prust serve`: prints the URL, then serves until stopped.
pub fn run(args: &ServeArgs, out: &mut Out) -> CmdResult {
    let env = read_env(Reader::Check)?;
    // A check someone waits for in a browser: a minute unless told
    // otherwise, so that a click on a formula too hard to decide does not
    // keep a core busy until the server stops.
    let timeout = args
        .timeout
        .or(env.limits.timeout)
        .unwrap_or(DEFAULT_TIMEOUT);
    let checker = Checker::from_environment(&env, engine::DefaultBudgets::Machine)
        .audience(Audience::CommandLine)
        .timeout(timeout);
    let object =
        object(&args.protocol, args.runtime, &checker.limits()).map_err(|u| u.into_failure())?;
    let app = App::new(
        args.protocol.clone(),
        Walk::new(object),
        args.formulas.clone(),
        checker,
    );
    let addr = SocketAddr::new(args.bind, args.port);
    let server = Server::bind(addr, app).map_err(|e| {
        Failure::error(format!("cannot listen on {addr}: {e}"))
            .hint("another program may use the port: give another with --port, or --port 0")
    })?;
    let bound = server
        .local_addr()
        .map_err(|e| Failure::error(format!("cannot read the address listened on: {e}")))?;
    if !args.bind.is_loopback() {
        super::out::diagnostic(&format!(
            "warning: listening on {bound}: other machines can reach this server"
        ));
    }
    let shown = match bound.ip() {
        ip if ip.is_unspecified() => SocketAddr::new(Ipv4Addr::LOCALHOST.into(), bound.port()),
        _ => bound,
    };
    writeln!(
        out,
        "serving {} at http://{shown}/ (Ctrl-C stops)",
        args.protocol
    )?;
    out.flush()?;
    server.run();
    Ok(Exit::Ok)
}
