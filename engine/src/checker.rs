//! The `Checker` builder, sessions and the check pipeline:
//! formula → atoms → automaton of the negation → product search → report.

use std::time::{Duration, Instant};

use owl_lite::Automaton;

use crate::alphabet::{resolve_dummies, Alphabet};
use crate::error::{AtomError, Error};
use crate::explore::Explorer;
use crate::pattern::{parse_atom, Atom};
use crate::protocol::{Message, Protocol};
use crate::report::{Counterexample, Report, Verdict};
use crate::search::{steps_of, Limits, Outcome, Prepared, Search};

/// What a finite run means (design §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Semantics {
    /// SPIN's convention (the default): a run that stops — because the
    /// protocol terminated or because it deadlocked — is extended with
    /// stutter steps forever, on which no action atom holds and `"END"` or
    /// `"DEADLOCK"` does. Finite runs can violate properties.
    #[default]
    Stutter,
    /// Only infinite runs count, as in Prut4j: a run that stops is never a
    /// counterexample, and `"END"`/`"DEADLOCK"` never hold.
    InfiniteRunsOnly,
}

/// A configurable check. Every option defaults from an environment
/// variable, so a failing test can be rerun with other limits without
/// changing its code:
///
/// | option | variable | default |
/// |---|---|---|
/// | [`max_states`](Self::max_states) | `PRUST_MAX_STATES` | 10 000 000 |
/// | [`max_depth`](Self::max_depth) | `PRUST_MAX_DEPTH` | unlimited |
/// | [`timeout`](Self::timeout) | `PRUST_TIMEOUT` (seconds) | none |
/// | [`semantics`](Self::semantics) | `PRUST_SEMANTICS` (`stutter` or `omega`) | `stutter` |
/// | [`progress`](Self::progress) | `PRUST_PROGRESS` (`1`/`0`) | when stderr is a terminal |
/// | [`determinism_check`](Self::determinism_check) | `PRUST_DETERMINISM` (`1`/`0`) | on in debug builds |
/// | [`trail_dir`](Self::trail_dir) | `PRUST_TRAIL_DIR` (a directory) | none: no trail files |
///
/// ```
/// use engine::{Checker, Semantics};
/// let checker = Checker::new().max_states(1_000_000).semantics(Semantics::Stutter);
/// # let _ = checker;
/// ```
#[derive(Debug, Clone)]
pub struct Checker {
    limits: Limits,
    determinism: bool,
    cache_limit: usize,
    /// Where [`assert_holds`](Self::assert_holds) saves counterexamples.
    trail_dir: Option<std::path::PathBuf>,
}

fn env<T: std::str::FromStr>(name: &str) -> Option<T> {
    let v = std::env::var(name).ok()?;
    match v.trim().parse() {
        Ok(x) => Some(x),
        Err(_) => panic!("environment variable {name}={v:?} is not valid"),
    }
}

fn env_bool(name: &str) -> Option<bool> {
    let v = std::env::var(name).ok()?;
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Some(true),
        "0" | "false" | "no" | "off" => Some(false),
        _ => panic!("environment variable {name}={v:?} is not a boolean (1/0)"),
    }
}

impl Default for Checker {
    fn default() -> Self {
        Self::new()
    }
}

impl Checker {
    /// A checker with the defaults, overridden by the `PRUST_*`
    /// environment variables (see the table above).
    ///
    /// # Panics
    /// If one of the variables is set to something that does not parse.
    pub fn new() -> Checker {
        let semantics = std::env::var("PRUST_SEMANTICS").ok().map(|v| {
            match v.trim().to_ascii_lowercase().as_str() {
                "stutter" | "spin" => Semantics::Stutter,
                "omega" | "infinite" | "infinite-runs-only" | "prut4j" => {
                    Semantics::InfiniteRunsOnly
                }
                _ => panic!("PRUST_SEMANTICS={v:?}: expected `stutter` or `omega`"),
            }
        });
        Checker {
            limits: Limits {
                max_states: env("PRUST_MAX_STATES").unwrap_or(10_000_000),
                max_depth: env("PRUST_MAX_DEPTH").unwrap_or(u64::MAX),
                timeout: env::<f64>("PRUST_TIMEOUT").map(Duration::from_secs_f64),
                progress: env_bool("PRUST_PROGRESS"),
                semantics: semantics.unwrap_or_default(),
            },
            determinism: env_bool("PRUST_DETERMINISM").unwrap_or(cfg!(debug_assertions)),
            cache_limit: 1 << 20,
            trail_dir: std::env::var_os("PRUST_TRAIL_DIR")
                .filter(|d| !d.is_empty())
                .map(Into::into),
        }
    }

