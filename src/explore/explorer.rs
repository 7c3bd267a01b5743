//! [`Explorer`]: the options of an exploration, and the depth-first search
//! over schedules (stateless: every execution re-runs the program from the
//! start, following a prefix of choices, as Déjà Fu and loom do).

use std::collections::HashMap;
use std::fmt;
use std::time::{Duration, Instant};

use engine::{Protocol, RoleId};

use super::property::Property;
use super::report::{Action, Exploration, Failure, Outcome, TraceStep};
use super::roles::Roles;
use super::schedule::{Choice, Schedule};
use super::scheduler::{self, Act, ActKind, Alt, Chooser, Decision, End, Run, RunLimits};

/// Why an exploration could not start: bad options or a bad program.
#[derive(Debug)]
pub enum ExploreError {
    /// A `PRUST_*` variable does not parse.
    Env {
        /// The variable.
        variable: String,
        /// Its value.
        value: String,
        /// What is wrong and what is accepted.
        message: String,
    },
    /// The property does not parse, or names a role or type the object
    /// does not have (as `engine::check` reports it).
    Property(engine::Error),
    /// The program spawned a role the object does not have, or one twice.
    Program(String),
}

impl fmt::Display for ExploreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExploreError::Env {
                variable,
                value,
                message,
            } => write!(
                f,
                "environment variable {variable}={value:?} is not valid: {message}"
            ),
            ExploreError::Property(e) => write!(f, "the property: {e}"),
            ExploreError::Program(e) => write!(f, "the program: {e}"),
        }
    }
}

impl std::error::Error for ExploreError {}

/// The options of an exploration, as a builder. [`Explorer::new`] takes
/// its defaults from the environment:
///
/// | variable | option | default |
/// |---|---|---|
/// | `PRUST_PREEMPTION_BOUND` | [`preemption_bound`](Self::preemption_bound) (`none` or a number) | none: exhaustive |
/// | `PRUST_MAX_STEPS` | [`max_steps`](Self::max_steps) per execution | 10 000 |
/// | `PRUST_MAX_EXECUTIONS` | [`max_executions`](Self::max_executions) | 100 000 |
/// | `PRUST_TIMEOUT` | [`timeout`](Self::timeout) in seconds (`inf`: none) | none |
/// | `PRUST_ROLE_TIMEOUT` | [`role_timeout`](Self::role_timeout) in seconds | 10 |
/// | `PRUST_SCHEDULE` | [`replay`](Self::replay) this printed schedule | explore |
/// | `PRUST_REDUCTION` | [`reduction`](Self::reduction): `none`, `sleep-sets` or `dpor` | DPOR |
///
/// Every bound that cuts the exploration short makes it incomplete
/// ([`Exploration::is_complete`] is false, and so is
/// [`Exploration::is_successful`]): a bounded exploration is never
/// reported as a proof.
///
/// ```
/// use std::time::Duration;
/// use prust::explore::Explorer;
/// let explorer = Explorer::new()
///     .preemption_bound(Some(2))
///     .max_steps(1_000)
///     .timeout(Duration::from_secs(60))
///     .property(r#"F "END""#);
/// # let _ = explorer;
/// ```
#[derive(Debug, Clone)]
pub struct Explorer {
    preemption_bound: Option<usize>,
    max_steps: usize,
    max_executions: usize,
    timeout: Option<Duration>,
    role_timeout: Duration,
    property: Option<String>,
    replay: Option<Schedule>,
    reduction: Reduction,
    simplify: bool,
}

