//! Bytes per stored state and time per state of the runtime objects:
//! the strict object (compiled and built on the fly) and the
//! liberal object, checked against `G !"DEADLOCK"` (which holds, so the
//! search is exhaustive) on the benchmark cases, without partial-order
//! reduction so that every object explores its full state space.
//!
//! ```text
//! cargo bench -p prust-protocols --bench runtime_objects             # every case
//! cargo bench -p prust-protocols --bench runtime_objects -- ring-aut  # cases whose name contains it
//! cargo bench -p prust-protocols --bench runtime_objects -- store=bytes  # one store only
//! ```
//!
//! Cases: `ring-aut:11` (the bench/peers ring, role i loops "send to i+1,
//! then receive from i−1" over 1-capacity channels, written as an `.aut`
//! LTS with one state per ring state, C(22, 11) = 705,432 of them, and run
//! by the strict object), `npb-cg-concurrent:8` (strict, compiled and on
//! the fly), `npb-is-concurrent:6`, `npb-is-concurrent:7` and
//! `rock-paper-scissors:10` (strict, compiled and on the fly), `star-buffered:8` and
//! `go-fish:5` (liberal).
//!
//! Memory, two ways, each divided by the product states:
//! - `rss_bytes_per_state`: the growth of the peak RSS during the check
//!   (bench/peers' `B/stored`), with the peak reset just before the check
//!   (`/proc/self/clear_refs`), so that the peak an `.aut` parse leaves
//!   does not hide it; it reads low (down to 0) where the setup freed
//!   memory that the search then reuses (the `.aut` parse, the compiler),
//!   so it is meaningful only where the setup frees little;
//! - `heap_bytes_per_state`: the peak of live heap bytes during the check
//!   less those before it (the LTS, the projection), counted by a global
//!   allocator: this counts the unused capacity of the search's growing
//!   tables too, which RSS does not (pages never touched are not resident).
//!
//! Time is the thread's CPU time (`/proc/self/schedstat`) of the check
//! alone: the check runs on one thread (`threads(1)`), so that it is all
//! of the check's CPU time (a parallel search's workers are other threads).
//!
//! Each case runs twice: `store=bytes`, the default for objects that write
//! themselves as bytes (the collapse store, [`Checker::collapse`]), and
//! `store=objects`, the objects stored whole, for what collapse costs and
//! saves.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Duration;

use engine::{Checker, Protocol};
use protocols::{Liberal, Lts, Strict};

/// The system allocator, counting live bytes and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(n: usize) {
    let now = LIVE.fetch_add(n, Relaxed) + n;
    PEAK.fetch_max(now, Relaxed);
}

// SAFETY: every call is forwarded to `System` unchanged; only counters are
// added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        grew(l.size());
        System.alloc(l)
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        grew(l.size());
        System.alloc_zeroed(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Relaxed);
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        if new >= l.size() {
            grew(new - l.size());
        } else {
            LIVE.fetch_sub(l.size() - new, Relaxed);
        }
        System.realloc(p, l, new)
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// A field of `/proc/self/status` in bytes (`VmRSS`, `VmHWM`); 0 where
/// there is no such file.
fn status_bytes(field: &str) -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// CPU time of this thread so far.
fn cpu() -> Duration {
    let s = std::fs::read_to_string("/proc/self/schedstat").unwrap_or_default();
    let ns = s
        .split_whitespace()
        .next()
        .and_then(|t| t.parse().ok())
        .unwrap_or(0);
    Duration::from_nanos(ns)
}

/// The bench/peers ring of `n` roles as `.aut` text: one LTS state per
/// ring state (which roles are to send, which channels are full).
fn ring_aut(n: usize) -> String {
    use std::collections::HashMap;
    use std::fmt::Write;
    let init: (u32, u32) = ((1 << n) - 1, 0);
    let mut ids = HashMap::from([(init, 0usize)]);
    let mut order = vec![init];
    let mut edges = String::new();
    let mut count = 0;
    let mut i = 0;
    while i < order.len() {
        let (s, c) = order[i];
        for r in 0..n {
            let p = (r + n - 1) % n;
            let (t, label) = if s >> r & 1 == 1 && c >> r & 1 == 0 {
                (
                    (s & !(1 << r), c | 1 << r),
                    format!("!(Token,r{r},r{})", (r + 1) % n),
                )
            } else if s >> r & 1 == 0 && c >> p & 1 == 1 {
                ((s | 1 << r, c & !(1 << p)), format!("?(Token,r{p},r{r})"))
            } else {
                continue;
            };
            let next = order.len();
            let j = *ids.entry(t).or_insert(next);
            if j == next {
                order.push(t);
            }
            writeln!(edges, "({i},\"{label}\",{j})").unwrap();
            count += 1;
        }
        i += 1;
    }
    format!("des (0, {count}, {})\n{edges}", order.len())
}

