//! The running budget of a search: memory and time limits that hold even
//! on objects whose states are big or slow, and a progress line that shows
//! while `cargo test` captures the output.

use std::process::Command;
use std::time::Duration;

use engine::{dummies, Checker, Limit, Message, Protocol, Refused, RoleId, Verdict};

#[derive(Clone, Debug)]
struct Tick;

/// `clock` sends ticks to `watch` forever; every tick is logged in the
/// object, so each state is bigger than the one before and the states
/// stored grow quadratically: an object that no state limit keeps small.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Growing {
    log: Vec<u64>,
    pending: bool,
    /// Extra cost per operation, to make a slow object.
    sleep_us: u64,
}

impl Growing {
    fn new(sleep_us: u64) -> Growing {
        Growing {
            log: Vec::new(),
            pending: false,
            sleep_us,
        }
    }

    fn work(&self) {
        if self.sleep_us > 0 {
            std::thread::sleep(Duration::from_micros(self.sleep_us));
        }
    }
}

/// Words appended per tick: 64 bytes, so 64 MiB is passed after ~1,500
/// states and 4,000 states would hold ~0.5 GB.
const GROWTH: u64 = 8;

impl Protocol for Growing {
    fn roles(&self) -> Vec<String> {
        vec!["clock".into(), "watch".into()]
    }
    fn try_send(&mut self, role: RoleId, _: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        self.work();
        if role == 0 && !self.pending {
            self.pending = true;
            let n = self.log.len() as u64;
            self.log.extend(n..n + GROWTH);
            Ok(())
        } else {
            Err(Refused(msg))
        }
    }
    fn try_recv(&mut self, role: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> {
        self.work();
        if role == 1 && self.pending {
            self.pending = false;
            Ok((0, Message::new(Tick)))
        } else {
            Err(Refused(()))
        }
    }
}

#[test]
#[cfg(target_os = "linux")]
fn a_growing_object_ends_inconclusive_at_the_memory_limit() {
    const LIMIT: u64 = 64 << 20;
    // The state limit is only a backstop: without the memory limit the
    // search would stop there, at ~0.5 GB, with another verdict.
    for formula in [r#"G !"DEADLOCK""#, r#"G F "watch RECV *""#] {
        let r = Checker::new()
            .max_memory(LIMIT)
            .max_states(4000)
            .determinism_check(false)
            .check(formula, Growing::new(0), dummies![Tick])
            .unwrap();
        match r.verdict {
            Verdict::Inconclusive {
                limit: Limit::Memory(LIMIT),
                explored,
            } => assert!(explored < 4000, "{r}"),
            ref v => panic!("{formula}: {v:?}\n{r}"),
        }
        let text = r.to_string();
        assert!(text.contains("the memory limit (64 MiB"), "{text}");
        assert!(text.contains("PRUST_MAX_MEMORY"), "{text}");
    }
}

#[test]
fn the_timeout_holds_on_a_slow_object() {
    // Each probe sleeps 200 µs and the determinism check doubles the
    // probes: a few ms per state. The clock used to be read every 1,024
    // states, so the search overshot a 0.1 s timeout by seconds; now it
    // stops within a few states of it. Counting states, not time, keeps
    // this independent of the machine's load.
    let r = Checker::new()
        .timeout(Duration::from_millis(100))
        .max_states(u64::MAX)
        .determinism_check(true)
        .check(r#"G !"DEADLOCK""#, Growing::new(200), dummies![Tick])
        .unwrap();
    match r.verdict {
        Verdict::Inconclusive {
            limit: Limit::Time(_),
            explored,
        } => assert!(explored < 1000, "{explored} states after the timeout\n{r}"),
        ref v => panic!("{v:?}"),
    }
    assert!(r.stats.time < Duration::from_secs(5), "{r}");
    // The liveness search (depth-first) holds the same budget.
    let r = Checker::new()
        .timeout(Duration::from_millis(100))
        .max_states(u64::MAX)
        .determinism_check(true)
        .check(r#"G F "watch RECV *""#, Growing::new(200), dummies![Tick])
        .unwrap();
    match r.verdict {
        Verdict::Inconclusive {
            limit: Limit::Time(_),
            explored,
        } => assert!(explored < 1000, "{explored} states after the timeout\n{r}"),
        ref v => panic!("{v:?}"),
    }
}

#[test]
fn every_limit_says_how_to_raise_it() {
    for (limit, hint) in [
        (Limit::States(10), "PRUST_MAX_STATES"),
        (Limit::Depth(10), "PRUST_MAX_DEPTH"),
        (Limit::Time(Duration::from_secs(3)), "PRUST_TIMEOUT"),
        (Limit::Memory(1 << 30), "PRUST_MAX_MEMORY"),
    ] {
        let text = limit.to_string();
        assert!(text.contains(hint), "{text}");
        assert!(text.contains("raise it with"), "{text}");
    }
    assert!(Limit::Memory(1 << 30).to_string().contains("1024 MiB"));
    assert!(Limit::Memory(1 << 30).to_string().contains("grow forever"));
}

/// Run only as the child of `the_progress_line_shows_under_cargo_test`.
#[test]
#[ignore = "the child process of the_progress_line_shows_under_cargo_test"]
fn progress_child() {
    let r = Checker::new()
        .max_states(3000)
        .max_memory(u64::MAX)
        .determinism_check(false)
        .check(r#"G !"DEADLOCK""#, Growing::new(0), dummies![Tick])
        .unwrap();
    assert!(!r.holds());
}

#[test]
fn the_progress_line_shows_under_cargo_test() {
    // The child is this test binary running `progress_child` *with* the
    // harness capturing its output (no --nocapture): the line must still
    // reach the child's stderr.
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "budget::progress_child",
            "--test-threads=1",
        ])
        .env("PRUST_PROGRESS", "1")
        .env("PRUST_PROGRESS_AFTER_MS", "0")
        .env_remove("PRUST_TIMEOUT")
        .env_remove("PRUST_MAX_MEMORY")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("1 passed"), "{stdout}");
    let line = stderr
        .lines()
        .find(|l| l.starts_with("prust: "))
        .unwrap_or_else(|| panic!("no progress line in the child's stderr:\n{stderr}"));
    // States with their share of the state limit, the rate, and the time.
    assert!(line.contains("states ("), "{line}");
    assert!(line.contains("% of max)"), "{line}");
    assert!(line.contains("states/s"), "{line}");
    // Off: nothing.
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "budget::progress_child",
            "--test-threads=1",
        ])
        .env("PRUST_PROGRESS", "0")
        .env("PRUST_PROGRESS_AFTER_MS", "0")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("prust: "), "{stderr}");
}
