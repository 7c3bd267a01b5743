//! A bounded buffer with a planted bug that only shows when it is full:
//! exactly the kind of corner case that the engine must find.

use engine::{check, check_violated, dummies, Message, Protocol, Refused, RoleId};

#[derive(Clone, Debug)]
struct A;
#[derive(Clone, Debug)]
struct B;

/// The producer sends A, B, A, B, … to the consumer through a buffer of
/// capacity 2. With `bug`, a full buffer hands out its newest message
/// first.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Buffer {
    queue: Vec<Message>,
    next_is_a: bool,
    bug: bool,
}

fn buffer(bug: bool) -> Buffer {
    Buffer {
        queue: Vec::new(),
        next_is_a: true,
        bug,
    }
}

impl Protocol for Buffer {
    fn roles(&self) -> Vec<String> {
        vec!["producer".into(), "consumer".into()]
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        let expected = if self.next_is_a { "A" } else { "B" };
        if role == 0 && to == 1 && self.queue.len() < 2 && msg.type_name() == expected {
            self.queue.push(msg);
            self.next_is_a = !self.next_is_a;
            Ok(())
        } else {
            Err(Refused(msg))
        }
    }
    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        if role != 1 || from.is_some_and(|f| f != 0) || self.queue.is_empty() {
            return Err(Refused(()));
        }
        let msg = if self.bug && self.queue.len() == 2 {
            self.queue.pop().unwrap()
        } else {
            self.queue.remove(0)
        };
        Ok((0, msg))
    }
}

const ALTERNATES: &str = r#"(!"consumer RECV <B>" W "consumer RECV <A>")
    & G ("consumer RECV <A>" -> X (!"consumer RECV <A>" W "consumer RECV <B>"))
    & G ("consumer RECV <B>" -> X (!"consumer RECV <B>" W "consumer RECV <A>"))"#;

#[test]
fn a_correct_buffer_delivers_in_order() {
    check(ALTERNATES, buffer(false), dummies![A, B]);
    check(r#"G F "consumer RECV *""#, buffer(false), dummies![A, B]);
}

#[test]
fn the_planted_bug_is_found() {
    let c = check_violated(ALTERNATES, buffer(true), dummies![A, B]);
    let text = c.to_string();
    assert!(text.contains("consumer RECV <B> FROM producer"), "{text}");
    // The prefix is a shortest path into the accepting part of the
    // product, so it starts with the bug: A, B sent, then B received first.
    let first: Vec<String> = c.steps().take(3).map(|s| s.to_string()).collect();
    let expected = [
        "producer SEND <A> TO consumer",
        "producer SEND <B> TO consumer",
        "consumer RECV <B> FROM producer",
    ];
    assert_eq!(first, expected, "{text}");
    c.replay(buffer(true));
}

#[test]
#[should_panic(expected = "property violated")]
fn check_fails_the_test_on_the_buggy_buffer() {
    check(ALTERNATES, buffer(true), dummies![A, B]);
}
