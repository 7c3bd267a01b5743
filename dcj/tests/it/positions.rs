//! Mistakes that the importer once accepted, or reported without a
//! position: an unguarded recursion (the compiler found it later, with no
//! line) and a bare symbol in role position (taken as a role of that
//! name, so a forgotten receiver made the message type a role).

fn import_err(text: &str) -> dcj::DcjError {
    match dcj::import_str(text, None, &[]) {
        Ok(i) => panic!("imported: {text}\n{:?}", i.spec),
        Err(e) => e,
    }
}

#[test]
fn unguarded_recursion_is_an_error_at_the_call() {
    let e = import_err("(s/defrole ::a)\n(s/defsession ::x []\n  (::x))");
    let m = e.to_string();
    assert_eq!((e.line, e.col), (3, 3), "{m}");
    assert!(m.contains("unguarded recursion"), "{m}");
    assert!(m.contains("hint:") && m.contains("guarded"), "{m}");
    // Through another session, after something that may do nothing, and
    // in a branch of an alt: each call is reached before any action.
    let e = import_err(
        "(s/defsession ::x []\n  (s/cat (s/? (s/-->> T ::a ::b)) (::y)))\n\
         (s/defsession ::y []\n  (s/alt (s/-->> T ::a ::b) (::x)))",
    );
    assert_eq!((e.line, e.col), (4, 29), "{e}");
    assert!(e.to_string().contains("(`x` → `y` → `x`)"), "{e}");
}

#[test]
fn guarded_recursion_still_imports() {
    for text in [
        "(s/defsession ::x [] (s/cat (s/-->> T ::a ::b) (::x)))",
        "(s/defsession ::x [] (s/alt (s/-->> T ::a ::b) (s/cat (s/-->> T ::b ::a) (::x))))",
        "(s/defsession ::x [] (s/omega (s/-->> T ::a ::b)))",
        // after a part that can neither act nor end, the call is not
        // reached before an action
        "(s/defsession ::x [] (s/alt (s/-->> T ::a ::b) (s/cat (s/alt-every [i []] (s/-->> T ::a ::b)) (::x))))",
    ] {
        let imp = dcj::import_str(text, None, &[]).unwrap_or_else(|e| panic!("{text}\n{e}"));
        imp.spec.compile().unwrap_or_else(|e| panic!("{text}\n{e}"));
    }
}

#[test]
fn unguarded_omega_is_an_error_at_the_omega() {
    let e = import_err("(s/defsession ::x []\n  (s/omega (s/? (s/-->> T ::a ::b))))");
    assert_eq!((e.line, e.col), (2, 3), "{e}");
    assert!(e.to_string().contains("unguarded recursion"), "{e}");
}

#[test]
fn a_bare_symbol_in_role_position_is_an_error() {
    // The receiver forgotten: `M` would be the sender and `::a` the
    // receiver of a message of the omitted type.
    let e = import_err("(s/defrole ::a)\n(s/defsession ::x []\n  (s/-->> M ::a))");
    let m = e.to_string();
    assert_eq!((e.line, e.col), (3, 11), "{m}");
    assert!(m.contains("`M`"), "{m}");
    assert!(m.contains("message type"), "{m}");
    // A misspelt parameter: did you mean it?
    let e = import_err(
        "(s/defrole ::w)\n(s/defsession ::x []\n  (s/let [peer ::b] (s/-->> T ::w per)))",
    );
    assert_eq!((e.line, e.col), (3, 35), "{e}");
    assert!(e.to_string().contains("did you mean `peer`?"), "{e}");
    let e = import_err("(s/defrole ::worker)\n(s/defsession ::x []\n  (s/close wroker ::b))");
    assert!(e.to_string().contains("did you mean `::worker`?"), "{e}");
}

#[test]
fn a_declared_role_may_be_written_without_its_colons() {
    // as `(worker 1)` is `(::worker 1)`
    let imp = dcj::import_str(
        "(s/defrole ::worker)\n(s/defsession ::x [] (s/-->> T worker (worker 1)))",
        None,
        &[],
    )
    .unwrap();
    let lts = imp.spec.compile().unwrap();
    assert_eq!(lts.roles(), ["worker", "worker_1_"]);
}

#[test]
fn a_symbol_bound_by_def_or_let_is_the_role_it_names() {
    let imp = dcj::import_str(
        "(s/defrole ::alice)\n(def a ::alice)\n\
         (s/defsession ::x [] (s/let [b ::bob] (s/-->> T a b)))",
        None,
        &[],
    )
    .unwrap();
    let lts = imp.spec.compile().unwrap();
    assert_eq!(lts.roles(), ["alice", "bob"]);
}
