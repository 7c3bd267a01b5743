//! The `.owl` suite file format: parsing a file into a [`Suite`].
//!
//! See the [module documentation](super) for the format itself. Parsing
//! never panics: every problem becomes a [`SuiteError`] with the line and
//! column it was found at, and the runner turns it into a failing test.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use engine::names::closest;

/// A position in a suite file, 1-based (columns count characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    /// Line, from 1.
    pub line: usize,
    /// Column in characters, from 1.
    pub col: usize,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// A problem in a suite file, with where it is and, when we can tell, how to
/// fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuiteError {
    /// Where the problem is.
    pub pos: Pos,
    /// What is wrong.
    pub message: String,
    /// How to fix it, if we can tell.
    pub hint: Option<String>,
}

impl SuiteError {
    fn new(pos: Pos, message: impl Into<String>) -> Self {
        SuiteError {
            pos,
            message: message.into(),
            hint: None,
        }
    }

    fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

impl fmt::Display for SuiteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.pos, self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, "\n  hint: {hint}")?;
        }
        Ok(())
    }
}

impl std::error::Error for SuiteError {}

/// Which protocol object a trial checks: the strict or the liberal runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Runtime {
    /// One object holds the global state.
    Strict = 0,
    /// Each role runs its projection.
    Liberal = 1,
}

impl Runtime {
    /// All runtimes, in the order trials are listed.
    pub const ALL: [Runtime; 2] = [Runtime::Strict, Runtime::Liberal];

    /// The name used in suite files and test names.
    pub fn name(self) -> &'static str {
        match self {
            Runtime::Strict => "strict",
            Runtime::Liberal => "liberal",
        }
    }
}

/// Which runs count: SPIN's stutter extension of finite runs (prust's
/// default) or only infinite runs (Prut4j's semantics, called `omega`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SemanticsName {
    /// Finite runs are extended by stutter steps (`"END"`, `"DEADLOCK"`).
    Stutter = 0,
    /// Only infinite runs count, as in Prut4j.
    Omega = 1,
}

impl SemanticsName {
    /// All semantics, in the order trials are listed.
    pub const ALL: [SemanticsName; 2] = [SemanticsName::Stutter, SemanticsName::Omega];

    /// The name used in suite files and test names.
    pub fn name(self) -> &'static str {
        match self {
            SemanticsName::Stutter => "stutter",
            SemanticsName::Omega => "omega",
        }
    }
}

/// A protocol a suite checks: a bundled protocol with its parameters
/// (`token-star:4`), and the short name used in test names and verdicts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtocolDecl {
    /// What `protocols::bundled::by_name` is given.
    pub spec: String,
    /// The name in test names and `@` qualifiers (the spec unless `as` is given).
    pub alias: String,
    /// Where it is declared.
    pub pos: Pos,
}

/// What an entry expects of a check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expected {
    /// The property holds on every run.
    Holds,
    /// Some run violates the property (the counterexample is shown when
    /// this fails).
    Violated,
    /// The check is refused with an error (an unknown name, a syntax
    /// error) whose message contains every one of these strings.
    Error(Vec<String>),
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expected::Holds => f.write_str("holds"),
            Expected::Violated => f.write_str("violated"),
            Expected::Error(parts) => {
                f.write_str("error")?;
                for p in parts {
                    write!(f, " {p:?}")?;
                }
                Ok(())
            }
        }
    }
}

/// One expectation of an entry: an outcome, for the trials whose protocol,
/// runtime and semantics match every qualifier (`violated@liberal+omega`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clause {
    /// The outcome expected.
    pub expected: Expected,
    /// Protocol aliases, runtime or semantics names; empty for "always".
    pub qualifiers: Vec<String>,
    /// Where the clause is written.
    pub pos: Pos,
}

/// A property to check: a name, what is expected, and the formula.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The entry's name, unique in its file.
    pub name: String,
    /// Where the entry starts (its `test` line).
    pub pos: Pos,
    /// The expectations, in the order written.
    pub clauses: Vec<Clause>,
    /// The formula as written (comments removed, lines joined with `\n`).
    pub source: String,
    /// The formula with the `let` abbreviations expanded: what the engine
    /// is given.
    pub formula: String,
    /// Where the formula starts.
    pub formula_pos: Pos,
}

