//! `prust list` (the bundled protocols) and `prust lts` (a protocol's
//! state space, written to a file and read back).

use crate::cli;

use cli::{prust, stderr, stdout};

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
