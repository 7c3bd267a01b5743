//! Objects that answer for one action (`Protocol::is_enabled`) or list
//! their enabled actions (`Protocol::enabled`): the explorer reads the
//! answer or the list instead of probing each pending operation on a
//! clone of the object, so one that leaves an action out would hide every
//! execution that takes it. Debug builds probe as well and compare.

#[cfg(debug_assertions)]
use prust::engine::Enabled;
use prust::explore::{Explorer, Reduction, Roles};
use prust::session::BlockingEndpoint;
use prust::{Message, Protocol, Refused, RoleId};
use testkit::mailbox::Mailbox;

/// A mailbox whose word on r2's receive from r1 is "refused" until r2
/// has received from r0: wrong (the receive is accepted all along), and
/// wrong in just the way that hides r1's message going first. The wrong
/// word is its answer (`in_answer`; its list, the mailbox's own, is
/// right) or its list (it then gives no answers, so the list is read).
/// Only debug builds probe and compare (see the module docs).
#[cfg(debug_assertions)]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Hiding {
    inner: Mailbox,
    got_from_r0: bool,
    in_answer: bool,
}

#[cfg(debug_assertions)]
impl Hiding {
    /// Whether its word on `action` is the wrong one now.
    fn hides(&self, action: &Enabled) -> bool {
        *action == (Enabled::Recv { role: 2, from: 1 }) && !self.got_from_r0
    }
}

#[cfg(debug_assertions)]
impl Protocol for Hiding {
    fn roles(&self) -> Vec<String> {
        self.inner.roles()
    }
    fn type_names(&self) -> Vec<String> {
        self.inner.type_names()
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        self.inner.try_send(role, to, msg)
    }
    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        let (f, m) = self.inner.try_recv(role, from)?;
        self.got_from_r0 |= (role, f) == (2, 0);
        Ok((f, m))
    }
    fn is_terminated(&self) -> bool {
        self.inner.is_terminated()
    }
    fn enabled(&self, out: &mut Vec<Enabled>) -> bool {
        self.inner.enabled(out);
        if !self.in_answer {
            out.retain(|e| !self.hides(e));
        }
        true
    }
    fn is_enabled(&self, action: Enabled) -> Option<bool> {
        match self.in_answer {
            false => None,
            true if self.hides(&action) => Some(false),
            true => self.inner.is_enabled(action),
        }
    }
}

/// r0 and r1 each send r2 a message; r2 insists on hearing from r0
/// first. Plain search over probes finds r1's message first; with the
/// wrong word trusted, every execution would hear r0 first and the
/// exploration would call the program correct. The report names the
/// wrong word: `word`.
#[cfg(debug_assertions)]
fn a_wrong_word_is_reported(in_answer: bool, word: &str) {
    for reduction in [Reduction::None, Reduction::SleepSets, Reduction::Dpor] {
        let ex = Explorer::new()
            .preemption_bound(None)
            .reduction(reduction)
            .explore(
                Hiding {
                    inner: Mailbox::new(3),
                    got_from_r0: false,
                    in_answer,
                },
                |r| {
                    r.spawn("r0", |mut ep| {
                        ep.send("r2", Message::named("M", 0u8)).unwrap()
                    });
                    r.spawn("r1", |mut ep| {
                        ep.send("r2", Message::named("M", 1u8)).unwrap()
                    });
                    r.spawn("r2", |mut ep| {
                        let (from, _) = ep.recv().unwrap();
                        assert_eq!(from, 0, "heard from r1 first");
                        ep.recv().unwrap();
                    });
                },
            );
        assert!(!ex.is_successful(), "{reduction}: {ex}");
        let text = ex.to_string();
        assert!(
            text.contains(word) && text.contains("r2 waits to receive from r1"),
            "{reduction}: {text}"
        );
    }
}

#[test]
#[cfg(debug_assertions)]
fn a_list_that_leaves_out_an_accepted_receive_is_reported() {
    a_wrong_word_is_reported(false, "`enabled` list");
}

/// The answer is read before the list (and trusted as the list is), so a
/// wrong one is reported as a wrong list is, naming the answer.
#[test]
#[cfg(debug_assertions)]
fn an_answer_that_leaves_out_an_accepted_receive_is_reported() {
    a_wrong_word_is_reported(true, "`is_enabled` answer");
}

/// r0 and r1 each send r2 three messages; r2 insists on r0's last
/// before r1's last.
fn program<P: Protocol>(r: &mut Roles<'_, P>) {
    for (name, first) in [("r0", 0u8), ("r1", 10)] {
        r.spawn(name, move |mut ep| {
            for i in 0..3 {
                ep.send("r2", Message::named("M", first + i)).unwrap();
            }
        });
    }
    r.spawn("r2", |mut ep| {
        let mut got = Vec::new();
        for _ in 0..6 {
            got.push(*ep.recv().unwrap().1.downcast_ref::<u8>().unwrap());
        }
        // Fails where r1's last message comes before r0's.
        assert!(got.iter().position(|&m| m == 2) < got.iter().position(|&m| m == 12));
    });
}

/// A mailbox that answers for its actions, or lists them, is explored as
/// one that is probed: the same outcomes, the same number of executions.
#[test]
fn a_listed_object_is_explored_as_a_probed_one() {
    /// The mailbox with its answers hidden, and its list too unless
    /// `LIST`: listed, or probed. (A type parameter, not a field: the
    /// final states compared below are hashes of the object.)
    #[derive(Clone, Debug, PartialEq, Eq, Hash)]
    struct Hidden<const LIST: bool>(Mailbox);
    impl<const LIST: bool> Protocol for Hidden<LIST> {
        fn roles(&self) -> Vec<String> {
            self.0.roles()
        }
        fn type_names(&self) -> Vec<String> {
            self.0.type_names()
        }
        fn try_send(
            &mut self,
            role: RoleId,
            to: RoleId,
            msg: Message,
        ) -> Result<(), Refused<Message>> {
            self.0.try_send(role, to, msg)
        }
        fn try_recv(
            &mut self,
            role: RoleId,
            from: Option<RoleId>,
        ) -> Result<(RoleId, Message), Refused> {
            self.0.try_recv(role, from)
        }
        fn is_channel_empty(&self, from: RoleId, to: RoleId) -> bool {
            self.0.is_channel_empty(from, to)
        }
        fn channel_capacity(&self, from: RoleId, to: RoleId) -> Option<usize> {
            self.0.channel_capacity(from, to)
        }
        fn is_terminated(&self) -> bool {
            self.0.is_terminated()
        }
        fn enabled(&self, out: &mut Vec<prust::engine::Enabled>) -> bool {
            LIST && self.0.enabled(out)
        }
    }
    for reduction in [Reduction::None, Reduction::SleepSets, Reduction::Dpor] {
        let explorer = Explorer::new().preemption_bound(None).reduction(reduction);
        let answered = explorer.clone().explore(Mailbox::new(3), program);
        let listed = explorer
            .clone()
            .explore(Hidden::<true>(Mailbox::new(3)), program);
        let probed = explorer.explore(Hidden::<false>(Mailbox::new(3)), program);
        for (name, ex) in [("answered", &answered), ("listed", &listed)] {
            assert_eq!(ex.executions(), probed.executions(), "{reduction} {name}");
            assert_eq!(
                ex.failures().len(),
                probed.failures().len(),
                "{reduction} {name}"
            );
            assert_eq!(
                ex.final_states(),
                probed.final_states(),
                "{reduction} {name}"
            );
        }
        assert!(!listed.failures().is_empty(), "{reduction}: {listed}");
    }
}
