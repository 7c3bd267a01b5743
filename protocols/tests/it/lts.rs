//! Compiled LTS sizes, pinned for small instances (each count derived by
//! hand in the comment), specification errors and the registry.

use protocols::bundled;
use protocols::spec::{call, msg, par, seq, Spec};
use protocols::token::{self, Topology};
use protocols::{micro, npb, Error};

fn size(spec: Spec) -> (usize, usize) {
    let lts = spec.compile().unwrap();
    (lts.num_states(), lts.num_transitions())
}

#[test]
fn microbenchmark_sizes() {
    for k in [2, 3, 5] {
        // one loop of k sends and k receives, buffered or not
        assert_eq!(size(micro::ring(k, true)), (2 * k, 2 * k));
        assert_eq!(size(micro::ring(k, false)), (2 * k, 2 * k));
        // one loop of 2k communications
        assert_eq!(size(micro::star(k, true)), (4 * k, 4 * k));
        assert_eq!(size(micro::star(k, false)), (4 * k, 4 * k));
    }
}

#[test]
fn token_sizes() {
    for k in [3, 4, 6] {
        // k holder states; one state per (holder, neighbour) with the token in transit
        let edges = |t: Topology| (0..k).map(|i| t.neighbours(k, i).len()).sum::<usize>();
        for t in token::Topology::ALL {
            let e = edges(t);
            assert_eq!(size(token::spec(t, k)), (k + e, 2 * e), "{t:?} {k}");
        }
        assert_eq!(edges(Topology::DirectedRing), k);
        assert_eq!(edges(Topology::UndirectedRing), 2 * k);
        assert_eq!(edges(Topology::Star), 2 * (k - 1));
        assert_eq!(edges(Topology::FullMesh), k * (k - 1));
        assert_eq!(edges(Topology::BinaryTree), 2 * (k - 1)); // a tree has k-1 edges
    }
    // 2-D mesh of 4 = 2x2 grid: 4 undirected edges; of 5 on a 3x3 grid: cells 0..5
    assert_eq!(Topology::Mesh2d.neighbours(4, 0), [1, 2]);
    assert_eq!(Topology::Mesh2d.neighbours(4, 3), [1, 2]);
    assert_eq!(
        Topology::Mesh2d.neighbours(5, 2),
        [1, 5]
            .iter()
            .copied()
            .filter(|&j| j < 5)
            .collect::<Vec<_>>()
    );
    assert_eq!(Topology::Mesh2d.neighbours(5, 1), [0, 2, 4]);
    assert_eq!(Topology::BinaryTree.neighbours(6, 2), [0, 5]);
    assert_eq!(Topology::UndirectedRing.neighbours(2, 0), [1]);
}

#[test]
fn case_study_sizes() {
    // 2 + a 5x3 grid for the interleaving (no shared channel) + 2
    assert_eq!(size(protocols::two_buyer::spec()), (19, 26));
    // rounds: a loop of 4k actions; exits 4k; closes 2k
    for k in [1, 2, 3] {
        assert_eq!(size(npb::cg(k)), (10 * k, 10 * k));
        assert_eq!(size(npb::is(k)), (10 * k, 10 * k));
    }
    // three loops of 4 actions sharing the initial state, where the FFT and
    // FFTSetVariables loops also share their last two states (equal
    // residuals are one state): 1 + 3 + 2 + 2 states and 4 + 4 + 2
    // transitions; then exits 8 and closes 4
    assert_eq!(size(npb::ft(1)), (1 + 3 + 2 + 2 + 8 + 4, 4 + 4 + 2 + 8 + 4));
    assert_eq!(size(protocols::chess::spec()), (5, 5));
    assert_eq!(size(protocols::load_balancer::spec()), (10, 10));
}

