//! Discourje's text front end: `.dcj` files (Clojure forms of Discourje's
//! specification language) import into an ordinary [`Spec`].
//!
//! A file is read into forms (Clojure's data syntax, with
//! byte spans), then evaluated: `s/defrole`, `s/defroles`,
//! `s/defsession`, `defn` and `def` are collected, everything else at top
//! level (program code around the specification: `ns`, `defn -main`,
//! `a/thread`, ...) is skipped, not evaluated. The chosen session is then
//! unfolded eagerly: every reachable session instance (a session with its
//! argument values), `s/loop` instance and `s/omega` becomes a named
//! definition of the [`Spec`], so strict, liberal and on-the-fly objects and
//! everything else work on an imported specification unchanged.
//!
//! ```
//! let text = r#"
//! (s/defrole ::worker)
//! (s/defsession ::ring [k i]
//!   (s/cat (s/-->> Boolean (::worker i) (::worker (mod (inc i) k)))
//!          (::ring k (mod (inc i) k))))
//! "#;
//! let imported = dcj::import_str(text, Some("ring"), &[3, 0]).unwrap();
//! let lts = imported.spec.compile().unwrap();
//! assert_eq!(lts.roles(), ["worker_0_", "worker_1_", "worker_2_"]);
//! assert_eq!(lts.num_states(), 6);
//! ```
//!
//! **Limits.** Evaluating a file is bounded like every other construction
//! of the protocols crate: [`import_with`] (and [`DcjTarget::import_with`])
//! take [`Limits`]; their time and memory bound (a build's, see the table
//! of [`Limits`]) stop the evaluation with a [`DcjError`] whose
//! [`limit`](DcjError::limit) says which one was reached (the command line
//! reports it as inconclusive, exit 2). The
//! evaluator's own bounds, whatever the limits, are errors at the
//! offending form (`file:line:col`):
//!
//! | bound | what it counts |
//! |-------|----------------|
//! | [`MAX_STEPS`] steps | a form evaluated, a function called, and the work of builtins: the elements and characters they make, copy, hash, compare or print, in units of about one form's cost (16 elements made or copied, 4 compared) |
//! | [`MAX_COLLECTION`] elements | one collection built (`range`, `concat`, `into`, ...) or branches of one `*-every` |
//! | [`MAX_WEIGHT`] | one value: elements and characters, everything nested counted as often as it occurs (`(conj v v)` doubles it) |
//! | [`MAX_VALUE_DEPTH`] | collections nested in one value |
//! | [`MAX_DEPTH`] | nested evaluation (forms and calls) |
//! | [`MAX_INSTANCES`] | instances of one session, loop or omega |
//!
//! ```
//! use engine::Limits;
//! let text = r#"(s/defsession ::s [] (s/-->> B (:a (count (str (range 1000000)))) :b))"#;
//! let tiny = Limits::default().max_memory(1 << 20);
//! let e = dcj::import_with(text, None, &[], &tiny).unwrap_err();
//! assert_eq!(e.limit, Some(dcj::DcjLimit::Memory(1 << 20)));
//! // A string doubled 25 times: an error at the form, whatever the limits.
//! let doublings = vec!["x (str x x)"; 25].join(" ");
//! let text = format!("(s/defsession ::s []\n (s/let [x \"ab\" {doublings}] (s/-->> B :a :b)))");
//! let e = dcj::import_str(&text, None, &[]).unwrap_err();
//! assert!(e.limit.is_none() && e.line == 2, "{e}");
//! assert!(e.message.contains("characters"), "{e}");
//! ```
//!
//! # The supported subset
//!
//! **Supported.** The reader takes Clojure's data syntax (lists, vectors,
//! maps, sets, keywords incl. `::local`, symbols, numbers, strings,
//! characters, regexes, comments, `'` `` ` `` `~` `@` `^` `#'` `#(...)`, `#_`);
//! errors carry `file:line:col`, the line and a hint. Declarations:
//! `s/defrole` (also with a name string), `s/defroles`, `s/defsession` (several
//! arities), `defn`, `def`; other top-level code (`ns`, `defn -main`,
//! `a/thread`, ...) is skipped, not evaluated. Spec forms, with or without
//! `s/`: `-->>`, `-->` (the type may be omitted: `Object`), `close`, `skip`,
//! `cat`, `alt`, `par`, `do`, `*` and `+` (with an optional continuation),
//! `?`, `omega`/`ω`, `cat-every`/`alt-every`/`par-every` (several bindings nest
//! like `for`), `if`, `when`, `let`, `loop`/`recur`, `session`, `async` with one
//! branch, `[a b]` (a `cat`), and `(::session args)`. Expressions: numbers
//! (longs, ratios, doubles), `+ - * / inc dec mod rem quot max min abs`,
//! comparisons, `and or not if when cond let do fn #() try/catch`, `range set
//! hash-set list vector vec seq count empty? first second last rest next nth
//! cons conj disj contains? remove filter map reduce into concat reverse sort
//! distinct every? some get str subs name keyword long int double`,
//! `union difference intersection power-set empty-set` (Discourje's set
//! helpers), `Math/ceil floor sqrt pow abs round`, `Long/parseLong`,
//! `Long/toBinaryString`, `.replaceFirst` (literal patterns with `.`, `^`,
//! `$`), sets and maps called as functions, user functions.
//!
//! **Names.** `(::worker 1)` is the role `worker_1_` (two indices:
//! `worker_1__2_`), as Prut4j flattens them; a role keyword without `defrole`
//! is its bare name, with a warning; a string role `("worker" i)` needs no
//! declaration. A symbol in role position must be bound (a parameter,
//! `let`, `def`) to a role, or be a declared role's name (`worker` for
//! `::worker`): a bare `M` is an error, not a role `M`. A message class is its last segment
//! (`discourje.examples.chess.Move` is `Move`). Roles and types are numbered
//! in order of first use.
//!
//! **Semantics and deviations.**
//! - Operators are resolved by position: in spec position `*`, `+`, `?`, `if`,
//!   `let`, `loop` are Discourje's, in expression position Clojure's (`(* 2 k)`
//!   multiplies).
//! - A session that can call itself before any action (unguarded
//!   recursion) is an error at the call that closes the cycle.
//! - Sessions are unfolded eagerly: every reachable session instance (session
//!   plus argument values), loop instance and omega becomes a named
//!   definition. More than 10,000 instances of one session is an error naming
//!   the instance where unfolding stopped.
//! - Sets are kept sorted by hash, so building, searching and comparing them
//!   is `O(n log n)`; `conj` onto a set or vector that nothing else holds
//!   adds in place (`(reduce conj #{} xs)` is fast, a user function that
//!   keeps the old set copies it each time).
//! - Sets iterate in Clojure's hash order (`(seq (set (range 4)))` is
//!   `0 1 3 2`), which decides the order of `cat-every` over a set: prust
//!   implements Clojure's Murmur3 hashes of longs, strings and collections and
//!   the hash trie's iteration order. So `rock-paper-scissors.dcj` with 4
//!   players throws in the order 0 1 3 2, unlike the bundled protocol.
//! - `alt-every` over an empty collection is a choice among nothing (a
//!   state that can neither move nor end); an `alt`, `cat` or `par` written
//!   with no branches is `skip`, as Discourje's macros make it.
//! - Message predicates other than class names (`(fn [m] ...)`) are not
//!   supported: prust checks message *types*. Neither are `s/graph`, `s/any`,
//!   `s/async` with several branches, nor destructuring.
//! - A `recur` that gives fewer values than its loop has variables keeps the
//!   others (Prut4j's chess does this), with a warning; a stray closing
//!   bracket at top level is skipped with a warning.
//! - Lists and vectors are one kind of value (`conj` appends to both).

