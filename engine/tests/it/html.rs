//! HTML pages of reports (`Report::write_html`): every step drawn and in
//! the table, the cycle and the ending marked, the columns' values, text
//! escaped, nothing fetched. Layout in a real browser is tested in the
//! `prust` package (`tests/it/html_reports.rs`).

use crate::common;

use common::ring::{Token, TokenRing};
use common::small::{Chess, Move, OneShot, Req};
use engine::{dummies, Checker, Message, Protocol, Refused, Report, RoleId};

fn check(formula: &str, p: impl Protocol, d: Vec<Message>) -> Report {
    let r = Checker::new().check(formula, p, d).unwrap();
    assert!(r.counterexample().is_some(), "{r}");
    r
}

/// The cells' texts of the table row of step `i` (0-based), the step's
/// own text first.
fn row(page: &str, i: usize) -> Vec<String> {
    let start = page
        .find(&format!("<tr data-i=\"{i}\">"))
        .unwrap_or_else(|| panic!("no row {i}"));
    let end = start + page[start..].find("</tr>").unwrap();
    page[start..end]
        .split("<td")
        .skip(1)
        .map(|td| {
            let text = &td[td.find('>').unwrap() + 1..];
            text[..text.find("</td>").unwrap()].to_string()
        })
        .collect()
}

/// The column index (in `row`'s cells) headed `name`.
fn column(page: &str, name: &str) -> usize {
    let head = &page[page.find("<thead>").unwrap()..page.find("</thead>").unwrap()];
    head.split("<th ")
        .skip(1)
        .position(|th| th.contains(&format!(">{name}</th>")))
        .unwrap_or_else(|| panic!("no column {name}: {head}"))
}

