//! The Rust book's worker pool (chapter 20) written against `prust`: a
//! master fans jobs out to workers and collects their results; a worker
//! ends when its job channel closes.
//!
//! ```text
//! cargo run --example worker_pool
//! ```
//!
//! It runs the pool for real on a strict and on a liberal session, then
//! lets `prust::explore` run every schedule of the master with the planted
//! bug (it files results in the order they arrive) and of the fixed
//! master (it files each result under its job's id).
//!
//! # What changes from the book, and why
//!
//! The book's workers share one job queue (`Arc<Mutex<mpsc::Receiver>>`):
//! whichever worker locks it first takes the next job. A session has no
//! queue that several roles take from: every channel goes from one role to
//! one role, so that the protocol can say who receives what. The pool is
//! written as the specification says it:
//!
//! - each worker has its own loop of a job and its result, the loops
//!   interleaved (`par_every` over the workers), and the master then
//!   closes the worker's job channel;
//! - so the master knows which worker is ready: the one whose result came
//!   in. It gives the first jobs one to each worker, then waits for the
//!   first result of any worker (`select!`) and gives *that* worker the
//!   next job.
//!
//! An `alt_every` over the workers inside the loop (`(alt_every i: Job to
//! worker i; Done from worker i)*`) would say "the next job goes to one
//! of the workers" too, but each branch must end before the next job is
//! handed out: the workers would take turns instead of working side by
//! side. A dispatcher role that owns the queue is the other way to write
//! it; it is the master's job here.
//!
//! The worker itself is the book's: `for job in jobs.iter()` ends when the
//! master drops its job sender, which closes the channel (std's
//! disconnect).

use prust::channel::{Ends, SessionEnds};
use prust::explore::{explore, Outcome, Roles};
use prust::session::{BlockingEndpoint, Session, SplitSession};
use prust::spec::{close, msg, par_every, seq, Role, Spec};
use prust::{Liberal, Protocol, Strict};

/// The workers of the pool.
pub const WORKERS: usize = 2;

/// The numbers whose squares the pool computes.
pub const NUMBERS: [u64; 3] = [1, 2, 3];

/// A job: square `n`; `id` is its place in the list.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    /// The job's place in the list.
    pub id: usize,
    /// The number to square.
    pub n: u64,
}

/// A result, with the id of its job.
#[derive(Clone, Debug, PartialEq)]
pub struct Done {
    /// The job's place in the list.
    pub id: usize,
    /// The job's result.
    pub square: u64,
}

/// Worker `i`'s role name (`worker_0_`, as `Role::indexed` names it).
pub fn worker_name(i: usize) -> String {
    Role::indexed("worker", i).name().to_string()
}

/// Each worker's loop of a job and its result, side by side, each ended
/// by the master's close.
pub fn spec() -> Spec {
    Spec::new(
        "pool",
        par_every(0..WORKERS, |i| {
            let w = Role::indexed("worker", i);
            seq([
                seq([
                    msg("Job", "master", w.clone()),
                    msg("Done", w.clone(), "master"),
                ])
                .star(),
                close("master", w),
            ])
        }),
    )
}

/// A worker, as in the book: takes jobs until the master closes its job
/// channel; returns how many it did.
pub fn worker<E: BlockingEndpoint + 'static>(ends: Ends<E>) -> usize {
    let jobs = ends.receiver::<Job>("master").unwrap();
    let results = ends.sender::<Done>("master").unwrap();
    let mut done = 0;
    for Job { id, n } in jobs.iter() {
        results.send(Done { id, square: n * n }).unwrap();
        done += 1;
    }
    done
}

