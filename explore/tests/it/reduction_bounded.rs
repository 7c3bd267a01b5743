//! Bounded DPOR against bounded plain search where one order of a
//! trace fits the preemption bound and the order DPOR runs does not.
//!
//! Two orders of the same steps can cost different numbers of
//! preemptions: a step moved earlier may leave its role blocked, so that
//! the switch back is free. DPOR reverses a race by running the later
//! step at the earlier one's point and lets the rest follow; the bound
//! may then forbid the next reversal in that order, while another order
//! of the same steps reaches the failure within the bound.

use prust::spec::{alt, close, end, msg, par, seq, sync, Spec};
use prust::{Protocol, Strict};

use super::reduction_programs::{fixed_case, Case, Op};
use super::reduction_review::payload_program;
use super::support::agree::differences;

/// Found by a fuzz of random specifications: under preemption bound 1,
/// plain search finds "b waits to receive from a, a finished" in the
/// schedule `a b a b a a a`, with its one preemption where b receives
/// a's first message early (then b waits on an empty channel, and a runs
/// on for free). DPOR ran b's receive where it races with a's last send,
/// after a's other sends, where b can still go on: getting a's last send
/// in before b's next receive then costs a second preemption. DPOR found
/// 2 of plain search's 3 failures in 3 executions, and said nothing of
/// the deadlock. Now the racer is also tried at every point since its
/// last step, not only at context switches (`Dfs::conservative`).
#[test]
fn bounded_dpor_moves_a_racer_to_where_its_role_then_waits() {
    let spec = Spec::new(
        "random",
        par([
            par([msg("U", "b", "a"), alt([end(), sync("U", "a", "b")])]),
            par([
                msg("T", "a", "b"),
                par([sync("T", "b", "a"), msg("T", "a", "b")]),
            ]),
            alt([
                msg("U", "a", "b"),
                seq([close("b", "a"), msg("T", "a", "b")]),
            ]),
        ]),
    );
    let (b, a) = (0, 1);
    let (t, u) = (0, 1);
    let case = fixed_case(
        spec,
        vec![
            (
                "b",
                vec![
                    Op::Send(a, t),
                    Op::RecvFrom(a),
                    Op::RecvFrom(a),
                    Op::Send(a, u),
                ],
            ),
            (
                "a",
                vec![
                    Op::Send(b, u),
                    Op::RecvFrom(b),
                    Op::Send(b, t),
                    Op::Send(b, t),
                    Op::Send(b, u),
                ],
            ),
        ],
    );
    agree(&case, ["b", "a"]);
}

/// Found by the same fuzz on another seed: under preemption bound 0,
/// plain search finds a violation in the schedule `b a a` (b sends and
/// waits for a; a sends, takes b's message, and its second send is one
/// the protocol can never accept: b's message was the one outside the
/// sequence). DPOR ran `a b b b a a b`, in which a sends first and waits,
/// so that b runs on and takes a's message first; the two first sends
/// commute, and reversing the order of the receives costs a preemption.
/// DPOR ran 1 execution and missed the violation. Now every choice is
/// tried at each context switch before a race (where any choice costs
/// what the switch cost).
#[test]
fn bounded_dpor_tries_every_role_where_a_role_first_waits() {
    let spec = Spec::new(
        "random",
        par([
            par([
                seq([msg("T", "a", "b"), sync("T", "b", "a"), msg("T", "a", "b")]),
                end(),
            ]),
            msg("T", "b", "a"),
        ]),
    );
    let (a, b) = (0, 1);
    let t = 0;
    let case = fixed_case(
        spec,
        vec![
            ("a", vec![Op::Send(b, t), Op::RecvFrom(b), Op::Send(b, t)]),
            (
                "b",
                vec![
                    Op::Send(a, t),
                    Op::RecvFrom(a),
                    Op::Send(a, t),
                    Op::RecvFrom(a),
                ],
            ),
        ],
    );
    agree(&case, ["a", "b"]);
}

/// Bounded DPOR finds what bounded plain search finds on the strict
/// object of `case`, under bounds 0 to 2 (and unbounded).
fn agree(case: &Case, roles: [&str; 2]) {
    let strict = Strict::from_spec(&case.spec).expect("compiles");
    let names = strict.roles();
    assert_eq!(names, roles);
    let bounds = [None, Some(0), Some(1), Some(2)];
    let missed = differences(
        &strict,
        "strict",
        payload_program(case, &names),
        &bounds,
        600,
    )
    .expect("plain search finishes");
    assert!(missed.is_empty(), "{}", missed.join("\n\n"));
}

/// Found by a review's soak of random specifications (bound 0): plain
/// search finds "a waits to send <T> to b, which the protocol can never
/// accept from here" in `b a a a` (b sends T and waits for a's U, a free
/// switch; a sends U, receives T and sends the sync T while its U is
/// still in transit). DPOR ran one execution that starts with a, in which
/// b receives U before a's sync T. The reversal within bound 0 needs b,
/// the role of the race's earlier step, run first so that it waits.
#[test]
fn bounded_dpor_runs_the_earlier_role_first_where_it_then_waits() {
    let spec = Spec::new(
        "random",
        par([
            seq([msg("U", "a", "b"), close("b", "a")]),
            seq([
                seq([msg("T", "b", "a"), sync("T", "a", "b")]),
                msg("T", "a", "b"),
            ]),
        ]),
    );
    let (a, b) = (0, 1);
    let (t, u) = (0, 1);
    let case = fixed_case(
        spec,
        vec![
            (
                "a",
                vec![
                    Op::Send(b, u),
                    Op::RecvFrom(b),
                    Op::Send(b, t),
                    Op::Send(b, t),
                ],
            ),
            (
                "b",
                vec![
                    Op::Send(a, t),
                    Op::RecvFrom(a),
                    Op::RecvFrom(a),
                    Op::RecvFrom(a),
                    Op::Close(a),
                ],
            ),
        ],
    );
    agree(&case, ["a", "b"]);
}

/// The same shape (bound 0): besides the deadlock of `a b b a a`, plain
/// search finds "every role returned but the protocol had not terminated
/// (not finished: b)" in `b a a a b a`; DPOR ran only the first.
#[test]
fn bounded_dpor_finds_the_unfinished_protocol_of_the_other_first_role() {
    let spec = Spec::new(
        "random",
        par([
            alt([msg("T", "b", "a"), msg("U", "a", "b")]),
            seq([
                seq([msg("T", "b", "a"), end()]),
                seq([msg("U", "a", "b"), sync("T", "a", "b")]),
            ]),
        ]),
    )
    .roles(["a", "b"]);
    let (a, b) = (0, 1);
    let (t, u) = (0, 1);
    let case = fixed_case(
        spec,
        vec![
            (
                "a",
                vec![
                    Op::Send(b, u),
                    Op::RecvFrom(b),
                    Op::Send(b, u),
                    Op::Send(b, t),
                ],
            ),
            ("b", vec![Op::Send(a, t), Op::RecvFrom(a)]),
        ],
    );
    agree(&case, ["a", "b"]);
}
