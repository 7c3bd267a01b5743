//! The one table of the `PRUST_*` variables: what each means, takes and
//! defaults to, and which front ends read it.

#[cfg(doc)]
use crate::{checker::Checker, semantics::Semantics, share::Share};

/// A front end that reads `PRUST_*` variables (the "read by" column of
/// the [table](super)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reader {
    /// `prust check` and the library's [`Checker::from_env`].
    Check,
    /// `prust lint`.
    Lint,
    /// `prust import`.
    Import,
    /// `prust lts`.
    Lts,
    /// `prust translate`.
    Translate,
    /// An `.owl` suite (`prust::suite`).
    Suite,
    /// `prust::explore::Explorer`.
    Explore,
}

impl Reader {
    /// Every reader, in the table's order.
    pub const ALL: [Reader; 7] = [
        Reader::Check,
        Reader::Lint,
        Reader::Import,
        Reader::Lts,
        Reader::Translate,
        Reader::Suite,
        Reader::Explore,
    ];

    /// Its name in the table ("check", "lint", …).
    pub fn name(self) -> &'static str {
        match self {
            Reader::Check => "check",
            Reader::Lint => "lint",
            Reader::Import => "import",
            Reader::Lts => "lts",
            Reader::Translate => "translate",
            Reader::Suite => "suite",
            Reader::Explore => "explore",
        }
    }
}

/// What a variable takes: one parser, and one description of it, for
/// every variable of the kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Kind {
    /// A whole number, `_` separators allowed.
    Count,
    /// A whole number or `none`.
    CountOrNone,
    /// A thread count: at most [`Checker::MAX_THREADS`], 0 for every core.
    Threads,
    /// The bits of a bitstate array
    /// ([`Checker::bitstate_array_bits`]): 0 is an error.
    Bits,
    /// Seconds by [`parse_timeout`](crate::parse_timeout): positive,
    /// `inf` for none, 0 an error.
    Seconds,
    /// A memory size by [`parse_memory_size`](crate::parse_memory_size).
    Size,
    /// On or off.
    Switch,
    /// A [`Semantics`].
    Semantics,
    /// A [`Fairness`](crate::Fairness).
    Fairness,
    /// A [`Share`].
    Share,
    /// A folder.
    Folder,
    /// Text that its reader parses (a schedule, a reduction's name).
    Text(&'static str),
}

impl Kind {
    /// The values it takes, as the table and the hints say them.
    pub fn accepts(self) -> &'static str {
        match self {
            Kind::Count => "a whole number such as 1000000 (`_` allowed)",
            Kind::CountOrNone => "a whole number, or `none`",
            Kind::Threads => "a whole number, at most 1024; 0 for every core",
            Kind::Bits => {
                "a whole number of bits such as 1073741824 (`_` allowed), rounded up to a power \
                 of two and at least 64 (the report states the bits used); 0 is an error"
            }
            Kind::Seconds => {
                "positive seconds such as 30 or 0.5, or inf for none (as is anything above 10⁹); 0 is an error"
            }
            Kind::Size => "a size in bytes or with a binary unit, such as 512M or 2G",
            Kind::Switch => "1 or 0 (also true/false, yes/no, on/off)",
            Kind::Semantics => "`stutter` or `omega`",
            Kind::Fairness => "`none` or `weak`",
            Kind::Share => "a share I/N such as 1/4 (empty: none)",
            Kind::Folder => "a folder (empty: none)",
            Kind::Text(what) => what,
        }
    }
}

/// One `PRUST_*` variable: a row of the [table](super).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Variable {
    /// Its name, `PRUST_…`.
    pub name: &'static str,
    /// What it sets.
    pub meaning: &'static str,
    /// The values it takes.
    pub kind: Kind,
    /// What applies when it is unset.
    pub default: &'static str,
    /// The front ends that read it.
    pub read_by: &'static [Reader],
    /// Left out of the documentation (for tests of prust itself).
    pub hidden: bool,
}

impl Variable {
    /// Its row of the table in the [module docs](super), as Markdown.
    pub fn doc_row(&self) -> String {
        let readers: Vec<&str> = self.read_by.iter().map(|r| r.name()).collect();
        format!(
            "| `{}` | {} | {} | {} | {} |",
            self.name,
            self.meaning,
            self.kind.accepts(),
            self.default,
            readers.join(", ")
        )
    }

    /// Whether `reader` reads it.
    pub fn is_read_by(&self, reader: Reader) -> bool {
        self.read_by.contains(&reader)
    }
}

use Reader::{Check, Explore, Import, Lint, Lts, Suite, Translate};

