//! The spec compiler's memory and time, by protocol: global
//! states, transitions, wall time, and the peak heap of the compilation
//! (the finished LTS included) counted by a global allocator, in bytes and
//! in bytes a state. A bench binary, not a timed test.
//!
//! ```text
//! cargo bench -p prust-protocols --bench compile_memory                  # the default list
//! cargo bench -p prust-protocols --bench compile_memory -- rock-paper-scissors:12 npb-is-concurrent:8
//! ```
//!
//! The names are those of `prust list` (`name:K`). Each is compiled in a
//! fresh process state only in the sense that the peak is reset before it:
//! run one name at a time for figures that no earlier compilation's
//! fragmentation could touch.

use testkit::counting;

use std::time::Instant;

#[global_allocator]
static ALLOC: counting::Counting = counting::Counting;

const DEFAULT: &[&str] = &[
    "rock-paper-scissors:8",
    "rock-paper-scissors:10",
    "npb-is-concurrent:5",
    "npb-is-concurrent:6",
    "npb-cg-concurrent:6",
    "go-fish:5",
    "token-full-mesh:64",
];

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--")) // `cargo bench` passes `--bench`
        .collect();
    let names: Vec<&str> = if args.is_empty() {
        DEFAULT.to_vec()
    } else {
        args.iter().map(String::as_str).collect()
    };
    println!(
        "{:<26} {:>10} {:>12} {:>9} {:>12} {:>10}",
        "protocol", "states", "transitions", "time (s)", "peak heap", "B a state"
    );
    for name in names {
        let spec = match protocols::bundled::spec_by_name(name) {
            Ok(spec) => spec,
            Err(e) => {
                eprintln!("{name}: {e}");
                std::process::exit(3);
            }
        };
        let start = Instant::now();
        // the error as text: a `Result` of an `Error` is large to return
        let (peak, lts) = counting::peak_of(|| spec.compile().map_err(|e| e.to_string()));
        let elapsed = start.elapsed().as_secs_f64();
        match lts {
            Ok(lts) => println!(
                "{name:<26} {:>10} {:>12} {elapsed:>9.2} {:>12} {:>10}",
                lts.num_states(),
                lts.num_transitions(),
                peak,
                peak / lts.num_states().max(1)
            ),
            Err(e) => println!("{name:<26} error after {elapsed:.2} s, peak {peak} B: {e}"),
        }
    }
}