/// How the explorer avoids running schedules equivalent to ones it ran
/// (orders of independent steps: different roles, different channels,
/// operations that commute on the object).
///
/// ```
/// use prust::explore::Reduction;
/// assert_eq!("none".parse::<Reduction>(), Ok(Reduction::None));
/// assert_eq!(Reduction::SleepSets.to_string(), "sleep-sets");
/// assert_eq!("dpor".parse::<Reduction>(), Ok(Reduction::Dpor));
/// assert_eq!(Reduction::default(), Reduction::Dpor);
/// assert!("fast".parse::<Reduction>().is_err());
/// ```
///
/// Every reduction is turned off (plain depth-first search) by a
/// preemption bound, which could cut a schedule whose only equivalent was
/// itself cut by the bound, and by a property, which may tell two orders
/// of independent steps apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Reduction {
    /// Plain depth-first search: every schedule.
    None,
    /// Sleep sets: a schedule that only reorders independent steps of
    /// one already run is cut short. The outcomes found are the same; the
    /// executions fewer.
    SleepSets,
    /// Dynamic partial-order reduction with sleep sets (the default): at
    /// each scheduling point only the choices that reverse a race seen in
    /// an execution (two dependent steps of different roles that nothing
    /// else orders) are explored, besides the first. Dependent means: the
    /// same role, the same channel, or the two operations do not commute
    /// on the object (both orders applied on clones of the object must be
    /// accepted and give equal objects). The outcomes found are the same
    /// as plain depth-first search's; the executions far fewer when roles
    /// mostly talk on different channels.
    #[default]
    Dpor,
}

impl fmt::Display for Reduction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Reduction::None => "none",
            Reduction::SleepSets => "sleep-sets",
            Reduction::Dpor => "dpor",
        })
    }
}

impl std::str::FromStr for Reduction {
    type Err = String;

    fn from_str(s: &str) -> Result<Reduction, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "none" | "off" => Ok(Reduction::None),
            "sleep-sets" | "sleep" => Ok(Reduction::SleepSets),
            "dpor" => Ok(Reduction::Dpor),
            _ => Err(format!(
                "unknown reduction `{s}`: expected none, sleep-sets or dpor"
            )),
        }
    }
}

fn env_error(variable: &str, value: &str, message: &str) -> ExploreError {
    ExploreError::Env {
        variable: variable.into(),
        value: value.into(),
        message: message.into(),
    }
}

fn env_var(name: &str) -> Result<Option<String>, ExploreError> {
    match std::env::var(name) {
        Ok(v) => Ok(Some(v)),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(v)) => {
            Err(env_error(name, &v.to_string_lossy(), "not valid Unicode"))
        }
    }
}

fn env_count(name: &str) -> Result<Option<usize>, ExploreError> {
    let Some(v) = env_var(name)? else {
        return Ok(None);
    };
    let digits: String = v.trim().chars().filter(|&c| c != '_').collect();
    digits
        .parse()
        .map(Some)
        .map_err(|_| env_error(name, &v, "expected a whole number such as 1000"))
}

/// Seconds, `inf` or above 10⁹ for none.
fn env_seconds(name: &str) -> Result<Option<Option<Duration>>, ExploreError> {
    let Some(v) = env_var(name)? else {
        return Ok(None);
    };
    let secs: f64 = v
        .trim()
        .parse()
        .map_err(|_| env_error(name, &v, "expected a number of seconds such as 30 or 0.5"))?;
    if secs.is_nan() || secs < 0.0 {
        return Err(env_error(
            name,
            &v,
            "expected a non-negative number of seconds",
        ));
    }
    Ok(Some(if secs > 1e9 {
        None
    } else {
        Some(Duration::from_secs_f64(secs))
    }))
}

impl Default for Explorer {
    fn default() -> Self {
        Self::new()
    }
}

impl Explorer {
    /// An explorer with the defaults, overridden by the `PRUST_*`
    /// variables (see the table above).
    ///
    /// # Panics
    /// If a variable does not parse, with the message of the error that
    /// [`from_env`](Self::from_env) returns.
    pub fn new() -> Explorer {
        Self::from_env().unwrap_or_else(|e| panic!("prust explore: {e}"))
    }

