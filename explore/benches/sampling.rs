//! Executions to the first failure of the sampled searches on the
//! one-in-90 receive-order bug (`testkit::fan_in`: three producers send
//! two messages each to a consumer that panics on one of the 90 receive
//! orders), over seeds 0..20 (the goal's measure) and 0..500: PCT
//! (depth 3) and the uniform random walk, with the exhaustive search
//! (DPOR, then none) for comparison. The counts do not depend on the
//! machine: the seeds are fixed and the program deterministic.
//!
//! ```text
//! cargo bench -p prust-explore --bench sampling
//! ```

use prust::explore::{Explorer, Reduction};
use testkit::fan_in;

/// Executions until the first failure, `None` if `budget` found none.
fn first_failure(explorer: Explorer, budget: usize) -> Option<usize> {
    let ex = explorer
        .stop_on_failure(true)
        .explore(fan_in::object(), fan_in::program(true));
    assert!(ex.is_sampled() || ex.executions() <= budget);
    (!ex.failures().is_empty()).then(|| ex.executions())
}

fn summary(name: &str, mut found: Vec<Option<usize>>, budget: usize) {
    let missed = found.iter().filter(|f| f.is_none()).count();
    // A seed that found nothing counts as the budget (the median is then
    // at least that high, never lower).
    found.sort_unstable_by_key(|f| f.unwrap_or(usize::MAX));
    let at = |i: usize| found[i].unwrap_or(budget);
    let n = found.len();
    let median = if n.is_multiple_of(2) {
        (at(n / 2 - 1) + at(n / 2)) as f64 / 2.0
    } else {
        at(n / 2) as f64
    };
    println!(
        "{name:<14} {n:>3} seeds: min {:>4}  median {median:>6.1}  max {:>5}{}",
        at(0),
        at(n - 1),
        if missed > 0 {
            format!("  ({missed} found nothing in {budget})")
        } else {
            String::new()
        }
    );
}

fn main() {
    println!(
        "one-in-{} receive-order bug: executions to the first failure",
        fan_in::ORDERS
    );
    // The goal's measure (20 seeds), then 500 seeds for a steadier
    // estimate of the same medians.
    for seeds in [20u64, 500] {
        let pct_budget = 1_000;
        let pct = (0..seeds)
            .map(|s| first_failure(Explorer::new().pct(s, 3, pct_budget), pct_budget))
            .collect();
        summary("PCT (depth 3)", pct, pct_budget);
        let random_budget = 10_000;
        let random = (0..seeds)
            .map(|s| first_failure(Explorer::new().random(s, random_budget), random_budget))
            .collect();
        summary("random", random, random_budget);
    }
    for reduction in [Reduction::Dpor, Reduction::None] {
        let explorer = Explorer::new().preemption_bound(None).reduction(reduction);
        let at = first_failure(explorer, usize::MAX);
        println!(
            "exhaustive ({reduction:<4})      first failure at execution {}",
            at.map_or("none".into(), |n| n.to_string())
        );
    }
}