/// Checks `G !"DEADLOCK"` on `p`, without partial-order reduction, and
/// prints one line of figures.
/// `make` is called once per store: an object built on the fly keeps the
/// states it computed for all its clones, so a second run on a clone
/// would find its graph built.
fn measure<P: Protocol>(name: &str, make: impl Fn() -> P) {
    // `store=bytes` or `store=objects` among the arguments: that one only.
    let args: Vec<String> = std::env::args().skip(1).collect();
    let only =
        |s: &str| !args.iter().any(|a| a.starts_with("store=")) || args.iter().any(|a| a == s);
    if only("store=bytes") {
        measure_with(name, make(), true);
    }
    if only("store=objects") {
        measure_with(name, make(), false);
    }
}

/// [`measure`] with the collapse store on or off.
fn measure_with<P: Protocol>(name: &str, p: P, collapse: bool) {
    // Reset the peak RSS to the current RSS (Linux: "5" to clear_refs).
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let rss = status_bytes("VmRSS");
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let t0 = cpu();
    let r = Checker::new()
        .partial_order(false)
        .threads(1)
        .collapse(collapse)
        .check(r#"G !"DEADLOCK""#, p, vec![])
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let t = cpu() - t0;
    let peak = PEAK.load(Relaxed) - base;
    let rss_growth = status_bytes("VmHWM").saturating_sub(rss);
    assert!(r.holds(), "{name}: {r}");
    let states = r.stats.product_states;
    let store = if collapse { "bytes" } else { "objects" };
    println!(
        "{name} store={store} states={states} cpu_s={:.2} ns_per_state={:.0} rss_bytes_per_state={:.0} \
         heap_bytes_per_state={:.0} object_bytes={}",
        t.as_secs_f64(),
        t.as_nanos() as f64 / states as f64,
        rss_growth as f64 / states as f64,
        peak as f64 / states as f64,
        std::mem::size_of::<P>(),
    );
}

fn main() {
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-') && !a.starts_with("store="))
        .collect();
    let want = |name: &str| filter.is_empty() || filter.iter().any(|f| name.contains(f.as_str()));
    let spec = |name: &str| protocols::bundled::spec_by_name(name).expect("bundled");
    if want("ring-aut:11 strict") {
        let lts = std::sync::Arc::new(Lts::from_aut(&ring_aut(11)).expect("ring .aut"));
        measure("ring-aut:11 strict", || {
            Strict::try_new(lts.clone()).expect("strict")
        });
    }
    if want("npb-cg-concurrent:8 strict") {
        let lts = std::sync::Arc::new(spec("npb-cg-concurrent:8").compile().expect("compiles"));
        measure("npb-cg-concurrent:8 strict", || {
            Strict::try_new(lts.clone()).expect("strict")
        });
    }
    if want("npb-cg-concurrent:8 on-the-fly") {
        let s = spec("npb-cg-concurrent:8");
        measure("npb-cg-concurrent:8 on-the-fly", || {
            Strict::on_the_fly(&s).expect("on the fly")
        });
    }
    // The object built on the fly keeps the global states it computed (its
    // graph) beside the stored objects: its bytes a state are mostly those.
    for name in [
        "npb-is-concurrent:6",
        "npb-is-concurrent:7",
        "rock-paper-scissors:10",
    ] {
        let case = format!("{name} on-the-fly");
        if want(&case) {
            let s = spec(name);
            measure(&case, || Strict::on_the_fly(&s).expect("on the fly"));
        }
        // The same protocol compiled, for the engine's share of the above.
        let case = format!("{name} strict");
        if want(&case) {
            let lts = std::sync::Arc::new(spec(name).compile().expect("compiles"));
            measure(&case, || Strict::try_new(lts.clone()).expect("strict"));
        }
    }
    if want("star-buffered:8 liberal") {
        let lts = std::sync::Arc::new(spec("star-buffered:8").compile().expect("compiles"));
        measure("star-buffered:8 liberal", || {
            Liberal::try_new(lts.clone()).expect("liberal")
        });
    }
    if want("go-fish:5 liberal") {
        let lts = std::sync::Arc::new(spec("go-fish:5").compile().expect("compiles"));
        measure("go-fish:5 liberal", || {
            Liberal::try_new(lts.clone()).expect("liberal")
        });
    }
}
