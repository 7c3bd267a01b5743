//! The engine benchmark's models (engine/benches/ring_star.rs) in Stateright, for a side-by-side
//! comparison with prust and SPIN on the same state spaces.
//!
//! ```text
//! cargo run --release -- ring 12         # directed ring, C(2n, n) states
//! cargo run --release -- star 12         # star with n leaves, n * 2^n states
//! cargo run --release -- ring-packed 12  # the same, states as bitmasks
//! cargo run --release -- star-packed 12
//! cargo run --release -- ring-packed 12 2  # on two threads (default one)
//! ```
//!
//! The states mirror prust's protocol objects in `testkit/src/models.rs`:
//! `ring`/`star` keep a control flag per role and an `Option` per
//! 1-capacity channel in `Vec`s; `ring-packed`/`star-packed` keep bitmasks. The property is deadlock freedom (some action is enabled in every
//! state), the counterpart of prust's `G !"DEADLOCK"`, so the search is
//! exhaustive. Breadth-first, one thread, as in the issue's reference figures.

use std::time::Instant;

use stateright::{Checker, Model, Property};

/// The message that travels; the channels carry it as a payload, as
/// prust's channels carry a `Message`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Token;

/// Directed ring: role i loops "send to i+1 mod n, then receive from i-1".
struct Ring {
    n: usize,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct RingState {
    /// Per role: whether its next step is the send (else the receive).
    sending: Vec<bool>,
    /// `chan[i]`: what is in transit from role i to role i+1.
    chan: Vec<Option<Token>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum RingAction {
    Send(usize),
    Recv(usize),
}

impl Model for Ring {
    type State = RingState;
    type Action = RingAction;

    fn init_states(&self) -> Vec<RingState> {
        vec![RingState {
            sending: vec![true; self.n],
            chan: vec![None; self.n],
        }]
    }

    fn actions(&self, s: &RingState, actions: &mut Vec<RingAction>) {
        for i in 0..self.n {
            let from = (i + self.n - 1) % self.n;
            if s.sending[i] && s.chan[i].is_none() {
                actions.push(RingAction::Send(i));
            } else if !s.sending[i] && s.chan[from].is_some() {
                actions.push(RingAction::Recv(i));
            }
        }
    }

    fn next_state(&self, s: &RingState, a: RingAction) -> Option<RingState> {
        let mut t = s.clone();
        match a {
            RingAction::Send(i) => {
                t.chan[i] = Some(Token);
                t.sending[i] = false;
            }
            RingAction::Recv(i) => {
                t.chan[(i + self.n - 1) % self.n] = None;
                t.sending[i] = true;
            }
        }
        Some(t)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        vec![Property::always("deadlock free", |m: &Ring, s| {
            let mut a = Vec::new();
            m.actions(s, &mut a);
            !a.is_empty()
        })]
    }
}

/// Star: the hub sends to leaves 1..=n round-robin, each leaf receives.
struct Star {
    n: usize,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct StarState {
    /// The leaf (0-based) the hub sends to next.
    next: usize,
    /// `chan[l]`: what is in transit from the hub to leaf l.
    chan: Vec<Option<Token>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum StarAction {
    Send,
    Recv(usize),
}

impl Model for Star {
    type State = StarState;
    type Action = StarAction;

    fn init_states(&self) -> Vec<StarState> {
        vec![StarState {
            next: 0,
            chan: vec![None; self.n],
        }]
    }

    fn actions(&self, s: &StarState, actions: &mut Vec<StarAction>) {
        if s.chan[s.next].is_none() {
            actions.push(StarAction::Send);
        }
        for l in 0..self.n {
            if s.chan[l].is_some() {
                actions.push(StarAction::Recv(l));
            }
        }
    }

    fn next_state(&self, s: &StarState, a: StarAction) -> Option<StarState> {
        let mut t = s.clone();
        match a {
            StarAction::Send => {
                t.chan[s.next] = Some(Token);
                t.next = (s.next + 1) % self.n;
            }
            StarAction::Recv(l) => t.chan[l] = None,
        }
        Some(t)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        vec![Property::always("deadlock free", |m: &Star, s| {
            let mut a = Vec::new();
            m.actions(s, &mut a);
            !a.is_empty()
        })]
    }
}

/// [`Ring`] with the state as two bitmasks (n <= 32).
struct PackedRing {
    n: usize,
}

/// Bit i of `.0`: role i's next step is the send; bit i of `.1`: the
/// channel from role i to role i+1 holds the token.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct PackedRingState(u32, u32);

impl Model for PackedRing {
    type State = PackedRingState;
    type Action = RingAction;

    fn init_states(&self) -> Vec<PackedRingState> {
        vec![PackedRingState(u32::MAX >> (32 - self.n), 0)]
    }

    fn actions(&self, s: &PackedRingState, actions: &mut Vec<RingAction>) {
        for i in 0..self.n {
            let from = (i + self.n - 1) % self.n;
            if s.0 & (1 << i) != 0 && s.1 & (1 << i) == 0 {
                actions.push(RingAction::Send(i));
            } else if s.0 & (1 << i) == 0 && s.1 & (1 << from) != 0 {
                actions.push(RingAction::Recv(i));
            }
        }
    }

    fn next_state(&self, s: &PackedRingState, a: RingAction) -> Option<PackedRingState> {
        let PackedRingState(sending, full) = *s;
        Some(match a {
            RingAction::Send(i) => PackedRingState(sending & !(1 << i), full | (1 << i)),
            RingAction::Recv(i) => {
                let from = (i + self.n - 1) % self.n;
                PackedRingState(sending | (1 << i), full & !(1 << from))
            }
        })
    }

    fn properties(&self) -> Vec<Property<Self>> {
        vec![Property::always("deadlock free", |m: &PackedRing, s| {
            let mut a = Vec::new();
            m.actions(s, &mut a);
            !a.is_empty()
        })]
    }
}

/// [`Star`] with the state as a counter and a bitmask (n <= 32 leaves).
struct PackedStar {
    n: usize,
}

/// `.0`: the leaf the hub sends to next; bit l of `.1`: the channel to
/// leaf l holds the token.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct PackedStarState(u8, u32);

impl Model for PackedStar {
    type State = PackedStarState;
    type Action = StarAction;

    fn init_states(&self) -> Vec<PackedStarState> {
        vec![PackedStarState(0, 0)]
    }

    fn actions(&self, s: &PackedStarState, actions: &mut Vec<StarAction>) {
        if s.1 & (1 << s.0) == 0 {
            actions.push(StarAction::Send);
        }
        for l in 0..self.n {
            if s.1 & (1 << l) != 0 {
                actions.push(StarAction::Recv(l));
            }
        }
    }

    fn next_state(&self, s: &PackedStarState, a: StarAction) -> Option<PackedStarState> {
        let PackedStarState(next, full) = *s;
        Some(match a {
            StarAction::Send => {
                PackedStarState(((next as usize + 1) % self.n) as u8, full | (1 << next))
            }
            StarAction::Recv(l) => PackedStarState(next, full & !(1 << l)),
        })
    }

    fn properties(&self) -> Vec<Property<Self>> {
        vec![Property::always("deadlock free", |m: &PackedStar, s| {
            let mut a = Vec::new();
            m.actions(s, &mut a);
            !a.is_empty()
        })]
    }
}

fn binomial(n: u64, k: u64) -> u64 {
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: prust-peer-stateright ring|star|ring-packed|star-packed N [THREADS]";
    let model = args
        .first()
        .map(String::as_str)
        .unwrap_or_else(|| panic!("{usage}"));
    let n: usize = args
        .get(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("{usage}"));
    assert!((2..=30).contains(&n), "N must be in 2..=30");
    // Stateright's BFS on this many threads (the benchmarks compare one and
    // two with prust's parallel search).
    let threads: usize = match args.get(2) {
        None => 1,
        Some(t) => t.parse().ok().filter(|&t| t >= 1).unwrap_or_else(|| panic!("{usage}")),
    };
    let ring_states = binomial(2 * n as u64, n as u64);
    let star_states = (n as u64) << n;

    let start = Instant::now();
    let (unique, visited, expected) = match model {
        "ring" => {
            let c = Ring { n }.checker().threads(threads).spawn_bfs().join();
            c.assert_properties();
            (c.unique_state_count(), c.state_count(), ring_states)
        }
        "star" => {
            let c = Star { n }.checker().threads(threads).spawn_bfs().join();
            c.assert_properties();
            (c.unique_state_count(), c.state_count(), star_states)
        }
        "ring-packed" => {
            let c = PackedRing { n }.checker().threads(threads).spawn_bfs().join();
            c.assert_properties();
            (c.unique_state_count(), c.state_count(), ring_states)
        }
        "star-packed" => {
            let c = PackedStar { n }.checker().threads(threads).spawn_bfs().join();
            c.assert_properties();
            (c.unique_state_count(), c.state_count(), star_states)
        }
        _ => panic!("{usage}"),
    };
    let secs = start.elapsed().as_secs_f64();
    let ok = if unique as u64 == expected {
        "ok"
    } else {
        "MISMATCH"
    };
    println!(
        "stateright {model} n={n} states={unique} expected={expected} {ok} visited={visited} \
         threads={threads} time={secs:.3}s rate={:.0}/s",
        unique as f64 / secs
    );
    if unique as u64 != expected {
        std::process::exit(1);
    }
}