/// The master: hands out the jobs, each to a worker that is ready, and
/// returns the results in job order. With `planted_bug`, it files each
/// result in the order results arrive, which is job order only when the
/// workers answer in the order they were given their jobs.
pub fn master<E: BlockingEndpoint + 'static>(
    ends: Ends<E>,
    numbers: &[u64],
    planted_bug: bool,
) -> Vec<u64> {
    let (w0, w1) = (worker_name(0), worker_name(1));
    let jobs = [
        ends.sender::<Job>(&w0).unwrap(),
        ends.sender::<Job>(&w1).unwrap(),
    ];
    let results = [
        ends.receiver::<Done>(&w0).unwrap(),
        ends.receiver::<Done>(&w1).unwrap(),
    ];
    let mut next = numbers.iter().copied().enumerate();
    let mut out = vec![0; numbers.len()];
    let mut busy = 0;
    for tx in &jobs {
        if let Some((id, n)) = next.next() {
            tx.send(Job { id, n }).unwrap();
            busy += 1;
        }
    }
    let mut arrived = 0;
    while busy > 0 {
        // Whichever worker answers first is ready for the next job.
        let (w, done) = prust::select! {
            recv(results[0]) -> d => (0, d.unwrap()),
            recv(results[1]) -> d => (1, d.unwrap()),
        };
        busy -= 1;
        if planted_bug {
            out[arrived] = done.square;
        } else {
            out[done.id] = done.square;
        }
        arrived += 1;
        if let Some((id, n)) = next.next() {
            jobs[w].send(Job { id, n }).unwrap();
            busy += 1;
        }
    }
    // The last senders: dropping them closes the job channels, and the
    // workers' loops end (the book's `drop(self.sender.take())`).
    drop(jobs);
    out
}

/// The squares of `numbers`, in order: what the pool must give.
pub fn expected(numbers: &[u64]) -> Vec<u64> {
    numbers.iter().map(|n| n * n).collect()
}

/// The pool on real threads, one per role; the master's results and each
/// worker's job count.
pub fn run<E: BlockingEndpoint + Send + 'static>(mut ends: Vec<Ends<E>>) -> (Vec<u64>, Vec<usize>) {
    let master_ends = ends.remove(0); // role 0: the master speaks first in the spec
    assert_eq!(master_ends.name(), "master");
    let workers: Vec<_> = ends
        .into_iter()
        .map(|w| std::thread::spawn(move || worker(w)))
        .collect();
    let results = master(master_ends, &NUMBERS, false);
    (
        results,
        workers.into_iter().map(|w| w.join().unwrap()).collect(),
    )
}

/// The pool as `prust::explore` runs it (the master checking its
/// results): the same role functions.
pub fn pool<P: Protocol>(planted_bug: bool) -> impl Fn(&mut Roles<'_, P>) + Sync {
    move |r: &mut Roles<'_, P>| {
        r.spawn("master", move |ep| {
            assert_eq!(
                master(Ends::new(ep), &NUMBERS, planted_bug),
                expected(&NUMBERS)
            );
        });
        for i in 0..WORKERS {
            r.spawn(&worker_name(i), |ep| {
                worker(Ends::new(ep));
            });
        }
    }
}

fn main() -> std::process::ExitCode {
    let spec = spec();
    let (strict, liberal) = (
        Strict::from_spec(&spec).unwrap(),
        Liberal::from_spec(&spec).unwrap(),
    );
    let (results, counts) = run(Session::new(strict.clone()).into_ends());
    println!("strict session:  squares {results:?}, jobs per worker {counts:?}");
    let session = SplitSession::new(liberal);
    let ends = std::iter::once("master".to_string())
        .chain((0..WORKERS).map(worker_name))
        .map(|role| session.ends(&*role).unwrap())
        .collect();
    let (results, counts) = run(ends);
    println!("liberal session: squares {results:?}, jobs per worker {counts:?}");

    let bug = explore(strict.clone(), pool(true));
    println!("\nthe master that files results as they arrive:\n{bug}");
    let fixed = explore(strict, pool(false));
    println!("\nthe master that files results by job id:\n{fixed}");
    let found = bug
        .failures()
        .iter()
        .any(|f| matches!(f.outcome, Outcome::Panicked { .. }));
    if found && fixed.is_successful() {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    }
}
