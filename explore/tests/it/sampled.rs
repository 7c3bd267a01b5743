//! Sampled searches (`Explorer::random`, `Explorer::pct`): they find a
//! rare schedule's bug, print the seed and a schedule that replays it,
//! and never pass for a proof.

use std::process::Command;

use prust::explore::{Explorer, Outcome, Reduction, Roles, Status};
use prust::session::BlockingEndpoint;
use prust::{Liberal, Message};
use testkit::fan_in;

/// The words a report of an exhaustive search uses for a proof.
fn claims_proof(text: &str) -> bool {
    text.contains("(complete)") || text.contains("correct in every schedule")
}

#[test]
fn pct_finds_the_one_in_90_receive_order_for_every_seed() {
    let mut found_at = Vec::new();
    for seed in 0..20 {
        let ex = Explorer::new()
            .pct(seed, 3, 200)
            .stop_on_failure(true)
            .explore(fan_in::object(), fan_in::program(true));
        assert_eq!(ex.failures().len(), 1, "seed {seed}: {ex}");
        assert!(
            matches!(&ex.failures()[0].outcome, Outcome::Panicked { role, .. } if role == "consumer"),
            "{ex}"
        );
        found_at.push(ex.executions());
    }
    found_at.sort_unstable();
    // Every seed within the bound; the median as the goal asks.
    assert!(found_at[10] <= 7, "{found_at:?}");
}

#[test]
fn a_failure_prints_its_seed_and_a_schedule_that_replays_it() {
    let run = |seed| {
        Explorer::new()
            .random(seed, 2_000)
            .stop_on_failure(true)
            .explore(fan_in::object(), fan_in::program(true))
    };
    let ex = run(11);
    assert_eq!(ex.seed(), Some(11));
    let failure = &ex.failures()[0];
    let text = ex.to_string();
    assert!(text.contains(", seed 11, in "), "{text}");
    assert!(text.contains("(in 1 execution, seed 11)"), "{text}");
    assert!(
        text.contains(&format!("PRUST_SCHEDULE=\"{}\"", failure.schedule)),
        "{text}"
    );
    assert!(text.contains("PRUST_SEED=11"), "{text}");
    assert!(!claims_proof(&text), "{text}");
    // The same seed runs the same search.
    let again = run(11);
    assert_eq!(again.executions(), ex.executions());
    assert_eq!(again.failures(), ex.failures());
    // The printed schedule replays the failure.
    let replayed = Explorer::new()
        .replay(&failure.schedule.to_string().parse().unwrap())
        .explore(fan_in::object(), fan_in::program(true));
    assert_eq!(replayed.failures(), ex.failures(), "{replayed}");
}

#[test]
fn a_correct_program_sampled_1000_times_is_no_proof() {
    for explorer in [
        Explorer::new().random(5, 1_000),
        Explorer::new().pct(5, 3, 1_000),
    ] {
        let ex = explorer.explore(fan_in::object(), fan_in::program(false));
        assert!(ex.failures().is_empty(), "{ex}");
        assert_eq!(ex.executions(), 1_000);
        assert!(
            ex.is_sampled() && !ex.is_complete() && !ex.is_successful(),
            "{ex}"
        );
        assert_eq!(ex.incomplete_reason(), Some("sampled, not exhaustive"));
        let text = ex.to_string();
        assert!(!claims_proof(&text), "{text}");
        assert!(
            text.contains("not a proof: sampled, not exhaustive (1000 ")
                && text.contains(" executions, seed 5: no failure found)"),
            "{text}"
        );
        // The results are the sample's (receive orders), and two that
        // differ refute `always_same`, sample or not.
        assert!(ex.results().len() > 1, "{}", ex.results().len());
        assert_eq!(ex.always_same().status, Status::Fails);
        // `somewhere` is proven by a witness, sample or not.
        assert!(ex.somewhere(|o| o[0] == "a").holds());
        // `always` cannot be proven by a sample: inconclusive.
        let always = ex.always(|o| o.len() == 6);
        assert!(always.is_inconclusive(), "{always}");
        let why = always.reason.as_deref().unwrap();
        assert!(
            why.starts_with("the search was sampled, not exhaustive ("),
            "{why}"
        );
        assert!(!always.to_string().contains("holds"), "{always}");
    }
}

/// Every role returns the same thing in every schedule.
fn same_result(r: &mut Roles<'_, Liberal>) -> prust::explore::Handle<usize> {
    for p in fan_in::PRODUCERS {
        r.spawn(p, move |mut ep| {
            for i in 0..2 {
                ep.send("consumer", Message::named("M", i)).unwrap();
            }
        });
    }
    r.spawn("consumer", |mut ep| {
        (0..6).map(|_| ep.recv().map(|_| 1).unwrap()).sum::<usize>()
    })
}

