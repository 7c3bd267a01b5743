//! Test support for the session tests: a hand-written protocol object in
//! which every role follows a fixed script over FIFO channels, a reference
//! that computes where such a system ends up, a small PRNG, and a watchdog.
#![allow(dead_code)] // each test file uses a different part

use std::collections::VecDeque;
use std::sync::{mpsc, Arc};
use std::time::Duration;

use engine::{Message, Protocol, Refused, RoleId};
use protocols::session::{Endpoint, Error, Session, Split, SplitEndpoint, SplitSession};

/// One step of a role's script.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    /// Send to this role.
    Send(RoleId),
    /// Receive from this role.
    Recv(RoleId),
    /// Receive from any role (the lowest-numbered non-empty channel).
    RecvAny,
}

/// One role of a [`Scripted`] system: its script and where it is in it.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Part {
    scripts: Arc<Vec<Vec<Step>>>,
    role: RoleId,
    pc: usize,
    capacity: usize,
}

impl Part {
    fn next(&self) -> Option<Step> {
        self.scripts[self.role].get(self.pc).copied()
    }
}

/// A role's inbox: one FIFO queue per sender.
pub type Inbox = Vec<VecDeque<Message>>;

/// Roles following fixed scripts over FIFO channels of a given capacity.
///
/// With `Recv` steps only (no `RecvAny`), this is a Kahn process network:
/// where it ends up (which roles finish, which block on what) does not
/// depend on the schedule, so [`Scripted::reference_end`] predicts the end
/// of every threaded run. It runs on both sessions: its `Protocol`
/// operations are the [`Split`] steps applied to its parts.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Scripted {
    names: Arc<Vec<String>>,
    parts: Vec<Part>,
    inboxes: Vec<Inbox>,
}

impl Scripted {
    pub fn new(scripts: Vec<Vec<Step>>, capacity: usize) -> Self {
        let n = scripts.len();
        let scripts = Arc::new(scripts);
        Scripted {
            names: Arc::new((0..n).map(|i| format!("r{i}")).collect()),
            parts: (0..n)
                .map(|role| Part {
                    scripts: Arc::clone(&scripts),
                    role,
                    pc: 0,
                    capacity,
                })
                .collect(),
            inboxes: vec![vec![VecDeque::new(); n]; n],
        }
    }

    pub fn scripts(&self) -> &[Vec<Step>] {
        &self.parts[0].scripts
    }

    fn n(&self) -> usize {
        self.parts.len()
    }

    /// Runs the system sequentially to its end: for each role, `None` if it
    /// finishes its script, or the step it is blocked on.
    pub fn reference_end(&self) -> Vec<Option<Step>> {
        let mut s = self.clone();
        loop {
            let mut progressed = false;
            for r in 0..s.n() {
                let ok = match s.parts[r].next() {
                    Some(Step::Send(to)) => s.try_send(r, to, Message::new(0u64)).is_ok(),
                    Some(Step::Recv(from)) => s.try_recv(r, Some(from)).is_ok(),
                    Some(Step::RecvAny) => s.try_recv(r, None).is_ok(),
                    None => false,
                };
                progressed |= ok;
            }
            if !progressed {
                return s.parts.iter().map(Part::next).collect();
            }
        }
    }
}

impl Split for Scripted {
    type Local = Part;
    type Inbox = Inbox;
    const RECV_MAY_ENABLE_SENDER: bool = true; // bounded channels

    fn split(self) -> (Vec<Part>, Vec<Inbox>) {
        (self.parts, self.inboxes)
    }

    fn send_step(
        local: &mut Part,
        to: RoleId,
        msg: Message,
        inbox_of_to: &mut Inbox,
    ) -> Result<(), Refused<Message>> {
        let queue = &mut inbox_of_to[local.role];
        if local.next() == Some(Step::Send(to)) && queue.len() < local.capacity {
            queue.push_back(msg);
            local.pc += 1;
            Ok(())
        } else {
            Err(Refused(msg))
        }
    }

    fn recv_step(
        local: &mut Part,
        from: Option<RoleId>,
        inbox: &mut Inbox,
    ) -> Result<(RoleId, Message), Refused> {
        let source = match (local.next(), from) {
            (Some(Step::Recv(f)), None) => Some(f),
            (Some(Step::Recv(f)), Some(g)) if f == g => Some(f),
            (Some(Step::RecvAny), None) => (0..inbox.len()).find(|&f| !inbox[f].is_empty()),
            (Some(Step::RecvAny), Some(g)) => Some(g),
            _ => None,
        };
        match source.and_then(|f| inbox.get_mut(f)?.pop_front().map(|m| (f, m))) {
            Some(got) => {
                local.pc += 1;
                Ok(got)
            }
            None => Err(Refused(())),
        }
    }

    fn close_step(_: &mut Part, _: RoleId) -> Result<(), Refused> {
        Err(Refused(()))
    }

    fn parts_terminated(locals: &[&Part], inboxes: &[&Inbox]) -> bool {
        locals.iter().all(|p| p.next().is_none())
            && inboxes.iter().all(|i| i.iter().all(VecDeque::is_empty))
    }
}

