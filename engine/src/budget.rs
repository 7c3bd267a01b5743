//! The limits of one search, checked as it runs: time, memory and the
//! progress line. Both searches (the depth-first `run` and the breadth-first
//! `reachability`) call [`Budget::tick`] once per unit of work, so every
//! limit is enforced the same way in both.
//!
//! The clock is read by the [`Deadline`] every build and exploration uses
//! too (see [`clock`]), at most every [`CLOCK_EVERY`] ticks. Resident
//! memory is read from `/proc` at the clock's reads, at most every
//! [`MEMORY_EVERY`] of wall time *and* at least every [`MEMORY_TICKS`]
//! ticks: the time bound catches a few huge states (objects can grow), the
//! count bound catches many small ones. (A build bounds the estimated
//! bytes of its own tables instead, in the protocols crate: it knows what
//! it stores; a search stores the user's objects, whose size only the
//! process's resident memory tells.)

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use crate::limits::Limits;
use crate::machine::resident_bytes;
use crate::report::{Limit, Stats};
use crate::Semantics;

pub(crate) mod clock;

pub use clock::Deadline;

/// Most ticks between two reads of the clock.
const CLOCK_EVERY: u32 = 16;
/// Wall time between two reads of the resident memory.
const MEMORY_EVERY: Duration = Duration::from_millis(5);
/// Ticks after which the resident memory is read whatever the time.
const MEMORY_TICKS: u64 = 8192;

/// The [`Limits`] of one search with their defaults applied (once, when
/// its session starts: the memory default reads `/proc`), as plain numbers
/// for the hot loop, and the search's own options.
#[derive(Clone, Debug)]
pub(crate) struct Bounds {
    pub max_states: u64,
    pub max_depth: u64,
    pub timeout: Option<Duration>,
    /// Resident bytes of the whole process (`u64::MAX`: no limit).
    pub max_memory: u64,
    pub progress: Option<bool>,
    /// When the first progress line may show (later ones: every second).
    pub progress_after: Duration,
    pub semantics: Semantics,
}

/// The product states a search stores when no limit is given.
pub(crate) const SEARCH_MAX_STATES: u64 = 10_000_000;

impl Bounds {
    /// `limits` resolved for a search (see the [table](Limits)).
    pub fn resolve(
        limits: &Limits,
        progress: Option<bool>,
        progress_after: Duration,
        semantics: Semantics,
    ) -> Bounds {
        Bounds {
            max_states: limits.max_states.unwrap_or(SEARCH_MAX_STATES),
            max_depth: limits.max_depth.unwrap_or(u64::MAX),
            timeout: limits.time_budget(),
            max_memory: limits
                .max_memory
                .unwrap_or_else(|| limits.defaults.max_memory()),
            progress,
            progress_after,
            semantics,
        }
    }
}

/// The running budget of one search (see the module docs).
pub(crate) struct Budget<'a> {
    limits: &'a Bounds,
    started: Instant,
    clock: Deadline,
    ticks: u64,
    memory_at: Instant,
    memory_ticks: u64,
    /// Last resident size read, for the progress line.
    resident: Option<u64>,
    progress: Progress,
}

/// How the progress line is shown, decided once per search.
struct Progress {
    /// Show it at all.
    on: bool,
    /// Stderr is a terminal: overwrite one line with `\r`; otherwise each
    /// report is a line of its own (logs, CI, a test's captured child).
    terminal: bool,
    next: Instant,
    shown: bool,
}

