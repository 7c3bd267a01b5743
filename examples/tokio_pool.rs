//! A worker pool as tokio tasks, over `prust::channel`: a master hands
//! out jobs to two workers and collects their answers; the workers end
//! when their job channel closes. The same `async fn`s run for real on a
//! tokio runtime (strict and liberal sessions) and under
//! `prust::explore`, whose own executor runs them
//! (`Roles::spawn_async`, no tokio) and tries every order of the answers.
//!
//! ```text
//! cargo run --example tokio_pool              # real runs, then exploration
//! cargo test --example tokio_pool             # the same, as tests
//! ```
//!
//! **The pool's shape.** A Rust-book pool shares one job queue among the
//! workers (`Arc<Mutex<Receiver>>`); a session has point-to-point
//! channels, so here the master owns one job channel per worker and the
//! assignment is fixed: job `n` goes to worker `n % 2`, the next one as
//! soon as that worker answered (a worker has at most one job at a
//! time). The master awaits both workers' answers at once
//! (`tokio::select!`), so it serves whichever answers first. The
//! protocol, for each worker `w`: `(Job master→w; Answer w→master)*`,
//! then `master` closes its channel to `w`.
//!
//! **The planted bug.** The buggy master collects the answers in the
//! order they arrive and expects them in job order: right whenever worker
//! 1 happens to answer first, wrong when worker 2 does. On tokio that
//! depends on the machine's timing; `explore` finds the order that breaks
//! it, prints the schedule, and a replay reproduces it. The fix stores
//! each answer at its job's place.

use prust::channel::{Ends, RecvError};
use prust::session::BlockingEndpoint;
use prust::spec::{close, msg, par, seq, Spec};

/// A job: its number.
#[derive(Clone, Debug, PartialEq)]
pub struct Job(pub u32);

/// A worker's answer: the job's number and its result.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer(pub u32, pub u32);

/// How many jobs the master hands out.
pub const JOBS: u32 = 4;

/// The workers' role names.
pub const WORKERS: [&str; 2] = ["w1", "w2"];

/// The protocol: per worker, jobs and answers in turn, then a close.
pub fn spec() -> Spec {
    let per_worker = |w: &str| {
        seq([
            seq([msg("Job", "master", w), msg("Answer", w, "master")]).star(),
            close("master", w),
        ])
    };
    Spec::new("pool", par(WORKERS.map(per_worker)))
}

/// The work of one job.
fn work(n: u32) -> u32 {
    n * n
}

/// A worker: answers each job until the master closes its channel;
/// returns how many jobs it did.
pub async fn worker<E: BlockingEndpoint + 'static>(ends: Ends<E>) -> u32 {
    let jobs = ends
        .receiver::<Job>("master")
        .expect("the master sends jobs");
    let answers = ends.sender::<Answer>("master").expect("workers answer");
    let mut done = 0;
    loop {
        match jobs.recv_async().await {
            Ok(Job(n)) => {
                answers
                    .send_async(Answer(n, work(n)))
                    .await
                    .expect("the master waits");
                done += 1;
            }
            Err(RecvError::Closed) => return done,
            Err(e) => panic!("worker: {e}"),
        }
    }
}

/// The master: hands out [`JOBS`] jobs (job `n` to worker `n % 2`, the
/// next as soon as that worker answered), closes the job channels, and
/// returns the results in job order. `buggy`: collects them in arrival
/// order instead.
pub async fn master<E: BlockingEndpoint + 'static>(ends: Ends<E>, buggy: bool) -> Vec<u32> {
    let jobs = WORKERS.map(|w| Some(ends.sender::<Job>(w).expect("the master sends jobs")));
    let answers = WORKERS.map(|w| ends.receiver::<Answer>(w).expect("workers answer"));
    let mut next = [0, 1];
    for (w, tx) in jobs.iter().enumerate() {
        if let Some(tx) = tx {
            tx.send_async(Job(next[w])).await.expect("worker waits");
        }
        next[w] += 2;
    }
    let mut jobs = jobs;
    let mut results = vec![0; JOBS as usize];
    let mut arrived = Vec::new();
    for _ in 0..JOBS {
        // Whichever worker answers first.
        let (w, Answer(n, value)) = tokio::select! {
            a = answers[0].recv_async() => (0, a.expect("w1 answers")),
            a = answers[1].recv_async() => (1, a.expect("w2 answers")),
        };
        results[n as usize] = value;
        arrived.push(value);
        if next[w] < JOBS {
            let tx = jobs[w].as_ref().expect("open until its last job");
            tx.send_async(Job(next[w])).await.expect("worker waits");
            next[w] += 2;
        } else {
            // Its last job answered: dropping the sender closes the channel.
            jobs[w] = None;
        }
    }
    if buggy {
        // BUG: arrival order is not job order.
        arrived
    } else {
        results
    }
}