    /// An explorer with the defaults, overridden by the `PRUST_*`
    /// variables; one that does not parse is an [`ExploreError::Env`].
    pub fn from_env() -> Result<Explorer, ExploreError> {
        let preemption_bound = match env_var("PRUST_PREEMPTION_BOUND")? {
            None => None,
            Some(v) if v.trim().eq_ignore_ascii_case("none") => None,
            Some(_) => env_count("PRUST_PREEMPTION_BOUND")?,
        };
        let replay = match env_var("PRUST_SCHEDULE")? {
            None => None,
            Some(v) => Some(
                v.parse::<Schedule>()
                    .map_err(|e| env_error("PRUST_SCHEDULE", &v, &e.to_string()))?,
            ),
        };
        Ok(Explorer {
            preemption_bound,
            max_steps: env_count("PRUST_MAX_STEPS")?.unwrap_or(10_000),
            max_executions: env_count("PRUST_MAX_EXECUTIONS")?.unwrap_or(100_000),
            timeout: env_seconds("PRUST_TIMEOUT")?.unwrap_or(None),
            role_timeout: env_seconds("PRUST_ROLE_TIMEOUT")?
                .unwrap_or(Some(Duration::from_secs(10)))
                .unwrap_or(Duration::from_secs(1 << 30)),
            property: None,
            replay,
            simplify: true,
            reduction: match env_var("PRUST_REDUCTION")? {
                None => Reduction::default(),
                Some(v) => v
                    .parse()
                    .map_err(|e: String| env_error("PRUST_REDUCTION", &v, &e))?,
            },
        })
    }

    /// Bounds the number of preemptions per execution (switching away from
    /// a role that could go on); Déjà Fu's default is 2. `None` explores
    /// every schedule. Schedules skipped by the bound make the exploration
    /// incomplete.
    pub fn preemption_bound(mut self, bound: Option<usize>) -> Self {
        self.preemption_bound = bound;
        self
    }

    /// Stops an execution after `n` steps (endpoint operations): it is
    /// then [`Outcome::Aborted`] and the exploration incomplete.
    pub fn max_steps(mut self, n: usize) -> Self {
        self.max_steps = n;
        self
    }

    /// Stops the exploration after `n` executions (incomplete if any
    /// schedule is left).
    pub fn max_executions(mut self, n: usize) -> Self {
        self.max_executions = n;
        self
    }

    /// Stops the exploration after this much time (incomplete).
    pub fn timeout(mut self, t: Duration) -> Self {
        self.timeout = Some(t);
        self
    }

    /// How long a role may run its own code between two endpoint
    /// operations before it is reported [`Outcome::Stuck`] (blocked or
    /// busy outside the session).
    pub fn role_timeout(mut self, t: Duration) -> Self {
        self.role_timeout = t;
        self
    }

    /// Checks every execution's sequence of actions, a finite run of the
    /// protocol, against this LTL formula under the stutter semantics
    /// (`"END"` holds after a run that ends with the protocol terminated,
    /// `"DEADLOCK"` after one that does not), with the same atoms and name
    /// checking as `engine::check`: a role or type the object does not
    /// have is an error, not a silent pass. Only executions that end
    /// without another failure are checked (the others are failures
    /// already, and a run cut short by a panic is not a run of the
    /// protocol).
    pub fn property(mut self, ltl_formula: &str) -> Self {
        self.property = Some(ltl_formula.to_string());
        self
    }

    /// How schedules equivalent to ones already run are skipped (see
    /// [`Reduction`]; default from `PRUST_REDUCTION`, else DPOR).
    pub fn reduction(mut self, reduction: Reduction) -> Self {
        self.reduction = reduction;
        self
    }

    /// Whether each failure's schedule is simplified (on by default):
    /// steps are moved next to the same role's steps where that cuts
    /// context switches, and a change is kept only if re-running the new
    /// schedule ends in the same outcome.
    pub fn simplify(mut self, on: bool) -> Self {
        self.simplify = on;
        self
    }

    /// Runs exactly one execution, following `schedule` (as a failure
    /// prints it); past its end, each step takes the first enabled
    /// choice. A choice that is not enabled where the schedule says is
    /// reported as [`Outcome::Nondeterministic`].
    pub fn replay(mut self, schedule: &Schedule) -> Self {
        self.replay = Some(schedule.clone());
        self
    }

