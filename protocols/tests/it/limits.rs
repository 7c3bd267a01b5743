//! Every construction of the crate (compiling a specification,
//! determinising an LTS, projecting it for the liberal runtime) stops with
//! an error that names the limit it reached: states, deadline or memory.

use std::sync::Arc;
use std::time::{Duration, Instant};

use engine::Limits;
use protocols::spec::{msg, par_every, Role, Spec};
use protocols::token::{self, Topology};
use protocols::{Error, Liberal, Lts, Projection, Strict};

/// The adversarial `.aut`: "the `n`-th action from the end is an `A`".
/// Its `n + 1` states are nondeterministic only in state 0 (on `A`, stay
/// or start counting), yet its subset construction has `2^n` states: a
/// state must remember which of the last `n` actions were `A`s.
fn nth_from_end(n: usize) -> String {
    let (a, b) = ("\"!(A,p,q)\"", "\"!(B,p,q)\"");
    let mut aut = format!("des (0, {}, {})\n", 3 + 2 * (n - 1), n + 1);
    aut += &format!("(0,{a},0)\n(0,{b},0)\n(0,{a},1)\n");
    for i in 1..n {
        aut += &format!("({i},{a},{})\n({i},{b},{})\n", i + 1, i + 1);
    }
    aut
}

fn adversarial(n: usize) -> Lts {
    Lts::from_aut(&nth_from_end(n)).unwrap()
}

/// The generator is what it claims: small instances blow up as `2^n`.
#[test]
fn the_adversarial_aut_blows_up_exponentially() {
    for n in 1..=10 {
        let lts = adversarial(n);
        assert_eq!(lts.num_states(), n + 1);
        assert!(!lts.is_deterministic());
        let dfa = lts.determinise_with(&Limits::default()).unwrap();
        assert_eq!(dfa.num_states(), 1 << n, "n = {n}");
        assert!(dfa.is_deterministic());
    }
}

/// A 2^60-state subset construction ends at the state limit, with the
/// flag that raises it in the message.
#[test]
fn determinising_stops_at_the_state_limit() {
    let lts = adversarial(60);
    let e = lts
        .determinise_with(&Limits::default().max_states(5_000))
        .unwrap_err();
    assert_eq!(
        e,
        Error::StateBound {
            limit: 5_000,
            what: protocols::Built::DeterminisedLts
        }
    );
    let text = e.to_string();
    assert!(
        text.contains("5000 states") && text.contains("Limits::max_states"),
        "{text}"
    );
    // the old entry point keeps its meaning: exactly `max_states` states
    assert!(adversarial(10).determinise(1 << 10).is_ok());
    assert!(matches!(
        adversarial(10).determinise((1 << 10) - 1),
        Err(Error::StateBound { .. })
    ));
}

/// Without a state bound, the deadline stops it: a deadline in the past at
/// once, a near one soon (the construction could not end otherwise: it
/// has 2^60 states).
#[test]
fn determinising_stops_at_the_deadline() {
    let lts = adversarial(60);
    let unbounded = Limits::default().max_states(u64::MAX).max_memory(u64::MAX);
    let passed = unbounded.timeout(Duration::ZERO);
    match lts.determinise_with(&passed) {
        Err(e @ Error::Timeout { .. }) => {
            assert!(e.to_string().contains("Limits::timeout"), "{e}");
            assert!(e.to_string().contains("determinised LTS"), "{e}");
        }
        other => panic!("expected a timeout, got {other:?}"),
    }
    let soon = unbounded.timeout(Duration::from_millis(100));
    assert!(matches!(
        lts.determinise_with(&soon),
        Err(Error::Timeout {
            what: protocols::Built::DeterminisedLts,
            ..
        })
    ));
}

/// Without a state bound or deadline, the memory bound stops it before
/// it takes much more than the bound.
#[test]
fn determinising_stops_at_the_memory_limit() {
    let lts = adversarial(60);
    let limits = Limits::default().max_states(u64::MAX).max_memory(4 << 20);
    match lts.determinise_with(&limits) {
        Err(e @ Error::MemoryBound { limit, states, .. }) => {
            assert_eq!(limit, 4 << 20);
            // each state holds a set of about 30 numbers and 2 edges: a
            // few hundred bytes, so thousands of states, not millions
            assert!((1_000..100_000).contains(&states), "{states}");
            assert!(e.to_string().contains("Limits::max_memory"), "{e}");
        }
        other => panic!("expected a memory bound, got {other:?}"),
    }
}

