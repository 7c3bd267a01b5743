//! `--html FILE` and `PRUST_HTML_DIR`: one self-contained page per result,
//! written by `prust check`, `replay` and `lint`, the `.owl` suites and
//! `Exploration::write_html`; and the pages laid out in a real browser.
//!
//! The browser tests run headless Chromium (`chromium`, or the program
//! `PRUST_CHROMIUM` names) on each page with `#selftest` in its URL: the
//! page's own script measures the laid-out chart and writes its findings
//! into the DOM, which `--dump-dom` prints. Without Chromium they are
//! skipped with a note, unless `PRUST_BROWSER_TESTS=required` (as CI sets
//! it): then its absence fails them.

use std::collections::HashMap;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::cli::{fresh_folder, no_panic, prust, prust_with, stderr, stdout};

/// The numbered steps of a text counterexample, and where its cycle
/// starts (if it is a lasso).
fn steps_of(text: &str) -> (usize, Option<usize>) {
    let mut n = 0;
    let mut cycle = None;
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("-- cycle starts here --") {
            cycle = Some(n);
        } else if t
            .split_once(". ")
            .is_some_and(|(k, _)| k.parse::<usize>().is_ok())
        {
            n += 1;
        }
    }
    (n, cycle)
}

/// Runs `prust check PROTOCOL FORMULA --html` into `dir`; the page and
/// the text report.
fn checked(dir: &Path, name: &str, protocol: &str, formula: &str) -> (PathBuf, String) {
    let page = dir.join(format!("{name}.html"));
    let o = prust(&["check", protocol, formula, "--html", page.to_str().unwrap()]);
    no_panic(&o);
    assert!(
        stderr(&o).contains(&format!("HTML report written to {}", page.display())),
        "{}",
        stderr(&o)
    );
    (page, stdout(&o))
}