impl Protocol for Scripted {
    fn roles(&self) -> Vec<String> {
        self.names.to_vec()
    }

    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        if role >= self.n() || to >= self.n() {
            return Err(Refused(msg));
        }
        Self::send_step(&mut self.parts[role], to, msg, &mut self.inboxes[to])
    }

    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        if role >= self.n() {
            return Err(Refused(()));
        }
        Self::recv_step(&mut self.parts[role], from, &mut self.inboxes[role])
    }

    /// `false` when the inbox has nothing from `from` (from anyone, for
    /// `None`): the locked session then skips re-trying the receive, so the
    /// stress tests run that path too.
    fn may_recv(&self, role: RoleId, from: Option<RoleId>) -> bool {
        let Some(inbox) = self.inboxes.get(role) else {
            return false;
        };
        match from {
            Some(f) => inbox.get(f).is_some_and(|q| !q.is_empty()),
            None => inbox.iter().any(|q| !q.is_empty()),
        }
    }

    fn is_terminated(&self) -> bool {
        let inboxes: Vec<&Inbox> = self.inboxes.iter().collect();
        let parts: Vec<&Part> = self.parts.iter().collect();
        Self::parts_terminated(&parts, &inboxes)
    }
}

/// xorshift64*: small, seedable, good enough to pick test cases.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// A random global sequence of `len` communications among `n` roles,
/// projected onto per-role scripts: never deadlocks (executing the global
/// sequence in order is a complete run, and the end is schedule-independent).
pub fn live_scripts(rng: &mut Rng, n: usize, len: usize) -> Vec<Vec<Step>> {
    let mut scripts = vec![Vec::new(); n];
    for _ in 0..len {
        let p = rng.below(n);
        let q = (p + 1 + rng.below(n - 1)) % n;
        scripts[p].push(Step::Send(q));
        scripts[q].push(Step::Recv(p));
    }
    scripts
}

/// A small random delay: nothing, a spin, a yield or a short sleep.
pub fn jitter(rng: &mut Rng) {
    match rng.below(10) {
        0..=4 => {}
        5..=6 => {
            for _ in 0..rng.below(2000) {
                std::hint::spin_loop();
            }
        }
        7..=8 => std::thread::yield_now(),
        _ => std::thread::sleep(Duration::from_micros(rng.below(50) as u64)),
    }
}

/// Runs `f` on its own thread and returns its result, failing the test
/// (instead of hanging) if it takes longer than `limit`.
pub fn watchdog<T: Send + 'static>(
    what: &str,
    limit: Duration,
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (tx, rx) = mpsc::channel();
    let handle = std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(limit) {
        Ok(v) => {
            handle.join().expect("the watched thread sent its result");
            v
        }
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("{what}: no result within {limit:?} (hang)"),
        Err(mpsc::RecvTimeoutError::Disconnected) => match handle.join() {
            Err(panic) => std::panic::resume_unwind(panic),
            Ok(()) => unreachable!("the thread sends before finishing"),
        },
    }
}

/// The operations of an endpoint of either session, object-safe, so that a
/// test runs unchanged on both.
pub trait AnyEndpoint: Send {
    fn send_msg(&mut self, to: RoleId, msg: Message) -> Result<(), Error>;
    fn recv_any(&mut self) -> Result<(RoleId, Message), Error>;
    fn recv_one(&mut self, from: RoleId) -> Result<Message, Error>;
    fn close_to(&mut self, to: RoleId) -> Result<(), Error>;
}

impl<P: Protocol> AnyEndpoint for Endpoint<P> {
    fn send_msg(&mut self, to: RoleId, msg: Message) -> Result<(), Error> {
        self.send(to, msg)
    }
    fn recv_any(&mut self) -> Result<(RoleId, Message), Error> {
        self.recv()
    }
    fn recv_one(&mut self, from: RoleId) -> Result<Message, Error> {
        self.recv_from(from)
    }
    fn close_to(&mut self, to: RoleId) -> Result<(), Error> {
        self.close(to)
    }
}

impl<P: Split> AnyEndpoint for SplitEndpoint<P> {
    fn send_msg(&mut self, to: RoleId, msg: Message) -> Result<(), Error> {
        self.send(to, msg)
    }
    fn recv_any(&mut self) -> Result<(RoleId, Message), Error> {
        self.recv()
    }
    fn recv_one(&mut self, from: RoleId) -> Result<Message, Error> {
        self.recv_from(from)
    }
    fn close_to(&mut self, to: RoleId) -> Result<(), Error> {
        self.close(to)
    }
}

/// Every endpoint of `object` on a [`Session`], in role order.
pub fn locked<P: Protocol>(object: P) -> Vec<Box<dyn AnyEndpoint>> {
    Session::new(object)
        .into_endpoints()
        .into_iter()
        .map(|e| Box::new(e) as Box<dyn AnyEndpoint>)
        .collect()
}

/// Every endpoint of `object` on a [`SplitSession`], in role order.
pub fn split<P: Split>(object: P) -> Vec<Box<dyn AnyEndpoint>> {
    SplitSession::new(object)
        .into_endpoints()
        .into_iter()
        .map(|e| Box::new(e) as Box<dyn AnyEndpoint>)
        .collect()
}

/// How a test gets the endpoints of a scripted system.
pub type MakeEndpoints = fn(Scripted) -> Vec<Box<dyn AnyEndpoint>>;

/// Both sessions, by name.
pub const SESSIONS: [(&str, MakeEndpoints); 2] = [
    ("locked session", locked::<Scripted>),
    ("split session", split::<Scripted>),
];