/// A parsed suite file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suite {
    /// The protocols, in the order declared.
    pub protocols: Vec<ProtocolDecl>,
    /// The runtimes every entry is checked on.
    pub runtimes: Vec<Runtime>,
    /// The semantics every entry is checked under.
    pub semantics: Vec<SemanticsName>,
    /// Optional resource limit: maximum number of product states.
    pub max_states: Option<u64>,
    /// The entries, in file order.
    pub entries: Vec<Entry>,
}

/// One check to run: an entry on one protocol, runtime and semantics, with
/// the outcome the file expects there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Index into [`Suite::entries`].
    pub entry: usize,
    /// Index into [`Suite::protocols`].
    pub protocol: usize,
    /// The runtime.
    pub runtime: Runtime,
    /// The semantics.
    pub semantics: SemanticsName,
    /// What the file expects.
    pub expected: Expected,
}

impl Suite {
    /// Every check the suite asks for, entry by entry, with its expected
    /// outcome; or every entry whose expectations are ambiguous or missing
    /// for some combination.
    pub fn plan(&self) -> Result<Vec<Plan>, Vec<SuiteError>> {
        let mut plans = Vec::new();
        let mut errors = Vec::new();
        for (e, entry) in self.entries.iter().enumerate() {
            for (p, proto) in self.protocols.iter().enumerate() {
                for &runtime in &self.runtimes {
                    for &semantics in &self.semantics {
                        let values = [proto.alias.as_str(), runtime.name(), semantics.name()];
                        match resolve(entry, &values) {
                            Ok(expected) => plans.push(Plan {
                                entry: e,
                                protocol: p,
                                runtime,
                                semantics,
                                expected,
                            }),
                            Err(err) => errors.push(err),
                        }
                    }
                }
            }
        }
        if errors.is_empty() {
            Ok(plans)
        } else {
            // One error per entry is enough to fix it.
            errors.dedup_by(|a, b| a.pos == b.pos);
            Err(errors)
        }
    }
}

/// The expectation of `entry` for a trial with these protocol, runtime and
/// semantics names: the matching clause with the most qualifiers.
fn resolve(entry: &Entry, values: &[&str]) -> Result<Expected, SuiteError> {
    let matching: Vec<&Clause> = entry
        .clauses
        .iter()
        .filter(|c| c.qualifiers.iter().all(|q| values.contains(&q.as_str())))
        .collect();
    let Some(best) = matching.iter().map(|c| c.qualifiers.len()).max() else {
        return Err(SuiteError::new(
            entry.pos,
            format!("`{}` says nothing about {}", entry.name, values.join("+")),
        )
        .hint("add a verdict without qualifiers, or one for this combination"));
    };
    let winners: Vec<&&Clause> = matching
        .iter()
        .filter(|c| c.qualifiers.len() == best)
        .collect();
    let first = &winners[0].expected;
    if let Some(other) = winners.iter().find(|c| &c.expected != first) {
        return Err(SuiteError::new(
            other.pos,
            format!(
                "`{}` expects both {} and {} for {}",
                entry.name,
                first,
                other.expected,
                values.join("+")
            ),
        )
        .hint("make one of the two clauses more specific (e.g. `holds@strict+omega`)"));
    }
    Ok(first.clone())
}

const KEYWORDS: [&str; 6] = [
    "protocol",
    "runtime",
    "semantics",
    "let",
    "test",
    "max-states",
];

/// Names that are part of LTL syntax and so cannot be abbreviations, and
/// bare words the checker understands by itself.
const RESERVED: [&str; 20] = [
    "G", "F", "X", "U", "W", "R", "M", "V", "true", "false", "tt", "ff", "xor", "True", "False",
    "END", "DEADLOCK", "TRUE", "FALSE", "xnor",
];

/// The longest a formula may be once its abbreviations are expanded, in
/// bytes. Abbreviations are copied where they are used, so definitions that
/// use each other twice double at each level (`let a1 = a0 & a0`, ...):
/// 24 such lines would otherwise ask for gigabytes. Real formulas are a few
/// hundred bytes; this bound is hundreds of times that.
pub const MAX_EXPANDED_LEN: usize = 100_000;