    /// Stop (inconclusive) after this many product states.
    pub fn max_states(mut self, n: u64) -> Self {
        self.limits.max_states = n;
        self
    }

    /// Do not explore states more than `n` steps from the initial one (the
    /// verdict is then at best inconclusive).
    pub fn max_depth(mut self, n: u64) -> Self {
        self.limits.max_depth = n;
        self
    }

    /// Stop (inconclusive) after this much wall-clock time.
    pub fn timeout(mut self, t: Duration) -> Self {
        self.limits.timeout = Some(t);
        self
    }

    /// The meaning of finite runs.
    pub fn semantics(mut self, s: Semantics) -> Self {
        self.limits.semantics = s;
        self
    }

    /// Run every probe on two clones and report differing results as
    /// [`Error::Nondeterminism`]; also check that refusals leave the object
    /// unchanged. Doubles the probing cost.
    pub fn determinism_check(mut self, on: bool) -> Self {
        self.determinism = on;
        self
    }

    /// Show a progress line on stderr once a check runs longer than a
    /// second (`false`: never; default: when stderr is a terminal).
    pub fn progress(mut self, on: bool) -> Self {
        self.limits.progress = Some(on);
        self
    }

    /// How many successor entries (8 bytes each) the protocol-successor
    /// cache may hold before it is flushed. Default 1 Mi (8 MiB).
    pub fn cache_limit(mut self, entries: usize) -> Self {
        self.cache_limit = entries;
        self
    }

    /// Save the counterexample of every failing
    /// [`assert_holds`](Self::assert_holds) (and so of every failing
    /// [`check`]) as a trail file in `dir`, and name the file in the panic
    /// message (default: `PRUST_TRAIL_DIR`, unset: no file). The file name
    /// is unique per failure: see [`Trail`](crate::Trail) for the format
    /// and [`Trail::read`](crate::Trail::read) to load it again. Only
    /// counterexamples are saved; the verdict is never affected.
    ///
    /// ```
    /// // In a test: keep the counterexamples of failing checks in
    /// // target/trails (tests run in parallel: set the directory per
    /// // checker rather than with the process-wide variable).
    /// let checker = engine::Checker::new().trail_dir("target/trails");
    /// # let _ = checker;
    /// ```
    pub fn trail_dir(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.trail_dir = Some(dir.into());
        self
    }

    /// Checks that every run of `proto` satisfies `formula`, as [`check`]
    /// does with this checker's options, and returns the report.
    ///
    /// # Panics
    /// With the full report unless the property is proven. With
    /// [`trail_dir`](Self::trail_dir) set, a counterexample is first saved
    /// as a trail file, whose path the message names.
    #[track_caller]
    pub fn assert_holds<P: Protocol>(
        &self,
        formula: &str,
        proto: P,
        dummies: Vec<Message>,
    ) -> Report {
        match self.check(formula, proto, dummies) {
            Ok(r) if r.holds() => r,
            Ok(r) => match (&self.trail_dir, r.counterexample()) {
                (Some(dir), Some(_)) => {
                    match crate::trail::save(dir, &r, std::any::type_name::<P>()) {
                        Ok(path) => panic!(
                            "{r}\n  counterexample saved to {} (engine::Trail::read, then replay)",
                            path.display()
                        ),
                        Err(e) => panic!(
                            "{r}\n  could not save the counterexample in {}: {e}",
                            dir.display()
                        ),
                    }
                }
                _ => panic!("{r}"),
            },
            Err(e) => panic!("prust: {e}"),
        }
    }

    /// Checks one formula on `proto`, probing every send with each of
    /// `dummies` (see [`session`](Self::session) for what they must be).
    pub fn check<P: Protocol>(
        &self,
        formula: &str,
        proto: P,
        dummies: Vec<Message>,
    ) -> Result<Report, Error> {
        self.session(proto, dummies)?.check(formula)
    }

