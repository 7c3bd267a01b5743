//! The limits of one search, checked as it runs: time, memory and the
//! progress line. Both searches (the depth-first `run` and the breadth-first
//! `reachability`) call [`Budget::tick`] once per unit of work, so every
//! limit is enforced the same way in both.
//!
//! Why these intervals: the clock is read every [`CLOCK_EVERY`] ticks at
//! most (`Instant::now` costs ~25 ns, a tick at least a few hundred), and
//! more often when ticks are slow: the interval adapts so that about
//! [`CLOCK_TARGET`] passes between two reads, down to every tick (one state
//! of an object with thousands of roles under the determinism check can
//! take most of a second). A limit then overshoots by at most one slow
//! step, or about a millisecond. Resident memory is read from `/proc` at most every
//! [`MEMORY_EVERY`] of wall time *and* at least every [`MEMORY_TICKS`] ticks:
//! the time bound catches a few huge states (objects can grow), the count
//! bound catches many small ones.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use crate::report::{Limit, Stats};
use crate::Semantics;

/// Most ticks between two reads of the clock.
const CLOCK_EVERY: u32 = 16;
/// Wall time wanted between two reads of the clock.
const CLOCK_TARGET: Duration = Duration::from_millis(1);
/// Wall time between two reads of the resident memory.
const MEMORY_EVERY: Duration = Duration::from_millis(5);
/// Ticks after which the resident memory is read whatever the time.
const MEMORY_TICKS: u64 = 8192;