    /// Explores `program`'s schedules on `object`.
    ///
    /// # Panics
    /// On the errors [`try_explore`](Self::try_explore) returns (a bad
    /// property or a program that spawns a role the object lacks), with
    /// their message: in a test, a misspelled role must fail the test.
    pub fn explore<P, F>(&self, object: P, program: F) -> Exploration
    where
        P: Protocol,
        F: Fn(&mut Roles<'_, P>) + Sync,
    {
        self.try_explore(object, program)
            .unwrap_or_else(|e| panic!("prust explore: {e}"))
    }

    /// Explores `program`'s schedules on `object`, or says why it cannot.
    pub fn try_explore<P, F>(&self, object: P, program: F) -> Result<Exploration, ExploreError>
    where
        P: Protocol,
        F: Fn(&mut Roles<'_, P>) + Sync,
    {
        let started = Instant::now();
        let names = object.roles();
        let mut property = match &self.property {
            None => None,
            Some(f) => Some(
                Property::new(f, names.clone(), object.type_names())
                    .map_err(ExploreError::Property)?,
            ),
        };
        let limits = RunLimits {
            max_steps: self.max_steps,
            role_timeout: self.role_timeout,
            deadline: self.timeout.map(|t| started + t),
        };
        // One scope for the whole exploration: its threads run the role
        // bodies of every execution (see `Pool`).
        std::thread::scope(|scope| {
            let pool = scheduler::Pool::new(scope);
            let mut found = Found::default();
            let mut incomplete: Option<String> = None;
            let mut executions = 0;
            let mut pruned = 0;
            let mut redundant = 0;
            if let Some(schedule) = &self.replay {
                let mut chooser = Replay {
                    schedule,
                    names: &names,
                };
                let run = scheduler::run(&pool, &object, &program, limits, &mut chooser);
                executions = 1;
                if let Some(cut) = found.add(&names, run, property.as_mut())? {
                    incomplete = Some(cut);
                }
            } else {
                // A reduction with a preemption bound could cut a schedule
                // whose equivalent was itself cut by the bound; with a
                // property, two orders of independent steps may differ.
                let reduce = self.preemption_bound.is_none() && self.property.is_none();
                let mut dfs = Dfs {
                    stack: Vec::new(),
                    depth: 0,
                    bound: self.preemption_bound,
                    sleep_sets: reduce && self.reduction != Reduction::None,
                    dpor: reduce && self.reduction == Reduction::Dpor,
                    pruned: 0,
                    names: &names,
                };
                loop {
                    if executions >= self.max_executions {
                        incomplete = Some(format!(
                            "stopped after max_executions = {} (raise it with \
                             Explorer::max_executions or PRUST_MAX_EXECUTIONS)",
                            self.max_executions
                        ));
                        found.push_aborted(incomplete.as_deref().unwrap_or_default());
                        break;
                    }
                    dfs.depth = 0;
                    let run = scheduler::run(&pool, &object, &program, limits, &mut dfs);
                    executions += 1;
                    if matches!(run.end, End::Redundant) {
                        redundant += 1;
                        if !dfs.backtrack() {
                            break;
                        }
                        continue;
                    }
                    let stop_all = matches!(
                        run.end,
                        End::Time | End::Stuck { .. } | End::Diverged { .. }
                    );
                    if let Some(cut) = found.add(&names, run, property.as_mut())? {
                        incomplete.get_or_insert(cut);
                    }
                    if stop_all {
                        break;
                    }
                    if !dfs.backtrack() {
                        break;
                    }
                }
                pruned = dfs.pruned;
                if pruned > 0 && incomplete.is_none() {
                    incomplete = Some(format!(
                        "the preemption bound {} skipped {pruned} choice{}",
                        self.preemption_bound.unwrap_or_default(),
                        if pruned == 1 { "" } else { "s" }
                    ));
                }
            }
            if self.simplify {
                for failure in &mut found.failures {
                    if matches!(
                        failure.outcome,
                        Outcome::Aborted { .. }
                            | Outcome::Stuck { .. }
                            | Outcome::Nondeterministic { .. }
                    ) {
                        continue;
                    }
                    let key = failure.outcome.to_string();
                    let mut confirm = |candidate: &Schedule| {
                        let mut chooser = Replay {
                            schedule: candidate,
                            names: &names,
                        };
                        let run = scheduler::run(&pool, &object, &program, limits, &mut chooser);
                        let mut again = Found::default();
                        again.add(&names, run, property.as_mut()).ok()?;
                        let f = again.failures.pop()?;
                        (f.outcome.to_string() == key).then_some(f)
                    };
                    let simpler = super::simplify::simplify(&failure.schedule, 100, |c| {
                        confirm(c).map(|f| f.schedule)
                    });
                    if simpler != failure.schedule {
                        if let Some(f) = confirm(&simpler) {
                            failure.schedule = f.schedule;
                            failure.trace = f.trace;
                        }
                    }
                }
            }
            Ok(Exploration {
                executions,
                failures: found.failures,
                counts: found.counts,
                incomplete,
                pruned,
                redundant,
                elapsed: started.elapsed(),
                replayed: self.replay.is_some(),
            })
        })
    }
}

/// Explores `program`'s schedules on `object` with [`Explorer::new`]'s
/// options (from the `PRUST_*` variables; `PRUST_SCHEDULE` replays one).
///
/// # Panics
/// As [`Explorer::explore`].
pub fn explore<P: Protocol>(object: P, program: impl Fn(&mut Roles<'_, P>) + Sync) -> Exploration {
    Explorer::new().explore(object, program)
}

/// The distinct failures found so far.
#[derive(Default)]
struct Found {
    failures: Vec<Failure>,
    counts: Vec<usize>,
    index: HashMap<String, usize>,
}

impl Found {
    fn push(&mut self, failure: Failure) {
        let key = failure.outcome.to_string();
        match self.index.get(&key) {
            Some(&i) => self.counts[i] += 1,
            None => {
                self.index.insert(key, self.failures.len());
                self.failures.push(failure);
                self.counts.push(1);
            }
        }
    }

    fn push_aborted(&mut self, reason: &str) {
        self.push(Failure {
            outcome: Outcome::Aborted {
                reason: reason.to_string(),
            },
            schedule: Schedule::default(),
            trace: Vec::new(),
        });
    }

    /// Records how `run` ended; returns why the exploration is incomplete
    /// if this execution was cut short.
    fn add(
        &mut self,
        names: &[String],
        run: Run,
        property: Option<&mut Property>,
    ) -> Result<Option<String>, ExploreError> {
        let mut cut = None;
        let outcome = match run.end {
            End::Success => match property {
                None => None,
                Some(p) => match p
                    .check_trace(&run.trace, run.terminated)
                    .map_err(ExploreError::Property)?
                {
                    Some(true) => None,
                    Some(false) => Some(Outcome::PropertyViolated {
                        formula: p.formula().to_string(),
                    }),
                    None => {
                        let reason = format!(
                            "checking an execution's trace against {} hit a limit of the engine",
                            p.formula()
                        );
                        cut = Some(reason.clone());
                        Some(Outcome::Aborted { reason })
                    }
                },
            },
            End::Deadlock(deadlock) => Some(Outcome::Deadlock { deadlock }),
            End::Violation { role, op } => Some(Outcome::Violation {
                role: names[role].clone(),
                operation: op,
            }),
            End::Panicked {
                role,
                message,
                location,
            } => Some(Outcome::Panicked {
                role: names[role].clone(),
                message,
                location,
            }),
            End::Unfinished { not_finished } => Some(Outcome::Unfinished {
                not_finished: not_finished.iter().map(|&r| names[r].clone()).collect(),
            }),
            End::Steps(n) => {
                let reason = format!(
                    "an execution reached max_steps = {n} (raise it with Explorer::max_steps \
                     or PRUST_MAX_STEPS)"
                );
                cut = Some(reason.clone());
                Some(Outcome::Aborted { reason })
            }
            End::Time => {
                let reason = "the time ran out (Explorer::timeout or PRUST_TIMEOUT)".to_string();
                cut = Some(reason.clone());
                Some(Outcome::Aborted { reason })
            }
            End::Stuck { role, waited } => {
                cut = Some(format!(
                    "role {} was stuck outside the session",
                    names[role]
                ));
                Some(Outcome::Stuck {
                    role: names[role].clone(),
                    waited,
                })
            }
            End::Diverged {
                step,
                expected,
                found,
            } => {
                cut = Some("the program is not deterministic".to_string());
                Some(Outcome::Nondeterministic {
                    step,
                    expected,
                    found,
                })
            }
            End::Program(e) => return Err(ExploreError::Program(e)),
            End::Redundant => None,
        };
        if let Some(outcome) = outcome {
            self.push(Failure {
                outcome,
                schedule: to_schedule(names, &run.schedule),
                trace: run.trace.iter().map(|a| to_step(names, a)).collect(),
            });
        }
        Ok(cut)
    }
}

fn to_choice(names: &[String], alt: &Alt) -> Choice {
    Choice {
        role: names[alt.role].clone(),
        from: alt.from.map(|f| names[f].clone()),
        pick: alt.pick,
    }
}

fn to_schedule(names: &[String], alts: &[Alt]) -> Schedule {
    Schedule::new(alts.iter().map(|a| to_choice(names, a)).collect())
}

fn to_step(names: &[String], act: &Act) -> TraceStep {
    TraceStep {
        role: names[act.role].clone(),
        action: match &act.kind {
            ActKind::Send { to, ty } => Action::Send {
                to: names[*to].clone(),
                type_name: ty.clone(),
            },
            ActKind::Recv { from, ty } => Action::Recv {
                from: names[*from].clone(),
                type_name: ty.clone(),
            },
            ActKind::Close { to } => Action::Close {
                to: names[*to].clone(),
            },
            ActKind::Choose { pick, n } => Action::Choose {
                value: *pick,
                of: *n,
            },
        },
    }
}

fn describe(names: &[String], alts: &[Alt]) -> String {
    if alts.is_empty() {
        return "no choice".into();
    }
    let s: Vec<String> = alts
        .iter()
        .map(|a| to_choice(names, a).to_string())
        .collect();
    format!("[{}]", s.join(" "))
}

/// Follows a printed schedule.
struct Replay<'s> {
    schedule: &'s Schedule,
    names: &'s [String],
}

impl Chooser for Replay<'_> {
    fn choose(
        &mut self,
        step: usize,
        alts: &[Alt],
        _prev: Option<RoleId>,
        _independent: &dyn Fn(usize, usize) -> bool,
    ) -> Decision {
        let Some(want) = self.schedule.choices().get(step) else {
            return Decision::Take(0);
        };
        match alts.iter().position(|a| to_choice(self.names, a) == *want) {
            Some(i) => Decision::Take(i),
            None => Decision::Diverged {
                expected: format!("the choice {want}"),
                found: format!("the enabled choices {}", describe(self.names, alts)),
            },
        }
    }
}

/// A node of the depth-first search: the enabled choices at one
/// scheduling point and the one being explored.
struct Node {
    alts: Vec<Alt>,
    taken: usize,
    prev: Option<RoleId>,
    /// Preemptions on the path before this node.
    preemptions: usize,
    /// `sleep[i]`: `alts[i]` need not be explored here (sleep sets): an
    /// equivalent schedule was explored from an ancestor.
    sleep: Vec<bool>,
    /// `done[i]`: the subtree of `alts[i]` was explored.
    done: Vec<bool>,
    /// `backtrack[i]`: `alts[i]` is to be explored here (all of them
    /// without DPOR; with it, the first and those that races ask for).
    backtrack: Vec<bool>,
    /// `indep[i * n + j]`: `alts[i]` and `alts[j]` commute here (only
    /// with sleep sets on; empty otherwise).
    indep: Vec<bool>,
}

impl Node {
    /// 1 if taking `alts[i]` preempts the role that ran last (it could go
    /// on, and another is chosen).
    fn cost(&self, i: usize) -> usize {
        match self.prev {
            Some(p) if self.alts.iter().any(|a| a.role == p) && self.alts[i].role != p => 1,
            _ => 0,
        }
    }

