//! The parser of suite files: directives, verdicts and formulas, with
//! every error at its line and column.

use std::collections::BTreeSet;
use std::str::FromStr;

use engine::names::closest;
use engine::{Fairness, Semantics};

use super::expand::{Abbreviations, RESERVED};
use super::lex::{
    blocks, collect_formula, first_char_pos, is_identifier, is_name, name_list, words, Block, Line,
};
use super::types::{
    Clause, Entry, Expected, Pos, ProtocolDecl, Suite, SuiteError, DEFAULT_RUNTIMES,
};
use crate::{load, Runtime};

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

/// The state of parsing one file: what it has declared so far, and every
/// error found.
#[derive(Default)]
struct Parser {
    errors: Vec<SuiteError>,
    protocols: Vec<ProtocolDecl>,
    /// The `runtime` line: where it is, and each runtime with the
    /// position of its word.
    runtimes: Option<(Pos, Vec<(Runtime, Pos)>)>,
    semantics: Option<(Pos, Vec<(Semantics, Pos)>)>,
    fairness: Option<(Pos, Vec<(Fairness, Pos)>)>,
    max_states: Option<u64>,
    abbreviations: Abbreviations,
    entries: Vec<Entry>,
}

impl Parser {
    fn run(mut self, text: &str) -> Result<Suite, Vec<SuiteError>> {
        for block in blocks(text, &mut self.errors) {
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
        self.check_runtimes_fit_protocols();
        if let Some((_, given)) = &self.fairness {
            if let Some(&(f, pos)) = given.get(1) {
                self.errors.push(
                    SuiteError::new(pos, format!("a second fairness `{f}`"))
                        .hint("every check of a file has one fairness; put the other in a file of its own"),
                );
            }
        }
        if !self.errors.is_empty() {
            self.errors.sort_by_key(|e| e.pos);
            return Err(self.errors);
        }
        Ok(Suite {
            protocols: self.protocols,
            runtimes: self
                .runtimes
                .map(|r| r.1.into_iter().map(|(r, _)| r).collect())
                .unwrap_or_else(|| DEFAULT_RUNTIMES.to_vec()),
            semantics: self
                .semantics
                .map(|s| s.1.into_iter().map(|(s, _)| s).collect())
                .unwrap_or_else(|| Semantics::ALL.to_vec()),
            max_states: self.max_states,
            fairness: self.fairness.map(|(_, f)| f[0].0),
            entries: self.entries,
        })
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
                let parsed =
                    self.names(&block, rest_pos, "semantics", &Semantics::ALL, |s| s.name());
                self.set_once(block.pos, "semantics", parsed, |p| &mut p.semantics);
            }
            "fairness" => {
                let parsed = self.names(&block, rest_pos, "fairness", &Fairness::ALL, |f| f.name());
                self.set_once(block.pos, "fairness", parsed, |p| &mut p.fairness);
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

    /// The names on a `runtime` or `semantics` line, each read by `T`'s
    /// `FromStr` (the parser the command line uses too) with its position.
    fn names<T: Copy + PartialEq + FromStr>(
        &mut self,
        block: &Block<'_>,
        rest_pos: Pos,
        what: &str,
        all: &[T],
        name: impl Fn(T) -> &'static str,
    ) -> Option<Vec<(T, Pos)>> {
        let words = words(block.rest, rest_pos);
        if words.is_empty() {
            let known: Vec<_> = all.iter().map(|&t| name(t)).collect();
            self.errors.push(
                SuiteError::new(rest_pos, format!("`{what}` needs at least one name"))
                    .hint(format!("one or more of: {}", known.join(", "))),
            );
            return None;
        }
        let mut out: Vec<(T, Pos)> = Vec::new();
        for (w, pos) in words {
            match w.parse::<T>() {
                Ok(t) if !out.iter().any(|&(o, _)| o == t) => out.push((t, pos)),
                Ok(_) => self
                    .errors
                    .push(SuiteError::new(pos, format!("`{w}` given twice"))),
                Err(_) => {
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
        if self.abbreviations.contains(name) {
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
        match self.abbreviations.expand(&source, &map) {
            Ok(body) => {
                self.abbreviations.define(name, body);
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
        let formula = self
            .abbreviations
            .expand(&source, &map)
            .and_then(|formula| {
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
                        Err(SuiteError::new(pos, message).hint(
                            "LTL in Owl syntax: ! && || => <=> X F G U W R M, atoms in quotes",
                        ))
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

    /// Every qualifier must name a protocol, runtime or semantics of the file.
    fn check_qualifiers(&mut self) {
        let mut known: Vec<String> = self.protocols.iter().map(|p| p.alias.clone()).collect();
        known.extend(Runtime::ALL.iter().map(|r| r.name().to_string()));
        known.extend(Semantics::ALL.iter().map(|s| s.name().to_string()));
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

    /// A runtime that needs a specification (on-the-fly) cannot run an
    /// `.aut` file, which has only an LTS: said here, at the runtime's
    /// word, rather than by every trial of the file.
    fn check_runtimes_fit_protocols(&mut self) {
        let Some((_, runtimes)) = &self.runtimes else {
            return;
        };
        for &(runtime, pos) in runtimes.iter().filter(|(r, _)| r.needs_spec()) {
            for p in self.protocols.iter().filter(|p| !load::has_spec(&p.spec)) {
                self.errors.push(
                    SuiteError::new(
                        pos,
                        format!(
                            "the {runtime} runtime builds a bundled protocol's specification, \
                             and `{}` (line {}) is an LTS file",
                            p.spec, p.pos.line
                        ),
                    )
                    .hint(
                        "check .aut files with `runtime strict liberal`; put the on-the-fly \
                           checks of bundled protocols in a suite file of their own",
                    ),
                );
            }
        }
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