/// The most expanded text (definitions and formulas together, in bytes)
/// one file may produce: each formula within [`MAX_EXPANDED_LEN`] still
/// adds up over many lines that reuse a long abbreviation.
pub const MAX_EXPANDED_TOTAL: usize = 16 << 20;

/// A line of the file without its comment, with its number.
struct Line<'a> {
    number: usize,
    text: &'a str,
}

/// Parses a suite file.
///
/// Returns every error found (not only the first), each with its position.
///
/// ```
/// use prust::suite::format::{parse, Expected};
/// let suite = parse(r#"
/// protocol chess
/// test white_begins holds
///     "white SEND <Move>"
/// "#).unwrap();
/// assert_eq!(suite.entries[0].formula, r#""white SEND <Move>""#);
/// assert_eq!(suite.entries[0].clauses[0].expected, Expected::Holds);
/// ```
pub fn parse(text: &str) -> Result<Suite, Vec<SuiteError>> {
    Parser::default().run(text)
}

#[derive(Default)]
struct Parser {
    errors: Vec<SuiteError>,
    protocols: Vec<ProtocolDecl>,
    runtimes: Option<(Pos, Vec<Runtime>)>,
    semantics: Option<(Pos, Vec<SemanticsName>)>,
    max_states: Option<u64>,
    macros: BTreeMap<String, String>,
    entries: Vec<Entry>,
    /// Bytes of expanded text produced so far (see [`MAX_EXPANDED_TOTAL`]).
    expanded_total: usize,
}

/// A directive with the formula lines that follow it.
struct Block<'a> {
    keyword: &'a str,
    pos: Pos,
    /// The rest of the directive line after the keyword, and its column.
    rest: &'a str,
    rest_col: usize,
    body: Vec<Line<'a>>,
}

impl Parser {
    fn run(mut self, text: &str) -> Result<Suite, Vec<SuiteError>> {
        for block in self.blocks(text) {
            self.directive(block);
        }
        if self.protocols.is_empty() {
            self.errors.push(
                SuiteError::new(Pos { line: 1, col: 1 }, "the suite names no protocol")
                    .hint("start the file with e.g. `protocol token-star:4`"),
            );
        }
        if self.entries.is_empty() && self.errors.is_empty() {
            self.errors.push(
                SuiteError::new(Pos { line: 1, col: 1 }, "the suite has no entries")
                    .hint("add e.g. `test name holds` followed by a formula"),
            );
        }
        let mut aliases = BTreeSet::new();
        for p in &self.protocols {
            if !aliases.insert(p.alias.as_str()) {
                self.errors.push(
                    SuiteError::new(p.pos, format!("protocol name `{}` used twice", p.alias))
                        .hint("give one of them another name with `as NAME`"),
                );
            }
        }
        self.check_qualifiers();
        if !self.errors.is_empty() {
            self.errors.sort_by_key(|e| e.pos);
            return Err(self.errors);
        }
        Ok(Suite {
            protocols: self.protocols,
            runtimes: self
                .runtimes
                .map(|r| r.1)
                .unwrap_or_else(|| Runtime::ALL.to_vec()),
            semantics: self
                .semantics
                .map(|s| s.1)
                .unwrap_or_else(|| SemanticsName::ALL.to_vec()),
            max_states: self.max_states,
            entries: self.entries,
        })
    }

