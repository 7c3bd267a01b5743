//! `prust lint` on a large LTS: a chain of messages between fresh roles
//! has a finding on every channel, each with a witness as long as the
//! chain. Only the first findings of a check get a witness, the memory of
//! the search tables and witnesses counts against `--max-memory`, and a
//! lint cut short says so on its last line as well as in its exit code.

use std::path::PathBuf;

use crate::cli;

use cli::{prust, stderr, stdout};

/// A fresh `.aut` file of a chain of `n` sends, each on its own channel
/// `r{i}→r{i+1}`.
fn chain(n: usize) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("prust-cli-lint-limits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("chain{n}.aut"));
    let mut text = format!("des (0, {n}, {})\n", n + 1);
    for i in 0..n {
        text.push_str(&format!("({i}, \"!(Ping,r{i},r{})\", {})\n", i + 1, i + 1));
    }
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_long_chain_stops_at_the_memory_limit_and_says_it_is_incomplete() {
    // 1,000 channels, each with a close-after-send finding whose witness
    // is the whole chain: 256K holds the search tables and two witnesses.
    let path = chain(1000);
    let aut = path.to_str().unwrap();
    let o = prust(&["lint", aut, "--max-memory", "256K"]);
    // the findings made before the limit are real (exit 1) …
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(
        stderr(&o).lines().collect::<Vec<_>>(),
        [
            "inconclusive: close-after-send, send-before-close, no-act-after-close, causality: \
          building the search tables and witnesses of lint's checks stopped at the memory \
          limit (262144 bytes, 1001 states made); raise it with --max-memory or \
          PRUST_MAX_MEMORY, or use a smaller instance"
        ]
    );
    // … but they are not all there is
    let out = stdout(&o);
    let last = out.lines().last().unwrap();
    assert!(
        last.starts_with("2 findings (7 checks")
            && last.ends_with(
                "; incomplete: a limit stopped 4 of the checks (see the inconclusive line)"
            ),
        "{last}"
    );
    // nothing found before the limit: still not "0 findings" as if clean
    let o = prust(&["lint", aut, "--max-memory", "128K", "--format", "json"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.starts_with("{\"findings\":[],\"inconclusive\":[{\"check\":\"close-after-send\""),
        "{out}"
    );
    assert!(
        out.contains("stopped at the memory limit (131072 bytes"),
        "{out}"
    );
    // the default limits hold the whole lint
    let o = prust(&["lint", aut, "--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(!stdout(&o).contains("inconclusive"), "{}", stdout(&o));
}

/// The witnesses of `--format json`'s findings of `check`: `Some(steps)`,
/// or `None` for a finding whose witness is omitted.
fn witnesses(json: &str, check: &str) -> Vec<Option<usize>> {
    let name = format!("\"{check}\"");
    json.split("{\"check\":")
        .filter(|f| f.starts_with(&name))
        .map(|f| {
            let witness = &f[f.find("\"witness\":[").unwrap()..];
            let steps = witness[..witness.find(']').unwrap()]
                .matches(" SEND ")
                .count();
            if f.contains("\"witness_omitted\":true") {
                assert_eq!(steps, 0, "{f}");
                None
            } else {
                Some(steps)
            }
        })
        .collect()
}

#[test]
fn only_the_first_twenty_findings_of_a_check_get_a_witness() {
    let path = chain(30);
    let aut = path.to_str().unwrap();
    let o = prust(&["lint", aut, "--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let json = stdout(&o);
    // 30 channels: 20 witnesses (each the whole chain), then 10 without
    let close = witnesses(&json, "close-after-send");
    assert_eq!(close.len(), 30, "{json}");
    assert!(close[..20].iter().all(|w| *w == Some(30)), "{close:?}");
    assert!(close[20..].iter().all(Option::is_none), "{close:?}");
    // causality: every send but the first comes right after another role's
    let causality = witnesses(&json, "causality");
    assert_eq!(causality.len(), 29, "{json}");
    assert_eq!(causality.iter().filter(|w| w.is_some()).count(), 20);
    // the text lists the rest in one line a check, with their count
    let o = prust(&["lint", aut, "--only", "close-after-send"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(
        out.matches("close-after-send (channel ").count(),
        20,
        "{out}"
    );
    assert!(
        out.contains(
            "\nclose-after-send: 10 more findings without a witness (only the first 20 \
             findings of a check get one), on channels r20→r21, r21→r22, "
        ),
        "{out}"
    );
    assert!(out.contains(", r29→r30\n"), "{out}");
    assert!(
        out.ends_with("\n30 findings (1 check: close-after-send)\n"),
        "{out}"
    );
}
