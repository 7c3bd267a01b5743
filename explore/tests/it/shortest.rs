//! The shortest failing schedule: the failure shown has the fewest steps
//! of any schedule that fails the same way, and among those the fewest
//! context switches, as a brute force over every schedule prefix (by
//! replays) finds them.

use prust::explore::{Explorer, Reduction, Roles, Schedule};
use prust::session::BlockingEndpoint;
use prust::spec::{msg, par, seq, Spec};
use prust::{Liberal, Message};

/// `a` sends `M` twice to `c`, `b` sends `N` `nb` times (the liberal object
/// lets the senders run ahead of `c`).
fn object(nb: usize) -> Liberal {
    let spec = Spec::new(
        "fan-in",
        par([
            seq([msg("M", "a", "c"), msg("M", "a", "c")]),
            seq((0..nb).map(|_| msg("N", "b", "c")).collect::<Vec<_>>()),
        ]),
    )
    .roles(["a", "b", "c"])
    .types(["M", "N"]);
    Liberal::from_spec(&spec).unwrap()
}

/// The senders of [`object`]; `c` receives every message from anyone and
/// hands the senders' names, in order, to `bug`, which panics on the
/// orders it does not expect.
fn program(nb: usize, bug: fn(&[String])) -> impl Fn(&mut Roles<'_, Liberal>) + Sync {
    move |r| {
        r.spawn("a", |mut ep| {
            ep.send("c", Message::named("M", 1)).unwrap();
            ep.send("c", Message::named("M", 2)).unwrap();
        });
        r.spawn("b", move |mut ep| {
            for i in 0..nb {
                ep.send("c", Message::named("N", i)).unwrap();
            }
        });
        r.spawn("c", move |mut ep| {
            let mut from = Vec::new();
            for _ in 0..2 + nb {
                let (sender, _) = ep.recv().unwrap();
                from.push(ep.roles()[sender].clone());
                bug(&from);
            }
        });
    }
}

/// The fewest steps of a schedule failing with `outcome`, and the fewest
/// switches among those, by brute force: every prefix, one step longer
/// at a time, each candidate choice tried by a replay (a choice that is
/// not enabled makes the replay follow another schedule).
fn brute_force(nb: usize, bug: fn(&[String]), outcome: &str) -> (usize, usize) {
    let roles = ["a", "b", "c"];
    let mut candidates: Vec<String> = roles.iter().map(|r| r.to_string()).collect();
    for s in ["a", "b"] {
        candidates.push(format!("c<-{s}"));
    }
    let mut level: Vec<String> = vec![String::new()];
    loop {
        assert!(!level.is_empty(), "no schedule fails with {outcome}");
        let mut next = Vec::new();
        let mut failing: Vec<Schedule> = Vec::new();
        for prefix in &level {
            for c in &candidates {
                let text = format!("{prefix} {c}");
                let want: Schedule = text.parse().unwrap();
                let ex = Explorer::new()
                    .simplify(false)
                    .replay(&want)
                    .explore(object(nb), program(nb, bug));
                let (followed, fails) = match ex.failures().first() {
                    Some(f) => (f.schedule.clone(), f.outcome.to_string() == outcome),
                    None => (ex.results()[0].schedule.clone(), false),
                };
                if followed.choices().get(..want.len()) != Some(want.choices()) {
                    continue; // `c` is not enabled after `prefix`
                }
                if followed == want {
                    if fails {
                        failing.push(want);
                    }
                    continue; // the execution ended there
                }
                next.push(text);
            }
        }
        if let Some(switches) = failing.iter().map(Schedule::context_switches).min() {
            return (failing[0].len(), switches);
        }
        level = next;
    }
}

/// Checks that the failure shown is a shortest one, with each reduction.
fn check(nb: usize, bug: fn(&[String])) -> Schedule {
    let mut shown = None;
    for reduction in [Reduction::None, Reduction::Dpor] {
        let ex = Explorer::new()
            .reduction(reduction)
            .explore(object(nb), program(nb, bug));
        assert_eq!(ex.failures().len(), 1, "{ex}");
        let f = &ex.failures()[0];
        let outcome = f.outcome.to_string();
        let (steps, switches) = brute_force(nb, bug, &outcome);
        assert_eq!(
            (f.schedule.len(), f.schedule.context_switches()),
            (steps, switches),
            "{ex}"
        );
        assert!(ex.is_shortest(0), "{ex}");
        assert!(
            ex.to_string().contains("a shortest failing schedule"),
            "{ex}"
        );
        // The schedule shown replays to the failure shown.
        let again = Explorer::new()
            .simplify(false)
            .replay(&f.schedule)
            .explore(object(nb), program(nb, bug));
        assert_eq!(again.failures(), ex.failures(), "{again}");
        shown = Some(f.schedule.clone());
    }
    shown.unwrap()
}

