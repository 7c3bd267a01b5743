//! The `.dcj` evaluator within its bounds: values that double in a loop,
//! work inside builtins, deep values and the limits' deadline and memory
//! bound all end in an error at the offending form (or a limit error),
//! never in an allocation abort or a run past the limit; and the set, role
//! and `*-every` operations stay near-linear.

use std::time::{Duration, Instant};

use dcj::{DcjError, DcjLimit};
use engine::hint::Audience;
use engine::Limits;

/// A session `s` between roles `a` and `b` whose sender's index is `expr`,
/// after the top-level forms `defs`.
fn session(defs: &str, expr: &str) -> String {
    format!("(s/defrole ::a)(s/defrole ::b)\n{defs}\n(s/defsession ::s [] (s/-->> Boolean (::a {expr}) ::b))\n")
}

fn import_err(text: &str) -> DcjError {
    match dcj::import_str(text, Some("s"), &[]) {
        Ok(_) => panic!("imported:\n{text}"),
        Err(e) => e,
    }
}

/// `(s/let [x init x (op x x) ...] ...)` with `n` doublings.
fn doubled(init: &str, op: &str, n: usize) -> String {
    let steps = vec![format!("x ({op} x x)"); n].join(" ");
    format!("(s/defrole ::a)(s/defrole ::b)\n(s/defsession ::s []\n  (s/let [x {init} {steps}]\n    (s/-->> Boolean (::a (count x)) ::b)))\n")
}

#[test]
fn a_string_or_collection_doubled_in_a_loop_stops_at_its_form() {
    // 45 doublings aborted the process on a 1 GB allocation; 25 already
    // pass every bound (2^25 characters or elements).
    for (init, op, what) in [
        ("\"ab\"", "str", "a string of"),
        ("[1 2]", "concat", "a collection of"),
        ("[1 2]", "into", "a collection of"),
    ] {
        let e = import_err(&doubled(init, op, 25));
        assert_eq!((e.line, e.limit), (3, None), "{op}: {e}");
        assert!(e.message.contains(what), "{op}: {e}");
    }
    // (conj i i) shares i, so the vector stays small while its printed
    // form (the loop instance's key) doubles each round.
    let looped = "(s/defrole ::a)(s/defrole ::b)\n(s/defsession ::s []\n  (s/loop go [i []]\n    (s/-->> Boolean ::a ::b)\n    (s/recur go (conj i i))))";
    let e = import_err(looped);
    assert_eq!((e.line, e.col), (5, 5), "{e}");
    assert!(e.message.contains("more than"), "{e}");
    assert!(e.hint.as_deref().unwrap_or("").contains("conj"), "{e}");
}

#[test]
fn walking_a_shared_value_is_bounded_by_its_weight() {
    // Doubled 60 times by sharing: `=` and `str` walked 2^60 elements.
    let dbl = "(defn dbl [x n] (if (zero? n) x (dbl (conj x x) (dec n))))";
    for expr in [
        "(= (dbl [1] 60) (dbl [1] 60))",
        "(count (str (dbl [1] 60)))",
    ] {
        let e = import_err(&session(dbl, expr));
        assert_eq!((e.line, e.col), (2, 38), "{expr}: {e}");
        assert!(e.message.contains(&dcj::MAX_WEIGHT.to_string()), "{e}");
    }
    // Nesting a value in itself a hundred thousand times: the walks over
    // it (and its drop) would recurse that deep.
    let e = import_err(&session(
        "",
        "(count (reduce (fn [a x] [a]) [] (range 100000)))",
    ));
    assert!(e.message.contains("nested more than"), "{e}");
    // Within the bounds they work.
    let ok = dcj::import_str(&session(dbl, "(count (str (dbl [1] 10)))"), None, &[]);
    assert!(ok.is_ok(), "{:?}", ok.err());
}

#[test]
fn work_inside_builtins_counts_as_steps() {
    // `(reduce + 0 (range n))` was three steps, whatever n: calls of a
    // builtin by a builtin were not counted.
    let steps = |n: u64| {
        let text = session("", &format!("(reduce + 0 (range {n}))"));
        dcj::import_str(&text, None, &[]).unwrap().steps
    };
    let (small, large) = (steps(1_000), steps(100_000));
    assert!(large >= 100_000, "{large}");
    assert!(large > 50 * small, "{small} {large}");
    // Comparing a seven-million-character string a hundred times was a
    // few hundred steps; it is past the step bound now, an error at `=`.
    let e = import_err(&session(
        "(def big (str (range 1000000)))",
        "(count (filter (fn [x] (= big big)) (range 100)))",
    ));
    assert!(e.message.contains("steps"), "{e}");
    assert_eq!((e.line, e.col, e.limit), (3, 66, None), "{e}");
}

#[test]
fn the_deadline_and_the_memory_bound_stop_the_evaluation() {
    let text = session(
        "",
        "(reduce (fn [acc x] (+ acc (reduce + 0 (range 1000000)))) 0 (range 1000000))",
    );
    let started = Instant::now();
    let limits = Limits::default().timeout(Duration::from_millis(200));
    let e = dcj::import_with(&text, None, &[], &limits).unwrap_err();
    assert_eq!(e.limit, Some(DcjLimit::Time), "{e}");
    assert!(e.to_string().contains("Limits::timeout"), "{e}");
    // Generous: the deadline is looked at every few thousand steps.
    assert!(started.elapsed() < Duration::from_secs(20));
    // Live values past the memory bound (ten vectors of a million).
    let bindings: Vec<String> = (0..10)
        .map(|i| format!("x{i} (vec (range 1000000))"))
        .collect();
    let text = format!(
        "(s/defrole ::a)(s/defrole ::b)(s/defsession ::s [] (s/let [{}] (s/-->> Boolean ::a ::b)))",
        bindings.join(" ")
    );
    let limits = Limits::default().max_memory(100 << 20);
    let e = dcj::import_with(&text, None, &[], &limits).unwrap_err();
    assert_eq!(e.limit, Some(DcjLimit::Memory(100 << 20)), "{e}");
    assert!(e.to_string().contains("Limits::max_memory"), "{e}");
    // A timeout of zero stops at once.
    let past = Limits::default().timeout(Duration::ZERO);
    let e = dcj::import_with(&session("", "1"), None, &[], &past).unwrap_err();
    assert_eq!(e.limit, Some(DcjLimit::Time), "{e}");
}