#[test]
fn a_predicate_over_every_schedule_is_inconclusive_on_a_sample() {
    let ex = Explorer::new()
        .random(1, 50)
        .explore(fan_in::object(), same_result);
    assert_eq!(ex.results().len(), 1);
    let v = ex.always_same();
    assert_eq!(v.status, Status::Inconclusive, "{v}");
    assert!(
        v.to_string()
            .contains("inconclusive (the search was sampled"),
        "{v}"
    );
    // Déjà Fu's autocheck over a sample passes nothing.
    let check = Explorer::new()
        .pct(1, 2, 50)
        .autocheck(fan_in::object(), same_result);
    assert!(!check.passed(), "{check}");
    let text = check.to_string();
    assert!(!text.contains("[pass]"), "{text}");
    assert!(
        text.contains("[inconclusive] Never Deadlocks (the search was sampled"),
        "{text}"
    );
}

#[test]
fn async_roles_are_sampled_as_threads_are() {
    let program = |r: &mut Roles<'_, Liberal>| {
        for p in fan_in::PRODUCERS {
            r.spawn_async(p, move |mut ep| async move {
                for i in 0..2 {
                    testkit::aio::send(&mut ep, "consumer", Message::named("M", i))
                        .await
                        .unwrap();
                }
            });
        }
        r.spawn_async("consumer", |mut ep| async move {
            let mut order = Vec::new();
            for _ in 0..6 {
                let (from, _) = testkit::aio::recv(&mut ep).await.unwrap();
                order.push(ep.roles()[from].clone());
            }
            assert_ne!(order, fan_in::BAD_ORDER);
        });
    };
    for explorer in [
        Explorer::new().pct(2, 3, 200),
        Explorer::new().random(2, 2_000),
    ] {
        let tasks = explorer
            .clone()
            .stop_on_failure(true)
            .explore(fan_in::object(), program);
        assert!(
            matches!(tasks.failures()[0].outcome, Outcome::Panicked { .. }),
            "{tasks}"
        );
        // The same seed, the same schedules as with threads.
        let threads = explorer
            .stop_on_failure(true)
            .explore(fan_in::object(), fan_in::program(true));
        assert_eq!(tasks.executions(), threads.executions());
        assert_eq!(tasks.failures()[0].schedule, threads.failures()[0].schedule);
    }
}

#[test]
fn a_sample_says_the_reduction_and_the_bound_do_not_apply() {
    let ex = Explorer::new()
        .reduction(Reduction::Dpor)
        .preemption_bound(Some(1))
        .random(4, 10)
        .explore(fan_in::object(), fan_in::program(false));
    assert_eq!(ex.reduction(), Reduction::None);
    let why = ex.reduction_off().unwrap();
    assert!(
        why.starts_with("dpor off, no preemption bound (1 asked): a sampled search"),
        "{why}"
    );
    assert_eq!(ex.skipped_by_bound(), 0);
    // Nothing to say when nothing was asked for.
    let plain = Explorer::new()
        .reduction(Reduction::None)
        .preemption_bound(None)
        .random(4, 10)
        .explore(fan_in::object(), fan_in::program(false));
    assert_eq!(plain.reduction_off(), None);
    // The same seed gives the same schedules with or without them.
    assert_eq!(plain.results(), ex.results());
}

#[derive(Clone, Debug)]
struct Move;

/// Black answers with one of two moves, and rejects `bad`.
fn game(bad: usize) -> impl Fn(&mut Roles<'_, prust::Strict>) + Sync {
    move |r| {
        r.spawn("white", |mut ep| {
            ep.send("black", Move).unwrap();
            ep.recv_from("black").unwrap();
        });
        r.spawn("black", move |mut ep| {
            ep.recv_from("white").unwrap();
            assert_ne!(prust::explore::choose(2), bad, "black rejects it");
            ep.send("white", Move).unwrap();
        });
    }
}

#[test]
fn an_exhaustive_search_stopped_at_its_first_failure_is_incomplete() {
    let explore = |bad| {
        Explorer::new()
            .stop_on_failure(true)
            .explore(prust::protocols::chess::strict(), game(bad))
    };
    // The first schedule fails, with one left.
    let first = explore(0);
    assert_eq!(
        (first.executions(), first.failures().len()),
        (1, 1),
        "{first}"
    );
    assert!(!first.is_complete() && !first.is_sampled(), "{first}");
    let why = first.incomplete_reason().unwrap();
    assert!(why.starts_with("stopped at the first failure"), "{why}");
    // The last schedule fails: nothing was left, the search is complete.
    let last = explore(1);
    assert_eq!(last.failures().len(), 1, "{last}");
    assert!(last.is_complete(), "{last}");
    assert_eq!(
        last.executions(),
        Explorer::new()
            .explore(prust::protocols::chess::strict(), game(1))
            .executions()
    );
}