#[test]
fn a_bug_a_long_schedule_finds_first_is_shown_by_its_shortest_schedule() {
    // Fails whenever `b`'s message comes first: two steps, where the
    // depth-first search meets it only after `a` has sent both of its.
    fn first_from_b(from: &[String]) {
        assert!(from[0] != "b", "b first");
    }
    let shown = check(1, first_from_b);
    assert_eq!(shown.to_string(), "b c<-b");
}

#[test]
fn among_the_shortest_the_fewest_switches_are_shown() {
    // `a`'s message, then `b`'s: four steps, and `a b c<-a c<-b` switches
    // twice where `a c<-a b c<-b` switches three times.
    fn a_then_b(from: &[String]) {
        assert!(from[..] != ["a", "b"], "a then b");
    }
    check(1, a_then_b);
}

#[test]
fn a_bug_deep_in_one_role_is_shown_without_the_other_roles() {
    // Both of `b`'s messages first: `b b c<-b c<-b`, one switch.
    fn two_from_b(from: &[String]) {
        assert!(from[..] != ["b", "b"], "two from b");
    }
    let shown = check(2, two_from_b);
    assert_eq!(shown.to_string(), "b b c<-b c<-b");
}

#[test]
fn without_simplification_nothing_is_said_about_shortness() {
    fn first_from_b(from: &[String]) {
        assert!(from[0] != "b", "b first");
    }
    let ex = Explorer::new()
        .simplify(false)
        .explore(object(1), program(1, first_from_b));
    assert!(!ex.is_shortest(0), "{ex}");
    assert!(!ex.to_string().contains("a shortest failing"), "{ex}");
}

/// The program of three pairs (`testkit::pairs`): every schedule ends
/// unfinished after eleven steps, and they are too many to shorten.
fn pairs(explorer: Explorer) -> prust::explore::Exploration {
    explorer.explore(testkit::pairs::object(), testkit::pairs::program)
}

#[test]
fn past_its_budget_the_search_says_the_schedule_is_not_shown_shortest() {
    let ex = pairs(Explorer::new());
    assert!(ex.executions() < 100, "{ex}");
    assert_eq!(ex.failures().len(), 1, "{ex}");
    assert!(!ex.is_shortest(0), "{ex}");
    assert!(
        ex.to_string()
            .contains("not shown to be a shortest failing schedule: shortening it would run more than 2000 executions"),
        "{ex}"
    );
    // How to ask for it whatever it costs.
    assert!(ex.to_string().contains("PRUST_SHORTEST=1"), "{ex}");
    // The schedule shown still fails the same way.
    let f = &ex.failures()[0];
    assert_eq!(f.schedule.len(), 11, "{ex}");
}

#[test]
fn asked_to_the_search_runs_past_the_budget_or_not_at_all() {
    let ex = pairs(Explorer::new().shortest(true));
    assert!(ex.is_shortest(0), "{ex}");
    assert!(
        ex.to_string().contains("a shortest failing schedule"),
        "{ex}"
    );
    let ex = pairs(Explorer::new().shortest(false));
    assert!(!ex.is_shortest(0), "{ex}");
    assert!(
        ex.to_string()
            .contains("not searched for a shortest failing schedule: the search is off"),
        "{ex}"
    );
}

/// `text` as the HTML page writes it.
fn escaped(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// The line of the text report on whether failure 1's schedule is a
/// shortest one, which the HTML page must show as it is.
fn shortness_line(ex: &prust::explore::Exploration) -> String {
    let text = ex.to_string();
    let line = text
        .lines()
        .find(|l| l.contains("a shortest failing schedule"))
        .unwrap_or_else(|| panic!("no line on shortness: {ex}"));
    line.trim().to_string()
}

#[test]
fn the_html_page_says_what_the_report_says_of_shortness() {
    fn first_from_b(from: &[String]) {
        assert!(from[0] != "b", "b first");
    }
    let shortest = Explorer::new().explore(object(1), program(1, first_from_b));
    let line = shortness_line(&shortest);
    assert!(
        line.starts_with("a shortest failing schedule: none fails"),
        "{line}"
    );
    let html = shortest.to_html();
    assert!(html.contains(&escaped(&line)), "{line}\n{html}");
    assert!(!html.contains("not shown to be a shortest"), "{html}");

    let not_shown = pairs(Explorer::new());
    let line = shortness_line(&not_shown);
    assert!(line.starts_with("not shown to be a shortest failing schedule: shortening"));
    assert!(line.contains("PRUST_SHORTEST=1"), "{line}");
    let html = not_shown.to_html();
    assert!(html.contains(&escaped(&line)), "{line}\n{html}");
    assert!(
        !html.contains("a shortest failing schedule: none"),
        "{html}"
    );
}
