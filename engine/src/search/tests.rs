//! The two ways to expand a product state, pinned to each other: the
//! depth-first search's resumable [`Search::next`] and the breadth-first
//! search's [`Search::expand`] must give the same successors in the same
//! order (the shortest-path searches that build counterexamples use
//! `next` on states the breadth-first search found with `expand`).

use std::collections::{HashSet, VecDeque};
use std::time::Duration;

use super::expand::Frame;
use super::*;
use crate::ids::DfsNum;
use crate::pattern::valuation;
use crate::successors::Store;
use crate::testing::{LtsProtocol, Rng};

/// Formulas whose automata have one to several states, some wanting every
/// letter and some only a few, with and without acceptance marks.
const FORMULAS: [&str; 8] = [
    r#"G !"DEADLOCK""#,
    r#"G ("r0 SEND *" -> F "r1 RECV *")"#,
    r#"G F "r1 RECV *""#,
    r#"F "END""#,
    r#""r0 SEND *" U "r1 CLOSE *""#,
    r#"G ("r0 SEND <T0>" -> X X "r1 RECV *")"#,
    r#"F G !"r0 RECV *" | G F "END""#,
    r#"G ("r1 SEND * TO r0" -> F ("r0 RECV *" & F "r1 CLOSE *"))"#,
];

fn limits(semantics: Semantics) -> Bounds {
    Bounds {
        max_states: u64::MAX,
        max_depth: u64::MAX,
        timeout: None,
        max_memory: u64::MAX,
        progress: Some(false),
        progress_after: Duration::from_secs(1),
        semantics,
    }
}

#[test]
fn expand_and_next_give_the_same_successors_in_the_same_order() {
    for seed in 0..200 {
        let mut rng = Rng::new(seed);
        let obj = LtsProtocol::draw(&mut rng);
        let formula = FORMULAS[rng.below(FORMULAS.len())];
        let semantics = Semantics::ALL[rng.below(Semantics::ALL.len())];
        let a = obj.alphabet();
        let crate::property::Property {
            automaton: aut,
            atoms,
            ..
        } = crate::property::Property::prepare(formula, &a, None).expect("valid formula");
        let prepared = Prepared::new(&aut, &a, |l| valuation(&a, &atoms, l));
        if prepared.num_states() == 0 {
            continue;
        }
        let limits = limits(semantics);
        let mut ex = Successors::new(a, Store::whole(), 1 << 16, false);
        let initial = ex.store.intern(obj);
        let mut search = Search::with_defaults(&mut ex, &prepared, &limits);
        // Which of the two sees a protocol state first (and so probes it
        // without the cache) alternates between objects.
        let expand_first = rng.chance(1, 2);
        let start = (initial, prepared.initial);
        let mut seen = HashSet::from([start]);
        let mut queue = VecDeque::from([start]);
        while let Some((p, q)) = queue.pop_front() {
            let mut expanded = Vec::new();
            let (n, by_next) = if expand_first {
                let n = search.expand(p, q, &mut expanded).unwrap();
                (n, search.all_successors(p, q).unwrap())
            } else {
                let by_next = search.all_successors(p, q).unwrap();
                (search.expand(p, q, &mut expanded).unwrap(), by_next)
            };
            let targets: Vec<ProductState> = by_next.iter().map(|s| (s.proto, s.state)).collect();
            assert_eq!(expanded, targets, "seed {seed}, {formula}, {semantics:?}");
            assert_eq!(
                n as usize,
                targets.len(),
                "seed {seed}: the transitions counted"
            );
            for t in expanded {
                if seen.insert(t) {
                    queue.push_back(t);
                }
            }
        }
    }
}

/// The frame's phase replaced four bit flags in the same two bytes: the
/// depth-first stack does not grow.
#[test]
fn a_frame_is_as_small_as_with_bit_flags() {
    assert_eq!(std::mem::size_of::<Frame>(), 24);
}