// An import error carries its position, source line and hint for the
// message; it is made once per failed import, never in a hot loop, so its
// size does not matter and boxing it would only make the fields harder to
// reach for callers.
#![allow(clippy::result_large_err)]

use std::fmt;
use std::path::Path;

use engine::hint::{Audience, Setting};
use engine::Limits;
use protocols::spec::{Spec, Term};

// The interpreter's insides (forms, values, closures, Clojure's hashes)
// are private: a user imports a file and reads its errors.
mod eval;
mod hash_order;
mod names;
mod print;
mod read;
mod value;

pub use eval::{MAX_COLLECTION, MAX_DEPTH, MAX_INSTANCES, MAX_STEPS, MAX_VALUE_DEPTH, MAX_WEIGHT};

/// Byte offsets `start..end` into a file's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

/// Something the importer accepted but that is likely a mistake.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    /// Where.
    pub span: Span,
    /// What.
    pub message: String,
}

/// A `.dcj` file that cannot be imported: where, what and how to fix it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DcjError {
    /// The file, if the text came from one.
    pub file: Option<String>,
    /// 1-based line of the start of the offending text (0: no position).
    pub line: usize,
    /// 1-based column, in characters.
    pub col: usize,
    /// The offending bytes.
    pub span: Option<Span>,
    /// What is wrong.
    pub message: String,
    /// The line of text, for the caret display.
    pub source_line: Option<String>,
    /// How to fix it.
    pub hint: Option<String>,
    /// The limit of the [`Limits`] given that stopped the evaluation, if
    /// that is what stopped it: the file may be fine, only too costly for
    /// the limits (a check reports it as inconclusive, not as an error).
    pub limit: Option<DcjLimit>,
}

