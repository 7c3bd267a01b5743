//! The `prust` command as users run it: outputs and exit codes.

use std::process::{Command, Output};

#[path = "common/cli.rs"]
mod cli;

use cli::{prust, stderr, stdout};

#[test]
fn translate_prints_hoa_with_atom_names() {
    let o = prust(&["translate", r#"G ("a SEND *" -> F "b RECV *")"#]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("HOA: v1"), "{out}");
    assert!(out.contains(r#"AP: 2 "a SEND *" "b RECV *""#), "{out}");
    assert!(out.trim_end().ends_with("--END--"), "{out}");
}

#[test]
fn translate_stats_is_one_line_of_key_values() {
    let o = prust(&["translate", "--format", "stats", "GF a & GF b"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let line = stdout(&o);
    let keys: Vec<&str> = line
        .split_whitespace()
        .map(|kv| kv.split('=').next().unwrap())
        .collect();
    assert_eq!(
        keys,
        ["states", "edges", "acceptance_sets", "time_us"],
        "{line}"
    );
    for kv in line.split_whitespace() {
        let v = kv.split('=').nth(1).unwrap();
        assert!(v.parse::<u64>().is_ok(), "{kv} is not a number");
    }
}

#[test]
fn translate_negate_gives_the_automaton_of_the_negation() {
    // F a needs an acceptance condition; its negation G !a is a safety
    // property: one state, a self-loop on !a, every infinite run accepting.
    let plain = stdout(&prust(&["translate", "--format", "stats", "F a"]));
    let negated = stdout(&prust(&[
        "translate",
        "--negate",
        "--format",
        "stats",
        "F a",
    ]));
    assert!(plain.contains("acceptance_sets=1"), "{plain}");
    assert!(
        negated.starts_with("states=1 edges=1 acceptance_sets=0"),
        "{negated}"
    );
    let dot = stdout(&prust(&["translate", "--negate", "--format", "dot", "F a"]));
    assert!(dot.starts_with("digraph") && dot.contains("!a"), "{dot}");
}

#[test]
fn translate_bad_formula_exits_3_with_caret() {
    let o = prust(&["translate", "G (a -> F b"]);
    assert_eq!(o.status.code(), Some(3));
    let err = stderr(&o);
    assert!(err.contains("line 1, column 12"), "{err}");
    assert!(err.contains('^'), "{err}");
}

#[test]
fn bad_arguments_are_explained() {
    let o = prust(&["translate", "--formt", "dot", "a"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).contains("similar argument exists: '--format'"),
        "{}",
        stderr(&o)
    );
    let o = prust(&["chek"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).contains("similar subcommand exists: 'check'"),
        "{}",
        stderr(&o)
    );
    let o = prust(&["translate", "G", "(a", "U", "b)"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("quote the formula"), "{}", stderr(&o));
}

#[test]
fn check_demo_shows_both_verdicts() {
    // The demo succeeds when its verdicts are the expected ones.
    let o = prust(&["check"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("property holds"), "{out}");
    assert!(out.contains("property violated"), "{out}");
    assert!(out.contains("cycle"), "{out}");
    assert!(out.contains("demo: both verdicts as expected"), "{out}");
}

#[test]
fn check_exit_codes() {
    let holds = r#"G ("worker_1_ RECV <Boolean>" => X "worker_1_ SEND <Boolean> TO worker_0_")"#;
    let violated = r#"G ("worker_1_ RECV <Boolean>" => X "worker_1_ SEND <Boolean> TO worker_2_")"#;
    for runtime in ["strict", "liberal"] {
        let o = prust(&["check", "token-star:4", holds, "--runtime", runtime]);
        assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
        let o = prust(&[
            "check",
            "token-star:4",
            holds,
            violated,
            "--runtime",
            runtime,
        ]);
        assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
        assert!(
            stdout(&o).contains("1. worker_0_ SEND <Boolean> TO worker_"),
            "{}",
            stdout(&o)
        );
    }
    // A search cut short is inconclusive, never "holds"; so is a build of
    // the object that the same limit stops.
    for runtime in ["on-the-fly", "strict", "liberal"] {
        let o = prust(&[
            "check",
            "token-full-mesh:6",
            r#"G !"DEADLOCK""#,
            "--max-states",
            "5",
            "--runtime",
            runtime,
        ]);
        assert_eq!(o.status.code(), Some(2), "{runtime}: {}", stdout(&o));
        assert!(stdout(&o).contains("inconclusive"), "{}", stdout(&o));
    }
}

#[test]
fn check_typo_in_role_is_an_error_with_a_hint() {
    // The error is a diagnostic (stderr); the other formula's verdict and
    // the summary are results (stdout).
    let o = prust(&["check", "chess", r#"G !"whte SEND <Move>""#, "G true"]);
    assert_eq!(o.status.code(), Some(3), "{}", stdout(&o));
    let (out, err) = (stdout(&o), stderr(&o));
    assert!(err.contains("did you mean `white`"), "{err}");
    assert!(err.contains("error in formula"), "{err}");
    assert!(!out.contains("whte"), "{out}");
    assert!(out.contains("property holds: G true"), "{out}");
    let last = out.lines().last().unwrap_or_default();
    assert!(
        last.starts_with(
            "2 formula(s) on chess (strict): 1 hold, 0 violated, 0 inconclusive, 1 error(s);"
        ),
        "{out}"
    );
}

#[test]
fn check_unknown_protocol_and_bad_options() {
    let o = prust(&["check", "token-stra:4", "G true"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).contains("did you mean `token-star`?"),
        "{}",
        stderr(&o)
    );
    let o = prust(&["check", "chess", "G true", "--semantics", "lasso"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("stutter, omega"), "{}", stderr(&o));
    let o = prust(&["check", "chess"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("no formula"), "{}", stderr(&o));
}

/// Sixteen concurrent workers: 5^16 global states a round, too many to
/// compile (the error says to build on the fly: see `on_the_fly.rs`),
/// checked on the fly up to a limit (inconclusive, exit code 2, never
/// "holds").
#[test]
fn check_on_the_fly_where_compiling_is_too_much() {
    let f = r#"G !"DEADLOCK""#;
    let o = prust(&[
        "check",
        "npb-is-concurrent:16",
        f,
        "--runtime",
        "on-the-fly",
        "--max-states",
        "20000",
        // Every interleaving: the state limit is met, and is never "holds".
        "--no-por",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(stdout(&o).contains("state limit"), "{}", stdout(&o));
    // With partial-order reduction (the default) the workers' branches are
    // searched one after the other: proven well within the limit.
    let o = prust(&[
        "check",
        "npb-is-concurrent:6",
        f,
        "--runtime",
        "on-the-fly",
        "--max-states",
        "2000",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("partial-order reduction on"),
        "{}",
        stdout(&o)
    );
    // Where both can be built, both give the same verdicts.
    let g = r#"G ("worker_1_ RECV <RankMessage>" -> F "worker_1_ SEND <DoneMessage>")"#;
    let verdicts = |runtime| {
        let o = prust(&["check", "npb-is-concurrent:3", f, g, "--runtime", runtime]);
        assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
        stdout(&o)
            .lines()
            .filter(|l| l.starts_with("property"))
            .map(String::from)
            .collect::<Vec<_>>()
    };
    assert_eq!(verdicts("on-the-fly"), verdicts("strict"));
    // An .aut file is an LTS already: nothing to build on the fly.
    let o = prust(&["check", "some/file.aut", f, "--runtime", "on-the-fly"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("--runtime strict"), "{}", stderr(&o));
}

#[test]
fn semantics_option_changes_finite_run_verdicts() {
    // Two-buyer ends: under the stutter convention "always eventually some
    // send" is violated by the terminated run; with infinite runs only there
    // is no infinite run, so it holds vacuously.
    let f = r#"G F "* SEND *""#;
    let o = prust(&["check", "two-buyer", f]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stdout(&o).contains("terminated"), "{}", stdout(&o));
    let o = prust(&["check", "two-buyer", f, "--semantics", "omega"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
}

#[test]
fn list_names_every_bundled_protocol() {
    let o = prust(&["list"]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    for name in [
        "token-directed-ring:K",
        "chess",
        "go-fish:K",
        "npb-mg:K",
        "two-buyer",
        "load-balancer",
    ] {
        assert!(out.contains(name), "{name} missing from\n{out}");
    }
}

#[test]
fn lts_aut_round_trips_through_a_file() {
    let o = prust(&["lts", "rock-paper-scissors:3", "--format", "aut"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let aut = stdout(&o);
    let dir = std::env::temp_dir().join(format!("prust-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("rps.aut");
    std::fs::write(&path, &aut).unwrap();
    let p = path.to_str().unwrap();
    let again = prust(&["lts", p, "--format", "aut"]);
    assert_eq!(stdout(&again), aut);
    let stats = |x: &str| stdout(&prust(&["lts", x, "--format", "stats"]));
    assert_eq!(stats(p), stats("rock-paper-scissors:3"));
    // The same verdicts from the file as from the bundled name.
    let f = r#"G ("player_0_ SEND <Rock> TO player_1_" -> F "player_1_ RECV <Rock>")"#;
    assert_eq!(
        prust(&["check", p, f]).status.code(),
        prust(&["check", "rock-paper-scissors:3", f]).status.code()
    );
    std::fs::write(&path, "des (0, 1, 2)\n(0, \"!(Move,white\", 1)\n").unwrap();
    let bad = prust(&["lts", p]);
    assert_eq!(bad.status.code(), Some(3));
    assert!(
        stderr(&bad).contains("rps.aut:2:7: malformed label"),
        "{}",
        stderr(&bad)
    );
    std::fs::remove_dir_all(&dir).ok();
}

// ---- The command line as a Rust CLI: help, version, exit codes, streams. ----

fn no_panic(o: &Output) {
    assert_ne!(o.status.code(), Some(101), "{}", stderr(o));
    assert!(!stderr(o).contains("panicked"), "{}", stderr(o));
}

#[test]
fn version_is_the_package_version() {
    let o = prust(&["--version"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o).trim(),
        format!("prust {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn every_subcommand_has_help_with_the_exit_codes() {
    let table = |o: &Output| {
        assert_eq!(o.status.code(), Some(0), "{}", stderr(o));
        let out = stdout(o);
        for line in [
            "0    success",
            "1    some formula is violated",
            "2    some formula is inconclusive",
            "3    error",
            "141  stdout was closed",
        ] {
            assert!(out.contains(line), "{line:?} missing from\n{out}");
        }
        assert!(stderr(o).is_empty(), "{}", stderr(o));
        out
    };
    for sub in ["translate", "list", "lts", "check", "replay"] {
        let long = table(&prust(&[sub, "--help"]));
        let short = table(&prust(&[sub, "-h"]));
        assert!(long.contains(&format!("Usage: prust {sub}")), "{long}");
        assert!(short.contains(&format!("Usage: prust {sub}")), "{short}");
        assert_eq!(table(&prust(&["help", sub])), long);
    }
    let top = table(&prust(&["--help"]));
    for sub in ["translate", "list", "lts", "check", "replay", "help"] {
        assert!(
            top.contains(&format!("\n  {sub} ")),
            "{sub} missing from\n{top}"
        );
    }
    // `prust` alone shows the same help, and succeeds.
    assert_eq!(table(&prust(&[])), top);
    // What each option means is in the help, --timeout being per formula.
    let check = stdout(&prust(&["check", "--help"]));
    for s in [
        "--timeout <SECS>",
        "budget per formula",
        "--format <FORMAT>",
        "on-the-fly",
        "--max-states <N>",
        "PRUST_MAX_STATES",
    ] {
        assert!(check.contains(s), "{s:?} missing from\n{check}");
    }
}

#[test]
fn usage_errors_exit_3_on_stderr() {
    for args in [
        &["check", "chess", "G true", "--runtim", "strict"][..],
        &["check", "chess", "G true", "--runtime", "lax"],
        &["check", "chess", "G true", "--max-states", "many"],
        &["check", "chess", "G true", "--max-states", "-5"],
        &["check", "chess", "G true", "--format", "xml"],
        &["lts"],
        &["lts", "chess", "--format", "svg"],
        &["list", "extra"],
        &["translate", "--negate=yes", "a"],
        &["frobnicate"],
    ] {
        let o = prust(args);
        assert_eq!(o.status.code(), Some(3), "{args:?}: {}", stderr(&o));
        assert!(stdout(&o).is_empty(), "{args:?}: {}", stdout(&o));
        let err = stderr(&o);
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(err.contains("try '--help'"), "{args:?}: {err}");
        no_panic(&o);
    }
}

#[test]
fn timeouts_that_are_not_durations_are_rejected() {
    // ("inf" and "1e300" are no timeout, as in PRUST_TIMEOUT: see
    // cli_limits_and_trails.rs)
    for t in ["-1", "NaN", "0", "1e-12", "soon"] {
        for args in [
            vec!["check", "chess", "G true", "--timeout", t],
            vec!["check", "chess", "G true", &format!("--timeout={t}")],
        ] {
            let o = prust(&args);
            assert_eq!(o.status.code(), Some(3), "{args:?}");
            let err = stderr(&o);
            assert!(err.contains("invalid value"), "{args:?}: {err}");
            assert!(err.contains("--timeout <SECS>"), "{args:?}: {err}");
            no_panic(&o);
        }
    }
    let o = prust(&["check", "chess", "G true", "--timeout", "30"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn a_bad_environment_variable_is_an_error_not_a_panic() {
    for (var, value) in [
        ("PRUST_MAX_STATES", "lots"),
        ("PRUST_TIMEOUT", "-3"),
        ("PRUST_SEMANTICS", "lasso"),
        ("PRUST_THREADS", "many"),
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_prust"))
            .args(["check", "chess", "G true"])
            .env(var, value)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(3), "{var}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.starts_with("error: bad environment"), "{err}");
        assert!(err.contains("hint:"), "{err}");
        no_panic(&o);
    }
    // PRUST_TIMEOUT's message does not name it: the hint does.
    let o = Command::new(env!("CARGO_BIN_EXE_prust"))
        .args(["check", "chess", "G true"])
        .env("PRUST_MAX_STATES", "lots")
        .output()
        .unwrap();
    assert!(
        stderr(&o).contains("PRUST_MAX_STATES=\"lots\""),
        "{}",
        stderr(&o)
    );
}

/// Runs prust with a stdout pipe whose reader is gone before prust writes
/// anything: every write fails with `BrokenPipe`.
fn with_closed_stdout(args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    Command::new(env!("CARGO_BIN_EXE_prust"))
        .args(args)
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap()
}

#[test]
fn a_closed_pipe_is_a_quiet_exit() {
    for args in [
        &["list"][..],
        &["lts", "chess", "--format", "aut"],
        &["translate"],
        &["check", "chess", "G true"],
        &["check", "chess", "G true", "--format", "json"],
        &["--help"],
    ] {
        let o = with_closed_stdout(args);
        no_panic(&o);
        assert!(stderr(&o).is_empty(), "{args:?}: {}", stderr(&o));
        // --help too: its text goes through the same writer as results.
        assert_eq!(o.status.code(), Some(141), "{args:?}");
    }
}

#[test]
fn a_reader_that_stops_early_gets_a_quiet_exit() {
    use std::io::Read;
    // 300 KB of output, far more than a pipe holds: prust is still writing
    // when the reader leaves after one line.
    for args in [
        &["lts", "token-full-mesh:60", "--format", "aut"][..],
        &["list"],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_prust"))
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut pipe = child.stdout.take().unwrap();
        let mut line = Vec::new();
        let mut byte = [0u8];
        while pipe.read(&mut byte).unwrap() == 1 && byte[0] != b'\n' {
            line.push(byte[0]);
        }
        drop(pipe);
        let o = child.wait_with_output().unwrap();
        assert!(!line.is_empty(), "{args:?}");
        no_panic(&o);
        assert!(stderr(&o).is_empty(), "{args:?}: {}", stderr(&o));
        // `list` may have been written whole before the reader left.
        assert!(
            matches!(o.status.code(), Some(0 | 141)),
            "{args:?}: {:?}",
            o.status
        );
        if args[0] == "lts" {
            assert_eq!(o.status.code(), Some(141), "{args:?}");
        }
    }
}

// ---- prust check --format json ----

/// A JSON value, from a strict parser of RFC 8259 (test-only: it checks that
/// what prust writes is JSON, and lets the tests read it back).
#[derive(Debug, Clone, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    fn parse(text: &str) -> Result<Json, String> {
        let mut p = JsonParser {
            s: text.as_bytes(),
            i: 0,
        };
        let v = p.value()?;
        p.ws();
        if p.i != p.s.len() {
            return Err(format!("trailing text at byte {}", p.i));
        }
        Ok(v)
    }

    fn get(&self, key: &str) -> &Json {
        match self {
            Json::Obj(fields) => {
                let mut found = fields.iter().filter(|(k, _)| k == key);
                let v = found.next().map(|(_, v)| v);
                assert!(found.next().is_none(), "duplicate key {key}");
                v.unwrap_or_else(|| panic!("no {key:?} in {self:?}"))
            }
            _ => panic!("{self:?} is not an object"),
        }
    }

    fn has(&self, key: &str) -> bool {
        matches!(self, Json::Obj(f) if f.iter().any(|(k, _)| k == key))
    }

    fn str(&self) -> &str {
        match self {
            Json::Str(s) => s,
            _ => panic!("{self:?} is not a string"),
        }
    }

    fn num(&self) -> f64 {
        match self {
            Json::Num(n) => *n,
            _ => panic!("{self:?} is not a number"),
        }
    }

    fn arr(&self) -> &[Json] {
        match self {
            Json::Arr(a) => a,
            _ => panic!("{self:?} is not an array"),
        }
    }
}

struct JsonParser<'a> {
    s: &'a [u8],
    i: usize,
}

impl JsonParser<'_> {
    fn ws(&mut self) {
        while matches!(self.s.get(self.i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn eat(&mut self, lit: &str) -> bool {
        if self.s[self.i..].starts_with(lit.as_bytes()) {
            self.i += lit.len();
            true
        } else {
            false
        }
    }

    fn value(&mut self) -> Result<Json, String> {
        self.ws();
        let at = self.i;
        match self.s.get(self.i) {
            Some(b'{') => {
                self.i += 1;
                let mut fields = Vec::new();
                self.ws();
                if self.eat("}") {
                    return Ok(Json::Obj(fields));
                }
                loop {
                    self.ws();
                    let Json::Str(k) = self.value()? else {
                        return Err(format!("key expected at byte {at}"));
                    };
                    self.ws();
                    if !self.eat(":") {
                        return Err(format!(": expected at byte {}", self.i));
                    }
                    fields.push((k, self.value()?));
                    self.ws();
                    if self.eat("}") {
                        return Ok(Json::Obj(fields));
                    }
                    if !self.eat(",") {
                        return Err(format!(", or }} expected at byte {}", self.i));
                    }
                }
            }
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.eat("]") {
                    return Ok(Json::Arr(items));
                }
                loop {
                    items.push(self.value()?);
                    self.ws();
                    if self.eat("]") {
                        return Ok(Json::Arr(items));
                    }
                    if !self.eat(",") {
                        return Err(format!(", or ] expected at byte {}", self.i));
                    }
                }
            }
            Some(b'"') => {
                self.i += 1;
                let mut out = String::new();
                loop {
                    let c = *self.s.get(self.i).ok_or("unterminated string")?;
                    self.i += 1;
                    match c {
                        b'"' => return Ok(Json::Str(out)),
                        b'\\' => {
                            let e = *self.s.get(self.i).ok_or("unterminated escape")?;
                            self.i += 1;
                            match e {
                                b'"' => out.push('"'),
                                b'\\' => out.push('\\'),
                                b'/' => out.push('/'),
                                b'b' => out.push('\u{8}'),
                                b'f' => out.push('\u{c}'),
                                b'n' => out.push('\n'),
                                b'r' => out.push('\r'),
                                b't' => out.push('\t'),
                                b'u' => {
                                    let hex = std::str::from_utf8(&self.s[self.i..self.i + 4])
                                        .map_err(|e| e.to_string())?;
                                    let code =
                                        u32::from_str_radix(hex, 16).map_err(|e| e.to_string())?;
                                    self.i += 4;
                                    // prust escapes only control characters:
                                    // no surrogate pairs to join.
                                    out.push(char::from_u32(code).ok_or("surrogate")?);
                                }
                                _ => return Err(format!("bad escape at byte {}", self.i)),
                            }
                        }
                        c if c < 0x20 => {
                            return Err(format!("raw control character at byte {}", self.i))
                        }
                        _ => {
                            // Copy one whole UTF-8 character.
                            let start = self.i - 1;
                            let len = match c {
                                0..=0x7f => 1,
                                0xc0..=0xdf => 2,
                                0xe0..=0xef => 3,
                                _ => 4,
                            };
                            let ch = std::str::from_utf8(&self.s[start..start + len])
                                .map_err(|e| e.to_string())?;
                            out.push_str(ch);
                            self.i = start + len;
                        }
                    }
                }
            }
            Some(b'-' | b'0'..=b'9') => {
                let start = self.i;
                self.eat("-");
                if !self.eat("0") {
                    let d = self.i;
                    while matches!(self.s.get(self.i), Some(b'0'..=b'9')) {
                        self.i += 1;
                    }
                    if d == self.i {
                        return Err(format!("digit expected at byte {d}"));
                    }
                }
                if self.eat(".") {
                    let d = self.i;
                    while matches!(self.s.get(self.i), Some(b'0'..=b'9')) {
                        self.i += 1;
                    }
                    if d == self.i {
                        return Err(format!("digit expected at byte {d}"));
                    }
                }
                if matches!(self.s.get(self.i), Some(b'e' | b'E')) {
                    self.i += 1;
                    let _ = self.eat("+") || self.eat("-");
                    while matches!(self.s.get(self.i), Some(b'0'..=b'9')) {
                        self.i += 1;
                    }
                }
                let text = std::str::from_utf8(&self.s[start..self.i]).unwrap();
                text.parse()
                    .map(Json::Num)
                    .map_err(|e| format!("{text}: {e}"))
            }
            _ if self.eat("true") => Ok(Json::Bool(true)),
            _ if self.eat("false") => Ok(Json::Bool(false)),
            _ if self.eat("null") => Ok(Json::Null),
            _ => Err(format!("value expected at byte {at}")),
        }
    }
}

#[test]
fn the_test_json_parser_is_strict() {
    let v = Json::parse(r#" {"a": [1, -2.5e3, true, null], "b\n\"": "\u00e9\u0001é"} "#).unwrap();
    assert_eq!(v.get("a").arr()[1].num(), -2500.0);
    assert_eq!(v.get("b\n\"").str(), "\u{e9}\u{1}é");
    for bad in [
        "{",
        "[1,]",
        "{\"a\" 1}",
        "01",
        "\"a\nb\"",
        "\"\\x\"",
        "tru",
        "1 2",
        "{'a':1}",
    ] {
        assert!(Json::parse(bad).is_err(), "{bad:?} parsed");
    }
}

/// The JSON Lines of `prust check … --format json`: each line parsed.
fn json_lines(o: &Output) -> Vec<Json> {
    stdout(o)
        .lines()
        .map(|l| Json::parse(l).unwrap_or_else(|e| panic!("{e} in\n{l}")))
        .collect()
}

/// `--threads N`: a safety property searched on N threads has the verdict
/// and the counterexample of one thread, and the record says how many ran;
/// a count out of range is a usage error.
#[test]
fn check_threads_gives_the_one_thread_counterexample() {
    let run = |threads: &str| {
        Command::new(env!("CARGO_BIN_EXE_prust"))
            .args(["check", "ring-buffered:4", r#"G !"worker_3_ RECV *""#])
            .args(["--format", "json", "--threads", threads])
            // The determinism check (on in debug builds) keeps a search on
            // one thread, and so do levels smaller than the parallel
            // threshold: share every level of this small ring.
            .env("PRUST_DETERMINISM", "0")
            .env("PRUST_PARALLEL_LEVEL", "1")
            .output()
            .unwrap()
    };
    let (one, two) = (run("1"), run("2"));
    assert_eq!(one.status.code(), Some(1), "{}", stderr(&one));
    assert_eq!(two.status.code(), Some(1), "{}", stderr(&two));
    let (one, two) = (&json_lines(&one)[0], &json_lines(&two)[0]);
    assert_eq!(one.get("stats").get("threads").num(), 1.0);
    assert_eq!(two.get("stats").get("threads").num(), 2.0);
    assert_eq!(one.get("counterexample"), two.get("counterexample"));
    let o = prust(&["check", "chess", "G true", "--threads", "5000"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("0..=1024"), "{}", stderr(&o));
    no_panic(&o);
}

/// Every field of `engine::Stats`, as numbers.
fn assert_stats(record: &Json) {
    let stats = record.get("stats");
    for key in [
        "product_states",
        "transitions",
        "protocol_states",
        "automaton_states",
        "max_depth",
        "time_s",
        "threads",
    ] {
        assert!(stats.get(key).num() >= 0.0, "{key}");
    }
    let Json::Obj(fields) = stats else {
        unreachable!()
    };
    // Objects that declare their independence also say whether
    // partial-order reduction was used: "reduction" and one more field.
    let reduction = fields.iter().any(|(k, _)| k == "reduction");
    // A search kept on one thread although more were asked for says why.
    let single = fields.iter().any(|(k, _)| k == "single_thread");
    assert_eq!(
        fields.len(),
        8 + if reduction { 2 } else { 0 } + usize::from(single),
        "{stats:?}"
    );
}

#[test]
fn check_json_demo_has_one_record_per_formula() {
    let o = prust(&["check", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let records = json_lines(&o);
    assert_eq!(records.len(), 2, "{}", stdout(&o));
    let [holds, violated] = &records[..] else {
        unreachable!()
    };
    assert_eq!(
        holds.get("formula").str(),
        r#"!"black SEND <Move>" U "black RECV <Move>""#
    );
    assert_eq!(holds.get("verdict").str(), "holds");
    assert_eq!(holds.get("protocol").str(), "chess");
    assert_eq!(holds.get("runtime").str(), "strict");
    assert_eq!(holds.get("semantics").str(), "stutter");
    assert!(!holds.has("counterexample") && !holds.has("limit"));
    assert_stats(holds);
    assert_eq!(holds.get("stats").get("product_states").num(), 2.0);

    assert_eq!(violated.get("formula").str(), r#"F "END""#);
    assert_eq!(violated.get("verdict").str(), "violated");
    assert_stats(violated);
    // The lasso of the text demo: one step, then four that repeat.
    let cex = violated.get("counterexample");
    assert_eq!(cex.get("ending").get("kind").str(), "none");
    let steps = cex.get("steps").arr();
    assert_eq!(steps.len(), 5);
    let first = &steps[0];
    assert_eq!(first.get("index").num(), 1.0);
    assert_eq!(first.get("role").str(), "white");
    assert_eq!(first.get("action").str(), "SEND");
    assert_eq!(first.get("type").str(), "Move");
    assert_eq!(first.get("peer").str(), "black");
    assert_eq!(first.get("text").str(), "white SEND <Move> TO black");
    let in_cycle: Vec<&Json> = steps.iter().map(|s| s.get("in_cycle")).collect();
    assert_eq!(
        in_cycle,
        [
            &Json::Bool(false),
            &Json::Bool(true),
            &Json::Bool(true),
            &Json::Bool(true),
            &Json::Bool(true)
        ]
    );
    assert_eq!(steps[1].get("text").str(), "black RECV <Move> FROM white");
    assert_eq!(steps[1].get("action").str(), "RECV");
}

#[test]
fn check_json_carries_every_kind_of_outcome() {
    // A deadlock, with the role left waiting.
    let aut = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/owl/beyond/load-balancer-bug.aut"
    );
    let o = prust(&["check", aut, r#"G !"DEADLOCK""#, "--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let [r] = &json_lines(&o)[..] else {
        panic!("{}", stdout(&o))
    };
    let ending = r.get("counterexample").get("ending");
    assert_eq!(ending.get("kind").str(), "deadlock");
    assert_eq!(
        ending.get("blocked"),
        &Json::Arr(vec![Json::Str("client".into())])
    );
    assert!(r
        .get("counterexample")
        .get("steps")
        .arr()
        .iter()
        .all(|s| s.get("in_cycle") == &Json::Bool(false)));

    // Termination, an error (stdout record, stderr diagnostic), and the
    // omega semantics; the worst outcome decides the exit code.
    let o = prust(&[
        "check",
        "two-buyer",
        r#"G F "* SEND *""#,
        r#"G !"selr SEND *""#,
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let [terminated, error] = &json_lines(&o)[..] else {
        panic!("{}", stdout(&o))
    };
    assert_eq!(
        terminated
            .get("counterexample")
            .get("ending")
            .get("kind")
            .str(),
        "terminated"
    );
    assert!(!terminated
        .get("counterexample")
        .get("ending")
        .has("blocked"));
    assert_eq!(error.get("verdict").str(), "error");
    assert_eq!(error.get("formula").str(), r#"G !"selr SEND *""#);
    assert!(
        error.get("message").str().contains("did you mean `seller`"),
        "{error:?}"
    );
    assert!(!error.has("stats"));
    assert!(
        stderr(&o).contains("did you mean `seller`"),
        "{}",
        stderr(&o)
    );
    let o = prust(&[
        "check",
        "two-buyer",
        r#"G F "* SEND *""#,
        "--semantics",
        "omega",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let [r] = &json_lines(&o)[..] else { panic!() };
    assert_eq!(
        (r.get("verdict").str(), r.get("semantics").str()),
        ("holds", "omega")
    );

    // A limit of the search (the object is built on the fly, so the
    // search is what reaches it): inconclusive, with the limit's kind and
    // value.
    let o = prust(&[
        "check",
        "token-full-mesh:6",
        r#"G !"DEADLOCK""#,
        "--max-states",
        "5",
        "--runtime",
        "on-the-fly",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let [r] = &json_lines(&o)[..] else {
        panic!("{}", stdout(&o))
    };
    assert_eq!(r.get("verdict").str(), "inconclusive");
    assert_eq!(r.get("limit").get("kind").str(), "states");
    assert_eq!(r.get("limit").get("value").num(), 5.0);
    assert!(r.get("explored").num() >= 5.0);
    assert_stats(r);

    // The same limit stops the compilation of the object first: still
    // inconclusive, one record per formula, marked as the build's.
    let o = prust(&[
        "check",
        "token-full-mesh:6",
        r#"G !"DEADLOCK""#,
        r#"G F "* SEND *""#,
        "--max-states",
        "5",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let records = json_lines(&o);
    assert_eq!(records.len(), 2, "{}", stdout(&o));
    for r in &records {
        assert_eq!(r.get("verdict").str(), "inconclusive");
        assert_eq!(r.get("phase").str(), "build");
        assert_eq!(r.get("limit").get("kind").str(), "states");
        assert_eq!(r.get("limit").get("value").num(), 5.0);
        assert!(r.get("message").str().contains("--max-states"));
    }
}

/// Output to a full disk (`> /dev/full`) is an error (exit 3) that says
/// so, for results and for `--help`/`--version` alike (which once printed
/// nothing and exited 0).
#[test]
fn output_to_a_full_disk_is_an_error() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return; // no /dev/full here
    };
    for args in [
        &["--help"][..],
        &["-h"],
        &["--version"],
        &["check", "--help"],
        &[],
        &["list"],
        &["check", "chess", "G true"],
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_prust"))
            .args(args)
            .stdout(full.try_clone().unwrap())
            .output()
            .unwrap();
        no_panic(&o);
        assert_eq!(o.status.code(), Some(3), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).starts_with("error: cannot write the output"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
}

/// `prust check --help` names every `PRUST_*` variable that the checker
/// reads (`Checker::from_env`, in engine/src/checker/env.rs), so that a new
/// variable cannot go undocumented; only the hidden one for tests of the
/// progress line is left out.
#[test]
fn check_help_names_every_variable_the_checker_reads() {
    let source = include_str!("../engine/src/checker/env.rs");
    let mut read: Vec<&str> = source
        .match_indices("\"PRUST_")
        .map(|(at, _)| {
            let name = &source[at + 1..];
            let end = name
                .find(|c: char| !(c.is_ascii_uppercase() || c == '_'))
                .unwrap_or(name.len());
            &name[..end]
        })
        .collect();
    read.sort_unstable();
    read.dedup();
    assert!(read.len() >= 15, "{read:?}");
    let help = stdout(&prust(&["check", "--help"]));
    for var in read {
        if var == "PRUST_PROGRESS_AFTER_MS" {
            continue; // hidden: for the tests of the progress line
        }
        assert!(
            help.contains(var),
            "`prust check --help` does not name {var}"
        );
    }
    // The default thread count and when it is one.
    assert!(help.contains("prefers_bytes"), "{help}");
}

/// Arguments that are not UTF-8 (a file name, a formula) are an error
/// (exit 3) with a hint, not a panic.
#[cfg(unix)]
#[test]
fn non_utf8_arguments_are_errors_with_a_hint() {
    use std::os::unix::ffi::OsStrExt;
    for args in [
        vec![
            std::ffi::OsStr::from_bytes(b"lts"),
            std::ffi::OsStr::from_bytes(b"bad\xff.aut"),
        ],
        vec![
            std::ffi::OsStr::from_bytes(b"check"),
            std::ffi::OsStr::from_bytes(b"chess"),
            std::ffi::OsStr::from_bytes(b"G \"\xfe\""),
        ],
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_prust"))
            .args(&args)
            .output()
            .unwrap();
        no_panic(&o);
        assert_eq!(o.status.code(), Some(3), "{args:?}");
        let err = stderr(&o);
        assert!(err.contains("invalid UTF-8"), "{err}");
        assert!(
            err.contains("hint: prust reads its arguments as UTF-8"),
            "{err}"
        );
    }
}

/// A folder, a device or a missing file given as a protocol or a trail is
/// an error with a hint, at once: `/dev/zero` was read until memory ran
/// out, a folder said only "Is a directory".
#[cfg(unix)]
#[test]
fn folders_devices_and_missing_files_are_errors_with_hints() {
    let dir = cli::fresh_folder("cli", "not-files");
    std::fs::create_dir_all(dir.join("models.aut")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.aut")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.dcj")).unwrap();
    std::fs::write(dir.join("binary.aut"), b"des (0, 0, 1)\n\xff\xfe").unwrap();
    for (args, hint) in [
        (&["lts", "models.aut"][..], "not the folder"),
        (&["lts", "zero.aut"], "regular .aut file"),
        (&["lts", "zero.dcj"], "hint:"),
        (&["lts", "missing.aut"], "check the path"),
        (&["lts", "binary.aut"], "UTF-8 text"),
        (&["replay", "chess", "zero.aut"], "trail file"),
        (&["replay", "chess", "models.aut"], "trail file"),
    ] {
        let o = cli::prust_in(&dir, args);
        no_panic(&o);
        assert_eq!(o.status.code(), Some(3), "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.starts_with("error: cannot read"), "{args:?}: {err}");
        assert!(err.contains(hint), "{args:?}: {err}");
    }
}

/// A formula that does not parse, however long or strange, gets an error of
/// a few lines (exit 3): 60,000 nested parentheses once printed 240 kB of
/// error; a control character shows as its escape.
#[test]
fn errors_in_huge_or_strange_formulas_stay_short() {
    let deep = format!("{}\"white SEND *\"", "(".repeat(60_000));
    let wide = format!("G ({} b)", "\"white SEND *\" | ".repeat(5_000));
    for f in [deep.as_str(), wide.as_str(), "G \u{1}a", "G a\u{7}"] {
        let o = prust(&["check", "chess", f]);
        no_panic(&o);
        assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
        let err = stderr(&o);
        assert!(err.len() < 2_000, "{} bytes:\n{}", err.len(), &err[..500]);
        assert!(err.starts_with("error in formula"), "{err}");
        assert!(!err.chars().any(|c| c.is_control() && c != '\n'), "{err:?}");
    }
}
