//! The compiler's memory: at its peak, compiling a
//! specification holds at most 500 bytes of heap a global state, the
//! finished LTS included. Measured by counting every allocation (a counting
//! global allocator, so this file is a test binary of its own with one
//! test), never by timing. The specifications are the two shapes whose
//! state spaces grow fastest: parallel workers (npb-is-concurrent) and a
//! long sequential choice tree (rock-paper-scissors). Before the compact
//! representation these took 1.2 KB and 820 B a state.

use testkit::counting;

use protocols::{npb, rock_paper_scissors};

#[global_allocator]
static ALLOC: counting::Counting = counting::Counting;

#[test]
fn compiling_takes_at_most_500_bytes_a_state() {
    for spec in [npb::is_concurrent(5), rock_paper_scissors::spec(8)] {
        let (peak, lts) = counting::peak_of(|| spec.compile().unwrap());
        let per_state = peak / lts.num_states();
        eprintln!(
            "{}: {} states, {} transitions, peak {peak} B, {per_state} B a state",
            spec.name(),
            lts.num_states(),
            lts.num_transitions()
        );
        assert!(
            lts.num_states() > 5_000,
            "{}: too small to tell",
            spec.name()
        );
        assert!(
            per_state <= 500,
            "{}: {per_state} B a state ({peak} B for {} states)",
            spec.name(),
            lts.num_states()
        );
    }
}
