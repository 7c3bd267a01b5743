//! `causality` with the synchronous bit: a handshake is one step of both
//! its roles (as in Discourje), and what the check finds on Prut4j's NPB
//! specs, checked by hand.

use protocols::lint::{lint, Check, Finding, Options};
use protocols::spec::{close, msg, par, par_every, seq, sync, Role, Spec, Term};
use protocols::Lts;

fn causality(lts: &Lts) -> Vec<Finding> {
    lint(lts, &Options::only([Check::Causality]))
}

fn compile(main: Term) -> Lts {
    Spec::new("x", main).compile().unwrap()
}

fn channel(f: &Finding) -> (&str, &str) {
    let (p, q) = f.channel.as_ref().unwrap();
    (p.as_str(), q.as_str())
}

/// The last two witness steps: the step without a role in common, and the
/// action that follows it.
fn last_two(f: &Finding) -> [&str; 2] {
    let w = &f.witness;
    [&w[w.len() - 2].text, &w[w.len() - 1].text]
}

#[test]
fn a_send_right_after_a_handshake_of_its_role_has_a_cause() {
    // p hands q an A, then sends r a B: q's receive of A is the second
    // half of p's handshake, not a step p took no part in
    assert_eq!(
        causality(&compile(seq([sync("A", "p", "q"), msg("B", "p", "r")]))),
        []
    );
    // the same with an ordinary message is a finding: p cannot see q's
    // receive
    let f = causality(&compile(seq([msg("A", "p", "q"), msg("B", "p", "r")])));
    assert_eq!(f.len(), 1);
    assert_eq!(last_two(&f[0]), ["q RECV <A> FROM p", "p SEND <B> TO r"]);
}

#[test]
fn a_handshake_right_after_a_step_of_either_role_has_a_cause() {
    // q receives from x, then p hands q a B: q took part in both
    assert_eq!(
        causality(&compile(seq([msg("A", "x", "q"), sync("B", "p", "q")]))),
        []
    );
    // an ordinary send by p there is p's alone: a finding
    let f = causality(&compile(seq([msg("A", "x", "q"), msg("B", "p", "q")])));
    assert_eq!(f.len(), 1);
    assert_eq!(channel(&f[0]), ("p", "q"));
}

#[test]
fn a_handshake_of_two_other_roles_is_reported_with_both_halves() {
    let f = causality(&compile(seq([msg("A", "p", "q"), sync("B", "r", "s")])));
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(channel(&f[0]), ("r", "s"));
    assert_eq!(
        f[0].witness_texts(),
        [
            "p SEND <A> TO q",
            "q RECV <A> FROM p",
            "r SEND <B> TO s",
            "s RECV <B> FROM r"
        ]
    );
    assert!(f[0].witness[2].label.is_sync());
    assert_eq!(
        f[0].summary,
        "r and s hand over right after a step neither took part in (q RECV <A> FROM p), \
         and the two cannot be swapped"
    );
    // as Discourje writes the same protocol: one step per handshake
    let aut = Lts::from_aut("des (0, 2, 3)\n(0,\"‽(A,p,q)\",1)\n(1,\"‽(B,r,s)\",2)\n").unwrap();
    let f = causality(&aut);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(channel(&f[0]), ("r", "s"));
    assert_eq!(f[0].witness.len(), 4);
}

#[test]
fn independent_handshakes_can_be_swapped() {
    let lts = compile(par([sync("A", "p", "q"), sync("B", "r", "s")]));
    assert_eq!(causality(&lts), []);
    // and one after the other they cannot
    let lts = compile(seq([sync("A", "p", "q"), sync("B", "r", "s")]));
    assert_eq!(causality(&lts).len(), 1);
}

/// Prut4j's one-order specs: within a round the master sends to worker 0,
/// worker 0 takes it, the master sends to worker 1, …, then worker 0
/// replies, the master takes it, worker 1 replies: worker 1's reply comes
/// right after the master's receive from worker 0, which worker 1 cannot
/// see (and the master's send to worker 1 right after worker 0's receive).
#[test]
fn one_order_npb_specs_violate_causality() {
    for (name, kind) in [
        ("npb-cg:2", "worker"),
        ("npb-is:2", "worker"),
        ("npb-ft:2", "evolve"),
        ("npb-ft:2", "fft"),
        ("npb-mg:2", "interp"),
        ("npb-mg:2", "rprj"),
    ] {
        let lts = protocols::bundled::by_name(name).unwrap();
        let f = causality(&lts);
        let (w0, w1) = (format!("{kind}_0_"), format!("{kind}_1_"));
        let reply = f
            .iter()
            .find(|f| channel(f) == (w1.as_str(), "master"))
            .unwrap_or_else(|| panic!("{name}: {f:?}"));
        assert_eq!(
            last_two(reply),
            [
                format!("master RECV <DoneMessage> FROM {w0}"),
                format!("{w1} SEND <DoneMessage> TO master")
            ],
            "{name}: {reply}"
        );
        let send = f
            .iter()
            .find(|f| channel(f) == ("master", w1.as_str()))
            .unwrap_or_else(|| panic!("{name}: {f:?}"));
        let [before, last] = last_two(send);
        assert_eq!(
            before.split(' ').take(2).collect::<Vec<_>>(),
            [w0.as_str(), "RECV"],
            "{name}: {send}"
        );
        assert!(last.starts_with("master SEND <"), "{name}: {send}");
        assert!(last.ends_with(&format!("> TO {w1}")), "{name}: {send}");
    }
}

/// The concurrent versions let the workers reply in any order, so what is
/// left is the exit phase: every worker closes its channel after all the
/// exit exchanges, that is right after the master's receive of some
/// worker's `DoneMessage` — one the closing worker cannot see, even its
/// own (it sent it, but cannot see it taken). Checked by hand for 2 and 3
/// workers; and a version where each worker's `DoneMessage` is a handshake
/// followed by both closes of its channels is clean.
#[test]
fn concurrent_npb_specs_violate_causality_only_at_the_workers_closes() {
    for name in [
        "npb-cg-concurrent:2",
        "npb-is-concurrent:2",
        "npb-cg-concurrent:3",
    ] {
        let lts = protocols::bundled::by_name(name).unwrap();
        let f = causality(&lts);
        let k: usize = name.rsplit(':').next().unwrap().parse().unwrap();
        assert_eq!(f.len(), k, "{name}: {f:?}");
        for (i, f) in f.iter().enumerate() {
            let w = format!("worker_{i}_");
            assert_eq!(channel(f), (w.as_str(), "master"), "{name}");
            let [before, last] = last_two(f);
            assert!(
                before.starts_with("master RECV <DoneMessage> FROM worker_"),
                "{name}: {f}"
            );
            assert_eq!(last, format!("{w} CLOSE TO master"), "{name}: {f}");
        }
    }
    // each worker's exit: the master's ExitMessage, the worker's
    // DoneMessage as a handshake, then both closes of its channels
    for k in [2, 3] {
        let w = |i: usize| Role::indexed("worker", i);
        let exit = |i: usize| {
            seq([
                msg("ExitMessage", "master", w(i)),
                sync("DoneMessage", w(i), "master"),
                par([close(w(i), "master"), close("master", w(i))]),
            ])
        };
        let round = par_every(0..k, |i| {
            seq([
                msg("CGMessage", "master", w(i)),
                msg("DoneMessage", w(i), "master"),
            ])
        });
        let lts = Spec::new("fixed", seq([round.star(), par_every(0..k, exit)]))
            .compile()
            .unwrap();
        assert_eq!(causality(&lts), [], "k = {k}");
    }
}