#[test]
fn a_lasso_page_has_every_step_the_roles_in_order_and_the_cycle() {
    let r = check(r#"F G "white SEND *""#, Chess::new(), dummies![Move]);
    let c = r.counterexample().unwrap();
    let (p, n) = (c.prefix.len(), c.prefix.len() + c.cycle.len());
    let page = r.to_html();
    assert_eq!(page.matches("<g class=\"step\"").count(), n);
    assert_eq!(page.matches("<tr data-i=").count(), n);
    for i in 0..n {
        assert!(page.contains(&format!("<g class=\"step\" data-i=\"{i}\">")));
    }
    assert!(page.contains(&format!("data-cycle=\"{p}-{n}\"")), "{page}");
    assert!(page.contains(&format!(
        "<g class=\"cycle\" data-from=\"{p}\" data-to=\"{n}\">"
    )));
    assert!(page.contains(&format!("back to step {}, forever", p + 1)));
    let white = page.find("<title>white</title>").unwrap();
    let black = page.find("<title>black</title>").unwrap();
    assert!(white < black, "lanes in role order");
    assert!(page.contains("property violated: F G &quot;white SEND *&quot;"));
}

#[test]
fn the_columns_give_the_automaton_the_atoms_and_the_truth_of_subformulas() {
    let r = check(r#"F G "white SEND *""#, Chess::new(), dummies![Move]);
    let c = r.counterexample().unwrap();
    let page = r.to_html();
    let (auto, atoms) = (column(&page, "automaton"), column(&page, "atoms that hold"));
    // φ1 is the formula, φ2 its G part.
    let (whole, g) = (column(&page, "φ1"), column(&page, "φ2"));
    assert!(page.contains("<dt>φ2</dt><dd><code>G &quot;white SEND *&quot;</code></dd>"));
    for (i, st) in c.steps().enumerate() {
        let cells = row(&page, i);
        assert_eq!(cells[auto], format!("q{}", st.automaton_state));
        let white_sends = st.role_name == "white" && st.kind == engine::ActionKind::Send;
        assert_eq!(
            cells[atoms] == "&quot;white SEND *&quot;",
            white_sends,
            "{cells:?}"
        );
        // The run violates the formula from its start, and black moves in
        // every turn of the cycle: no suffix is all white sends.
        assert_eq!(cells[whole], "F", "{cells:?}");
        assert_eq!(cells[g], "F", "{cells:?}");
    }
}

#[test]
fn a_deadlock_page_marks_the_waiting_roles_and_the_messages_in_transit() {
    let oneshot = OneShot {
        step: 0,
        deadlock: true,
    };
    let r = check(r#"G !"DEADLOCK""#, oneshot.clone(), dummies![Req]);
    let page = r.to_html_with_object(oneshot);
    assert!(
        page.contains("deadlock (waiting: client, server)"),
        "{page}"
    );
    assert_eq!(page.matches("class=\"mark\"").count(), 2);
    let transit = column(&page, "in transit");
    assert_eq!(row(&page, 0)[transit], "client→server: &lt;Req&gt;");
    assert_eq!(row(&page, 1)[transit], "—");
    // The object's state after each step, by re-execution.
    let state = column(&page, "object state");
    assert!(
        row(&page, 0)[state].starts_with("OneShot { step: 1"),
        "{page}"
    );
    // `G !DEADLOCK` is violated where the run stutters in its deadlock.
    assert_eq!(row(&page, 0)[column(&page, "φ1")], "F");
}

#[test]
fn a_bad_prefix_leaves_what_comes_after_unknown() {
    let r = check(
        r#"G !"p2 RECV *" & X X X X X X X X "p0 SEND *""#,
        TokenRing::new(3),
        dummies![Token],
    );
    let page = r.to_html();
    assert!(page.contains("whatever happens next"), "{page}");
    // The G part fails at the prefix's last step, the X-chain looks past
    // it: unknown there, not false.
    let c = r.counterexample().unwrap();
    assert!(c.prefix.len() < 8, "{r}");
    assert!(page.contains("<td class=\"neutral\" title=\"X"), "{page}");
    assert!(page.contains(">?</td>"), "{page}");
}

/// Two roles whose names are markup; `a` sends forever.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
struct Markup;

impl Protocol for Markup {
    fn roles(&self) -> Vec<String> {
        vec!["<b>a&".into(), "\"b'".into()]
    }
    fn try_send(&mut self, role: RoleId, _: RoleId, m: Message) -> Result<(), Refused<Message>> {
        if role == 0 {
            Ok(())
        } else {
            Err(Refused(m))
        }
    }
    fn try_recv(&mut self, _: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> {
        Err(Refused(()))
    }
}

#[test]
fn names_from_the_specification_are_escaped() {
    let r = check(r#"F "END""#, Markup, dummies![Move]);
    let page = r.to_html();
    assert!(!page.contains("<b>a&"), "{page}");
    assert!(!page.contains("\"b'"));
    assert!(page.contains("&lt;b&gt;a&amp;"));
    assert!(page.contains("&quot;b&#39;"));
}

#[test]
fn a_page_fetches_nothing_and_is_the_same_every_time() {
    let r = check(r#"F G "white SEND *""#, Chess::new(), dummies![Move]);
    let page = r.to_html();
    assert_eq!(page, r.to_html());
    for fetch in ["<link", " src=", "@import", "https:", "url(http"] {
        assert!(!page.contains(fetch), "{fetch}");
    }
    // The only address is the SVG namespace, which is a name, not a fetch.
    assert_eq!(
        page.matches("http:").count(),
        page.matches("http://www.w3.org/2000/svg").count()
    );
    assert!(page.contains("@media print"));
    let path = std::env::temp_dir().join(format!("prust-html-{}.html", std::process::id()));
    r.write_html(&path).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), page);
    std::fs::remove_file(&path).ok();
}

#[test]
fn a_page_of_a_verdict_that_holds_has_no_chart() {
    let r = Checker::new()
        .check(r#"G !"DEADLOCK""#, Chess::new(), dummies![Move])
        .unwrap();
    let page = r.to_html();
    assert!(page.contains("class=\"verdict good\""), "{page}");
    assert!(!page.contains("<section class=\"chart\""));
}