/// Which of the [`Limits`] stopped an evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DcjLimit {
    /// The deadline passed.
    Time,
    /// The evaluator's values and the specification made so far took more
    /// than this many bytes (an estimate that counts their elements).
    Memory(usize),
}

/// 1-based line and column (in characters) of byte `offset` of `text`.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let mut offset = offset;
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, text[line_start..offset].chars().count() + 1)
}

/// How `audience` raises the limit that stopped an evaluation: a
/// program names the [`Limits`] method, the `prust` command line its
/// option and variable.
fn limit_hint(limit: DcjLimit, audience: Audience) -> String {
    let (setting, method, or) = match limit {
        DcjLimit::Time => (
            Setting::Timeout,
            "Limits::timeout",
            "use a smaller instance",
        ),
        DcjLimit::Memory(_) => (
            Setting::MaxMemory,
            "Limits::max_memory",
            "make smaller values",
        ),
    };
    let raise = match audience {
        Audience::CommandLine => setting.named(audience).to_string(),
        Audience::Library => method.to_string(),
    };
    format!("raise it with {raise}, or {or}")
}

impl DcjError {
    /// The error worded for `audience`: the hint of a limit reached names
    /// what that reader sets (`Limits::max_memory` for a program,
    /// `--max-memory or PRUST_MAX_MEMORY` on the command line); other
    /// errors are the same for everyone.
    ///
    /// ```
    /// use engine::{hint::Audience, Limits};
    /// let text = r#"(s/defsession ::s [] (s/-->> B (:a (count (str (range 1000000)))) :b))"#;
    /// let e = dcj::import_with(text, None, &[], &Limits::default().max_memory(1 << 20)).unwrap_err();
    /// assert!(e.hint.as_deref().unwrap().starts_with("raise it with Limits::max_memory"), "{e}");
    /// let cli = e.for_audience(Audience::CommandLine);
    /// assert!(cli.to_string().contains("raise it with --max-memory or PRUST_MAX_MEMORY"), "{cli}");
    /// ```
    pub fn for_audience(mut self, audience: Audience) -> DcjError {
        if let Some(limit) = self.limit {
            self.hint = Some(limit_hint(limit, audience));
        }
        self
    }

    /// An error at `span` of `text`.
    pub fn at(text: &str, span: Span, message: String, hint: Option<String>) -> DcjError {
        let (line, col) = line_col(text, span.start);
        let source_line = text.lines().nth(line - 1).map(str::to_string);
        DcjError {
            file: None,
            line,
            col,
            span: Some(span),
            message,
            source_line,
            hint,
            limit: None,
        }
    }

    /// An error with no position (a bad argument, a missing file).
    pub fn plain(message: String, hint: Option<String>) -> DcjError {
        DcjError {
            file: None,
            line: 0,
            col: 0,
            span: None,
            message,
            source_line: None,
            hint,
            limit: None,
        }
    }

    fn in_file(mut self, file: &str) -> DcjError {
        self.file = Some(file.to_string());
        self
    }
}