#[test]
fn check_writes_one_page_per_formula_and_prints_the_same_without_it() {
    let dir = fresh_folder("html", "check");
    let page = dir.join("r.html");
    let args = ["check", "chess", r#"G !"DEADLOCK""#, r#"F "END""#];
    let with = prust(&[&args[..], &["--html", page.to_str().unwrap()]].concat());
    let without = prust(&args);
    assert_eq!(with.status.code(), without.status.code());
    // The reports are the same but for the times they took.
    let untimed = |o: &std::process::Output| {
        stdout(o)
            .split_whitespace()
            .filter(|w| w.parse::<f64>().is_err())
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(untimed(&with), untimed(&without));
    assert!(stderr(&without).is_empty(), "{}", stderr(&without));
    let holds = std::fs::read_to_string(dir.join("r-1.html")).unwrap();
    let violated = std::fs::read_to_string(dir.join("r-2.html")).unwrap();
    assert!(holds.contains("property holds"), "{holds}");
    assert!(!holds.contains("<section class=\"chart\""));
    assert!(violated.contains("property violated"));
    assert!(violated.contains("<section class=\"chart\""));
    assert!(violated.contains(">object state</th>"));
    assert!(
        violated.contains("StrictObject") || violated.contains("Strict"),
        "{violated}"
    );
}

#[test]
fn replay_and_lint_write_pages_too() {
    let dir = fresh_folder("html", "replay-lint");
    let trail = dir.join("run.trail");
    let o = prust(&[
        "check",
        "chess",
        r#"G !"black SEND *""#,
        "--trail",
        trail.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let page = dir.join("replay.html");
    let o = prust(&[
        "replay",
        "chess",
        trail.to_str().unwrap(),
        "--html",
        page.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("the trail replays"), "{html}");
    // The trail carries its formula: the subformulas are evaluated.
    assert!(html.contains("<dt>φ1</dt>"), "{html}");
    assert!(
        html.contains("title=\"not available\">not available</td>"),
        "{html}"
    );
    let (n, _) = steps_of(&stdout(&o));
    assert_eq!(html.matches("<tr data-i=").count(), n);

    let page = dir.join("lint.html");
    let o = prust(&["lint", "two-buyer", "--html", page.to_str().unwrap()]);
    no_panic(&o);
    let html = std::fs::read_to_string(&page).unwrap();
    let findings = stdout(&o)
        .lines()
        .last()
        .and_then(|l| l.split_whitespace().next()?.parse::<usize>().ok())
        .unwrap();
    assert_eq!(html.matches("<section class=\"chart\"").count(), findings);
    assert!(html.contains(&format!("{findings} finding")), "{html}");
}

#[test]
fn suites_write_a_page_per_result_into_prust_html_dir() {
    let dir = fresh_folder("html", "suite");
    let suite = dir.join("s.owl");
    std::fs::write(
        &suite,
        "protocol chess\nruntime strict\nsemantics stutter\n\
         test no-deadlock holds\n    G !\"DEADLOCK\"\ntest ends violated\n    F \"END\"\n",
    )
    .unwrap();
    let pages = dir.join("pages");
    std::fs::create_dir_all(&pages).unwrap();
    // The suites' own runner, on this one file.
    let o = Command::new(std::env::current_exe().unwrap())
        .args(["html_reports::suite_child", "--exact", "--nocapture"])
        .env("PRUST_HTML_DIR", &pages)
        .env("HTML_SUITE", &suite)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut names: Vec<String> = std::fs::read_dir(&pages)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names.iter().any(|n| n.contains("no-deadlock")), "{names:?}");
    let ends = names.iter().find(|n| n.contains("ends")).unwrap();
    let html = std::fs::read_to_string(pages.join(ends)).unwrap();
    assert!(html.contains("property violated"), "{html}");
}

/// Runs the suite `HTML_SUITE` names (a child of the test above, so that
/// `PRUST_HTML_DIR` is set in its own process only).
#[test]
fn suite_child() {
    let Some(suite) = std::env::var_os("HTML_SUITE") else {
        return;
    };
    // The runner takes a folder: the suite's own, which holds nothing else.
    let folder = Path::new(&suite).parent().expect("the suite's folder");
    for trial in prust::suite::trials(folder) {
        let name = trial.name().to_string();
        let conclusion = libtest_mimic::run(
            &libtest_mimic::Arguments {
                exact: true,
                filter: Some(name.clone()),
                test_threads: Some(1),
                quiet: true,
                ..Default::default()
            },
            vec![trial],
        );
        assert!(!conclusion.has_failed(), "{name}");
    }
}

#[test]
fn an_exploration_page_has_the_schedule_each_threads_steps_and_the_replay() {
    let ex = panicking_exploration();
    let html = ex.to_html();
    let f = &ex.failures()[0];
    assert!(html.contains("white gives up"), "{html}");
    assert!(html.contains(&format!("PRUST_SCHEDULE=&quot;{}&quot;", f.schedule)));
    assert!(html.contains("<h3>each thread&#39;s own steps</h3>"));
    assert_eq!(html.matches("<tr data-i=").count(), f.trace.len());
    assert_eq!(html, ex.to_html(), "deterministic");
}

#[derive(Clone, Debug)]
struct Move;

/// white moves, then panics; black takes the move.
fn panicking_exploration() -> prust::explore::Exploration {
    use prust::session::BlockingEndpoint;
    prust::explore::explore(prust::protocols::chess::strict(), |r| {
        r.spawn("white", |mut ep| {
            ep.send("black", Move).unwrap();
            panic!("white gives up");
        });
        r.spawn("black", |mut ep| {
            let _ = ep.recv_from("white");
        });
    })
}

// ---------------------------------------------------------------- browser

/// The flags this headless Chromium needs: no sandbox (tests may run as
/// root), and none of its background traffic (the machine may have no
/// network at all).
const FLAGS: [&str; 8] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
];

/// Chromium, or `None` (with a note) when it is absent and not required.
pub(crate) fn chromium() -> Option<PathBuf> {
    let named = std::env::var_os("PRUST_CHROMIUM").map(PathBuf::from);
    let found = named.filter(|p| p.is_file()).or_else(|| {
        let path = std::env::var_os("PATH")?;
        ["chromium", "chromium-browser", "google-chrome"]
            .iter()
            .flat_map(|n| std::env::split_paths(&path).map(move |d| d.join(n)))
            .find(|p| p.is_file())
    });
    let required = std::env::var("PRUST_BROWSER_TESTS").as_deref() == Ok("required");
    match found {
        Some(p) => Some(p),
        None if required => panic!(
            "PRUST_BROWSER_TESTS=required, but no Chromium was found (install Debian's \
             `chromium`, or name the program in PRUST_CHROMIUM)"
        ),
        None => {
            eprintln!(
                "browser tests skipped: no Chromium found (install Debian's `chromium`, or name \
                 it in PRUST_CHROMIUM; PRUST_BROWSER_TESTS=required makes this a failure)"
            );
            None
        }
    }
}

/// Runs Chromium on `args`, with a fresh profile in `dir`; its stdout. A
/// run that hangs is killed after a minute (they take about a second).
pub(crate) fn headless(chrome: &Path, dir: &Path, args: &[String]) -> String {
    let profile = dir.join(format!("profile-{}", args.len() + args[0].len()));
    let mut child = Command::new(chrome)
        .args(FLAGS)
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium starts");
    let mut out = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("chromium {args:?} did not finish in 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    reader.join().unwrap()
}

/// The page's self-check, one map of `key=value` words per chart.
fn selftest(chrome: &Path, dir: &Path, page: &Path) -> Vec<HashMap<String, String>> {
    let url = format!("file://{}#selftest", page.display());
    let dom = headless(chrome, dir, &["--dump-dom".into(), url]);
    let start = dom
        .find("<pre id=\"selftest\">")
        .unwrap_or_else(|| panic!("no self-check in {}: {dom}", page.display()));
    let body = &dom[start + "<pre id=\"selftest\">".len()..];
    body[..body.find("</pre>").unwrap()]
        .lines()
        .map(|l| {
            l.split_whitespace()
                .filter_map(|w| w.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

/// Asserts the laid-out chart: `n` steps drawn in order, a table row
/// beside each, lanes in role order, no label over another, and the cycle
/// bracket over exactly the cycle's steps.
fn assert_laid_out(what: &str, chart: &HashMap<String, String>, n: usize, cycle: Option<usize>) {
    let get = |k: &str| chart.get(k).map(String::as_str).unwrap_or("(none)");
    assert_eq!(get("steps"), n.to_string(), "{what}: {chart:?}");
    assert_eq!(get("expected"), n.to_string(), "{what}: {chart:?}");
    assert_eq!(get("seq"), "1", "{what}: steps in order: {chart:?}");
    assert_eq!(get("rows"), n.to_string(), "{what}: {chart:?}");
    assert_eq!(get("rows_misaligned"), "0", "{what}: {chart:?}");
    assert_eq!(get("lanes_ordered"), "1", "{what}: {chart:?}");
    assert_eq!(get("label_overlaps"), "0", "{what}: {chart:?}");
    assert_eq!(get("ending"), "1", "{what}: the end is marked: {chart:?}");
    match cycle {
        Some(p) => assert_eq!(get("cycle"), format!("{p}-{}", n - 1), "{what}: {chart:?}"),
        None => assert_eq!(get("cycle"), "(none)", "{what}: {chart:?}"),
    }
}

#[test]
fn pages_lay_out_in_a_real_browser() {
    let Some(chrome) = chromium() else {
        return;
    };
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("html-reports");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();

    // A lasso with a prefix, a deadlock, a 200-step cycle, a panic.
    let (lasso, text) = checked(&dir, "lasso", "chess", r#"F G "white SEND <Move>""#);
    let lasso_steps = steps_of(&text);
    assert!(lasso_steps.1.is_some_and(|p| p > 0), "{text}");
    // Each side sends first, so neither receives: both wait.
    let aut = dir.join("deadlock.aut");
    std::fs::write(
        &aut,
        "des (0, 4, 5)\n(0,\"!(Req,client,server)\",1)\n(1,\"?(Req,client,server)\",2)\n\
         (2,\"!(Ack,server,client)\",3)\n(0,\"!(Ping,server,client)\",4)\n",
    )
    .unwrap();
    let deadlock = dir.join("deadlock.html");
    let o = prust_with(
        &[
            "check",
            aut.to_str().unwrap(),
            r#"G !"DEADLOCK""#,
            "--runtime",
            "liberal",
            "--html",
            deadlock.to_str().unwrap(),
        ],
        &[],
    );
    let deadlock_steps = steps_of(&stdout(&o));
    assert!(
        stdout(&o).contains("deadlock (waiting: client, server)"),
        "{}",
        stdout(&o)
    );
    let (long, text) = checked(&dir, "long", "token-directed-ring:100", r#"F "END""#);
    let long_steps = steps_of(&text);
    assert_eq!(long_steps.0, 200, "{text}");
    let panic = dir.join("panic.html");
    let ex = panicking_exploration();
    ex.write_html(&panic).unwrap();
    let panic_steps = ex.failures()[0].trace.len();

    // All at once: each run is about a second, mostly Chromium starting.
    let chrome = &chrome;
    let shot = dir.join("lasso.png");
    let results = std::thread::scope(|s| {
        let shot_run = s.spawn(|| {
            headless(
                chrome,
                &dir.join("shot"),
                &[
                    "--window-size=1400,900".into(),
                    format!("--screenshot={}", shot.display()),
                    format!("file://{}", lasso.display()),
                ],
            )
        });
        let runs: Vec<_> = [&lasso, &deadlock, &long, &panic]
            .map(|page| {
                let d = dir.join(page.file_stem().unwrap());
                s.spawn(move || selftest(chrome, &d, page))
            })
            .into_iter()
            .collect();
        let results: Vec<_> = runs.into_iter().map(|h| h.join().unwrap()).collect();
        shot_run.join().unwrap();
        results
    });
    assert_laid_out("lasso", &results[0][0], lasso_steps.0, lasso_steps.1);
    assert_laid_out("deadlock", &results[1][0], deadlock_steps.0, None);
    assert_laid_out("200 steps", &results[2][0], 200, Some(0));
    assert_laid_out("explore panic", &results[3][0], panic_steps, None);
    let png = std::fs::read(&shot).expect("a screenshot");
    assert!(png.starts_with(b"\x89PNG"), "a PNG");
    eprintln!("screenshot of a lasso report: {}", shot.display());
}
