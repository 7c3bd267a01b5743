//! The `.dcj` importer end to end: prust's own `.dcj` versions of the
//! bundled protocols import to LTSs bisimilar to the bundled ones, and the
//! evaluator's rules (hash order, positions, names, errors) hold.

use std::path::{Path, PathBuf};

use dcj::DcjTarget;
use protocols::token;
use protocols::Lts;

fn file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/dcj")
        .join(name)
}

fn imported(name: &str, session: &str, args: &[i64]) -> Lts {
    let imp = dcj::import(&file(name), Some(session), args)
        .unwrap_or_else(|e| panic!("{name}:{session}: {e}"));
    imp.spec
        .compile()
        .unwrap_or_else(|e| panic!("{name}:{session}: {e}"))
}

fn assert_bisimilar(a: &Lts, b: &Lts, what: &str) {
    if let Err(d) = a.bisimilar(b) {
        panic!("{what}: {d}");
    }
}

/// Session `session` of `name` imported with each argument list of `args`
/// is bisimilar to `bundled(args)`.
fn assert_imports_bisimilar<const N: usize>(
    name: &str,
    session: &str,
    args: impl IntoIterator<Item = [i64; N]>,
    bundled: impl Fn([i64; N]) -> Lts,
) {
    for a in args {
        assert_bisimilar(
            &imported(name, session, &a),
            &bundled(a),
            &format!("{name}:{session}:{a:?}"),
        );
    }
}

/// The LTS of `.dcj` text (session and arguments as for `import_str`).
fn compiled_str(text: &str, session: Option<&str>, args: &[i64]) -> Lts {
    dcj::import_str(text, session, args)
        .unwrap_or_else(|e| panic!("{text}\n{e}"))
        .spec
        .compile()
        .unwrap_or_else(|e| panic!("{text}\n{e}"))
}

#[test]
fn chess_imports_bisimilar_to_the_bundled_one_in_both_styles() {
    let bundled = protocols::chess::spec().compile().unwrap();
    let a = imported("chess.dcj", "chess", &[]);
    assert_eq!(a.roles(), ["white", "black"]);
    assert_eq!(a.type_names(), ["Move"]);
    assert_bisimilar(&a, &bundled, "chess");
    assert_bisimilar(
        &imported("chess.dcj", "chess-loop", &[]),
        &bundled,
        "chess-loop",
    );
}

#[test]
fn tic_tac_toe_falls_back_to_bare_role_names_with_a_warning() {
    let imp = dcj::import(&file("tic-tac-toe.dcj"), None, &[]).unwrap();
    assert_eq!(imp.spec.name(), "tic-tac-toe");
    assert_eq!(imp.warnings.len(), 1, "{:?}", imp.warning_texts);
    assert!(
        imp.warning_texts[0].contains("tic-tac-toe.dcj:9:28:"),
        "{:?}",
        imp.warning_texts
    );
    assert!(
        imp.warning_texts[0].contains("not declared with s/defrole; using its bare name `player`")
    );
    let lts = imp.spec.compile().unwrap();
    assert_bisimilar(
        &lts,
        &protocols::tic_tac_toe::spec().compile().unwrap(),
        "tic-tac-toe",
    );
}

#[test]
fn go_fish_imports_bisimilar_for_two_and_three_players() {
    assert_imports_bisimilar("go-fish.dcj", "go-fish", [[2], [3]], |[k]| {
        protocols::go_fish::spec(k as usize).compile().unwrap()
    });
}

#[test]
fn rock_paper_scissors_follows_clojure_set_order() {
    // Up to 3 players the hash order of #{0 1 2} and its subsets is
    // ascending, the bundled order: the same protocol.
    assert_imports_bisimilar(
        "rock-paper-scissors.dcj",
        "rock-paper-scissors",
        [[2], [3]],
        |[k]| {
            protocols::rock_paper_scissors::spec(k as usize)
                .compile()
                .unwrap()
        },
    );
}