    /// A session for checking several formulas on one object, sharing the
    /// stored protocol states and their successors.
    ///
    /// If the object declares its message types
    /// ([`Protocol::type_names`]), `dummies` must stand for exactly those,
    /// one dummy per type, or this is [`Error::Dummies`]; an empty list
    /// means the object's own ([`declared_dummies`](crate::declared_dummies)).
    /// An object that declares nothing is checked with `dummies` as given,
    /// and the sends of a type without a dummy are never probed.
    pub fn session<P: Protocol>(
        &self,
        proto: P,
        dummies: Vec<Message>,
    ) -> Result<CheckSession<P>, Error> {
        let roles = proto.roles();
        if roles.is_empty() {
            return Err(Error::NoRoles);
        }
        let declared = proto.type_names();
        let dummies = resolve_dummies(&declared, dummies)?;
        let mut alphabet = Alphabet::new(roles, dummies, declared);
        alphabet.set_topology(|r| proto.peers(r), |r| proto.sends_to(r));
        let mut explorer = Explorer::new(alphabet, self.cache_limit, self.determinism);
        let initial = explorer.intern(proto);
        Ok(CheckSession {
            checker: self.clone(),
            explorer,
            initial,
        })
    }
}

/// Several checks on one protocol object (see [`Checker::session`]).
pub struct CheckSession<P> {
    checker: Checker,
    explorer: Explorer<P>,
    initial: u32,
}

impl<P: Protocol> CheckSession<P> {
    /// Checks a formula.
    pub fn check(&mut self, formula: &str) -> Result<Report, Error> {
        let started = Instant::now();
        let (aut, atoms) = crate::frontend::automaton_for(formula, &self.explorer.alphabet)?;
        self.check_automaton(formula, &aut, &atoms, started)
    }

    /// Checks that no run is accepted by `aut` (the automaton of the
    /// *negated* property), whose atoms are the parsed `atoms`.
    pub(crate) fn check_automaton(
        &mut self,
        formula: &str,
        aut: &Automaton,
        atoms: &[Atom],
        started: Instant,
    ) -> Result<Report, Error> {
        let a = &self.explorer.alphabet;
        let prepared = Prepared::new(aut, a, |l| valuation(a, atoms, l));
        let limits = &self.checker.limits;
        let mut search = Search::new(&mut self.explorer, &prepared, limits);
        let outcome = search.run(self.initial);
        let mut stats = search.stats.clone();
        stats.protocol_states = self.explorer.num_protos() as u64;
        stats.time = started.elapsed();
        let verdict = match outcome? {
            Outcome::Holds => Verdict::Holds,
            Outcome::Inconclusive(limit) => Verdict::Inconclusive {
                limit,
                explored: stats.product_states,
            },
            Outcome::Violated(raw) => {
                let (prefix, cycle, ending) = steps_of(&self.explorer, &raw);
                let dummies = self
                    .explorer
                    .alphabet
                    .types
                    .iter()
                    .filter_map(|t| t.dummy.clone())
                    .collect();
                Verdict::Violated(Counterexample {
                    prefix,
                    cycle,
                    ending,
                    dummies,
                    roles: self.explorer.alphabet.roles.clone(),
                })
            }
        };
        Ok(Report {
            formula: formula.to_string(),
            semantics: limits.semantics,
            verdict,
            stats,
        })
    }
}

/// The atoms (bit `i` = `atoms[i]`) that hold on letter `l`.
pub(crate) fn valuation(a: &Alphabet, atoms: &[Atom], l: usize) -> u64 {
    let mut v = 0u64;
    for (i, atom) in atoms.iter().enumerate() {
        let holds = match atom {
            Atom::True => true,
            Atom::False => false,
            Atom::End => l == a.end() as usize,
            Atom::Deadlock => l == a.deadlock() as usize,
            Atom::Action(pat) => l < a.num_actions() && pat.matches(&a.letters[l], a),
        };
        if holds {
            v |= 1 << i;
        }
    }
    v
}

/// Parses and name-checks every atom text.
pub(crate) fn resolve_atoms(texts: &[String], alphabet: &Alphabet) -> Result<Vec<Atom>, AtomError> {
    texts
        .iter()
        .map(|t| {
            let atom = parse_atom(t)?;
            if let Atom::Action(p) = &atom {
                p.check_names(t, alphabet)?;
            }
            Ok(atom)
        })
        .collect()
}

/// Checks `formula` on `proto` with the default [`Checker`] and returns the
/// report, or why no verdict could be reached.
pub fn try_check<P: Protocol>(
    formula: &str,
    proto: P,
    dummies: Vec<Message>,
) -> Result<Report, Error> {
    Checker::new().check(formula, proto, dummies)
}

/// Checks that every run of `proto` satisfies `formula`: returns normally if
/// it does.
///
/// # Panics
/// With the full report — the counterexample, or why the search was
/// inconclusive, or the error — if the property is not proven. With
/// `PRUST_TRAIL_DIR=dir` set, a counterexample is also saved as a trail
/// file in `dir` and the message names it (see [`Checker::trail_dir`]).
#[track_caller]
pub fn check<P: Protocol>(formula: &str, proto: P, dummies: Vec<Message>) -> Report {
    Checker::new().assert_holds(formula, proto, dummies)
}