/// The readers of the limits that bound both a search and the build of
/// the object searched.
const BUILDERS: &[Reader] = &[Check, Lint, Import, Lts, Suite];
const CHECKS: &[Reader] = &[Check, Suite];

/// Every `PRUST_*` variable prust reads, in the order of the
/// [table](super).
pub const VARIABLES: &[Variable] = &[
    Variable {
        name: "PRUST_MAX_STATES",
        meaning: "stop (inconclusive) after this many states: product states of a search, \
                  states of a table built (LTS, determinisation, projection)",
        kind: Kind::Count,
        default: "10 000 000 (a search), 1 000 000 (a table built)",
        read_by: BUILDERS,
        hidden: false,
    },
    Variable {
        name: "PRUST_MAX_DEPTH",
        meaning: "stop (inconclusive) beyond this run length",
        kind: Kind::Count,
        default: "unlimited",
        read_by: CHECKS,
        hidden: false,
    },
    Variable {
        name: "PRUST_TIMEOUT",
        meaning: "wall-clock budget (of a check: per formula, from its text to the verdict, \
                  building the object included; of an exploration: the whole of it); \
                  inconclusive or incomplete when it runs out",
        kind: Kind::Seconds,
        default: "60 s, sized for a test (`prust` commands: none)",
        read_by: &[Check, Lint, Import, Lts, Translate, Explore, Suite],
        hidden: false,
    },
    Variable {
        name: "PRUST_MAX_MEMORY",
        meaning: "memory budget: a search or build that needs more ends inconclusive, never \
                  \"holds\" nor an allocation abort",
        kind: Kind::Size,
        default: "half the available memory or of the cgroup limit, at most a quarter of \
                  what `RLIMIT_AS` leaves, and at most 2 GiB in a test",
        read_by: &[Check, Lint, Import, Lts, Translate, Suite],
        hidden: false,
    },
    Variable {
        name: "PRUST_SEMANTICS",
        meaning: "how runs that stop count: `stutter` (extended by stutter steps, SPIN's) or \
                  `omega` (infinite runs only, Prut4j's)",
        kind: Kind::Semantics,
        default: "`stutter`",
        read_by: CHECKS,
        hidden: false,
    },
    Variable {
        name: "PRUST_FAIRNESS",
        meaning: "which runs may refute a liveness property: `none` (every run) or `weak` \
                  (only runs in which no role stays enabled without ever moving; safety \
                  verdicts do not change)",
        kind: Kind::Fairness,
        default: "`none`",
        read_by: CHECKS,
        hidden: false,
    },
    Variable {
        name: "PRUST_PROGRESS",
        meaning: "a progress line on stderr during long searches and explorations: `1` \
                  forces it, `0` hides it",
        kind: Kind::Switch,
        default: "when stderr is a terminal (explore: off)",
        read_by: &[Check, Suite, Explore],
        hidden: false,
    },
    Variable {
        name: "PRUST_PROGRESS_AFTER_MS",
        meaning: "when the first progress line may show, in milliseconds",
        kind: Kind::Count,
        default: "1000",
        read_by: &[Check, Suite, Explore],
        hidden: true,
    },
    Variable {
        name: "PRUST_DETERMINISM",
        meaning: "probe every action twice to check that the object is deterministic (the \
                  search then runs on one thread)",
        kind: Kind::Switch,
        default: "on in debug builds",
        read_by: CHECKS,
        hidden: false,
    },
    Variable {
        name: "PRUST_POR",
        meaning: "partial-order reduction (`0`: search every interleaving; never changes a \
                  verdict)",
        kind: Kind::Switch,
        default: "on",
        read_by: CHECKS,
        hidden: false,
    },
    Variable {
        name: "PRUST_SHORTEST",
        meaning: "shorten a counterexample (explore: a failing schedule) to a shortest one \
                  (`1`: always, within the limits; `0`: never; unset: when it costs at most one \
                  and a half times the search's states, explore: as many executions as the \
                  exploration ran, and at least 2000; never changes a verdict)",
        kind: Kind::Switch,
        default: "when it costs at most 1.5× the search (explore: max(executions, 2000))",
        read_by: &[Check, Suite, Explore],
        hidden: false,
    },
    Variable {
        name: "PRUST_HASH_COMPACTION",
        meaning: "store 64-bit fingerprints: a property that holds is then \"holds \
                  (probabilistic)\", never a proof",
        kind: Kind::Switch,
        default: "off",
        read_by: CHECKS,
        hidden: false,
    },
    Variable {
        name: "PRUST_BITSTATE",
        meaning:
            "bitstate hashing with an array of this many bits (e.g. 1073741824, 2³⁰): a property \
                  that holds is then \"holds (probabilistic: bitstate hashing)\", never a proof",
        kind: Kind::Bits,
        default: "off",
        read_by: CHECKS,
        hidden: false,
    },
    Variable {
        name: "PRUST_COLLAPSE",
        meaning: "store states as their bytes (`Protocol::encode`) or as whole objects; never \
                  changes a verdict",
        kind: Kind::Switch,
        default: "the object's `Protocol::prefers_bytes`",
        read_by: CHECKS,
        hidden: false,
    },
    Variable {
        name: "PRUST_THREADS",
        meaning: "threads of the search",
        kind: Kind::Threads,
        default: "every core",
        read_by: CHECKS,
        hidden: false,
    },
    Variable {
        name: "PRUST_PARALLEL_LEVEL",
        meaning: "with several threads, breadth-first levels smaller than this are expanded by \
                  one thread; never changes a verdict",
        kind: Kind::Count,
        default: "1 024",
        read_by: CHECKS,
        hidden: false,
    },
    Variable {
        name: "PRUST_SHARE",
        meaning: "search share I of a check split over N machines (\"holds on share I/N\", \
                  never \"holds\")",
        kind: Kind::Share,
        default: "the whole check",
        read_by: CHECKS,
        hidden: false,
    },
    Variable {
        name: "PRUST_SHARE_LEVEL",
        meaning: "the breadth-first level at which a shared check is split",
        kind: Kind::Count,
        default: "the first level of 32 states a share",
        read_by: CHECKS,
        hidden: false,
    },
    Variable {
        name: "PRUST_TRAIL_DIR",
        meaning: "a folder where every failing library check saves its counterexample as a \
                  trail file (`prust check` uses `--trail` instead)",
        kind: Kind::Folder,
        default: "none",
        read_by: &[Check],
        hidden: false,
    },
    Variable {
        name: "PRUST_HTML_DIR",
        meaning: "a folder where `.owl` suites write one self-contained HTML page per \
                  result (`prust check` uses `--html` instead)",
        kind: Kind::Folder,
        default: "none",
        read_by: &[Suite],
        hidden: false,
    },
    Variable {
        name: "PRUST_SUITE_REPORTS",
        meaning: "`.owl` suites print the reports of passing tests too",
        kind: Kind::Switch,
        default: "off",
        read_by: &[Suite],
        hidden: false,
    },
    Variable {
        name: "PRUST_PREEMPTION_BOUND",
        meaning: "at most this many preemptions per execution (schedules skipped make the \
                  exploration incomplete)",
        kind: Kind::CountOrNone,
        default: "none: every schedule",
        read_by: &[Explore],
        hidden: false,
    },
    Variable {
        name: "PRUST_MAX_STEPS",
        meaning: "stop an execution after this many steps (it is aborted, the exploration \
                  incomplete)",
        kind: Kind::Count,
        default: "10 000",
        read_by: &[Explore],
        hidden: false,
    },
    Variable {
        name: "PRUST_MAX_EXECUTIONS",
        meaning: "stop the exploration after this many executions (incomplete)",
        kind: Kind::Count,
        default: "100 000",
        read_by: &[Explore],
        hidden: false,
    },
    Variable {
        name: "PRUST_ROLE_TIMEOUT",
        meaning: "how long a role may run without reaching the scheduler before the execution \
                  is aborted",
        kind: Kind::Seconds,
        default: "10 s",
        read_by: &[Explore],
        hidden: false,
    },
    Variable {
        name: "PRUST_SCHEDULE",
        meaning: "replay this printed schedule only (one schedule is never a proof: a warning \
                  on stderr says so)",
        kind: Kind::Text("a schedule as an exploration prints it"),
        default: "explore every schedule",
        read_by: &[Explore],
        hidden: false,
    },
    Variable {
        name: "PRUST_REDUCTION",
        meaning: "the exploration's reduction",
        kind: Kind::Text("`none`, `sleep-sets` or `dpor`"),
        default: "`dpor`",
        read_by: &[Explore],
        hidden: false,
    },
    Variable {
        name: "PRUST_SEED",
        meaning: "the seed of a sampled exploration (`Explorer::random`, `Explorer::pct`) \
                  whose program gives none; the report prints the seed it ran with",
        kind: Kind::Count,
        default: "a fresh seed each run",
        read_by: &[Explore],
        hidden: false,
    },
];

/// The row of the variable called `name`, if prust reads one.
///
/// ```
/// let timeout = engine::env::variable("PRUST_TIMEOUT").unwrap();
/// assert!(timeout.kind.accepts().contains("0 is an error"));
/// assert!(engine::env::variable("TIMEOUT").is_none());
/// ```
pub fn variable(name: &str) -> Option<&'static Variable> {
    VARIABLES.iter().find(|v| v.name == name)
}
