//! Async operations on both sessions, driven by hand with wakers the test
//! controls: a waker that polls the woken operation at once, inside the
//! wake (the session must not hold a lock of the woken role then), a
//! role with two pending receives that is woken for the second after the
//! first completed, and a receive woken twice before its next poll.

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use engine::Message;
use protocols::session::{AsyncOp, BlockingEndpoint, Done, Session, SplitSession};
use protocols::spec::{msg, par, Spec};
use protocols::{Liberal, Strict};

/// A generous bound that only catches a hang (each test runs in
/// milliseconds).
const HANG: Duration = Duration::from_secs(20);

/// Both sessions' endpoints of `spec`, in role order.
fn both(spec: &Spec) -> [Vec<Box<dyn Endpoint>>; 2] {
    let lts = spec.compile().unwrap();
    let strict = Session::new(Strict::new(lts.clone()))
        .into_endpoints()
        .into_iter()
        .map(|e| Box::new(e) as Box<dyn Endpoint>)
        .collect();
    let liberal = SplitSession::new(Liberal::new(lts))
        .into_endpoints()
        .into_iter()
        .map(|e| Box::new(e) as Box<dyn Endpoint>)
        .collect();
    [strict, liberal]
}

/// The endpoint operations these tests use, as a trait object.
trait Endpoint: Send {
    fn poll(&mut self, cx: &mut Context<'_>, op: &mut AsyncOp) -> Poll<Result<Done, String>>;
    fn send_job(&mut self, to: usize);
}

impl<E: BlockingEndpoint> Endpoint for E {
    fn poll(&mut self, cx: &mut Context<'_>, op: &mut AsyncOp) -> Poll<Result<Done, String>> {
        self.poll_op(cx, op).map_err(|e| e.to_string())
    }
    fn send_job(&mut self, to: usize) {
        self.send(to, Message::named("Job", ())).unwrap();
    }
}

/// A waker that polls its operation inside `wake`, as an executor that
/// runs a task where it is woken would.
struct PollOnWake {
    state: Mutex<Option<(Box<dyn Endpoint>, AsyncOp)>>,
    result: mpsc::Sender<Result<Done, String>>,
}

impl Wake for PollOnWake {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        let waker = Waker::from(Arc::clone(self));
        let mut state = self.state.lock().unwrap();
        if let Some((ep, op)) = state.as_mut() {
            if let Poll::Ready(r) = ep.poll(&mut Context::from_waker(&waker), op) {
                *state = None;
                let _ = self.result.send(r);
            }
        }
    }
}

#[test]
fn a_waker_may_poll_the_woken_operation_inside_the_wake() {
    let spec = Spec::new("job", msg("Job", "a", "b"));
    for (kind, endpoints) in ["strict", "liberal"].into_iter().zip(both(&spec)) {
        let [mut a, mut b]: [Box<dyn Endpoint>; 2] = endpoints.try_into().ok().unwrap();
        let (tx, rx) = mpsc::channel();
        let poller = Arc::new(PollOnWake {
            state: Mutex::new(None),
            result: tx,
        });
        let waker = Waker::from(Arc::clone(&poller));
        let mut recv = AsyncOp::recv_from(0);
        assert!(b
            .poll(&mut Context::from_waker(&waker), &mut recv)
            .is_pending());
        *poller.state.lock().unwrap() = Some((b, recv));
        // The send wakes b's receive, whose waker polls it there and then:
        // a session that wakes under a lock of b's would wait for itself.
        let sender = std::thread::spawn(move || a.send_job(1));
        let got = rx
            .recv_timeout(HANG)
            .unwrap_or_else(|_| panic!("{kind}: the inline poll hangs"));
        assert!(
            matches!(got, Ok(Done::Received(0, ref m)) if m.type_name() == "Job"),
            "{kind}: {got:?}"
        );
        sender.join().unwrap();
    }
}

/// Counts its wakes.
#[derive(Default)]
struct Count(AtomicUsize);

impl Wake for Count {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, SeqCst);
    }
}

#[test]
fn the_second_of_two_pending_receives_is_woken_after_the_first_completed() {
    let spec = Spec::new("two", par([msg("Job", "a", "b"), msg("Job", "c", "b")]));
    for (kind, endpoints) in ["strict", "liberal"].into_iter().zip(both(&spec)) {
        let [mut a, mut b, mut c]: [Box<dyn Endpoint>; 3] = endpoints.try_into().ok().unwrap();
        let (first, second) = (Arc::new(Count::default()), Arc::new(Count::default()));
        let (w1, w2) = (
            Waker::from(Arc::clone(&first)),
            Waker::from(Arc::clone(&second)),
        );
        let (mut from_a, mut from_c) = (AsyncOp::recv_from(0), AsyncOp::recv_from(2));
        assert!(b
            .poll(&mut Context::from_waker(&w1), &mut from_a)
            .is_pending());
        assert!(b
            .poll(&mut Context::from_waker(&w2), &mut from_c)
            .is_pending());
        a.send_job(1);
        assert!(
            first.0.load(SeqCst) >= 1,
            "{kind}: a's send wakes its receive"
        );
        let got = b.poll(&mut Context::from_waker(&w1), &mut from_a);
        assert!(
            matches!(got, Poll::Ready(Ok(Done::Received(0, _)))),
            "{kind}: {got:?}"
        );
        // The receive from c is still registered: c's send must wake it,
        // though b has not polled it since.
        let before = second.0.load(SeqCst);
        c.send_job(1);
        assert!(
            second.0.load(SeqCst) > before,
            "{kind}: c's send wakes the receive still pending"
        );
        let got = b.poll(&mut Context::from_waker(&w2), &mut from_c);
        assert!(
            matches!(got, Poll::Ready(Ok(Done::Received(2, _)))),
            "{kind}: {got:?}"
        );
    }
}

#[test]
fn a_receive_woken_twice_before_its_poll_loses_neither_message() {
    let spec = Spec::new("two", par([msg("Job", "a", "b"), msg("Job", "c", "b")]));
    for (kind, endpoints) in ["strict", "liberal"].into_iter().zip(both(&spec)) {
        let [mut a, mut b, mut c]: [Box<dyn Endpoint>; 3] = endpoints.try_into().ok().unwrap();
        let count = Arc::new(Count::default());
        let waker = Waker::from(Arc::clone(&count));
        let mut cx = Context::from_waker(&waker);
        let mut any = AsyncOp::recv_from(None);
        assert!(b.poll(&mut cx, &mut any).is_pending());
        // Two wakes of the one registration before b polls it again (the
        // liberal session hands the waker to the first and leaves a no-op
        // one for the second): b is woken, and both messages are there.
        a.send_job(1);
        c.send_job(1);
        assert!(count.0.load(SeqCst) >= 1, "{kind}: the sends wake b");
        let first = match b.poll(&mut cx, &mut any) {
            Poll::Ready(Ok(Done::Received(from, _))) => from,
            got => panic!("{kind}: {got:?}"),
        };
        let mut again = AsyncOp::recv_from(None);
        let second = match b.poll(&mut cx, &mut again) {
            Poll::Ready(Ok(Done::Received(from, _))) => from,
            got => panic!("{kind}: {got:?}"),
        };
        let mut got = [first, second];
        got.sort_unstable();
        assert_eq!(got, [0, 2], "{kind}");
    }
}
