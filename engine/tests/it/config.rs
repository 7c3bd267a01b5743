//! Environment variables that do not parse are a clear error, never a
//! panic deep in the engine. The test runs alone in a child process
//! ([`testkit::alone`]): it sets process environment variables, which
//! every other test's `Checker::new` reads.

use std::time::Duration;

use engine::{dummies, Checker, Error, Message, Protocol, Refused, RoleId};

#[derive(Clone, Debug)]
struct Ping;

/// Two roles that never act: every check ends at once.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Idle;

impl Protocol for Idle {
    fn roles(&self) -> Vec<String> {
        vec!["a".into(), "b".into()]
    }
    fn try_send(&mut self, _: RoleId, _: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        Err(Refused(msg))
    }
    fn try_recv(&mut self, _: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> {
        Err(Refused(()))
    }
}

fn with_env<T>(name: &str, value: &str, f: impl FnOnce() -> T) -> T {
    std::env::set_var(name, value);
    let r = f();
    std::env::remove_var(name);
    r
}

fn config_error(name: &str, value: &str) -> String {
    let e = with_env(name, value, Checker::from_env).expect_err(value);
    match &e {
        Error::Config { variable, .. } => assert_eq!(variable, name),
        other => panic!("{other:?}"),
    }
    // Checker::new panics with the same message, not a deep unwrap.
    let panic = with_env(name, value, || std::panic::catch_unwind(Checker::new))
        .expect_err("Checker::new panics on a bad variable");
    let msg = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains(&e.to_string()), "{msg}");
    e.to_string()
}

#[test]
fn bad_environment_variables_are_config_errors() {
    if !testkit::alone::in_child(
        module_path!(),
        "bad_environment_variables_are_config_errors",
    ) {
        return;
    }
    for v in ["PRUST_TIMEOUT", "PRUST_MAX_MEMORY", "PRUST_MAX_STATES"] {
        std::env::remove_var(v);
    }
    let text = config_error("PRUST_TIMEOUT", "-1");
    assert!(text.contains("PRUST_TIMEOUT=\"-1\""), "{text}");
    assert!(text.contains("must be positive"), "{text}");
    config_error("PRUST_TIMEOUT", "NaN");
    config_error("PRUST_TIMEOUT", "ten");
    // A zero budget (which stopped every search at once, inconclusive) is
    // refused as `prust check --timeout 0` is: one rule for both.
    let text = config_error("PRUST_TIMEOUT", "0");
    assert!(text.contains("inf for none"), "{text}");
    config_error("PRUST_TIMEOUT", "1e-12");
    let text = config_error("PRUST_MAX_MEMORY", "2Q");
    assert!(text.contains("512M"), "{text}");
    config_error("PRUST_MAX_MEMORY", "-5");
    config_error("PRUST_MAX_STATES", "1e9");
    config_error("PRUST_MAX_DEPTH", "-3");
    config_error("PRUST_PROGRESS", "maybe");
    config_error("PRUST_SEMANTICS", "lazy");
    config_error("PRUST_HASH_COMPACTION", "maybe");
    // PRUST_HASH_COMPACTION=1 turns hash compaction on: a property that
    // holds is then only probabilistic.
    let r = with_env("PRUST_HASH_COMPACTION", "1", || {
        Checker::from_env()
            .unwrap()
            .check(r#"G !"a SEND *""#, Idle, dummies![Ping])
    })
    .unwrap();
    assert!(
        matches!(r.verdict, engine::Verdict::HoldsProbabilistic { .. }),
        "{r}"
    );

    // Absurdly large timeouts mean none: the check runs to its verdict.
    for huge in ["1e300", "inf", "1e10"] {
        let r = with_env("PRUST_TIMEOUT", huge, || {
            Checker::from_env()
                .unwrap()
                .check(r#"G !"DEADLOCK""#, Idle, dummies![Ping])
        })
        .unwrap();
        assert!(!r.holds(), "{r}");
        assert!(r.counterexample().is_some(), "{r}");
    }
    // A Duration that large through the builder is fine too.
    let r = Checker::from_env()
        .unwrap()
        .timeout(Duration::MAX)
        .check(r#"G !"DEADLOCK""#, Idle, dummies![Ping])
        .unwrap();
    assert!(r.counterexample().is_some(), "{r}");

    // Sizes in bytes or binary units.
    for ok in ["512M", "2G", "1048576", "64MiB"] {
        with_env("PRUST_MAX_MEMORY", ok, Checker::from_env).unwrap();
    }
    with_env("PRUST_MAX_STATES", "1_000_000", Checker::from_env).unwrap();

    // Threads: a count up to Checker::MAX_THREADS, read into the search.
    let text = config_error("PRUST_THREADS", "2000");
    assert!(text.contains("at most 1024"), "{text}");
    config_error("PRUST_THREADS", "two");
    let r = with_env("PRUST_THREADS", "3", Checker::from_env)
        .unwrap()
        .determinism_check(false)
        .parallel_level(1)
        .check(r#"G !"DEADLOCK""#, Idle, dummies![Ping])
        .unwrap();
    assert_eq!(r.stats.threads, 3, "{r}");

    // The parallel threshold: a count of states; this object's levels are
    // far below the default, so only a threshold of 1 shares them.
    config_error("PRUST_PARALLEL_LEVEL", "many");
    let check = |c: Checker| {
        c.threads(3)
            .determinism_check(false)
            .check(r#"G !"DEADLOCK""#, Idle, dummies![Ping])
            .unwrap()
    };
    let shared = check(with_env("PRUST_PARALLEL_LEVEL", "1", Checker::from_env).unwrap());
    assert_eq!(shared.stats.threads, 3, "{shared}");
    let alone = check(Checker::from_env().unwrap());
    assert_eq!(alone.stats.threads, 1, "{alone}");
    assert!(alone.to_string().contains("parallel_level"), "{alone}");
}