impl fmt::Display for DcjError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.file, self.line) {
            (Some(file), 0) => write!(f, "{file}: ")?,
            (Some(file), l) => write!(f, "{file}:{l}:{}: ", self.col)?,
            (None, 0) => {}
            (None, l) => write!(f, "{l}:{}: ", self.col)?,
        }
        f.write_str(&self.message)?;
        if let (Some(src), true) = (&self.source_line, self.line > 0) {
            // Around the column only: a line may be 100 kB long.
            let (shown, pad) = protocols::caret_lines(src, self.col);
            write!(f, "\n  | {shown}\n  | {pad}^")?;
        }
        if let Some(h) = &self.hint {
            write!(f, "\n  hint: {h}")?;
        }
        Ok(())
    }
}

impl std::error::Error for DcjError {}

/// An imported specification: the [`Spec`], its definitions as terms (for
/// printing), and the warnings met on the way.
#[derive(Clone, Debug)]
pub struct Import {
    /// The specification (name: the session's name).
    pub spec: Spec,
    /// The main term (a call of the chosen session instance).
    pub main: Term,
    /// Every definition, in the order they were unfolded: the name and
    /// its (parameterless) body.
    pub definitions: Vec<(String, Term)>,
    /// Accepted but suspicious things (stray `)`, undeclared roles).
    pub warnings: Vec<Warning>,
    /// The warnings as text, with line:column (`file:line:col: warning: ...`).
    pub warning_texts: Vec<String>,
    /// The work the evaluation took, in the steps that
    /// [`MAX_STEPS`] bounds.
    pub steps: u64,
}

/// Imports the session `session` (a name such as `go-fish`, `::go-fish` or
/// `:go-fish`; `None`: the session named like the file, else the first one
/// defined) of a `.dcj` text with integer arguments.
///
/// The evaluation runs within [`Limits::default`] (sized for a test: a
/// minute); see [`import_with`] to choose.
pub fn import_str(text: &str, session: Option<&str>, args: &[i64]) -> Result<Import, DcjError> {
    import_named(text, None, session, args, &Limits::default())
}

/// [`import_str`] within `limits`: their time (from this call) and memory
/// bound stop the evaluation with an error whose
/// [`limit`](DcjError::limit) is set (see the [module docs](self)); their
/// state bound is for the compilation that follows and is not used here.
pub fn import_with(
    text: &str,
    session: Option<&str>,
    args: &[i64],
    limits: &Limits,
) -> Result<Import, DcjError> {
    import_named(text, None, session, args, limits)
}

fn import_named(
    text: &str,
    file: Option<&str>,
    session: Option<&str>,
    args: &[i64],
    limits: &Limits,
) -> Result<Import, DcjError> {
    // One deadline for the whole import, from its start.
    let limits = eval::Bounds {
        deadline: limits.deadline(std::time::Instant::now()),
        max_memory: Some(usize::try_from(limits.build_max_memory()).unwrap_or(usize::MAX)),
    };
    let with_file = |e: DcjError| match file {
        Some(f) => e.in_file(f),
        None => e,
    };
    let stem = file
        .and_then(|f| Path::new(f).file_stem())
        .and_then(|s| s.to_str())
        .map(str::to_string);
    let text_owned = text.to_string();
    let session = session.map(str::to_string);
    let args = args.to_vec();
    // The evaluator recurses on the forms and on user functions; it
    // bounds its own depth, and runs on a thread with a stack large enough
    // for that bound whatever thread the caller is on.
    let handle = std::thread::Builder::new()
        .name("dcj-import".into())
        .stack_size(eval::STACK_BYTES)
        .spawn(move || {
            let read = read::read(&text_owned)?;
            eval::import(
                &text_owned,
                read,
                stem.as_deref(),
                session.as_deref(),
                &args,
                &limits,
            )
        })
        .map_err(|e| DcjError::plain(format!("cannot start the importer: {e}"), None))?;
    let mut import = handle
        .join()
        .map_err(|_| DcjError::plain("the importer failed unexpectedly".into(), None))?
        .map_err(with_file)?;
    import.warning_texts = import
        .warnings
        .iter()
        .map(|w| {
            let (l, c) = line_col(text, w.span.start);
            match file {
                Some(f) => format!("{f}:{l}:{c}: warning: {}", w.message),
                None => format!("{l}:{c}: warning: {}", w.message),
            }
        })
        .collect();
    Ok(import)
}