/// The objects made from an LTS go by the limits given to them.
#[test]
fn strict_and_liberal_objects_pass_their_limits_on() {
    let lts = Arc::new(adversarial(60));
    let limits = Limits::default().max_states(300);
    let bound = Error::StateBound {
        limit: 300,
        what: protocols::Built::DeterminisedLts,
    };
    assert_eq!(
        Strict::try_new_with(lts.clone(), &limits).unwrap_err(),
        bound
    );
    assert_eq!(
        Liberal::try_new_with(lts.clone(), &limits).unwrap_err(),
        bound
    );
    let small = Arc::new(adversarial(4));
    let strict = Strict::try_new_with(small.clone(), &limits).unwrap();
    assert_eq!(strict.num_states(), 16);
    assert!(Liberal::try_new_with(small, &limits).is_ok());
}

/// Compiling a specification: the state bound, the deadline and the memory
/// bound each stop it with their own error.
#[test]
fn compiling_stops_at_every_limit() {
    let spec = interleaved_spec(8); // 3^8 global states
    let unbounded = Limits::default().max_states(u64::MAX).max_memory(u64::MAX);
    assert_eq!(
        spec.compile_with(&Limits::default().max_states(50))
            .unwrap_err(),
        Error::StateBound {
            limit: 50,
            what: protocols::Built::GlobalLts
        }
    );
    // a deadline that has passed stops it while it unfolds the calls,
    // before the first state
    assert_eq!(
        spec.compile_with(&unbounded.timeout(Duration::ZERO))
            .map(|_| ()),
        Err(Error::Timeout {
            what: protocols::Built::GlobalLts,
            states: 0
        })
    );
    match spec.compile_with(&unbounded.max_memory(64 << 10)) {
        Err(e @ Error::MemoryBound { .. }) => {
            assert!(e.to_string().contains("global LTS"), "{e}")
        }
        other => panic!("expected a memory bound, got {:?}", other.map(|_| ())),
    }
    // within the limits, the same LTS as the simple entry point
    let small = token::spec(Topology::FullMesh, 3);
    assert_eq!(small.compile_with(&unbounded), small.compile());
}

/// A heavily interleaved specification: `k` independent exchanges in
/// parallel. Its global LTS is small (3^k states) but each role's local
/// states and each tag are sets of global states.
fn interleaved_spec(k: usize) -> Spec {
    Spec::new(
        "interleaved",
        par_every(0..k, |i| {
            msg("T", Role::indexed("p", i), Role::indexed("q", i)).then(msg(
                "T",
                Role::indexed("q", i),
                Role::indexed("p", (i + 1) % k),
            ))
        }),
    )
}

fn interleaved(k: usize) -> Lts {
    interleaved_spec(k).compile().unwrap()
}

/// The projection is bounded by each limit too.
#[test]
fn projecting_stops_at_every_limit() {
    let lts = Arc::new(interleaved(5));
    let unbounded = Limits::default().max_states(u64::MAX).max_memory(u64::MAX);
    let full = Projection::new_with(lts.clone(), &unbounded).unwrap();
    let total: usize = (0..lts.roles().len())
        .map(|r| full.num_local_states(r))
        .sum();
    assert_eq!(
        Projection::new_with(lts.clone(), &unbounded.max_states(total as u64 - 1)).unwrap_err(),
        Error::StateBound {
            limit: total - 1,
            what: protocols::Built::LiberalProjection
        }
    );
    assert!(Projection::new_with(lts.clone(), &unbounded.max_states(total as u64)).is_ok());
    assert!(matches!(
        Projection::new_with(lts.clone(), &unbounded.timeout(Duration::ZERO)),
        Err(Error::Timeout {
            what: protocols::Built::LiberalProjection,
            ..
        })
    ));
    assert!(matches!(
        Projection::new_with(lts, &unbounded.max_memory(2 << 10)),
        Err(Error::MemoryBound {
            what: protocols::Built::LiberalProjection,
            ..
        })
    ));
}

