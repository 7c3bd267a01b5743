//! `prust check --distributed`: one state space over several local
//! processes. The verdict, the state count of a property that holds and
//! the length of a counterexample are the one-machine check's; process 0
//! prints, every process exits with the verdict; a process killed in the
//! middle ends the others at once, with an error that names it; processes
//! started with different arguments refuse to search.

use std::process::{Child, Output, Stdio};
use std::sync::atomic::{AtomicU16, Ordering};
use std::time::{Duration, Instant};

use crate::cli;

use cli::{prust, stderr, stdout};

/// A first port for one run of `n` processes: apart for every run of this
/// test binary (several run at once) and, by the process id, for other
/// test binaries on the machine; below Linux's ephemeral ports (32768
/// up), which outgoing connections take and a listener then cannot.
fn ports(n: u16) -> u16 {
    static NEXT: AtomicU16 = AtomicU16::new(0);
    let base = 20_000 + (std::process::id() % 120) as u16 * 100;
    base + NEXT.fetch_add(n, Ordering::Relaxed) % 100
}

/// Starts process `i` of `n` of `prust check ARGS --distributed`.
fn start(args: &[&str], n: u16, i: u16, port: u16) -> Child {
    let (n, i, port) = (n.to_string(), i.to_string(), port.to_string());
    let mut all: Vec<&str> = vec!["check"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--distributed", "-n", &n, "-p", &i, "--port", &port]);
    cli::command(&all)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the prust binary starts")
}

/// Every process's output, process 0 first.
fn distributed(args: &[&str], n: u16) -> Vec<Output> {
    let port = ports(n);
    let children: Vec<Child> = (0..n).map(|i| start(args, n, i, port)).collect();
    children
        .into_iter()
        .map(|c| c.wait_with_output().expect("a process ends"))
        .collect()
}

/// The number before " product states" in a report.
fn product_states(report: &str) -> Option<u64> {
    let line = report.lines().find(|l| l.contains(" product states,"))?;
    line.split_whitespace().next()?.parse().ok()
}

/// The steps of the counterexample in a report.
fn steps(report: &str) -> usize {
    report
        .lines()
        .filter(|l| {
            let t = l.trim_start();
            t.split_once(". ")
                .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        })
        .count()
}

#[test]
fn processes_agree_with_one_machine() {
    let cases: &[(&str, &str, &str)] = &[
        ("npb-cg-concurrent:3", "strict", r#"G !"DEADLOCK""#),
        ("npb-cg-concurrent:3", "liberal", r#"G !"DEADLOCK""#),
        ("chess", "strict", r#"G !"black SEND *""#),
        ("ring-buffered:6", "liberal", r#"G !"worker_4_ RECV *""#),
        ("two-buyer", "strict", r#"G !"END""#),
        ("go-fish", "liberal", r#"G ("END" -> G "END")"#),
        // Accepting cycles (OWCTY), then a shortest lasso on process 0.
        ("chess", "strict", r#"F "END""#),
        ("ring-buffered:4", "liberal", r#"G F "worker_1_ SEND *""#),
        ("two-buyer", "strict", r#"G F "END""#),
    ];
    for &(protocol, runtime, formula) in cases {
        let one = prust(&["check", protocol, formula, "--runtime", runtime, "--no-por"]);
        let want = stdout(&one);
        for n in [2, 4] {
            let outs = distributed(&[protocol, formula, "--runtime", runtime], n);
            let got = stdout(&outs[0]);
            let ctx = format!("{protocol} {runtime} `{formula}` on {n} processes");
            assert_eq!(
                outs[0].status.code(),
                one.status.code(),
                "{ctx}:\n{got}\n{}\n---\n{want}",
                stderr(&outs[0])
            );
            match one.status.code() {
                Some(0) => assert_eq!(product_states(&got), product_states(&want), "{ctx}"),
                Some(1) if formula.contains('F') => {
                    // A shortest lasso of the product on both sides, but
                    // each shows its own folded (`Counterexample::
                    // product_length`; the crate's tests compare those).
                    assert!(got.contains("forever"), "{ctx}:\n{got}");
                    assert!(!got.contains("not shown to be"), "{ctx}:\n{got}");
                }
                Some(1) => assert_eq!(steps(&got), steps(&want), "{ctx}:\n{got}\n---\n{want}"),
                other => panic!("{ctx}: one machine exited {other:?}:\n{want}"),
            }
            for p in 1..n {
                // Every process exits with the verdict; process 0 alone
                // prints it.
                let o = &outs[p as usize];
                assert_eq!(o.status.code(), one.status.code(), "{ctx}: process {p}");
                assert_eq!(stdout(o), "", "{ctx}: process {p}");
            }
            for p in 0..n {
                assert!(got.contains(&format!("process {p}: ")), "{ctx}:\n{got}");
            }
        }
    }
}

#[test]
fn a_killed_process_ends_the_others_naming_it() {
    // Millions of product states (up to the limit, in each process): far
    // longer than the test waits.
    let args = [
        "token-full-mesh:8",
        r#"G !"DEADLOCK""#,
        "--runtime",
        "liberal",
        "--max-states",
        "2000000",
    ];
    let port = ports(4);
    let mut children: Vec<Child> = (0..4).map(|i| start(&args, 4, i, port)).collect();
    std::thread::sleep(Duration::from_millis(1500));
    let mut victim = children.remove(2);
    if victim.try_wait().unwrap().is_some() {
        let o = victim.wait_with_output().unwrap();
        panic!(
            "process 2 ended before the kill (a longer run is needed?): {:?}\n{}\n{}",
            o.status,
            stdout(&o),
            stderr(&o)
        );
    }
    victim.kill().unwrap();
    victim.wait().unwrap();
    let killed = Instant::now();
    let mut named_the_killed = false;
    for (i, c) in children.into_iter().enumerate() {
        let o = c.wait_with_output().unwrap();
        let took = killed.elapsed();
        assert!(
            took < Duration::from_secs(10),
            "ended {took:?} after the kill"
        );
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(3), "process {i}: {err}");
        // The first to see a connection close sees process 2's; a
        // survivor that has ended on it closes its own, which a slower
        // one (on a loaded machine) may see first and name instead.
        assert!(
            ["0", "1", "2", "3"]
                .iter()
                .any(|p| err.contains(&format!("process {p} stopped taking part"))),
            "{err}"
        );
        named_the_killed |= err.contains("process 2 stopped taking part");
    }
    assert!(named_the_killed, "no survivor named the killed process 2");
}

/// A process suspended (SIGSTOP) keeps its connections open: the others
/// cannot tell it from a slow one, but under a time limit they give up a
/// grace period after it, with an error, never a hang or a verdict.
#[cfg(unix)]
#[test]
fn a_suspended_process_ends_the_others_after_the_time_limit() {
    let args = [
        "token-full-mesh:8",
        r#"G !"DEADLOCK""#,
        "--runtime",
        "liberal",
        "--max-states",
        "4000000",
        "--timeout",
        "2",
    ];
    let port = ports(2);
    let first = start(&args, 2, 0, port);
    let mut second = start(&args, 2, 1, port);
    std::thread::sleep(Duration::from_millis(800));
    let pid = second.id().to_string();
    let stop = std::process::Command::new("kill")
        .args(["-STOP", &pid])
        .status()
        .unwrap();
    assert!(stop.success());
    let stopped = Instant::now();
    let o = first.wait_with_output().unwrap();
    let took = stopped.elapsed();
    let _ = std::process::Command::new("kill")
        .args(["-CONT", &pid])
        .status();
    let _ = second.kill();
    let _ = second.wait();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{}\n{err}", stdout(&o));
    assert!(err.contains("stopped answering"), "{err}");
    // The limit (2 s) and the grace (10 s), with room for a loaded machine.
    assert!(
        took < Duration::from_secs(25),
        "ended {took:?} after the stop"
    );
}

#[test]
fn processes_with_other_arguments_refuse_to_search() {
    let port = ports(2);
    let a = start(&["chess", r#"G !"DEADLOCK""#], 2, 0, port);
    let b = start(&["chess", r#"G !"END""#], 2, 1, port);
    for (p, c) in [a, b].into_iter().enumerate() {
        let o = c.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(3), "process {p}");
        assert!(
            stderr(&o).contains("do not check the same formula on the same object"),
            "{}",
            stderr(&o)
        );
    }
}

/// The bundled case whose verdict weak fairness changes (see
/// `engine::Fairness`): violated by a cycle that starves `player_0_`,
/// holds under `--fairness weak`, on real processes as on one machine.
#[test]
fn weak_fairness_is_decided_across_processes() {
    let formula = r#"G ("player_2_ SEND * TO player_0_" -> F "player_0_ RECV * FROM player_2_")"#;
    for (fairness, code) in [("none", 1), ("weak", 0)] {
        let args = [
            "rock-paper-scissors:3",
            formula,
            "--runtime",
            "liberal",
            "--semantics",
            "omega",
            "--fairness",
            fairness,
        ];
        let outs = distributed(&args, 2);
        let got = stdout(&outs[0]);
        let ctx = format!("--fairness {fairness}:\n{got}\n{}", stderr(&outs[0]));
        assert_eq!(outs[0].status.code(), Some(code), "{ctx}");
        assert_eq!(outs[1].status.code(), Some(code), "{ctx}");
        if code == 1 {
            assert!(got.contains("starves player_0_"), "{ctx}");
        }
    }
}

#[test]
fn bad_uses_are_errors_with_a_hint() {
    let share = prust(&[
        "check",
        "chess",
        r#"G !"END""#,
        "--distributed",
        "--share",
        "1/2",
    ]);
    assert_eq!(share.status.code(), Some(3));
    assert!(stderr(&share).contains("--distributed does not take --share"));
    let index = prust(&[
        "check",
        "chess",
        r#"G !"END""#,
        "--distributed",
        "-n",
        "2",
        "-p",
        "2",
    ]);
    assert_eq!(index.status.code(), Some(3));
    assert!(stderr(&index).contains("-p 2: the process numbers of -n 2 are 0 to 1"));
    let without = prust(&["check", "chess", r#"G !"END""#, "-n", "2"]);
    assert_eq!(without.status.code(), Some(3));
    assert!(
        stderr(&without).contains("--distributed"),
        "{}",
        stderr(&without)
    );
    let fly = distributed(
        &[
            "npb-cg-concurrent:3",
            r#"G !"DEADLOCK""#,
            "--runtime",
            "on-the-fly",
        ],
        2,
    );
    assert_eq!(fly[0].status.code(), Some(3));
    assert!(
        stderr(&fly[0]).contains("bytes_are_portable is false"),
        "{}",
        stderr(&fly[0])
    );
}

/// The `.owl` suites' own formulas (every file under `tests/owl`, with its
/// fairness), each protocol on each of its runtimes and semantics:
/// the verdict of each formula on 2 or 4 real processes (in turn) is the
/// one-machine check's. A combination the one-machine check cannot finish
/// within its limit is left out.
#[test]
fn suite_formulas_agree_on_real_processes() {
    let mut files = crate::owl_files();
    files.sort();
    let verdicts = |report: &str| -> Vec<String> {
        report
            .lines()
            .filter(|l| {
                ["property holds", "property violated", "error in formula"]
                    .iter()
                    .any(|p| l.starts_with(p))
            })
            .map(String::from)
            .collect()
    };
    let (mut runs, mut formulas) = (0, 0);
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let suite = prust::suite::parse(&text).unwrap();
        let fairness = suite.fairness.unwrap_or_default().name();
        let dir = file.parent().unwrap();
        let max = suite.max_states.unwrap_or(50_000).min(50_000).to_string();
        let list: Vec<&str> = suite.entries.iter().map(|e| e.formula.as_str()).collect();
        for decl in &suite.protocols {
            let spec = if decl.spec.contains('.') {
                dir.join(&decl.spec).display().to_string()
            } else {
                decl.spec.clone()
            };
            for runtime in &suite.runtimes {
                let runtime = runtime.to_string();
                if runtime == "on-the-fly" {
                    // Its bytes are not portable between processes.
                    continue;
                }
                for semantics in &suite.semantics {
                    let mut args: Vec<&str> = vec![&spec];
                    args.extend(list.iter().copied());
                    let opts = [
                        "--runtime",
                        &runtime,
                        "--semantics",
                        semantics.name(),
                        "--max-states",
                        &max,
                        "--fairness",
                        fairness,
                    ];
                    args.extend(opts);
                    let mut one_args = vec!["check"];
                    one_args.extend(args.iter().copied());
                    one_args.push("--no-por");
                    let one = stdout(&prust(&one_args));
                    if one.lines().any(|l| l.starts_with("inconclusive")) {
                        continue;
                    }
                    let n = if runs % 2 == 0 { 2 } else { 4 };
                    let outs = distributed(&args, n);
                    let got = stdout(&outs[0]);
                    let ctx = format!(
                        "{} {spec} {runtime} {} on {n} processes",
                        file.display(),
                        semantics.name()
                    );
                    assert_eq!(
                        verdicts(&got),
                        verdicts(&one),
                        "{ctx}:\n{got}\n{}\n---\n{one}",
                        stderr(&outs[0])
                    );
                    runs += 1;
                    formulas += verdicts(&one).len();
                }
            }
        }
    }
    assert!(
        runs > 30 && formulas > 300,
        "{runs} runs, {formulas} formulas"
    );
}