    /// Splits the file into directives, each with the lines that follow it
    /// up to the next directive.
    fn blocks<'a>(&mut self, text: &'a str) -> Vec<Block<'a>> {
        let mut blocks: Vec<Block<'a>> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let number = i + 1;
            let text = strip_comment(raw);
            if text.trim().is_empty() {
                continue;
            }
            let starts_flush = !text.starts_with(char::is_whitespace);
            let word_end = text.find(char::is_whitespace).unwrap_or(text.len());
            let word = &text[..word_end];
            if starts_flush && KEYWORDS.contains(&word) {
                let rest_start =
                    word_end + text[word_end..].len() - text[word_end..].trim_start().len();
                blocks.push(Block {
                    keyword: word,
                    pos: Pos {
                        line: number,
                        col: 1,
                    },
                    rest: text[rest_start..].trim_end(),
                    rest_col: text[..rest_start].chars().count() + 1,
                    body: Vec::new(),
                });
            } else if let Some(block) = blocks.last_mut() {
                block.body.push(Line { number, text });
            } else {
                let col = text.len() - text.trim_start().len();
                let col = text[..col].chars().count() + 1;
                self.errors.push(
                    SuiteError::new(
                        Pos { line: number, col },
                        format!("expected a directive, found `{}`", word.trim()),
                    )
                    .hint("a suite starts with `protocol NAME`; formulas follow a `test` line"),
                );
            }
        }
        blocks
    }

    fn directive(&mut self, block: Block<'_>) {
        let rest_pos = Pos {
            line: block.pos.line,
            col: block.rest_col,
        };
        let takes_body = matches!(block.keyword, "let" | "test");
        if !takes_body {
            if let Some(line) = block.body.first() {
                self.errors.push(
                    SuiteError::new(
                        first_char_pos(line),
                        format!("unexpected text after `{}`", block.keyword),
                    )
                    .hint("formulas belong to a `test` or `let`"),
                );
            }
        }
        match block.keyword {
            "protocol" => self.protocol(&block, rest_pos),
            "runtime" => {
                let parsed = self.names(&block, rest_pos, "runtime", &Runtime::ALL, |r| r.name());
                self.set_once(block.pos, "runtime", parsed, |p| &mut p.runtimes);
            }
            "semantics" => {
                let parsed = self.names(&block, rest_pos, "semantics", &SemanticsName::ALL, |s| {
                    s.name()
                });
                self.set_once(block.pos, "semantics", parsed, |p| &mut p.semantics);
            }
            "max-states" => match block.rest.replace('_', "").parse::<u64>() {
                Ok(n) if n > 0 => self.max_states = Some(n),
                _ => self.errors.push(
                    SuiteError::new(rest_pos, format!("`{}` is not a state count", block.rest))
                        .hint("write e.g. `max-states 1_000_000`"),
                ),
            },
            "let" => self.define(&block, rest_pos),
            "test" => self.entry(&block, rest_pos),
            _ => unreachable!("only keywords start blocks"),
        }
    }

    fn protocol(&mut self, block: &Block<'_>, rest_pos: Pos) {
        let words = words(block.rest, rest_pos);
        match words.as_slice() {
            [(spec, _)] => self.protocols.push(ProtocolDecl {
                spec: spec.to_string(),
                alias: spec.to_string(),
                pos: rest_pos,
            }),
            [(spec, _), (as_, _), (alias, apos)] if *as_ == "as" => {
                if is_name(alias) {
                    self.protocols.push(ProtocolDecl {
                        spec: spec.to_string(),
                        alias: alias.to_string(),
                        pos: rest_pos,
                    })
                } else {
                    self.errors
                        .push(SuiteError::new(*apos, format!("`{alias}` is not a name")))
                }
            }
            [] => self.errors.push(
                SuiteError::new(rest_pos, "`protocol` needs a protocol name")
                    .hint("e.g. `protocol token-star:4` or `protocol token-star:4 as star`"),
            ),
            _ => self.errors.push(
                SuiteError::new(rest_pos, "expected `protocol NAME[:PARAMS] [as ALIAS]`")
                    .hint("one protocol per line; repeat the `protocol` line for more"),
            ),
        }
    }

    fn names<T: Copy + PartialEq>(
        &mut self,
        block: &Block<'_>,
        rest_pos: Pos,
        what: &str,
        all: &[T],
        name: impl Fn(T) -> &'static str,
    ) -> Option<Vec<T>> {
        let words = words(block.rest, rest_pos);
        if words.is_empty() {
            let known: Vec<_> = all.iter().map(|&t| name(t)).collect();
            self.errors.push(
                SuiteError::new(rest_pos, format!("`{what}` needs at least one name"))
                    .hint(format!("one or more of: {}", known.join(", "))),
            );
            return None;
        }
        let mut out = Vec::new();
        for (w, pos) in words {
            match all.iter().find(|&&t| name(t) == w) {
                Some(&t) if !out.contains(&t) => out.push(t),
                Some(_) => self
                    .errors
                    .push(SuiteError::new(pos, format!("`{w}` given twice"))),
                None => {
                    let known: Vec<_> = all.iter().map(|&t| name(t)).collect();
                    self.errors.push(
                        SuiteError::new(pos, format!("unknown {what} `{w}`"))
                            .hint(format!("one or more of: {}", known.join(", "))),
                    )
                }
            }
        }
        Some(out)
    }

    fn set_once<T>(
        &mut self,
        pos: Pos,
        what: &str,
        value: Option<Vec<T>>,
        slot: impl Fn(&mut Self) -> &mut Option<(Pos, Vec<T>)>,
    ) {
        let Some(value) = value else { return };
        if let Some((first, _)) = slot(self) {
            let first = *first;
            self.errors.push(
                SuiteError::new(pos, format!("`{what}` given twice"))
                    .hint(format!("it was first given at line {}", first.line)),
            );
            return;
        }
        *slot(self) = Some((pos, value));
    }

    fn define(&mut self, block: &Block<'_>, rest_pos: Pos) {
        let (name, after) = match block.rest.split_once('=') {
            Some((name, after)) => (name.trim(), after),
            None => {
                self.errors.push(
                    SuiteError::new(rest_pos, "expected `let NAME = FORMULA`")
                        .hint(r#"e.g. `let R1 = "worker_1_ RECV <Boolean>"`"#),
                );
                return;
            }
        };
        if !is_identifier(name) {
            self.errors.push(
                SuiteError::new(rest_pos, format!("`{name}` cannot be an abbreviation"))
                    .hint("abbreviations are identifiers: letters, digits and `_`"),
            );
            return;
        }
        if RESERVED.contains(&name) {
            self.errors.push(
                SuiteError::new(rest_pos, format!("`{name}` is part of LTL syntax"))
                    .hint("choose another name"),
            );
            return;
        }
        if self.macros.contains_key(name) {
            self.errors.push(SuiteError::new(
                rest_pos,
                format!("`{name}` is defined twice"),
            ));
            return;
        }
        let eq_offset = block.rest.len() - after.len();
        let after_col = rest_pos.col + block.rest[..eq_offset].chars().count();
        let first = Line {
            number: block.pos.line,
            text: after,
        };
        let (source, start, map) = collect_formula(Some((first, after_col)), &block.body);
        if start.is_none() {
            self.errors.push(SuiteError::new(
                rest_pos,
                format!("`{name}` has an empty definition"),
            ));
            return;
        }
        match self.expand(&source, &map) {
            Ok(body) => {
                self.macros.insert(name.to_string(), body);
            }
            Err(e) => self.errors.push(e),
        }
    }

    fn entry(&mut self, block: &Block<'_>, rest_pos: Pos) {
        let words = words(block.rest, rest_pos);
        let Some(((name, name_pos), verdicts)) = words.split_first() else {
            self.errors.push(
                SuiteError::new(rest_pos, "`test` needs a name and an expected verdict")
                    .hint("e.g. `test white_begins holds`"),
            );
            return;
        };
        if !is_name(name) {
            self.errors.push(
                SuiteError::new(*name_pos, format!("`{name}` is not a test name"))
                    .hint("test names use letters, digits, `_` and `-`"),
            );
            return;
        }
        if let Some(prev) = self.entries.iter().find(|e| e.name == *name) {
            self.errors.push(
                SuiteError::new(*name_pos, format!("test `{name}` defined twice"))
                    .hint(format!("the first is at line {}", prev.pos.line)),
            );
            return;
        }
        let clauses = match parse_clauses(verdicts) {
            Ok(c) if !c.is_empty() => c,
            Ok(_) => {
                self.errors.push(
                    SuiteError::new(*name_pos, format!("`{name}` has no expected verdict"))
                        .hint("add `holds`, `violated` or `error` after the name"),
                );
                return;
            }
            Err(e) => {
                self.errors.push(e);
                return;
            }
        };
        let (source, start, map) = collect_formula(None, &block.body);
        let Some(formula_pos) = start else {
            self.errors.push(
                SuiteError::new(*name_pos, format!("`{name}` has no formula"))
                    .hint("write the formula on the lines after the `test` line"),
            );
            return;
        };
        let formula = self.expand(&source, &map).and_then(|formula| {
            // Syntax errors are the file's, with the file's line and column
            // (inside an abbreviation: at the start of the formula).
            match owl_lite::parse(&formula) {
                Ok(_) => Ok(formula),
                Err(e) => {
                    let pos = if formula == source {
                        map.at(e.offset())
                    } else {
                        formula_pos
                    };
                    let mut message = e.to_string();
                    if let Some(first) = message.lines().next() {
                        message = format!("formula of `{name}`: {first}");
                    }
                    Err(SuiteError::new(pos, message)
                        .hint("LTL in Owl syntax: ! && || => <=> X F G U W R M, atoms in quotes"))
                }
            }
        });
        match formula {
            Ok(formula) => self.entries.push(Entry {
                name: name.to_string(),
                pos: block.pos,
                clauses,
                source,
                formula,
                formula_pos,
            }),
            Err(e) => self.errors.push(e),
        }
    }

    /// Replaces every abbreviation in `source` (outside quotes) by its
    /// definition in parentheses. Bare words that are neither LTL syntax nor
    /// abbreviations are errors: the checker's atoms are quoted. So are
    /// expansions past [`MAX_EXPANDED_LEN`] (or past [`MAX_EXPANDED_TOTAL`]
    /// for the file), reported at the abbreviation that crosses the bound.
    fn expand(&mut self, source: &str, map: &PosMap) -> Result<String, SuiteError> {
        let out = self.expand_text(source, map)?;
        self.expanded_total += out.len();
        Ok(out)
    }

    fn expand_text(&self, source: &str, map: &PosMap) -> Result<String, SuiteError> {
        let mut out = String::with_capacity(source.len());
        let mut chars = source.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if c == '"' {
                // A backslash escapes the next character, as in owl-lite.
                let mut escaped = false;
                let closing = chars.by_ref().find(|&(_, d)| {
                    let close = d == '"' && !escaped;
                    escaped = d == '\\' && !escaped;
                    close
                });
                let Some(end) = closing.map(|(j, _)| j + 1) else {
                    return Err(SuiteError::new(map.at(i), "unterminated quoted atom")
                        .hint("close the atom with `\"`"));
                };
                out.push_str(&source[i..end]);
            } else if c.is_alphabetic() || c == '_' {
                let mut end = source.len();
                while let Some(&(j, d)) = chars.peek() {
                    if d.is_alphanumeric() || d == '_' {
                        chars.next();
                    } else {
                        end = j;
                        break;
                    }
                }
                let word = &source[i..end];
                if let Some(body) = self.macros.get(word) {
                    let len = out.len() + body.len() + 2;
                    if len > MAX_EXPANDED_LEN {
                        return Err(SuiteError::new(
                            map.at(i),
                            format!(
                                "`{word}` ({} bytes once expanded) makes this formula longer \
                                 than {MAX_EXPANDED_LEN} bytes",
                                body.len()
                            ),
                        )
                        .hint(
                            "abbreviations are copied where they are used, so nested ones \
                             that use each other several times grow exponentially; \
                             use each abbreviation fewer times",
                        ));
                    }
                    if self.expanded_total + len > MAX_EXPANDED_TOTAL {
                        return Err(SuiteError::new(
                            map.at(i),
                            format!(
                                "the abbreviations expand this file's formulas to more than \
                                 {MAX_EXPANDED_TOTAL} bytes in all"
                            ),
                        )
                        .hint("split the file, or use long abbreviations in fewer places"));
                    }
                    out.push('(');
                    out.push_str(body);
                    out.push(')');
                } else if RESERVED.contains(&word) || is_operator_run(word) {
                    out.push_str(word);
                } else {
                    let mut err = SuiteError::new(map.at(i), format!("`{word}` is not defined"));
                    err = match closest(word, self.macros.keys().map(String::as_str)) {
                        Some(best) => err.hint(format!("did you mean `{best}`?")),
                        None if self.macros.is_empty() => err.hint(format!(
                            "atoms are quoted: `\"{word} ...\"`; or define it with `let {word} = ...`"
                        )),
                        None => err.hint(format!(
                            "defined here: {}",
                            name_list(self.macros.keys().map(String::as_str))
                        )),
                    };
                    return Err(err);
                }
            } else {
                out.push(c);
            }
        }
        Ok(out)
    }

    /// Every qualifier must name a protocol, runtime or semantics of the file.
    fn check_qualifiers(&mut self) {
        let mut known: Vec<String> = self.protocols.iter().map(|p| p.alias.clone()).collect();
        known.extend(Runtime::ALL.iter().map(|r| r.name().to_string()));
        known.extend(SemanticsName::ALL.iter().map(|s| s.name().to_string()));
        for entry in &self.entries {
            for clause in &entry.clauses {
                for q in &clause.qualifiers {
                    if !known.contains(q) {
                        let mut err = SuiteError::new(
                            clause.pos,
                            format!("`@{q}` is no protocol, runtime or semantics of this file"),
                        );
                        err = match closest(q, known.iter().map(String::as_str)) {
                            Some(best) => err.hint(format!("did you mean `@{best}`?")),
                            None => err.hint(format!(
                                "one of: {}",
                                name_list(known.iter().map(String::as_str))
                            )),
                        };
                        self.errors.push(err);
                    }
                }
            }
        }
    }
}