impl<'a> Budget<'a> {
    /// A budget whose clock started at `started`: a check's time limit
    /// counts from the formula's text (its translation, the atoms, the
    /// reduction's analysis), not from the first state searched.
    pub fn since(limits: &'a Bounds, started: Instant) -> Budget<'a> {
        let terminal = std::io::stderr().is_terminal();
        Budget {
            limits,
            started,
            // A timeout too long to add to the clock is no timeout.
            clock: Deadline::new(
                limits.timeout.and_then(|t| started.checked_add(t)),
                started,
                CLOCK_EVERY,
            ),
            ticks: 0,
            // Read the memory on the first tick: a session may already
            // hold more than the limit from earlier formulas.
            memory_at: started.checked_sub(MEMORY_EVERY).unwrap_or(started),
            memory_ticks: 0,
            resident: None,
            progress: Progress {
                on: limits.progress.unwrap_or(terminal),
                terminal,
                next: started + limits.progress_after,
                shown: false,
            },
        }
    }

    /// One unit of work done; `Some(limit)` when the time or memory budget
    /// is used up and the search must stop (inconclusive). `depth` is only
    /// for the progress line.
    #[inline]
    pub fn tick(&mut self, stats: &Stats, depth: u64) -> Option<Limit> {
        self.ticks += 1;
        let now = self.clock.tick()?;
        self.check(now, stats, depth)
    }

    #[cold]
    fn check(&mut self, now: Instant, stats: &Stats, depth: u64) -> Option<Limit> {
        let elapsed = now.duration_since(self.started);
        if let (true, Some(limit)) = (self.clock.passed_at(now), self.limits.timeout) {
            return Some(Limit::Time(limit));
        }
        if self.limits.max_memory != u64::MAX
            && (now.duration_since(self.memory_at) >= MEMORY_EVERY
                || self.ticks - self.memory_ticks >= MEMORY_TICKS)
        {
            self.memory_at = now;
            self.memory_ticks = self.ticks;
            self.resident = resident_bytes();
            if self.resident.is_some_and(|r| r > self.limits.max_memory) {
                return Some(Limit::Memory(self.limits.max_memory));
            }
        }
        if self.progress.on && now >= self.progress.next {
            // At most one line a second after the first (a log of a long
            // search stays readable), however early the first comes.
            self.progress.next = now + self.limits.progress_after.max(Duration::from_secs(1));
            self.show(stats, depth, elapsed);
        }
        None
    }

    /// The progress line: states, rate, depth, and how much of each limit
    /// is used, so a user sees which limit a long search will hit first.
    fn show(&mut self, stats: &Stats, depth: u64, elapsed: Duration) {
        let secs = elapsed.as_secs_f64().max(1e-9);
        let l = self.limits;
        let mut line = format!(
            "prust: {} states{}, {:.0} states/s, {} transitions, depth {}",
            stats.product_states,
            share(
                stats.product_states as f64,
                l.max_states as f64,
                l.max_states == u64::MAX
            ),
            stats.product_states as f64 / secs,
            stats.transitions,
            depth,
        );
        let resident = self.resident.or_else(resident_bytes);
        if let Some(r) = resident {
            line += &format!(
                ", memory {}{}",
                mib(r),
                share(r as f64, l.max_memory as f64, l.max_memory == u64::MAX)
            );
        }
        line += &format!(", {secs:.1} s");
        if let Some(t) = l.timeout {
            line += &share(secs, t.as_secs_f64(), false);
        }
        self.write(&line);
    }

    /// Written straight to the process's stderr handle: the test harness
    /// captures only the print macros, so `eprint!` would hide the line
    /// while `cargo test` runs a long check and show it, stale, afterwards.
    fn write(&mut self, line: &str) {
        let text = if self.progress.terminal {
            format!("\r{line}   ")
        } else {
            format!("{line}\n")
        };
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(text.as_bytes());
        let _ = err.flush();
        self.progress.shown = true;
    }

    /// Ends the progress line (on a terminal it has no newline yet).
    pub fn finish(&mut self) {
        if self.progress.shown && self.progress.terminal {
            let _ = std::io::stderr().write_all(b"\n");
        }
        self.progress.shown = false;
    }
}

/// The time and memory limits of one check as a test for the work before
/// the search (the formula's translation), which has no states to tick:
/// `stop()` says whether to give up, and `reached()` which limit did it.
/// The clock is that of the whole check (`started`); the resident memory is
/// read at most every 5 ms. Public for `prust translate`,
/// which translates a formula with no check around it
/// ([`Watch::of_limits`]).
///
/// ```
/// use std::time::{Duration, Instant};
/// use engine::{Limit, Limits, Watch};
///
/// let started = Instant::now() - Duration::from_secs(2);
/// let watch = Watch::of_limits(&Limits::default().timeout(Duration::from_secs(1)), started);
/// assert!(watch.stop());
/// assert_eq!(watch.reached(), Some(Limit::Time(Duration::from_secs(1))));
/// ```
#[derive(Clone)]
pub struct Watch {
    deadline: Option<Instant>,
    timeout: Option<Duration>,
    max_memory: u64,
    state: std::sync::Arc<std::sync::Mutex<WatchState>>,
}

struct WatchState {
    memory_at: Option<Instant>,
    reached: Option<Limit>,
}

impl Watch {
    pub(crate) fn new(limits: &Bounds, started: Instant) -> Watch {
        Watch::with(limits.timeout, limits.max_memory, started)
    }

    /// The time and memory budgets of `limits` (their defaults applied)
    /// for work that started at `started`.
    pub fn of_limits(limits: &Limits, started: Instant) -> Watch {
        let max_memory = limits
            .max_memory
            .unwrap_or_else(|| limits.defaults.max_memory());
        Watch::with(limits.time_budget(), max_memory, started)
    }