/// Soak: the simple entry points (default limits) end a large adversarial
/// file in an error, not in an allocation failure. Slow (a million states).
#[test]
#[ignore]
fn default_limits_end_a_large_adversarial_file_in_an_error() {
    let lts = adversarial(2_000);
    let e = Strict::try_new(lts).unwrap_err();
    assert!(
        matches!(
            e,
            Error::StateBound { .. } | Error::MemoryBound { .. } | Error::Timeout { .. }
        ),
        "{e}"
    );
}

/// A bundled family's parameter is bounded: a mistyped `K` is an error
/// naming the bound, not an attempt to allocate terabytes (before:
/// `token-star:99999999999` aborted the process, `rock-paper-scissors:64`
/// panicked).
#[test]
fn bundled_parameters_past_their_bound_are_errors() {
    use protocols::bundled;
    // What `list` shows as the largest parameter of the token families.
    let max_of = |name: &str| {
        let info = bundled::list().into_iter().find(|p| p.name == name);
        info.and_then(|p| p.param).map(|p| p.max).expect(name)
    };
    let max_roles = max_of("token-star");
    assert!(max_roles >= 1_000, "{max_roles}");
    let too_many = format!("token-star:{}", max_roles + 1);
    let overflowing = "token-star:99999999999999999999999".to_string();
    for name in [too_many.as_str(), "token-star:99999999999", &overflowing] {
        match bundled::spec_by_name(name) {
            Err(e @ Error::BadParameter { .. }) => {
                assert!(
                    e.to_string().contains(&format!("at most {max_roles}")),
                    "{e}"
                )
            }
            other => panic!("{name}: {:?}", other.map(|s| s.name().to_string())),
        }
    }
    let e = bundled::spec_by_name("rock-paper-scissors:64").unwrap_err();
    assert!(e.to_string().contains("at most 19"), "{e}");
    // From 20 players on the first round's 2^K choices of winners outgrow
    // the compiler: refused at once (before: 2 GB for 24 players before the
    // error, and 63 players ran out of memory).
    for k in [20, 24, 63] {
        let e = bundled::spec_by_name(&format!("rock-paper-scissors:{k}")).unwrap_err();
        assert!(e.to_string().contains("at most 19"), "{k}: {e}");
    }
    assert!(bundled::spec_by_name("rock-paper-scissors:19").is_ok());
    // Every family takes its bound, and `list` shows it.
    for info in bundled::list() {
        if let Some(p) = info.param {
            assert!(p.min <= p.default && p.default <= p.max, "{}", info.name);
        }
    }
    assert!(bundled::spec_by_name(&format!(
        "token-directed-ring:{}",
        max_of("token-directed-ring")
    ))
    .is_ok());
}

/// A sequence as long as the test thread's stack cannot hold recursion
/// over compiles: the compiler's right-association of sequences runs on a
/// stack of its own (before: a stack overflow, which aborts the process).
#[test]
fn a_long_sequence_compiles_on_a_small_stack() {
    use protocols::spec::seq;
    let n = 50_000;
    // A long sequence followed by one more message: putting the two in
    // sequence walks the first one's spine.
    let long = seq((0..n).map(|i| {
        if i % 2 == 0 {
            msg("Ping", "a", "b")
        } else {
            msg("Pong", "b", "a")
        }
    }));
    let spec = Spec::new("long", seq([long, msg("Ping", "a", "b")]));
    // 2 MiB, the default of a test thread, stated so the test does not
    // depend on RUST_MIN_STACK.
    let lts = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            spec.compile()
                .map(|l| l.num_states())
                .map_err(|e| e.to_string())
        })
        .unwrap()
        .join()
        .expect("the compiler overflowed its stack")
        .unwrap();
    // A send and its receive a message, and the end.
    assert_eq!(lts, 2 * (n + 1) + 1);
}

/// A build called from code has the time budget of a check called from a
/// test (`engine::DefaultBudgets::Test`): a projection of a small random
/// specification once ran for minutes under the defaults, which had no
/// deadline. Without a deadline it is only on request.
#[test]
fn default_limits_have_the_deadline_of_a_test() {
    let now = Instant::now();
    let budget = engine::DefaultBudgets::Test
        .timeout()
        .expect("a test's budget");
    assert_eq!(Limits::default().deadline(now), Some(now + budget));
    assert_eq!(Limits::default().timeout(Duration::MAX).deadline(now), None);
}