    fn allowed(&self, i: usize, bound: Option<usize>) -> bool {
        bound.is_none_or(|b| self.preemptions + self.cost(i) <= b)
    }

    /// The next choice to explore: one to backtrack to, not explored,
    /// not asleep, within the bound. (DPOR may ask for a choice before
    /// the one taken, so the search is not only forward.)
    fn next(&self, bound: Option<usize>) -> Option<usize> {
        (0..self.alts.len()).find(|&i| {
            self.backtrack[i] && !self.done[i] && !self.sleep[i] && self.allowed(i, bound)
        })
    }
}

/// Depth-first search over the choices, with an optional preemption
/// bound and optional sleep sets.
struct Dfs<'n> {
    stack: Vec<Node>,
    depth: usize,
    bound: Option<usize>,
    sleep_sets: bool,
    /// DPOR: explore only the choices that races ask for.
    dpor: bool,
    pruned: usize,
    names: &'n [String],
}

impl Dfs<'_> {
    /// Moves to the next schedule; `false` when every one was run.
    fn backtrack(&mut self) -> bool {
        self.stack.truncate(self.depth);
        while let Some(top) = self.stack.last_mut() {
            top.done[top.taken] = true;
            if let Some(next) = top.next(self.bound) {
                top.taken = next;
                return true;
            }
            self.stack.pop();
        }
        false
    }
}