    fn with(timeout: Option<Duration>, max_memory: u64, started: Instant) -> Watch {
        Watch {
            // A timeout too long to add to the clock is no timeout.
            deadline: timeout.and_then(|t| started.checked_add(t)),
            timeout,
            max_memory,
            state: std::sync::Arc::new(std::sync::Mutex::new(WatchState {
                memory_at: None,
                reached: None,
            })),
        }
    }

    /// Whether a limit is reached (and then remembers which).
    pub fn stop(&self) -> bool {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if st.reached.is_some() {
            return true;
        }
        let now = Instant::now();
        if let (Some(deadline), Some(t)) = (self.deadline, self.timeout) {
            if now > deadline {
                st.reached = Some(Limit::Time(t));
                return true;
            }
        }
        if self.max_memory != u64::MAX
            && st
                .memory_at
                .is_none_or(|at| now.duration_since(at) >= MEMORY_EVERY)
        {
            st.memory_at = Some(now);
            if resident_bytes().is_some_and(|r| r > self.max_memory) {
                st.reached = Some(Limit::Memory(self.max_memory));
                return true;
            }
        }
        false
    }

    /// The limit that [`stop`](Self::stop) found reached, if any.
    pub fn reached(&self) -> Option<Limit> {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).reached
    }
}

/// ` (12% of max)`, or nothing for an unlimited budget.
fn share(used: f64, max: f64, unlimited: bool) -> String {
    if unlimited || max <= 0.0 {
        String::new()
    } else {
        format!(" ({:.0}% of max)", 100.0 * used / max)
    }
}

fn mib(bytes: u64) -> String {
    format!("{:.0} MiB", bytes as f64 / (1024.0 * 1024.0))
}

/// Parses a timeout in seconds as `PRUST_TIMEOUT` and `prust check
/// --timeout` take it (one rule for both): a positive number such as `30`
/// or `0.5`; `inf`, or anything above 10⁹ seconds, is no timeout
/// (`Ok(None)`). Zero, a negative number, NaN or less than a nanosecond is
/// an error (a budget that stops every search at once is a mistake, not a
/// limit); the error says what is wrong and how to write it, without the
/// value.
///
/// ```
/// use std::time::Duration;
/// assert_eq!(engine::parse_timeout("0.5"), Ok(Some(Duration::from_millis(500))));
/// assert_eq!(engine::parse_timeout("inf"), Ok(None));
/// assert_eq!(engine::parse_timeout("1e99"), Ok(None));
/// assert!(engine::parse_timeout("0").is_err());
/// ```
pub fn parse_timeout(text: &str) -> Result<Option<Duration>, String> {
    let how = "give a positive number of seconds such as 30 or 0.5, or inf for none";
    let secs: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("not a number of seconds; {how}"))?;
    if secs.is_nan() || secs <= 0.0 {
        return Err(format!(
            "a timeout must be positive (0 would stop every search at once); {how}"
        ));
    }
    if secs > crate::limits::FOREVER_SECS {
        return Ok(None);
    }
    let t = Duration::from_secs_f64(secs);
    if t.is_zero() {
        return Err(format!("shorter than a nanosecond; {how}"));
    }
    Ok(Some(t))
}

/// Parses a memory size as `PRUST_MAX_MEMORY` takes it (for a CLI flag
/// that should accept the same): bytes (`1048576`), or a number with a
/// binary unit `K`, `M`, `G`, `T` (`512M`, `2G`, `1.5G`; `KiB`/`MB`-style
/// suffixes and lower case are accepted, and all mean powers of 1024). The
/// error says what is wrong, without the value.
///
/// ```
/// assert_eq!(engine::parse_memory_size("512M"), Ok(512 << 20));
/// assert!(engine::parse_memory_size("-1G").is_err());
/// ```
pub fn parse_memory_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    let digits_end = lower
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(lower.len());
    let (num, unit) = lower.split_at(digits_end);
    let unit = unit.trim();
    let shift = match unit.trim_end_matches("ib").trim_end_matches('b') {
        "" => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        "t" => 40,
        _ => return Err(format!("unknown unit `{unit}`")),
    };
    let value: f64 = num
        .parse()
        .map_err(|_| "expected a number of bytes".to_string())?;
    let bytes = value * (1u64 << shift) as f64;
    // Say which end was passed: a bare "out of range" left the user to
    // guess the range.
    if bytes < 1.0 {
        return Err("less than one byte: give a size of at least 1 (such as 512M)".to_string());
    }
    if !bytes.is_finite() || bytes >= u64::MAX as f64 {
        return Err("too large: a size must be below 2^64 bytes (16777216T)".to_string());
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests;
