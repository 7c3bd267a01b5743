//! The process's CPU time, for benches that print CPU beside wall time:
//! on a shared machine, wall time also counts the time other processes
//! held the cores.

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