/// A program that imports a file is told the `Limits` method that raises
/// the limit it reached (it has no command-line flag to give); the `prust`
/// command line words the same error with its option and variable.
#[test]
fn a_limit_names_what_its_reader_can_raise() {
    let zero = Limits::default().timeout(Duration::ZERO);
    let e = dcj::import_with(&session("", "1"), None, &[], &zero).unwrap_err();
    let library = e.to_string();
    assert!(
        library.contains("raise it with Limits::timeout"),
        "{library}"
    );
    assert!(
        !library.contains("--timeout")
            && !library.contains("--max-memory")
            && !library.contains("PRUST_"),
        "{library}"
    );
    let cli = e.for_audience(Audience::CommandLine).to_string();
    assert!(
        cli.contains("raise it with --timeout or PRUST_TIMEOUT"),
        "{cli}"
    );

    let tiny = Limits::default().max_memory(1 << 20);
    let text = session("", "(count (vec (range 1000000)))");
    let e = dcj::import_with(&text, None, &[], &tiny).unwrap_err();
    assert_eq!(e.limit, Some(DcjLimit::Memory(1 << 20)), "{e}");
    let library = e.to_string();
    assert!(
        library.contains("raise it with Limits::max_memory"),
        "{library}"
    );
    assert!(
        !library.contains("--timeout")
            && !library.contains("--max-memory")
            && !library.contains("PRUST_"),
        "{library}"
    );
    let cli = e.for_audience(Audience::CommandLine).to_string();
    assert!(
        cli.contains("raise it with --max-memory or PRUST_MAX_MEMORY"),
        "{cli}"
    );
}

#[test]
fn set_insertion_is_near_linear() {
    // 10k / 20k / 40k elements took 0.84 / 2.43 / 9.34 s: every insertion
    // compared with every element (these never ended). The deadline only
    // catches a relapse: they take well under a second each.
    let within = Limits::default().timeout(Duration::from_secs(20));
    for expr in [
        "(count (into #{} (range 200000)))",
        "(count (reduce conj #{} (range 50000)))",
        "(count (set (map str (range 50000))))",
        "(count (distinct (map (fn [i] (mod i 1000)) (range 200000))))",
        "(count (filter (fn [i] (contains? (set (range 0 100000 2)) i)) (range 10)))",
    ] {
        let imp = dcj::import_with(&session("", expr), None, &[], &within)
            .unwrap_or_else(|e| panic!("{expr}: {e}"));
        let role = imp.spec.declared_roles()[0].clone();
        assert!(role.starts_with("a_"), "{expr}: {role}");
    }
    let imp =
        dcj::import_str(&session("", "(count (into #{} (range 200000)))"), None, &[]).unwrap();
    assert_eq!(imp.spec.declared_roles()[0], "a_200000_");
    // The set's Clojure order and equality survive the merge.
    let imp = dcj::import_str(
        &session("", "(if (= (into #{9 8} (range 10)) (set (reverse (range 10)))) (str (conj #{} 0 1 2 3)) 0)"),
        None,
        &[],
    )
    .unwrap();
    assert_eq!(imp.spec.declared_roles()[0], "a_#{0 1 3 2}_");
}

#[test]
fn every_forms_over_many_roles_are_near_linear() {
    // 5k / 10k / 20k roles took 0.42 / 1.51 / 3.85 s: each new role was
    // looked for in the list of the roles before it (60k: 48 s in a debug
    // build, now well under 1 s; the deadline only catches a relapse).
    let text = "(s/defrole ::w)(s/defsession ::s [n] (s/cat-every [i (range n)] (s/-->> Boolean (::w i) (::w (inc i)))))";
    let within = Limits::default().timeout(Duration::from_secs(20));
    let imp = dcj::import_with(text, None, &[60_000], &within).unwrap();
    assert_eq!(imp.spec.declared_roles().len(), 60_001);
    let par = text.replace("cat-every", "par-every");
    let imp = dcj::import_with(&par, None, &[60_000], &within).unwrap();
    assert_eq!(imp.spec.declared_roles().len(), 60_001);
}

#[test]
fn huge_ranges_and_unsupported_functions_are_errors_at_their_form() {
    for (expr, says) in [
        ("(count (range 9223372036854775807))", "more than 1000000"),
        (
            "(count (range -9223372036854775808 9223372036854775807 1))",
            "more than 1000000",
        ),
        (
            "(count (apply str (repeat 1000 \"x\")))",
            "unknown symbol `apply`",
        ),
        ("(count (power-set (range 20)))", "power set"),
        (
            "(count (sort (concat (range 600000) (range 600000))))",
            "more than 1000000",
        ),
    ] {
        let e = import_err(&session("", expr));
        assert_eq!((e.line, e.limit), (3, None), "{expr}: {e}");
        assert!(e.message.contains(says), "{expr}: {e}");
    }
}

#[test]
fn messages_show_a_large_value_cut_short() {
    let e = import_err(&session("", "(+ 1 (vec (range 100000)))"));
    assert!(e.message.len() < 200, "{}", e.message.len());
    assert!(e.message.contains("..."), "{e}");
}