/// The results the master must return.
pub fn expected() -> Vec<u32> {
    (0..JOBS).map(work).collect()
}

/// Runs the pool for real on tokio, on `endpoints` (in role order of
/// `names`): the master's results and each worker's job count.
pub fn run_on_tokio<E: BlockingEndpoint + 'static>(
    endpoints: Vec<E>,
    buggy: bool,
) -> (Vec<u32>, Vec<u32>) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .expect("a tokio runtime");
    let mut master_ends = None;
    let mut workers = Vec::new();
    for ep in endpoints {
        let name = ep.roles()[ep.role()].clone();
        let ends = Ends::new(ep);
        match name.as_str() {
            "master" => master_ends = Some(ends),
            _ => workers.push(rt.spawn(worker(ends))),
        }
    }
    let master = rt.spawn(master(master_ends.expect("a master"), buggy));
    rt.block_on(async {
        let results = master.await.expect("the master returns");
        let mut done = Vec::new();
        for w in workers {
            done.push(w.await.expect("a worker returns"));
        }
        (results, done)
    })
}

/// The pool under exploration: every role an async task on the
/// explorer's executor; the result is the master's.
pub fn program(
    buggy: bool,
) -> impl Fn(&mut prust::explore::Roles<'_, prust::Strict>) -> prust::explore::Handle<Vec<u32>> + Sync
{
    move |r| {
        for w in WORKERS {
            r.spawn_async(w, |ep| worker(Ends::new(ep)));
        }
        r.spawn_async("master", move |ep| master(Ends::new(ep), buggy))
    }
}

fn strict() -> prust::Strict {
    prust::Strict::new(spec().compile().expect("the pool's spec compiles"))
}

fn main() {
    let (results, done) = run_on_tokio(
        prust::session::Session::new(strict()).into_endpoints(),
        false,
    );
    println!("tokio, strict session: results {results:?}, jobs per worker {done:?}");
    let liberal = prust::Liberal::new(spec().compile().expect("compiles"));
    let (results, done) = run_on_tokio(
        prust::session::SplitSession::new(liberal).into_endpoints(),
        false,
    );
    println!("tokio, liberal session: results {results:?}, jobs per worker {done:?}");
    let buggy = prust::explore::explore(strict(), program(true));
    println!("explored, buggy master:\n{buggy}");
    let fixed = prust::explore::explore(strict(), program(false));
    println!("explored, fixed master:\n{fixed}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use prust::explore::{explore, Explorer, Outcome};

    #[test]
    fn the_pool_runs_for_real_on_tokio_on_both_sessions() {
        let strict_eps = prust::session::Session::new(strict()).into_endpoints();
        assert_eq!(run_on_tokio(strict_eps, false), (expected(), vec![2, 2]));
        let liberal = prust::Liberal::new(spec().compile().unwrap());
        let split_eps = prust::session::SplitSession::new(liberal).into_endpoints();
        assert_eq!(run_on_tokio(split_eps, false), (expected(), vec![2, 2]));
    }

    #[test]
    fn explore_finds_the_arrival_order_bug_and_replays_it() {
        let ex = explore(strict(), program(true));
        assert!(ex.is_complete(), "{ex}");
        // The result depends on the schedule: some orders give job order,
        // others not.
        assert!(ex.not_always_same().holds(), "{ex}");
        let wrong = ex
            .results()
            .iter()
            .find(|r| r.value != expected())
            .expect("a wrong result");
        println!("{}", wrong.schedule);
        let again = Explorer::new()
            .replay(&wrong.schedule)
            .explore(strict(), program(true));
        assert_eq!(again.executions(), 1);
        assert_eq!(again.results()[0].value, wrong.value, "{again}");
        assert!(!ex.gives(&[expected()]).holds(), "{ex}");
        assert!(ex
            .failures()
            .iter()
            .all(|f| !matches!(f.outcome, Outcome::Deadlock { .. })));
    }

    #[test]
    fn explore_passes_the_fixed_pool_complete() {
        let ex = explore(strict(), program(false));
        assert!(ex.is_complete() && ex.is_successful(), "{ex}");
        assert!(ex.gives(&[expected()]).holds(), "{ex}");
        // Both workers answer first in some schedule: the select was explored.
        assert!(ex.executions() > 1, "{ex}");
    }
}
