//! The process's and the thread's CPU time, for benches that print CPU
//! beside wall time: on a shared machine, wall time also counts the time
//! other processes held the cores.

use std::time::Duration;

/// The calling thread's CPU time so far, to the nanosecond
/// (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`): for ratios of rounds run
/// in one process, which the process's ticks of 10 ms cannot resolve.
///
/// # Panics
/// Where the clock is not available.
pub fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `clock_gettime` writes only the `timespec` it is given, which
    // is a valid, exclusively borrowed local.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "the thread's CPU clock is not available here");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// The median of `v` (sorted in place); `NaN` for none.
pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// The process's CPU time (user + system) so far, in seconds, from
/// `/proc/self/stat` (zero where there is none, as off Linux).
pub fn cpu_time() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the command name (which is in parentheses): utime and
    // stime are the 12th and 13th, in clock ticks (100 a second on Linux).
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}
