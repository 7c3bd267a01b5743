//! A role whose thread panics is reported as panicked (not as finished),
//! on both sessions, and the other roles never hang on it: whether its
//! endpoint is dropped while the thread unwinds, or lives on elsewhere (an
//! `Arc`) and a `PanicGuard` on the thread tells the session. Every test
//! runs under a watchdog, so a hang fails the test instead of CI.

use crate::session_support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use protocols::session::{
    BlockingEndpoint, Deadlock, Error, PanicGuard, Refusal, RoleUse, Session, SplitSession,
};
use protocols::spec::{msg, seq, Spec};
use protocols::{Liberal, Strict};
use session_support::watchdog;

const LIMIT: Duration = Duration::from_secs(10);

fn deadlock_of(e: Error) -> Arc<Deadlock> {
    match e {
        Error::Deadlock(d) => d,
        other => panic!("expected a deadlock, got {other}"),
    }
}

/// `b` sends to `c`, then `a` sends to `c`.
fn relay() -> Spec {
    Spec::new("relay", seq([msg("T", "b", "c"), msg("T", "a", "c")])).roles(["a", "b", "c"])
}

/// Runs `test` on the endpoints (role order) of both sessions of `spec`.
fn on_both<R: Send + 'static>(what: &str, spec: Spec, test: fn(Vec<Box<dyn Any>>) -> R) -> [R; 2] {
    let strict = Strict::from_spec(&spec).unwrap();
    let liberal = Liberal::from_spec(&spec).unwrap();
    let locked = watchdog(&format!("{what} (locked)"), LIMIT, move || {
        test(
            Session::new(strict)
                .into_endpoints()
                .into_iter()
                .map(|e| Box::new(e) as Box<dyn Any>)
                .collect(),
        )
    });
    let split = watchdog(&format!("{what} (split)"), LIMIT, move || {
        test(
            SplitSession::new(liberal)
                .into_endpoints()
                .into_iter()
                .map(|e| Box::new(e) as Box<dyn Any>)
                .collect(),
        )
    });
    [locked, split]
}

/// The endpoint operations the tests need, object-safe.
trait Any: Send {
    fn send_t(&mut self, to: &str) -> Result<(), Error>;
    fn recv_t(&mut self, from: &str) -> Result<(), Error>;
    fn guard(&self) -> protocols::session::PanicGuard;
    fn share(&mut self) -> RoleUse;
}

impl<E: BlockingEndpoint> Any for E {
    fn send_t(&mut self, to: &str) -> Result<(), Error> {
        self.send(to, engine::Message::named("T", ()))
    }
    fn recv_t(&mut self, from: &str) -> Result<(), Error> {
        self.recv_from(from).map(|_| ())
    }
    fn guard(&self) -> protocols::session::PanicGuard {
        self.panic_guard()
    }
    fn share(&mut self) -> RoleUse {
        self.share_use()
            .expect("a session's endpoint shares its word")
    }
}

/// Whether a thread that holds `guard` panicked (it always does).
fn panics_with(guard: PanicGuard) -> bool {
    std::thread::spawn(move || {
        let _guard = guard;
        panic!("a's code has a bug");
    })
    .join()
    .is_err()
}

/// A layer that shares `a`'s endpoint between threads (the typed ends)
/// holds the role's use word through each operation, and the session
/// leaves the word to it: a guard whose thread panics while the word is
/// held does not declare `a` panicked (the layer's other thread goes on
/// with the role); one whose thread panics once the word is let go does,
/// and the word then refuses every holder, and the session's other roles
/// are told.
#[test]
fn a_guard_declares_no_panic_while_a_shared_use_word_is_held() {
    let results = on_both("a shared use word", relay(), |eps| {
        let [mut a, b, mut c]: [Box<dyn Any>; 3] = eps.try_into().ok().unwrap();
        drop(b);
        let word = a.share();
        let began = word.try_begin().unwrap();
        assert!(panics_with(a.guard()));
        began.end(false);
        let alive = word.try_begin_poll().map(|b| b.end(false));
        assert!(panics_with(a.guard()));
        let dead = [word.try_begin().err(), word.try_begin_poll().err()];
        (alive, dead, deadlock_of(c.recv_t("b").unwrap_err()))
    });
    for (alive, dead, d) in results {
        assert_eq!(alive, Ok(()));
        assert_eq!(dead, [Some(Refusal::Panicked); 2]);
        assert_eq!(d.panicked, ["a"], "{d}");
    }
}