#[test]
fn async_interleaving_is_buffered_and_fifo() {
    // two sends on one channel in parallel: both may be sent before either
    // is received, and they are received in the order sent
    let lts = Spec::new("fifo", par([msg("A", "p", "q"), msg("B", "p", "q")]))
        .compile()
        .unwrap();
    // 0 -!A-> 1 -?A-> 3 ..., 0 -!B-> 2, 1 -!B-> [A,B], 2 -!A-> [B,A] ...
    let traces: Vec<Vec<String>> = all_complete(&lts);
    assert!(traces.contains(&vec![
        "!(A,p,q)".into(),
        "!(B,p,q)".into(),
        "?(A,p,q)".into(),
        "?(B,p,q)".into()
    ]));
    assert!(!traces
        .iter()
        .any(|t| t[..2] == ["!(A,p,q)", "!(B,p,q)"] && t[2] == "?(B,p,q)"));
    assert_eq!(traces.len(), 4); // !A?A!B?B, !A!B?A?B, !B?B!A?A, !B!A?B?A
}

#[test]
fn sync_send_is_immediately_received() {
    let lts = Spec::new(
        "s",
        par([protocols::spec::sync("A", "p", "q"), msg("B", "r", "s")]),
    )
    .compile()
    .unwrap();
    for t in all_complete(&lts) {
        // (the send of a handshake is written `‽`, as Discourje does)
        let i = t.iter().position(|l| l == "‽(A,p,q)").unwrap();
        assert_eq!(t[i + 1], "?(A,p,q)", "{t:?}");
    }
    assert_eq!(all_complete(&lts).len(), 3);
}

fn all_complete(lts: &protocols::Lts) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut stack = vec![(Vec::new(), lts.initial())];
    while let Some((w, s)) = stack.pop() {
        if lts.transitions(s).is_empty() && lts.is_final(s) {
            out.push(w.clone());
        }
        for (l, t) in lts.transitions(s) {
            let mut w2: Vec<String> = w.clone();
            w2.push(lts.label_text(l));
            stack.push((w2, *t));
        }
    }
    out
}

#[test]
fn state_bound_is_an_error() {
    let e = token::spec(Topology::FullMesh, 6)
        .compile_bounded(10)
        .unwrap_err();
    assert_eq!(
        e,
        Error::StateBound {
            limit: 10,
            what: protocols::Built::GlobalLts
        }
    );
    assert!(e.to_string().contains("more than 10 states"));
    // unbounded growth: recursion under par
    let grow = Spec::new("grow", call("X", [])).define("X", 0, |_| {
        msg("A", "p", "q").then(par([call("X", []), call("X", [])]))
    });
    assert!(matches!(
        grow.compile_bounded(1000),
        Err(Error::StateBound { .. })
    ));
}

#[test]
fn specification_errors() {
    let unguarded =
        Spec::new("u", call("X", [])).define("X", 0, |_| call("X", []).or(msg("A", "p", "q")));
    let e = unguarded.compile().unwrap_err().to_string();
    assert!(
        e.contains("unguarded recursion") && e.contains("X()"),
        "{e}"
    );
    let e = Spec::new("u", call("Y", [1]))
        .define("X", 0, |_| msg("A", "p", "q"))
        .compile()
        .unwrap_err()
        .to_string();
    assert!(e.contains("`Y`") && e.contains("defined: X"), "{e}");
    let e = Spec::new("u", call("X", [1]))
        .define("X", 0, |_| msg("A", "p", "q"))
        .compile()
        .unwrap_err()
        .to_string();
    assert!(e.contains("takes 0 arguments but is called with 1"), "{e}");
    let e = Spec::new("u", msg("A", "p", "p"))
        .compile()
        .unwrap_err()
        .to_string();
    assert!(e.contains("cannot communicate with itself"), "{e}");
    // guarded recursion through a nullable prefix is unguarded too
    let e = Spec::new("u", call("X", []))
        .define("X", 0, |_| seq([msg("A", "p", "q").star(), call("X", [])]))
        .compile()
        .unwrap_err();
    assert!(e.to_string().contains("unguarded"));
}