/// The shortest-path walk that builds a counterexample runs on the
/// search's own budget: after a huge search it re-probes and indexes the
/// states again, and must stop where the search itself would (the check
/// is then inconclusive) instead of hanging or taking the machine.
#[test]
fn building_a_counterexample_stops_at_the_searchs_budget() {
    let obj = LtsProtocol::draw(&mut Rng::new(7));
    let a = obj.alphabet();
    let crate::property::Property {
        automaton: aut,
        atoms,
        ..
    } = crate::property::Property::prepare(r#"F "END""#, &a, None).expect("valid formula");
    let prepared = Prepared::new(&aut, &a, |l| valuation(&a, &atoms, l));
    let mut ex = Successors::new(a, Store::whole(), 1 << 16, false);
    let initial = ex.store.intern(obj);
    let start = (initial, prepared.initial);
    let free = limits(Semantics::Stutter);
    // Any process holds more than one byte: the first tick is over budget.
    let tight = Bounds {
        max_memory: 1,
        ..free.clone()
    };
    let mut search = Search::with_defaults(&mut ex, &prepared, &tight);
    let path = search.bfs(start, DfsNum::FIRST, false, |_, _, _| true);
    assert!(
        matches!(path, Ok(lasso::Path::Cut(Limit::Memory(1)))),
        "not cut by the memory budget"
    );
    drop(search);
    // Within the budget the same walk runs (and, nothing being visited
    // yet, finds nothing).
    let mut search = Search::with_defaults(&mut ex, &prepared, &free);
    let path = search.bfs(start, DfsNum::FIRST, false, |_, _, _| true);
    assert!(matches!(path, Ok(lasso::Path::NotFound)));
}

/// Two counters to 40, one per role: 1,681 states, a wide frontier.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Grid([u8; 2]);

impl Protocol for Grid {
    fn roles(&self) -> Vec<String> {
        vec!["a".into(), "b".into()]
    }
    fn try_send(
        &mut self,
        role: crate::RoleId,
        to: crate::RoleId,
        m: crate::Message,
    ) -> Result<(), crate::Refused<crate::Message>> {
        if to != role && self.0[role] < 40 {
            self.0[role] += 1;
            Ok(())
        } else {
            Err(crate::Refused(m))
        }
    }
    fn try_recv(
        &mut self,
        _: crate::RoleId,
        _: Option<crate::RoleId>,
    ) -> Result<(crate::RoleId, crate::Message), crate::Refused> {
        Err(crate::Refused(()))
    }
}

/// Under hash compaction the store keeps objects only while the search
/// holds them: once a search that holds is over, only the initial object
/// (kept for the session) is left, in both searches, and every state was
/// still found (the same counts as the exact store).
#[test]
fn hash_compaction_keeps_no_object_the_search_does_not_hold() {
    #[derive(Clone, Debug)]
    struct Tick;
    for formula in [r#"G !"a CLOSE *""#, r#"F "DEADLOCK""#] {
        let mut counts = Vec::new();
        for compact in [false, true] {
            let obj = Grid([0, 0]);
            let a = crate::alphabet::Alphabet::with_topology(
                obj.roles(),
                vec![crate::Message::new(Tick)],
                obj.type_names(),
                |r| obj.peers(r),
                |r| obj.sends_to(r),
            )
            .expect("a small alphabet");
            let crate::property::Property {
                automaton: aut,
                atoms,
                ..
            } = crate::property::Property::prepare(formula, &a, None).expect("valid");
            let prepared = Prepared::new(&aut, &a, |l| valuation(&a, &atoms, l));
            let limits = limits(Semantics::Stutter);
            let store = if compact {
                Store::fingerprinted(false)
            } else {
                Store::whole()
            };
            let mut ex = Successors::new(a, store, 1 << 16, true);
            let initial = ex.store.intern(obj);
            ex.store.keep_forever(initial);
            let mut search = Search::with_defaults(&mut ex, &prepared, &limits);
            assert!(
                matches!(search.run(initial), Ok(SearchOutcome::Holds)),
                "{formula}"
            );
            counts.push((search.stats.product_states, search.stats.transitions));
            drop(search);
            // Exact: an id for every state. Compacted: the safety search
            // (breadth-first, with its own set of fingerprints) gives ids
            // only to the states it holds, so none is left but the
            // initial one; the depth-first search numbers every state.
            let safety = formula.starts_with('G');
            let ids = if compact && safety { 1 } else { 41 * 41 };
            assert_eq!(ex.store.len(), ids, "{formula}");
            if compact {
                assert_eq!(ex.store.resident(), 1, "{formula}");
            }
        }
        assert_eq!(counts[0], counts[1], "{formula}");
    }
}