/// Where each byte of a collected formula came from in the file.
struct PosMap {
    /// (offset in the formula, position in the file) at the start of each line.
    starts: Vec<(usize, Pos)>,
    text: String,
}

impl PosMap {
    fn at(&self, offset: usize) -> Pos {
        let idx = self
            .starts
            .partition_point(|(o, _)| *o <= offset)
            .saturating_sub(1);
        let Some(&(start, pos)) = self.starts.get(idx) else {
            return Pos { line: 1, col: 1 };
        };
        let end = offset.min(self.text.len());
        let cols = self
            .text
            .get(start..end)
            .map(|s| s.chars().count())
            .unwrap_or(0);
        Pos {
            line: pos.line,
            col: pos.col + cols,
        }
    }
}

/// Joins the non-empty formula lines (the directive's own remainder first,
/// if given) with `\n`, and remembers where each came from.
fn collect_formula(
    first: Option<(Line<'_>, usize)>,
    body: &[Line<'_>],
) -> (String, Option<Pos>, PosMap) {
    let mut text = String::new();
    let mut starts = Vec::new();
    let mut push = |line: &str, pos: Pos| {
        if !text.is_empty() {
            text.push('\n');
        }
        starts.push((text.len(), pos));
        text.push_str(line);
    };
    if let Some((line, col)) = first {
        let trimmed = line.text.trim();
        if !trimmed.is_empty() {
            let lead = line.text.len() - line.text.trim_start().len();
            let col = col + line.text[..lead].chars().count();
            push(
                trimmed,
                Pos {
                    line: line.number,
                    col,
                },
            );
        }
    }
    for line in body {
        let trimmed = line.text.trim();
        if trimmed.is_empty() {
            continue;
        }
        push(trimmed, first_char_pos(line));
    }
    let start = starts.first().map(|s| s.1);
    (text.clone(), start, PosMap { starts, text })
}

fn first_char_pos(line: &Line<'_>) -> Pos {
    let lead = line.text.len() - line.text.trim_start().len();
    Pos {
        line: line.number,
        col: line.text[..lead].chars().count() + 1,
    }
}

/// Parses the verdict words of a `test` line: `holds`, `violated`,
/// `error` (optionally followed by quoted strings the message must
/// contain), each optionally qualified: `violated@liberal+omega`.
fn parse_clauses(words: &[(&str, Pos)]) -> Result<Vec<Clause>, SuiteError> {
    let mut clauses: Vec<Clause> = Vec::new();
    for &(word, pos) in words {
        if let Some(quoted) = word.strip_prefix('"') {
            let Some(text) = quoted.strip_suffix('"').filter(|_| !quoted.is_empty()) else {
                return Err(SuiteError::new(pos, "unterminated string").hint("close it with `\"`"));
            };
            match clauses.last_mut() {
                Some(Clause {
                    expected: Expected::Error(parts),
                    ..
                }) => parts.push(text.to_string()),
                _ => {
                    return Err(SuiteError::new(pos, "a quoted string must follow `error`")
                        .hint(r#"e.g. `error "did you mean"`"#))
                }
            }
            continue;
        }
        let (verdict, quals) = match word.split_once('@') {
            Some((v, q)) => (v, Some(q)),
            None => (word, None),
        };
        let expected = match verdict {
            "holds" => Expected::Holds,
            "violated" => Expected::Violated,
            "error" => Expected::Error(Vec::new()),
            other => {
                let mut err = SuiteError::new(pos, format!("unknown verdict `{other}`"));
                err = match closest(other, ["holds", "violated", "error"]) {
                    Some(best) => err.hint(format!("did you mean `{best}`?")),
                    None => err.hint("one of: holds, violated, error"),
                };
                return Err(err);
            }
        };
        let qualifiers = match quals {
            None => Vec::new(),
            Some(q) => {
                let parts: Vec<String> = q.split('+').map(str::to_string).collect();
                if parts.iter().any(|p| !is_name(p)) {
                    return Err(SuiteError::new(pos, format!("bad qualifier in `{word}`"))
                        .hint("write e.g. `holds@omega` or `violated@liberal+stutter`"));
                }
                parts
            }
        };
        clauses.push(Clause {
            expected,
            qualifiers,
            pos,
        });
    }
    Ok(clauses)
}

/// Splits a directive's remainder into words (a quoted string is one word),
/// each with its position.
fn words(rest: &str, start: Pos) -> Vec<(&str, Pos)> {
    let mut out = Vec::new();
    let mut iter = rest.char_indices().peekable();
    let mut col = start.col;
    while let Some(&(i, c)) = iter.peek() {
        if c.is_whitespace() {
            iter.next();
            col += 1;
            continue;
        }
        let begin_col = col;
        let mut end = rest.len();
        let mut in_quotes = false;
        while let Some(&(j, d)) = iter.peek() {
            if d.is_whitespace() && !in_quotes {
                end = j;
                break;
            }
            if d == '"' {
                in_quotes = !in_quotes;
            }
            iter.next();
            col += 1;
        }
        out.push((
            &rest[i..end],
            Pos {
                line: start.line,
                col: begin_col,
            },
        ));
    }
    out
}

/// Removes a `#` comment, unless the `#` is inside a quoted atom.
fn strip_comment(line: &str) -> &str {
    let mut in_quotes = false;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_quotes => escaped = true,
            '"' => in_quotes = !in_quotes,
            '#' if !in_quotes => return &line[..i],
            _ => {}
        }
    }
    line
}

/// The most names a hint lists: every error of a file may carry one, so a
/// file with thousands of definitions and thousands of mistakes would
/// otherwise produce text quadratic in its length.
const HINT_NAMES: usize = 12;

/// `a, b, c`, or the first [`HINT_NAMES`] names and how many more there are.
fn name_list<'a>(names: impl ExactSizeIterator<Item = &'a str>) -> String {
    let total = names.len();
    let shown: Vec<&str> = names.take(HINT_NAMES).collect();
    let more = total - shown.len();
    let mut text = shown.join(", ");
    if more > 0 {
        text.push_str(&format!(", … ({more} more)"));
    }
    text
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// Names of tests, protocols and qualifiers: letters, digits, `_`, `-`, `:`, `.`.
fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | ':' | '.'))
}

/// Owl lets unary operators run together without spaces (`GF`, `XX`, `FG`):
/// such words are syntax, not names.
fn is_operator_run(word: &str) -> bool {
    word.chars().all(|c| matches!(c, 'G' | 'F' | 'X'))
}

#[cfg(test)]
#[path = "format/tests.rs"]
mod tests;