#[test]
fn registry_names_roles_and_types() {
    let list = bundled::list();
    let names: Vec<&str> = list.iter().map(|p| p.name).collect();
    for n in [
        "token-directed-ring",
        "token-undirected-ring",
        "token-star",
        "token-binary-tree",
        "token-full-mesh",
        "token-2d-mesh",
        "chess",
        "tic-tac-toe",
        "rock-paper-scissors",
        "go-fish",
        "npb-cg",
        "npb-is",
        "npb-ft",
        "npb-mg",
        "two-buyer",
        "load-balancer",
        "ring-buffered",
        "ring-unbuffered",
        "star-buffered",
        "star-unbuffered",
    ] {
        assert!(names.contains(&n), "{n} missing");
    }
    let get = |n: &str| bundled::by_name(n).unwrap();
    assert_eq!(get("chess").roles(), ["white", "black"]);
    assert_eq!(get("tic-tac-toe").roles(), ["player_1_", "player_2_"]);
    assert_eq!(
        get("go-fish:2").roles(),
        ["dealer", "player_0_", "player_1_"]
    );
    assert_eq!(
        get("go-fish:2").type_names(),
        ["Turn", "Ask", "Card", "Go", "Fish", "OutOfCards"]
    );
    assert_eq!(
        get("rock-paper-scissors:2").type_names(),
        ["Rock", "Paper", "Scissors"]
    );
    assert_eq!(get("npb-ft:1").roles(), ["master", "evolve_0_", "fft_0_"]);
    assert_eq!(
        get("npb-ft:1").type_names(),
        [
            "EvolveMessage",
            "FFTMessage",
            "FFTSetVariablesMessage",
            "DoneMessage",
            "ExitMessage"
        ]
    );
    assert_eq!(
        get("npb-mg:1").roles(),
        ["master", "interp_0_", "psinv_0_", "rprj_0_", "resid_0_"]
    );
    assert_eq!(
        get("npb-is:1").type_names(),
        ["RankMessage", "DoneMessage", "ExitMessage"]
    );
    assert_eq!(get("two-buyer").roles(), ["buyer1", "buyer2", "seller"]);
    assert_eq!(
        get("load-balancer").roles(),
        ["client", "balancer", "server1", "server2"]
    );
    assert_eq!(
        get("token-2d-mesh:3").roles(),
        ["worker_0_", "worker_1_", "worker_2_"]
    );
    // every listed protocol compiles at its default parameter, with the listed roles and types
    for p in &list {
        let lts = bundled::by_name(p.name).unwrap();
        assert_eq!(lts.roles(), p.roles, "{}", p.name);
        assert_eq!(lts.type_names(), p.types, "{}", p.name);
    }
}

#[test]
fn registry_errors() {
    let e = bundled::by_name("tokn-star").unwrap_err();
    assert!(
        matches!(&e, Error::UnknownProtocol { known, .. } if known.len() == bundled::list().len())
    );
    assert!(e.to_string().contains("did you mean `token-star`?"), "{e}");
    assert!(e.to_string().contains("token-star, token-binary-tree"));
    let e = bundled::by_name("token-star:x").unwrap_err().to_string();
    assert!(e.contains("`x` is not a number"), "{e}");
    let e = bundled::by_name("token-star:1").unwrap_err().to_string();
    assert!(e.contains("at least 2"), "{e}");
    let e = bundled::by_name("chess:3").unwrap_err().to_string();
    assert!(e.contains("takes no parameter"), "{e}");
    assert_eq!(bundled::by_name("token-star").unwrap().roles().len(), 4);
    assert!(matches!(
        bundled::spec_by_name("token-full-mesh:5")
            .unwrap()
            .compile_with(&engine::Limits::default().max_states(5)),
        Err(Error::StateBound { .. })
    ));
}