/// Checks that some run of `proto` violates `formula`, and returns that
/// run: for properties that must fail.
///
/// # Panics
/// With the full report if the property holds, the search was
/// inconclusive, or there was an error.
#[track_caller]
pub fn check_violated<P: Protocol>(
    formula: &str,
    proto: P,
    dummies: Vec<Message>,
) -> Counterexample {
    match try_check(formula, proto, dummies) {
        Ok(Report {
            verdict: Verdict::Violated(c),
            ..
        }) => c,
        Ok(r) => panic!("expected a violation, but: {r}"),
        Err(e) => panic!("prust: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Refused, RoleId};
    use owl_lite::{Cube, Edge, Guard};

    #[derive(Clone, Debug)]
    struct Ping;

    /// a sends Ping to b through a 1-slot channel, b receives; after
    /// `rounds` receptions b stops (deadlock if `rounds` is finite: a
    /// cannot send into a full channel forever... it just stops).
    #[derive(Clone, Debug, PartialEq, Eq, Hash)]
    struct PingPong {
        full: bool,
        received: u8,
        rounds: Option<u8>,
    }

    impl Protocol for PingPong {
        fn roles(&self) -> Vec<String> {
            vec!["a".into(), "b".into()]
        }
        fn try_send(
            &mut self,
            role: RoleId,
            to: RoleId,
            msg: Message,
        ) -> Result<(), Refused<Message>> {
            if role == 0 && to == 1 && !self.full && Some(self.received) != self.rounds {
                self.full = true;
                Ok(())
            } else {
                Err(Refused(msg))
            }
        }
        fn try_recv(
            &mut self,
            role: RoleId,
            from: Option<RoleId>,
        ) -> Result<(RoleId, Message), Refused> {
            if role == 1 && from.unwrap_or(0) == 0 && self.full {
                self.full = false;
                self.received += 1;
                Ok((0, Message::new(Ping)))
            } else {
                Err(Refused(()))
            }
        }
    }

    fn cube(pos: u64, neg: u64) -> Guard {
        Guard {
            cubes: vec![Cube { pos, neg }],
        }
    }

    /// F atom0 (the negation of G !atom0).
    fn eventually() -> Automaton {
        Automaton {
            atoms: vec!["x".into()],
            initial: 0,
            edges: vec![
                vec![
                    Edge {
                        target: 0,
                        guard: cube(0, 0),
                        acc: 0,
                    },
                    Edge {
                        target: 1,
                        guard: cube(1, 0),
                        acc: 0,
                    },
                ],
                vec![Edge {
                    target: 1,
                    guard: cube(0, 0),
                    acc: 1,
                }],
            ],
            acceptance_sets: 1,
        }
    }

    fn run(proto: PingPong, atom: Atom, semantics: Semantics) -> Report {
        let mut s = Checker::new()
            .semantics(semantics)
            .session(proto, vec![Message::new(Ping)])
            .unwrap();
        s.check_automaton("G !x", &eventually(), &[atom], Instant::now())
            .unwrap()
    }

    #[test]
    fn deadlock_is_found_under_stutter_semantics_only() {
        let p = PingPong {
            full: false,
            received: 0,
            rounds: Some(2),
        };
        let r = run(p.clone(), Atom::Deadlock, Semantics::Stutter);
        let c = r.counterexample().expect("deadlocks after two rounds");
        assert_eq!(c.prefix.len(), 4, "{c}");
        assert!(matches!(c.ending, Some(crate::Ending::Deadlock { .. })));
        assert!(
            c.to_string()
                .contains("then nothing can happen: deadlock (waiting: a, b)"),
            "{c}"
        );
        c.replay(p.clone());
        let r = run(p, Atom::Deadlock, Semantics::InfiniteRunsOnly);
        assert!(r.holds(), "{r}");
    }

    #[test]
    fn infinite_protocol_holds_and_violations_have_cycles() {
        let p = PingPong {
            full: false,
            received: 0,
            rounds: None,
        };
        // received wraps at 255 -> overflow in debug; keep `received` small by
        // checking only the reachable part up to a bound via the state limit.
        let mut s = Checker::new()
            .max_states(100)
            .session(p.clone(), vec![Message::new(Ping)])
            .unwrap();
        let r = s
            .check_automaton("G !x", &eventually(), &[Atom::Deadlock], Instant::now())
            .unwrap();
        assert!(matches!(r.verdict, Verdict::Inconclusive { .. }), "{r}");
    }
}