#[test]
fn rock_paper_scissors_for_four_throws_in_hash_order() {
    // (seq (set (range 4))) is (0 1 3 2), and (disj #{0 1 2 3} 0) iterates
    // 1 3 2: player 0 throws to player 3 before player 2, where the
    // bundled protocol goes in ascending order. So they differ there.
    let lts = imported("rock-paper-scissors.dcj", "rock-paper-scissors", &[4]);
    let d = lts
        .bisimilar(&protocols::rock_paper_scissors::spec(4).compile().unwrap())
        .unwrap_err();
    assert_eq!(
        d.trace,
        ["!(Rock,player_0_,player_1_)", "?(Rock,player_0_,player_1_)"]
    );
    assert_eq!(
        d.difference,
        "only the first can do !(Rock,player_0_,player_3_)"
    );
}

#[test]
fn every_token_topology_imports_bisimilar() {
    for t in token::Topology::ALL {
        assert_imports_bisimilar(
            "token.dcj",
            t.name(),
            [2, 3, 4, 5, 7].map(|k| [k, 0]),
            |[k, _]| token::spec(t, k as usize).compile().unwrap(),
        );
    }
}

#[test]
fn npb_batches_import_bisimilar() {
    type Batches = fn(usize) -> protocols::spec::Spec;
    let kinds: [(&str, Batches); 4] = [
        ("npb-cg", protocols::npb::cg),
        ("npb-is", protocols::npb::is),
        ("npb-ft", protocols::npb::ft),
        ("npb-mg", protocols::npb::mg),
    ];
    for (session, spec) in kinds {
        assert_imports_bisimilar("npb.dcj", session, [[1], [2], [3]], |[k]| {
            spec(k as usize).compile().unwrap()
        });
    }
}

#[test]
fn npb_cg_as_prut4j_writes_it_is_a_looser_protocol() {
    // Prut4j's published strict CG lets the master send work messages in
    // any number and order: after the first work message to worker 0 it
    // may send another one to worker 0, which the batches do not allow.
    // Every phase is starred, so it may even end at once.
    let loose = imported("npb.dcj", "npb-cg-loose", &[2]);
    let d = loose
        .bisimilar(&protocols::npb::cg(2).compile().unwrap())
        .unwrap_err();
    assert!(d.trace.is_empty(), "{d}");
    assert_eq!(
        d.difference,
        "the first may end here and the second may not"
    );
}

#[test]
fn dcj_targets_parse_file_session_and_arguments() {
    let t = DcjTarget::parse("dir/go-fish.dcj:go-fish:3")
        .unwrap()
        .unwrap();
    assert_eq!(t.path, PathBuf::from("dir/go-fish.dcj"));
    assert_eq!(t.session.as_deref(), Some("go-fish"));
    assert_eq!(t.args, [3]);
    let t = DcjTarget::parse("x.dcj").unwrap().unwrap();
    assert_eq!((t.session, t.args.len()), (None, 0));
    let t = DcjTarget::parse("x.dcj:s:1,-2").unwrap().unwrap();
    assert_eq!(t.args, [1, -2]);
    assert!(DcjTarget::parse("chess").is_none());
    assert!(DcjTarget::parse("x.dcjx").is_none());
    let t = DcjTarget::parse("my.dcjfiles/x.dcj:s").unwrap().unwrap();
    assert_eq!(t.path, PathBuf::from("my.dcjfiles/x.dcj"));
    let e = DcjTarget::parse("x.dcj:s:1,two").unwrap().unwrap_err();
    assert!(e.to_string().contains("`two`"), "{e}");
}

fn import_err(text: &str, session: Option<&str>, args: &[i64]) -> dcj::DcjError {
    match dcj::import_str(text, session, args) {
        Ok(_) => panic!("imported: {text}"),
        Err(e) => e,
    }
}

#[test]
fn set_iteration_decides_the_order_of_cat_every() {
    let text = "(s/defrole ::w)
        (s/defsession ::order [k] (s/cat-every [i (set (range k))] (s/close ::m (::w i))))";
    let imp = dcj::import_str(text, None, &[4]).unwrap();
    // Roles are numbered in order of first use: the hash order 0 1 3 2.
    assert_eq!(
        imp.spec.compile().unwrap().roles(),
        ["m", "w_0_", "w_1_", "w_3_", "w_2_"]
    );
    // A range is ascending.
    let text = text.replace("(set (range k))", "(range k)");
    let imp = dcj::import_str(&text, None, &[4]).unwrap();
    assert_eq!(
        imp.spec.compile().unwrap().roles(),
        ["m", "w_0_", "w_1_", "w_2_", "w_3_"]
    );
}

