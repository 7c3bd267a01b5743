//! Counterexamples: numbered steps, the cycle marked, replay on a fresh
//! object, DOT export.

use crate::common;

use common::ring::{Token, TokenRing};
use common::small::{Chess, Move, OneShot, Req};
use engine::{
    check_violated, dummies, ActionKind, Counterexample, Message, Protocol, Refused, RoleId, Trail,
};

#[test]
fn lasso_display_marks_the_cycle() {
    let c = check_violated(r#"F G "white SEND *""#, Chess::new(), dummies![Move]);
    let text = c.to_string();
    assert!(c.ending.is_none());
    assert!(text.starts_with("counterexample:\n"), "{text}");
    assert!(text.contains("-- cycle starts here --"), "{text}");
    assert!(
        text.contains(&format!("(back to step {}, forever)", c.prefix.len() + 1)),
        "{text}"
    );
    let numbered = text
        .lines()
        .filter(|l| l.trim_start().starts_with(|ch: char| ch.is_ascii_digit()))
        .count();
    assert_eq!(numbered, c.prefix.len() + c.cycle.len(), "{text}");
}

#[test]
fn replay_prints_the_state_after_each_step() {
    let ring = TokenRing::new(3);
    let c = check_violated(r#"F G !"p2 RECV *""#, ring.clone(), dummies![Token]);
    let transcript = c.replay(ring);
    assert!(
        transcript.starts_with("initial: TokenRing { n: 3, holder: 0, in_transit: false }"),
        "{transcript}"
    );
    assert!(
        transcript.contains(
            "p0 SEND <Token> TO p1\n      TokenRing { n: 3, holder: 0, in_transit: true }"
        ),
        "{transcript}"
    );
    assert!(transcript.contains("(back to step"), "{transcript}");
}

#[test]
#[should_panic(expected = "replay diverged from the counterexample")]
fn replay_on_another_object_fails_loudly() {
    let c = check_violated(r#"F G !"p2 RECV *""#, TokenRing::new(3), dummies![Token]);
    // A ring of four: p2 passes the token to p3, not p0, so the cycle does
    // not close.
    c.replay(TokenRing::new(4));
}

#[test]
fn a_safety_violation_stops_at_the_bad_step() {
    let c = check_violated(r#"G !"p2 RECV *""#, TokenRing::new(3), dummies![Token]);
    assert_eq!(c.ending, Some(engine::Ending::AnyContinuation));
    assert!(c.cycle.is_empty());
    assert_eq!(c.prefix.len(), 4, "{c}");
    let text = c.to_string();
    assert!(text.contains("   4. p2 RECV <Token> FROM p1"), "{text}");
    assert!(
        text.contains("then, whatever happens next, the property is already violated"),
        "{text}"
    );
    c.replay(TokenRing::new(3));
}

/// The statements of a DOT text, parsed just enough for the tests: node
/// declarations (id, attributes), edges (tail, head, attributes), and the
/// `rank=same` rows.
struct Dot {
    nodes: Vec<(String, String)>,
    edges: Vec<(String, String, String)>,
    ranks: Vec<Vec<String>>,
}

fn parse_dot(dot: &str) -> Dot {
    // Well-formed: quotes closed, braces balanced outside them.
    let (mut depth, mut quoted, mut escaped) = (0i32, false, false);
    for ch in dot.chars() {
        match (quoted, escaped, ch) {
            (true, true, _) => escaped = false,
            (true, false, '\\') => escaped = true,
            (_, false, '"') => quoted = !quoted,
            (false, _, '{') => depth += 1,
            (false, _, '}') => {
                depth -= 1;
                assert!(depth >= 0, "unbalanced braces:\n{dot}");
            }
            _ => {}
        }
    }
    assert!(!quoted && depth == 0, "unbalanced quotes or braces:\n{dot}");
    assert!(dot.starts_with("digraph counterexample {\n"), "{dot}");
    let mut d = Dot {
        nodes: vec![],
        edges: vec![],
        ranks: vec![],
    };
    let node = |stmt: &str| -> (String, String) {
        let (id, attrs) = stmt.split_once(" [").expect("a node statement");
        (
            id.trim().to_string(),
            attrs.trim_end_matches("];").to_string(),
        )
    };
    for line in dot.lines().map(str::trim) {
        if let Some(row) = line.strip_prefix("{ rank=same; ") {
            let row = row.trim_end_matches(" }");
            let mut ids = vec![];
            for stmt in row.split("]; ").map(|s| s.trim_end_matches("];")) {
                let n = node(stmt);
                ids.push(n.0.clone());
                d.nodes.push(n);
            }
            d.ranks.push(ids);
        } else if line.contains(" -> ") {
            let (chain, attrs) = line.split_once(" [").unwrap();
            let ids: Vec<&str> = chain.split(" -> ").collect();
            for w in ids.windows(2) {
                d.edges.push((
                    w[0].into(),
                    w[1].into(),
                    attrs.trim_end_matches("];").into(),
                ));
            }
        } else if line.starts_with(['c', 't', 'l'])
            && line
                .split_once(" [")
                .is_some_and(|(id, _)| !id.contains(' '))
        {
            d.nodes.push(node(line));
        }
    }
    d
}

impl Dot {
    fn declared(&self, id: &str) -> usize {
        self.nodes
            .iter()
            .filter(|(n, a)| n == id && a.contains("shape"))
            .count()
    }
    fn attrs(&self, id: &str) -> String {
        self.nodes
            .iter()
            .filter(|(n, _)| n == id)
            .map(|(_, a)| a.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
    /// The message arrows: edges that do not constrain the layout.
    fn messages(&self) -> Vec<(String, String, String)> {
        self.edges
            .iter()
            .filter(|e| e.2.contains("constraint=false") && e.0.starts_with('c'))
            .cloned()
            .collect()
    }
}

/// One lifeline per role, one row per step (plus the names above and the
/// ending below), every node declared once, every edge between declared
/// nodes.
fn assert_chart(c: &Counterexample, roles: &[&str]) -> Dot {
    let dot = c.to_dot();
    let d = parse_dot(&dot);
    let n = c.prefix.len() + c.cycle.len();
    assert_eq!(d.ranks.len(), n + 2, "{dot}");
    for (r, rank) in d.ranks.iter().enumerate() {
        let mut want: Vec<String> = (0..roles.len()).map(|col| format!("c{col}_{r}")).collect();
        want.push(format!("t{r}"));
        if !c.cycle.is_empty() {
            want.push(format!("l{r}"));
        }
        let mut got = rank.clone();
        got.sort();
        want.sort();
        assert_eq!(got, want, "row {r}:\n{dot}");
        for id in rank {
            assert_eq!(d.declared(id), 1, "{id}:\n{dot}");
        }
    }
    for (col, role) in roles.iter().enumerate() {
        assert!(
            d.attrs(&format!("c{col}_0"))
                .contains(&format!("label=\"{role}\"")),
            "{dot}"
        );
        for r in 0..=n {
            let lifeline = (format!("c{col}_{r}"), format!("c{col}_{}", r + 1));
            assert!(
                d.edges
                    .iter()
                    .any(|e| (e.0.clone(), e.1.clone()) == lifeline),
                "lifeline {lifeline:?}:\n{dot}"
            );
        }
    }
    for e in &d.edges {
        assert!(
            d.declared(&e.0) == 1 && d.declared(&e.1) == 1,
            "{e:?}:\n{dot}"
        );
    }
    d
}

#[test]
fn dot_draws_a_message_sequence_chart_of_a_lasso() {
    let c = check_violated(r#"F G !"p2 RECV *""#, TokenRing::new(3), dummies![Token]);
    let d = assert_chart(&c, &["p0", "p1", "p2"]);
    let dot = c.to_dot();
    let steps: Vec<_> = c.steps().collect();
    let n = steps.len();
    let p = c.prefix.len();
    // Each send points from its row on the sender's lifeline to the row of
    // the receive that takes it (in the token ring: the next step).
    let messages = d.messages();
    let sends: Vec<usize> = (0..n)
        .filter(|&i| steps[i].kind == ActionKind::Send)
        .collect();
    assert_eq!(messages.len(), sends.len(), "{dot}");
    for &i in &sends {
        let recv = i + 1;
        assert_eq!(steps[recv].kind, ActionKind::Recv);
        let arrow = (
            format!("c{}_{}", steps[i].role, i + 1),
            format!("c{}_{}", steps[recv].role, recv + 1),
        );
        let m = messages
            .iter()
            .find(|e| (e.0.clone(), e.1.clone()) == arrow)
            .unwrap_or_else(|| panic!("no arrow {arrow:?}:\n{dot}"));
        assert!(m.2.contains("xlabel=\"<Token>\""), "{dot}");
    }
    // The cycle: its rows in a dashed box, a back edge to its first row.
    let cluster = dot.find("subgraph cluster_cycle {").expect("cycle box");
    let rows_in_box = &dot[cluster..];
    assert!(
        rows_in_box.contains(&format!(
            "label=\"cycle: steps {}-{n} repeat forever\"",
            p + 1
        )),
        "{dot}"
    );
    assert!(rows_in_box.contains("style=dashed"), "{dot}");
    let before_box = &dot[..cluster];
    assert!(before_box.contains(&format!("t{p} [")), "{dot}");
    assert!(!before_box.contains(&format!("t{} [", p + 1)), "{dot}");
    let back = d
        .edges
        .iter()
        .find(|e| e.0 == format!("l{}", n + 1) && !e.2.contains("invis"))
        .unwrap_or_else(|| panic!("no back edge:\n{dot}"));
    assert_eq!(back.1, format!("l{}", p + 1), "{dot}");
    assert!(back.2.contains("xlabel=\"forever\""), "{dot}");
    assert!(
        d.attrs(&format!("t{}", n + 1))
            .contains(&format!("back to {}", p + 1)),
        "{dot}"
    );
}

#[test]
fn dot_shows_the_ending_of_a_finite_run() {
    let c = check_violated(
        r#"G !"DEADLOCK""#,
        OneShot {
            step: 0,
            deadlock: true,
        },
        dummies![Req],
    );
    let d = assert_chart(&c, &["client", "server"]);
    assert!(
        d.attrs("t3").contains("label=\"deadlock\""),
        "{}",
        c.to_dot()
    );
    assert!(
        d.attrs("c0_3").contains("label=\"blocked\""),
        "{}",
        c.to_dot()
    );
    assert!(
        d.attrs("c1_3").contains("label=\"blocked\""),
        "{}",
        c.to_dot()
    );
    assert!(!c.to_dot().contains("cluster_cycle"));
    let c = check_violated(
        r#"G !"END""#,
        OneShot {
            step: 0,
            deadlock: false,
        },
        dummies![Req],
    );
    let d = assert_chart(&c, &["client", "server"]);
    assert!(
        d.attrs("t3").contains("label=\"terminated\""),
        "{}",
        c.to_dot()
    );
    assert!(
        d.attrs("c1_3").contains("fillcolor=black"),
        "{}",
        c.to_dot()
    );
}

/// Only its role names matter: trails are resolved against it, not run.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Named(Vec<&'static str>);

impl Protocol for Named {
    fn roles(&self) -> Vec<String> {
        self.0.iter().map(|s| s.to_string()).collect()
    }
    fn try_send(&mut self, _: RoleId, _: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        Err(Refused(msg))
    }
    fn try_recv(&mut self, _: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> {
        Err(Refused(()))
    }
}

fn chart_of(trail: &str) -> (Counterexample, Dot) {
    let c = Trail::parse(trail)
        .unwrap()
        .to_counterexample(&Named(vec!["prod", "cons", "log"]), vec![])
        .unwrap();
    let d = assert_chart(&c, &["prod", "cons", "log"]);
    (c, d)
}

fn arrows(d: &Dot) -> Vec<(String, String, String)> {
    let mut m: Vec<_> = d
        .messages()
        .into_iter()
        .map(|(a, b, attrs)| {
            let label = attrs
                .split("xlabel=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap()
                .to_string();
            (a, b, label)
        })
        .collect();
    m.sort();
    m
}

fn arrow(a: &str, b: &str, label: &str) -> (String, String, String) {
    (a.into(), b.into(), label.into())
}

#[test]
fn dot_pairs_sends_with_receives_first_in_first_out_per_channel() {
    // Two messages in transit when the cycle starts: each turn receives the
    // previous turn's messages, so the cycle's sends point to the receives
    // of the next turn.
    let (_, d) = chart_of(
        "prust-trail 1\n\
         prod SEND <A> TO cons\n\
         prod SEND <B> TO cons\n\
         cycle\n\
         cons RECV <A> FROM prod\n\
         prod SEND <A> TO cons\n\
         cons RECV <B> FROM prod\n\
         prod SEND <B> TO cons\n",
    );
    assert_eq!(
        arrows(&d),
        vec![
            arrow("c0_1", "c1_3", "<A>"),
            arrow("c0_2", "c1_5", "<B>"),
            arrow(
                "c0_4",
                "c1_7",
                "<A>, received\\nin step 3 of\\nthe next turn"
            ),
            arrow(
                "c0_6",
                "c1_7",
                "<B>, received\\nin step 5 of\\nthe next turn"
            ),
        ]
    );
    // Receives out of order take the message of their type; a message never
    // received is in transit at the end; closes are boxes on the lifeline.
    let (_, d) = chart_of(
        "prust-trail 1\n\
         prod SEND <A> TO cons\n\
         prod SEND <B> TO cons\n\
         prod SEND <A> TO log\n\
         cons RECV <B> FROM prod\n\
         cons RECV <A> FROM prod\n\
         prod SEND <B> TO cons\n\
         log CLOSE TO prod\n\
         end violated\n",
    );
    assert_eq!(
        arrows(&d),
        vec![
            arrow("c0_1", "c1_5", "<A>"),
            arrow("c0_2", "c1_4", "<B>"),
            arrow("c0_3", "c2_8", "<A>, in transit"),
            arrow("c0_6", "c1_8", "<B>, in transit"),
        ]
    );
    assert!(
        d.attrs("c2_7").contains("label=\"CLOSE to prod\""),
        "{:?}",
        d.nodes
    );
    assert!(d.attrs("t8").contains("violated"), "{:?}", d.nodes);
    // Two sends of one type on one channel: the first sent is the first
    // received.
    let (_, d) = chart_of(
        "prust-trail 1\n\
         prod SEND <A> TO cons\n\
         prod SEND <A> TO cons\n\
         cons RECV <A> FROM prod\n\
         cons RECV <A> FROM prod\n\
         end deadlock\n",
    );
    assert_eq!(
        arrows(&d),
        vec![arrow("c0_1", "c1_3", "<A>"), arrow("c0_2", "c1_4", "<A>")]
    );
}

#[test]
fn dot_escapes_names() {
    let c = Trail::parse("prust-trail 1\n\"a \\\"b\\\"\" SEND \"x\\\\y\" TO c\nend violated\n")
        .unwrap()
        .to_counterexample(&Named(vec!["a \"b\"", "c"]), vec![])
        .unwrap();
    let dot = c.to_dot();
    parse_dot(&dot);
    assert!(dot.contains("label=\"a \\\"b\\\"\""), "{dot}");
    assert!(dot.contains("xlabel=\"<x\\\\y>, in transit\""), "{dot}");
}