/// Imports a session of the `.dcj` file at `path` (see [`import_str`]).
pub fn import(path: &Path, session: Option<&str>, args: &[i64]) -> Result<Import, DcjError> {
    import_file_with(path, session, args, &Limits::default())
}

/// [`import`] within `limits` (see [`import_with`]).
pub fn import_file_with(
    path: &Path,
    session: Option<&str>,
    args: &[i64],
    limits: &Limits,
) -> Result<Import, DcjError> {
    let shown = path.display().to_string();
    let text = protocols::files::read_text(path).map_err(|e| {
        let (message, hint) =
            protocols::files::read_failure(path, &e, protocols::files::FileKind::Dcj);
        DcjError::plain(message, Some(hint))
    })?;
    import_named(&text, Some(&shown), session, args, limits)
}

/// The [`Spec`] of a session of the `.dcj` file at `path` (warnings are
/// dropped; use [`import`] to see them).
///
/// ```no_run
/// let spec = dcj::load(std::path::Path::new("go-fish.dcj"), Some("go-fish"), &[3]).unwrap();
/// let lts = spec.compile().unwrap();
/// # let _ = lts;
/// ```
pub fn load(path: &Path, session: Option<&str>, args: &[i64]) -> Result<Spec, DcjError> {
    import(path, session, args).map(|i| i.spec)
}

/// A protocol argument of the form `FILE.dcj`, `FILE.dcj:SESSION` or
/// `FILE.dcj:SESSION:ARG,ARG` (integer arguments).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DcjTarget {
    /// The file.
    pub path: std::path::PathBuf,
    /// The session, if given.
    pub session: Option<String>,
    /// The arguments.
    pub args: Vec<i64>,
}

impl DcjTarget {
    /// Parses the argument; `None` if it names no `.dcj` file (so the
    /// caller can try a bundled protocol name instead).
    ///
    /// ```
    /// use dcj::DcjTarget;
    /// let t = DcjTarget::parse("games/go-fish.dcj:go-fish:3").unwrap().unwrap();
    /// assert_eq!((t.session.as_deref(), t.args.as_slice()), (Some("go-fish"), &[3][..]));
    /// assert!(DcjTarget::parse("token-star:4").is_none());
    /// assert!(DcjTarget::parse("x.dcj:s:1,a").unwrap().is_err());
    /// ```
    pub fn parse(arg: &str) -> Option<Result<DcjTarget, DcjError>> {
        // The first `.dcj` that ends the file name (`my.dcjfiles/x.dcj`
        // has two).
        let idx = arg
            .match_indices(".dcj")
            .map(|(i, _)| i)
            .find(|&i| matches!(arg[i + 4..].chars().next(), None | Some(':')))?;
        let (file, rest) = arg.split_at(idx + 4);
        let mut parts = rest.splitn(3, ':').skip(1);
        let session = parts.next().filter(|s| !s.is_empty()).map(str::to_string);
        let args = match parts.next() {
            None | Some("") => Vec::new(),
            Some(list) => {
                let mut v = Vec::new();
                for a in list.split(',') {
                    match a.trim().parse::<i64>() {
                        Ok(n) => v.push(n),
                        Err(_) => {
                            return Some(Err(DcjError::plain(
                                format!("`{a}` in `{arg}` is not an integer argument"),
                                Some("write FILE.dcj:SESSION:ARG,ARG with integer arguments, e.g. go-fish.dcj:go-fish:3".into()),
                            )))
                        }
                    }
                }
                v
            }
        };
        Some(Ok(DcjTarget {
            path: file.into(),
            session,
            args,
        }))
    }

    /// Imports the target ([`import`]).
    pub fn import(&self) -> Result<Import, DcjError> {
        import(&self.path, self.session.as_deref(), &self.args)
    }

    /// Imports the target within `limits` ([`import_file_with`]).
    pub fn import_with(&self, limits: &Limits) -> Result<Import, DcjError> {
        import_file_with(&self.path, self.session.as_deref(), &self.args, limits)
    }
}