#[test]
fn star_and_plus_are_spec_operators_in_spec_position_and_arithmetic_elsewhere() {
    let text = "(s/defrole ::w)
        (s/defsession ::ops [k]
          (s/* (s/-->> M (::w (* 2 k)) (::w (+ k 1)))))";
    let lts = compiled_str(text, None, &[3]);
    assert_eq!(lts.roles(), ["w_6_", "w_4_"]);
    assert!(lts.is_final(lts.initial()), "a star may do nothing");
    let plus = text.replace("(s/* ", "(+ ");
    let lts = compiled_str(&plus, None, &[3]);
    assert!(!lts.is_final(lts.initial()), "a plus must go once");
}

#[test]
fn let_if_loop_and_arguments_evaluate_when_unfolding() {
    let text = "(s/defrole ::w)
        (s/defsession ::count [n]
          (s/loop again [i 0]
            (s/if (< i n)
              (s/let [j (inc i)]
                (s/-->> Tick (::w i) (::w j))
                (s/recur again j)))))";
    let imp = dcj::import_str(text, Some("::count"), &[3]).unwrap();
    let lts = imp.spec.compile().unwrap();
    assert_eq!(lts.roles(), ["w_0_", "w_1_", "w_2_", "w_3_"]);
    // three messages in a row: 7 states
    assert_eq!(lts.num_states(), 7);
    assert!(
        imp.definitions.iter().any(|(n, _)| n == "again(3)"),
        "{:?}",
        imp.definitions
    );
}

#[test]
fn omega_is_a_named_recursive_definition() {
    let text = "(s/defsession ::ping [] (s/omega (s/--> Ping ::a ::b)))";
    let imp = dcj::import_str(text, None, &[]).unwrap();
    let lts = imp.spec.compile().unwrap();
    assert!(!lts.is_final(lts.initial()));
    use protocols::spec::{call, sync, Spec};
    let forever = Spec::new("p", call("w", []))
        .define("w", 0, |_| sync("Ping", "a", "b").then(call("w", [])));
    lts.bisimilar(&forever.compile().unwrap()).unwrap();
    assert!(imp
        .definitions
        .iter()
        .any(|(n, _)| n.starts_with("omega@1")));
}

#[test]
fn runaway_unfolding_names_the_session_instance() {
    let text = "(s/defsession ::grow [n]\n  (s/cat (s/-->> M ::a ::b) (::grow (inc n))))";
    let e = import_err(text, None, &[0]);
    let m = e.to_string();
    assert!(m.contains("runaway unfolding: session `grow`"), "{m}");
    assert!(m.contains("stopped at `grow(10000)`"), "{m}");
    assert_eq!(e.line, 2, "{m}");
}

#[test]
fn runaway_functions_are_errors_not_stack_overflows() {
    let text = "(defn f [x] (f (inc x)))
        (s/defsession ::s [] (::t (f 0)))
        (s/defsession ::t [x] (s/-->> M ::a ::b))";
    let m = import_err(text, Some("s"), &[]).to_string();
    assert!(m.contains("nested more than"), "{m}");
    let m = import_err(
        "(s/defsession ::s [] (s/cat-every [i (range 100000000)] (s/-->> M ::a ::b)))",
        None,
        &[],
    )
    .to_string();
    assert!(m.contains("more than 1000000"), "{m}");
}

#[test]
fn unknown_sessions_and_wrong_arities_are_explained() {
    let text = "(s/defsession ::go-fish [k] (::go-fsh-turn k))\n(s/defsession ::go-fish-turn [k] (s/-->> M ::a ::b))";
    let e = import_err(text, Some("go-fish"), &[2]);
    assert!(
        e.to_string()
            .contains("unknown session `::go-fsh-turn`; did you mean `::go-fish-turn`?"),
        "{e}"
    );
    assert_eq!((e.line, e.col), (1, 29));
    let e = import_err(text, Some("go-fishh"), &[2]);
    assert!(e.to_string().contains("did you mean `go-fish`?"), "{e}");
    let e = import_err(text, Some("go-fish"), &[]);
    assert!(
        e.to_string().contains("takes 1 argument(s) [k], not 0"),
        "{e}"
    );
    assert!(e.to_string().contains("FILE.dcj:go-fish:K"), "{e}");
}

#[test]
fn unsupported_forms_have_spanned_errors() {
    let e = import_err("(s/defsession ::s []\n  (s/cat (s/graph x)))", None, &[]);
    assert_eq!((e.line, e.col), (2, 11), "{e}");
    assert!(
        e.to_string()
            .contains("unsupported form `s/graph` in spec position"),
        "{e}"
    );
    let e = import_err(
        "(s/defsession ::s [] (s/-->> (fn [m] true) ::a ::b))",
        None,
        &[],
    );
    assert_eq!(e.col, 30, "{e}");
    assert!(e.to_string().contains("only class names"), "{e}");
    let e = import_err("(s/defsession ::s [k] (s/-->> M ::a (::b kk)))", None, &[1]);
    assert!(
        e.to_string()
            .contains("unknown symbol `kk`; did you mean `k`?"),
        "{e}"
    );
    let e = import_err("(defn main [] 1)", None, &[]);
    assert!(e.to_string().contains("defines no session"), "{e}");
}

#[test]
fn an_omitted_type_is_object_and_class_names_keep_their_last_segment() {
    let text = "(s/defsession ::s [] (s/cat (s/-->> ::a ::b) (s/--> java.lang.String ::b ::a)))";
    let lts = compiled_str(text, None, &[]);
    assert_eq!(lts.type_names(), ["Object", "String"]);
}

#[test]
fn stray_closing_bracket_is_a_warning_with_position() {
    let text = "(s/defsession ::s [] (s/-->> M ::a ::b)))\n";
    let imp = dcj::import_str(text, None, &[]).unwrap();
    assert_eq!(imp.warning_texts.len(), 3, "{:?}", imp.warning_texts); // the `)` and two undeclared roles
    assert!(
        imp.warning_texts
            .iter()
            .any(|w| w.starts_with("1:41: warning: stray `)`")),
        "{:?}",
        imp.warning_texts
    );
}

/// Minimal re-typed variants of the shapes Prut4j's public `.dcj` files
/// take (not copies): each must import and compile.
#[test]
fn every_shape_of_prut4js_files_imports() {
    let shapes: &[(&str, Option<&str>, &[i64])] = &[
        // A bare specification with string roles and no session, as the
        // generated NPB files are, with commented-out declarations and a
        // commented closing bracket.
        (";(s/defrole \"boss\")\n;(s/defsession ::job [2]\n (s/cat (s/* (s/cat-every [i (range 2)] (s/-->> a.b.Work \"boss\" (\"hand\" i))))\n  (s/cat-every [i (range 2)] (s/close \"boss\" (\"hand\" i))))\n;)", None, &[]),
        // The same with par-every and an uncommented stray `)`.
        ("(s/defrole \"boss\")\n(s/par (s/par-every [i (range 3)] (s/-->> W \"boss\" (\"hand\" i)))\n (s/* (s/alt-every [i (range 3)] (s/close (\"hand\" i) \"boss\"))))\n)", None, &[]),
        // A literal parameter.
        ("(s/defsession ::job [3] (s/cat-every [i (range 3)] (s/-->> W ::boss (::hand i))))", None, &[]),
        // Unqualified operators and a keyword-named loop.
        ("(s/defrole ::a)(s/defrole ::b)\n(s/defsession ::g []\n (loop :l [x 2] (-->> M ::a ::b) (-->> M ::b ::a) (? (s/recur :l))))", None, &[]),
        // s/async with one branch, and an alt with one branch.
        ("(s/defrole ::p)\n(s/defsession ::g [] (s/alt (::t 1 2) (::t 2 1)))\n(s/defsession ::t [i j] (s/async (s/-->> Long (::p i) (::p j))) (s/alt (::t j i)))", None, &[]),
        // Two bindings in one par-every, set literal as a predicate.
        ("(s/defrole ::w)\n(s/defsession ::m [k] (s/par-every [i (range k) j (remove #{i} (range k))] (s/* (s/-->> Boolean (::w i) (::w j)))))", None, &[3]),
        // A let with ratios, doubles and user functions, filter by a set.
        ("(s/defrole ::w)\n(defn add [x y] (if (= y 0) x (inc (add x (dec y)))))\n(s/defsession ::g [k i]\n (s/let [len (long (Math/ceil (Math/sqrt k))) row (long (/ i len)) a (if (> row 0) (add row len) -1)]\n  (s/alt-every [j (filter #{a 0 1} (remove #{i} (range k)))] (s/cat (s/-->> B (::w i) (::w j)) (::g k j)))))", None, &[5, 2]),
        // Java interop for a binary tree's parent, with try/catch.
        ("(s/defrole ::w)\n(s/defsession ::t [k i]\n (s/let [p (try (dec (Long/parseLong (.replaceFirst (Long/toBinaryString (inc i)) \".$\" \"\") 2)) (catch Exception e -1))\n         c (dec (Long/parseLong (str (Long/toBinaryString (inc i)) \"0\") 2))]\n  (s/alt-every [j (filter #{p c} (range k))] (s/cat (s/-->> B (::w i) (::w j)) (::t k j)))))", None, &[4, 0]),
        // Sets of sets: power sets, difference, union, s/empty-set, s/count, s/disj.
        ("(s/defrole ::p)\n(s/defsession ::r [k] (::q (set (range k)) s/empty-set))\n(s/defsession ::q [in out]\n (s/if (> (s/count in) 1)\n  (s/cat (s/cat-every [i in] (s/cat-every [j (s/disj in i)] (s/-->> X (::p i) (::p j))))\n         (s/alt-every [w (s/power-set in)] (s/let [l (s/difference in w)] (::q w (s/union out l)))))))", None, &[3]),
        // Star, choice and closes in Prut4j's loose CG style.
        ("(s/defrole ::m)(s/defrole ::w)\n(s/defsession ::cg [k]\n (s/cat (s/* (s/cat (s/* (s/alt-every [i (range k)] (s/-->> C ::m (::w i)))) (s/* (s/alt-every [i (range k)] (s/-->> D (::w i) ::m)))))\n        (s/* (s/alt-every [i (range k)] (s/close ::m (::w i))))))", None, &[2]),
        // A specification inside a Clojure program: ns, require, defn -main, threads.
        ("(ns x.y (:require [clojure.core.async :as a] [discourje.core.spec :as s]))\n(s/defrole ::c)(s/defrole ::s)\n(s/defsession ::rpc [] (s/cat (s/--> Req ::c ::s) (s/--> Resp ::s ::c)))\n(defn -main [] (let [m (s/monitor (s/session ::rpc []))] (a/thread (a/>!! c 1)) @(future 1) #(inc %)))", None, &[]),
    ];
    for (text, session, args) in shapes {
        let imp = dcj::import_str(text, *session, args).unwrap_or_else(|e| panic!("{text}\n{e}"));
        imp.spec.compile().unwrap_or_else(|e| panic!("{text}\n{e}"));
    }
}

#[test]
fn bare_specification_with_string_roles_flattens_like_prut4j() {
    let text = "(s/cat (s/-->> a.b.Work \"boss\" (\"hand\" 0)) (s/close (\"hand\" 0) \"boss\"))\n)";
    let imp = dcj::import_str(text, None, &[]).unwrap();
    assert_eq!(imp.spec.name(), "main");
    let lts = imp.spec.compile().unwrap();
    assert_eq!(lts.roles(), ["boss", "hand_0_"]);
    assert_eq!(lts.type_names(), ["Work"]);
    assert_eq!(imp.warnings.len(), 1);
}

#[test]
fn rust_output_lists_every_definition_with_its_combinators() {
    let imp = dcj::import(&file("chess.dcj"), Some("chess"), &[]).unwrap();
    let src = imp.to_rust();
    assert!(
        src.contains(r#"Spec::new("chess", call("chess", []))"#),
        "{src}"
    );
    assert!(src.contains(r#".roles(["white", "black"])"#), "{src}");
    assert!(
        src.contains(
            r#"seq([msg("Move", "white", "black"), msg("Move", "black", "white")]).star()"#
        ),
        "{src}"
    );
}

#[test]
fn empty_every_forms_follow_discourje() {
    // An alt-every over nothing can neither move nor end; an empty
    // cat-every or par-every is skip.
    let stuck = "(s/defsession ::s [] (s/alt-every [i (range 0)] (s/-->> M ::a (::b i))))";
    let lts = compiled_str(stuck, None, &[]);
    assert!(!lts.is_final(lts.initial()) && lts.transitions(lts.initial()).is_empty());
    for op in ["cat-every", "par-every"] {
        let text = stuck.replace("alt-every", op);
        let lts = compiled_str(&text, None, &[]);
        assert!(lts.is_final(lts.initial()), "{op}");
    }
    let text = "(s/defsession ::s [] (s/alt))";
    let lts = compiled_str(text, None, &[]);
    assert!(lts.is_final(lts.initial()), "an alt of no branches is skip");
}

#[test]
fn sets_of_keywords_and_strings_iterate_in_a_fixed_hash_order() {
    // The order is Clojure's hash order, not the written one: the same
    // set written in two orders iterates alike.
    let text =
        |set: &str| format!("(s/defsession ::s [] (s/cat-every [r {set}] (s/close ::m (r))))");
    let roles = |set: &str| compiled_str(&text(set), None, &[]).roles().to_vec();
    assert_eq!(roles("#{::x ::y ::z ::w}"), roles("#{::w ::z ::y ::x}"));
    let strings = |set: &str| {
        let t = format!("(s/defsession ::s [] (s/cat-every [r {set}] (s/close ::m r)))");
        compiled_str(&t, None, &[]).roles().to_vec()
    };
    assert_eq!(
        strings("#{\"a\" \"b\" \"c\"}"),
        strings("#{\"c\" \"b\" \"a\"}")
    );
}

/// An error on a very long line shows the text around its column, not the
/// whole line: 50,000 nested forms on one line once printed an error of
/// 250 kB (the line, then as many spaces before the caret).
#[test]
fn errors_on_long_lines_show_the_text_around_the_column() {
    let text = format!(
        "(s/defrole ::a)\n(s/defsession ::x [] {}(s/-->> M ::a ::a){})\n",
        "(s/* ".repeat(50_000),
        ")".repeat(50_000)
    );
    let e = import_err(&text, Some("x"), &[]);
    assert_eq!(e.line, 2);
    let shown = e.to_string();
    assert!(shown.len() < 1_000, "{} bytes", shown.len());
    assert!(shown.contains("nested more than"), "{shown}");
    // the caret is under the column's character
    let lines: Vec<&str> = shown.lines().collect();
    let caret = lines[2].chars().count() - 1;
    let src: Vec<char> = text.lines().nth(1).unwrap().chars().collect();
    let under = lines[1].chars().nth(caret).unwrap();
    assert_eq!(under, src[e.col - 1], "{shown}");
}

/// A role talking to itself is refused with the line and column of the
/// form (and a hint), as every other error of a `.dcj` file is; the
/// compiler refused it later with neither.
#[test]
fn a_role_talking_to_itself_is_an_error_at_its_form() {
    let text = "(s/defrole ::a)\n(s/defsession ::s [n]\n  (s/cat (s/-->> M ::a ::b)\n    \
                (s/-->> M (::w 0) (::w (mod 1 n)))))";
    let e = import_err(text, None, &[1]);
    assert_eq!((e.line, e.col), (4, 5), "{e}");
    assert!(
        e.to_string()
            .contains("role `w_0_` cannot communicate with itself"),
        "{e}"
    );
    assert!(e.hint.is_some(), "{e}");
    compiled_str(text, None, &[2]);
    let e = import_err("(s/defsession ::s []\n (s/close ::a ::a))", None, &[]);
    assert_eq!((e.line, e.col), (2, 2), "{e}");
}