const SEED_TEST: &str = "sampled::prust_seed_sets_the_seed_the_program_leaves_unset";

#[test]
fn prust_seed_sets_the_seed_the_program_leaves_unset() {
    let sample = |seed: Option<u64>| {
        Explorer::new()
            .random(seed, 30)
            .explore(fan_in::object(), fan_in::program(false))
    };
    if let Some(v) = std::env::var_os("PRUST_SEED") {
        // The child: the variable gives the seed, the program's own wins.
        let seed: u64 = v.to_str().unwrap().parse().unwrap();
        let ex = sample(None);
        assert_eq!(ex.seed(), Some(seed));
        assert_eq!(ex.results(), sample(Some(seed)).results());
        assert_eq!(sample(Some(seed + 1)).seed(), Some(seed + 1));
        return;
    }
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", SEED_TEST, "--nocapture", "--test-threads=1"])
        .env("PRUST_SEED", "424242")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "{stdout}"
    );
    // Unset: a fresh seed each run, printed.
    let (one, two) = (sample(None), sample(None));
    assert_ne!(one.seed(), two.seed());
    let seed = one.seed().unwrap();
    assert!(one.to_string().contains(&format!("seed {seed}")), "{one}");
}

const PROGRESS_TEST: &str = "sampled::prust_progress_prints_a_line_while_exploring";

#[test]
fn prust_progress_prints_a_line_while_exploring() {
    let explore = || {
        Explorer::new()
            .random(9, 40)
            .explore(fan_in::object(), fan_in::program(true))
    };
    if std::env::var_os("H76_PROGRESS_CHILD").is_some() {
        let ex = explore();
        assert!(!ex.failures().is_empty());
        let all = Explorer::new().explore(prust::protocols::chess::strict(), game(2));
        assert!(all.is_successful(), "{all}");
        return;
    }
    let child = |progress: Option<&str>| {
        let mut cmd = Command::new(std::env::current_exe().unwrap());
        cmd.args(["--exact", PROGRESS_TEST, "--test-threads=1"])
            .env("H76_PROGRESS_CHILD", "1")
            .env("PRUST_PROGRESS_AFTER_MS", "0")
            .env_remove("PRUST_PROGRESS");
        if let Some(v) = progress {
            cmd.env("PRUST_PROGRESS", v);
        }
        let started = std::time::Instant::now();
        let out = cmd.output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(
            out.status.success() && stdout.contains("1 passed"),
            "{stdout}\n{stderr}"
        );
        (stderr, started.elapsed())
    };
    let (stderr, took) = child(Some("1"));
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("prust explore: "))
        .collect();
    // The sample says how far it is; the exhaustive search how far it got.
    let sampled = lines
        .iter()
        .find(|l| l.contains(" of 40 executions"))
        .unwrap_or_else(|| panic!("no progress line of the sample:\n{stderr}"));
    let shape = |line: &str| {
        let words: Vec<&str> = line.split(", ").collect();
        words.len() == 4
            && words[0].ends_with(" executions")
            && (words[1].ends_with(" distinct failures") || words[1].ends_with(" distinct failure"))
            && words[2].ends_with(" executions/s")
            && words[3].ends_with(" s")
    };
    assert!(shape(sampled), "{sampled}");
    assert!(lines.iter().any(|l| !l.contains(" of ")), "{stderr}");
    // At most one a second after the first of each exploration.
    assert!(lines.len() as u64 <= 2 * (2 + took.as_secs()), "{stderr}");
    // Without the variable (or with it off), nothing.
    for off in [None, Some("0")] {
        let (stderr, _) = child(off);
        assert!(!stderr.contains("prust explore: "), "{stderr}");
    }
}

/// PCT takes any depth: `usize::MAX` ("as deep as it gets") is as many
/// change points as an execution has steps, the same search as any depth
/// beyond that. Its priorities were `depth + rank`, which overflowed: a
/// panic in a test build.
#[test]
fn pct_takes_the_largest_depth() {
    let run = |depth| {
        Explorer::new()
            .pct(5, depth, 30)
            .explore(fan_in::object(), fan_in::program(true))
    };
    let deepest = run(usize::MAX);
    let deep = run(1000);
    assert!(
        deepest.is_sampled() && !deepest.is_successful(),
        "{deepest}"
    );
    assert_eq!(deepest.failures(), deep.failures());
    assert_eq!(deepest.executions(), deep.executions());
}
