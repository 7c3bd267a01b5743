//! Connecting the processes, then handing the connections to timely.
//!
//! Timely's own set-up retries for ever and prints its progress on
//! stdout (where a check's verdicts and JSON records go). This one is
//! timely's handshake (each process connects to those numbered below it
//! and sends its number, and accepts those numbered above it), silent,
//! and bounded: a process that does not show up within the connection
//! timeout is an error that names it.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::thread::sleep;
use std::time::{Duration, Instant};

use timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets;
use timely::communication::allocator::ProcessBuilder;
use timely::communication::{AllocatorBuilder, Hooks};

use crate::Error;

/// How long a process waits for the others to start and connect.
pub(crate) const CONNECT_TIMEOUT: Duration = Duration::from_secs(60);

/// Between two attempts to connect to a process not yet listening.
const RETRY: Duration = Duration::from_millis(50);

/// The allocators of this process's `threads` workers, connected to every
/// other process of `addresses`, and what keeps the connections' threads.
pub(crate) fn allocators(
    addresses: &[String],
    me: usize,
    threads: usize,
    timeout: Duration,
) -> Result<(Vec<AllocatorBuilder>, Box<dyn std::any::Any + Send>), Error> {
    let sockets = sockets(addresses, me, timeout)?;
    let hooks = Hooks::default();
    let process = ProcessBuilder::new_typed_vector(threads, hooks.refill.clone(), None);
    let (builders, guard) =
        initialize_networking_from_sockets(process, sockets, me, threads, hooks)
            .map_err(|e| Error::Cluster(format!("cannot start the connections' threads: {e}")))?;
    Ok((
        builders.into_iter().map(AllocatorBuilder::Tcp).collect(),
        Box::new(guard),
    ))
}

/// A connection to every process but `me`, by number (`None` at `me`).
fn sockets(
    addresses: &[String],
    me: usize,
    timeout: Duration,
) -> Result<Vec<Option<TcpStream>>, Error> {
    let deadline = Instant::now() + timeout;
    let listener = TcpListener::bind(&addresses[me]).map_err(|e| {
        Error::Cluster(format!(
            "process {me} cannot listen on {}: {e}",
            addresses[me]
        ))
    })?;
    listener
        .set_nonblocking(true)
        .map_err(|e| Error::Cluster(format!("cannot poll the listener: {e}")))?;
    let mut out: Vec<Option<TcpStream>> = (0..addresses.len()).map(|_| None).collect();
    for (index, address) in addresses.iter().enumerate().take(me) {
        let mut stream = loop {
            match TcpStream::connect(address) {
                Ok(s) => break s,
                Err(e) if Instant::now() >= deadline => {
                    return Err(not_there(index, address, timeout, &e.to_string()))
                }
                Err(_) => sleep(RETRY),
            }
        };
        let said = stream
            .set_nodelay(true)
            .and_then(|()| stream.write_all(&(me as u64).to_be_bytes()));
        said.map_err(|e| not_there(index, address, timeout, &e.to_string()))?;
        out[index] = Some(stream);
    }
    while out.iter().skip(me + 1).any(Option::is_none) {
        match listener.accept() {
            Ok((mut stream, _)) => {
                let mut number = [0u8; 8];
                // A connection that never says its number (not one of
                // ours) must not hold the set-up past its deadline.
                let left = deadline
                    .saturating_duration_since(Instant::now())
                    .max(Duration::from_millis(100));
                let read = stream
                    .set_nonblocking(false)
                    .and_then(|()| stream.set_read_timeout(Some(left)))
                    .and_then(|()| stream.set_nodelay(true))
                    .and_then(|()| stream.read_exact(&mut number));
                let index = u64::from_be_bytes(number) as usize;
                match read {
                    Ok(()) if index > me && index < out.len() && out[index].is_none() => {
                        stream.set_read_timeout(None).map_err(|e| {
                            Error::Cluster(format!("configuring a connection: {e}"))
                        })?;
                        out[index] = Some(stream);
                    }
                    // Not one of ours (a port scan, a process of another
                    // run): dropped.
                    _ => {}
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if Instant::now() >= deadline {
                    let missing = (me + 1..out.len())
                        .find(|&i| out[i].is_none())
                        .unwrap_or(me);
                    return Err(not_there(
                        missing,
                        &addresses[missing],
                        timeout,
                        "it never connected",
                    ));
                }
                sleep(RETRY);
            }
            Err(e) => return Err(Error::Cluster(format!("accepting a connection: {e}"))),
        }
    }
    Ok(out)
}

fn not_there(index: usize, address: &str, timeout: Duration, why: &str) -> Error {
    Error::Cluster(format!(
        "process {index} ({address}) did not join within {} s ({why}): start every process \
         of the run, with the same -n and host list",
        timeout.as_secs()
    ))
}