/// Options of one search.
#[derive(Clone, Debug)]
pub(crate) struct Limits {
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

/// The running budget of one search (see the module docs).
pub(crate) struct Budget<'a> {
    limits: &'a Limits,
    started: Instant,
    ticks: u64,
    countdown: u32,
    /// The clock reading and tick count of the last check, to adapt the
    /// interval to the time a tick takes.
    checked_at: Instant,
    checked_ticks: u64,
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
    /// Starts the clock.
    pub fn new(limits: &'a Limits) -> Budget<'a> {
        let started = Instant::now();
        let terminal = std::io::stderr().is_terminal();
        Budget {
            limits,
            started,
            ticks: 0,
            countdown: 1,
            checked_at: started,
            checked_ticks: 0,
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
        self.countdown -= 1;
        if self.countdown != 0 {
            return None;
        }
        self.check(stats, depth)
    }

    #[cold]
    fn check(&mut self, stats: &Stats, depth: u64) -> Option<Limit> {
        let now = Instant::now();
        // Ticks that fit in CLOCK_TARGET at the rate since the last check.
        let per_tick = now.duration_since(self.checked_at).as_secs_f64()
            / (self.ticks - self.checked_ticks).max(1) as f64;
        let fit = CLOCK_TARGET.as_secs_f64() / per_tick.max(1e-12);
        // Grow the interval by doubling at most: the first ticks of a
        // search say little about the later ones.
        // The first check comes before any work: no rate is known yet.
        let interval = if self.checked_ticks == 0 {
            0.5
        } else {
            (self.ticks - self.checked_ticks) as f64
        };
        self.countdown = fit.clamp(1.0, f64::from(CLOCK_EVERY).min(2.0 * interval)) as u32;
        self.checked_at = now;
        self.checked_ticks = self.ticks;
        let elapsed = now.duration_since(self.started);
        if let Some(limit) = self.limits.timeout {
            if elapsed > limit {
                return Some(Limit::Time(limit));
            }
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

/// The process's resident memory, where the platform tells it cheaply
/// (Linux: `VmRSS` in `/proc/self/status`); `None` elsewhere, where the
/// memory budget cannot be enforced.
pub(crate) fn resident_bytes() -> Option<u64> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    kib_field(&status, "VmRSS:")
}

/// The value of a `NAME:   1234 kB` line of a `/proc` file, in bytes.
fn kib_field(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(name))?;
    let kib: u64 = line[name.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    kib.checked_mul(1024)
}

/// Memory budget used when none is given: half of the memory available
/// when the checker is made (Linux `MemAvailable`, else half of
/// `MemTotal`), or [`FALLBACK_MEMORY`] where `/proc/meminfo` does not exist.
pub(crate) fn default_max_memory() -> u64 {
    if cfg!(target_os = "linux") {
        if let Ok(info) = std::fs::read_to_string("/proc/meminfo") {
            if let Some(b) =
                kib_field(&info, "MemAvailable:").or_else(|| kib_field(&info, "MemTotal:"))
            {
                return (b / 2).max(64 << 20);
            }
        }
    }
    FALLBACK_MEMORY
}

/// The default memory budget where the machine's memory is unknown: 4 GiB.
pub(crate) const FALLBACK_MEMORY: u64 = 4 << 30;

/// Whom the default budgets (those that no `PRUST_*` variable and no
/// option sets) are sized for. The one place where their values are
/// chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefaultBudgets {
    /// A check or exploration called from code, typically a test under
    /// `cargo test` on a laptop, with other tests running beside it:
    /// [`TEST_TIMEOUT`] per formula (per exploration for
    /// `prust::explore`) and at most [`TEST_MAX_MEMORY`] (less if the
    /// machine has less: see [`Machine`](Self::Machine)). What
    /// [`Checker::from_env`](crate::Checker::from_env) uses: a test must
    /// end inconclusive in a minute, not take the machine.
    Test,
    /// A check someone asked for on the command line (`prust check`): no
    /// time limit, and half of the machine's available memory.
    Machine,
}

/// The time budget of [`DefaultBudgets::Test`]: 60 s.
pub const TEST_TIMEOUT: Duration = Duration::from_secs(60);

/// The memory budget of [`DefaultBudgets::Test`], at most: 2 GiB.
pub const TEST_MAX_MEMORY: u64 = 2 << 30;

impl DefaultBudgets {
    /// The time budget when no variable or option sets it (`None`: none).
    pub fn timeout(self) -> Option<Duration> {
        match self {
            DefaultBudgets::Test => Some(TEST_TIMEOUT),
            DefaultBudgets::Machine => None,
        }
    }

    /// The memory budget, in bytes, when no variable or option sets it.
    pub fn max_memory(self) -> u64 {
        match self {
            DefaultBudgets::Test => default_max_memory().min(TEST_MAX_MEMORY),
            DefaultBudgets::Machine => default_max_memory(),
        }
    }
}

/// Timeouts above this many seconds (about 31 years) mean "no timeout":
/// they cannot run out, and `Duration` arithmetic on them could overflow.
const FOREVER_SECS: f64 = 1e9;

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
    if secs > FOREVER_SECS {
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
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_units() {
        assert_eq!(parse_memory_size("1048576"), Ok(1 << 20));
        assert_eq!(parse_memory_size("512M"), Ok(512 << 20));
        assert_eq!(parse_memory_size("2G"), Ok(2 << 30));
        assert_eq!(parse_memory_size(" 2 GiB "), Ok(2 << 30));
        assert_eq!(parse_memory_size("64mb"), Ok(64 << 20));
        assert_eq!(parse_memory_size("1.5k"), Ok(1536));
        assert!(parse_memory_size("").is_err());
        assert!(parse_memory_size("-1G").is_err());
        assert!(parse_memory_size("0").is_err());
        assert!(parse_memory_size("0")
            .unwrap_err()
            .contains("less than one byte"));
        let e = parse_memory_size("99999999999999999999G").unwrap_err();
        assert!(e.contains("too large"), "{e}");
        assert!(parse_memory_size("12X").is_err());
        assert!(parse_memory_size("99999999999T").is_err());
    }

    #[test]
    fn proc_fields_are_read_in_bytes() {
        let status = "Name:\tx\nVmRSS:\t    2048 kB\nVmSwap:\t0 kB\n";
        assert_eq!(kib_field(status, "VmRSS:"), Some(2 << 20));
        assert_eq!(kib_field(status, "VmHWM:"), None);
        if cfg!(target_os = "linux") {
            assert!(resident_bytes().is_some_and(|b| b > 0));
            assert!(default_max_memory() >= 64 << 20);
        }
    }
}