impl Chooser for Dfs<'_> {
    fn choose(
        &mut self,
        _step: usize,
        alts: &[Alt],
        prev: Option<RoleId>,
        independent: &dyn Fn(usize, usize) -> bool,
    ) -> Decision {
        let d = self.depth;
        if let Some(node) = self.stack.get(d) {
            self.depth += 1;
            if node.alts != alts {
                return Decision::Diverged {
                    expected: format!(
                        "the enabled choices {} (as in an earlier execution)",
                        describe(self.names, &node.alts)
                    ),
                    found: describe(self.names, alts),
                };
            }
            return Decision::Take(node.taken);
        }
        let n = alts.len();
        let parent = d.checked_sub(1).and_then(|p| self.stack.get(p));
        let preemptions = parent.map_or(0, |p| p.preemptions + p.cost(p.taken));
        // Sleep sets (Godefroid): what slept at the parent or was explored
        // there before the step taken, and commutes with that step, sleeps
        // here: its schedules are equivalent to ones explored already.
        let mut sleep = vec![false; n];
        if let Some(p) = parent.filter(|_| self.sleep_sets) {
            let m = p.alts.len();
            for x in 0..m {
                if x != p.taken && (p.sleep[x] || p.done[x]) && p.indep[x * m + p.taken] {
                    if let Some(i) = alts.iter().position(|a| *a == p.alts[x]) {
                        sleep[i] = true;
                    }
                }
            }
        }
        let mut indep = Vec::new();
        if self.sleep_sets {
            indep = vec![false; n * n];
            for i in 0..n {
                for j in i + 1..n {
                    let ind = independent(i, j);
                    indep[i * n + j] = ind;
                    indep[j * n + i] = ind;
                }
            }
        }
        let mut node = Node {
            alts: alts.to_vec(),
            taken: 0,
            prev,
            preemptions,
            sleep,
            done: vec![false; n],
            backtrack: vec![true; n],
            indep,
        };
        let Some(first) = node.next(self.bound) else {
            if node.sleep.iter().all(|&s| s) {
                return Decision::Redundant;
            }
            unreachable!("the first choice never preempts, so a bound allows it");
        };
        self.pruned += (0..n)
            .filter(|&i| !node.sleep[i] && !node.allowed(i, self.bound))
            .count();
        if self.dpor {
            // The first choice, and the other choices of its role: those
            // are the role's own alternatives (a `choose` value, the sender
            // of a receive from anyone), not races with other roles, so no
            // race would ask for them.
            let role = alts[first].role;
            for (i, a) in alts.iter().enumerate() {
                node.backtrack[i] = a.role == role;
            }
        }
        self.stack.push(Node {
            taken: first,
            ..node
        });
        self.depth += 1;
        Decision::Take(first)
    }

    fn wants_races(&self) -> bool {
        self.dpor
    }

    fn add_backtracks(&mut self, backtracks: Vec<(usize, Vec<usize>)>) {
        for (k, choices) in backtracks {
            if let Some(node) = self.stack.get_mut(k) {
                for i in choices {
                    node.backtrack[i] = true;
                }
            }
        }
    }
}