/// The thread of `a` panics with its endpoint: `c` still gets `b`'s
/// message (the panic ends only `a`), then waits for `a` and gets a
/// deadlock report that lists `a` as panicked and `b` as finished.
#[test]
fn a_role_whose_thread_panics_is_reported_as_panicked() {
    let reports = on_both("endpoint dropped by a panic", relay(), |eps| {
        let [a, mut b, mut c]: [Box<dyn Any>; 3] = eps.try_into().ok().unwrap();
        let t = std::thread::spawn(move || {
            let _a = a;
            panic!("a's code has a bug");
        });
        assert!(t.join().is_err());
        b.send_t("c").unwrap();
        drop(b);
        c.recv_t("b").unwrap();
        deadlock_of(c.recv_t("a").unwrap_err())
    });
    for d in reports {
        assert_eq!(d.panicked, ["a"], "{d}");
        assert_eq!(d.finished, ["b"], "{d}");
        assert_eq!(d.blocked.len(), 1, "{d}");
        assert!(
            d.to_string()
                .contains("panicked (their thread panicked): a"),
            "{d}"
        );
    }
}

/// The endpoint of `a` lives on in an `Arc` that outlives its thread: a
/// guard on the thread declares `a` panicked, the waiting `c` gets a
/// deadlock report instead of waiting forever, and the kept endpoint can no
/// longer be used.
#[test]
fn a_guard_reports_a_panic_while_the_endpoint_lives_on() {
    let results = on_both("endpoint kept in an Arc", relay(), |eps| {
        let [a, b, mut c]: [Box<dyn Any>; 3] = eps.try_into().ok().unwrap();
        drop(b);
        let a = Arc::new(Mutex::new(a));
        let kept = Arc::clone(&a);
        // `c` waits for `b`'s message first; `b` is finished, `a` running.
        let waiter = std::thread::spawn(move || c.recv_t("b").unwrap_err());
        let t = std::thread::spawn(move || {
            let _guard = a.lock().unwrap().guard();
            panic!("a's code has a bug");
        });
        assert!(t.join().is_err());
        let report = deadlock_of(waiter.join().unwrap());
        let mut a = kept.lock().unwrap_or_else(|p| p.into_inner());
        (report, a.send_t("c").unwrap_err())
    });
    for (d, later) in results {
        assert_eq!(d.panicked, ["a"], "{d}");
        assert_eq!(d.finished, ["b"], "{d}");
        assert_eq!(later, Error::RolePanicked("a".into()));
    }
}

/// A guard dropped without a panic does nothing, and a guard whose thread
/// panics after its endpoint was dropped normally leaves the role finished.
#[test]
fn a_guard_without_a_panic_changes_nothing() {
    let results = on_both("guard without a panic", relay(), |eps| {
        let [a, mut b, mut c]: [Box<dyn Any>; 3] = eps.try_into().ok().unwrap();
        let a = Arc::new(Mutex::new(a));
        let kept = Arc::clone(&a);
        std::thread::spawn(move || drop(a.lock().unwrap().guard()))
            .join()
            .unwrap();
        b.send_t("c").unwrap();
        let guard = b.guard();
        drop(b);
        assert!(std::thread::spawn(move || {
            let _guard = guard;
            panic!("after b finished");
        })
        .join()
        .is_err());
        c.recv_t("b").unwrap();
        // `a`'s kept endpoint still works, from another thread
        let sender = std::thread::spawn(move || kept.lock().unwrap().send_t("c"));
        let got = c.recv_t("a");
        (sender.join().unwrap(), got)
    });
    for (sent, got) in results {
        assert_eq!(sent, Ok(()));
        assert_eq!(got, Ok(()));
    }
}
