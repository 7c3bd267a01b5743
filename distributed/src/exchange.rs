//! Rounds of all-to-all messages between the workers, on one timely
//! dataflow: each worker sends messages addressed to workers, closes the
//! round, and gets every message addressed to it in that round. The
//! search is a sequence of such rounds; timely's progress tracking is what
//! tells a worker that nothing more of the round is on its way.

use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;

use timely::container::{
    CapacityContainerBuilder, ContainerBuilder, LengthPreservingContainerBuilder, PushInto,
};
use timely::dataflow::channels::pact::ExchangeCore;
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::{Input, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};
use timely::worker::Worker;

use crate::message::Msg;
use crate::Error;

/// The longest a waiting worker sleeps between two looks for a lost
/// process.
const PARK: std::time::Duration = std::time::Duration::from_millis(20);

/// How long past the check's time limit a worker waits for a round to
/// end: the others notice the limit at their next look at the clock (a
/// few states later) and end the round; a round still open this long
/// after is held by a process that stopped answering.
pub const STALL_GRACE: std::time::Duration = std::time::Duration::from_secs(10);

/// A message and the worker it is for.
type Addressed = (u64, Msg);

/// One worker's end of the rounds.
pub(crate) struct Rounds {
    worker: Worker,
    input: InputHandle<u64, EachAlone>,
    probe: ProbeHandle<u64>,
    /// The messages that arrived, by the round (timestamp) they were sent
    /// in: a worker that ended a round early may already send those of
    /// the next one while this one still waits for the last of its own.
    inbox: Rc<RefCell<BTreeMap<u64, Vec<Msg>>>>,
    round: u64,
    /// The check's time limit, if it has one: past it (and the grace),
    /// a round that does not end is an error, not a wait for ever.
    deadline: Option<std::time::Instant>,
}

impl Rounds {
    /// Builds the dataflow on `worker`.
    pub(crate) fn new(mut worker: Worker) -> Self {
        let mut input = InputHandle::new_with_builder();
        let probe = ProbeHandle::new();
        let inbox = Rc::new(RefCell::new(BTreeMap::new()));
        let into = Rc::clone(&inbox);
        worker.dataflow::<u64, _, _>(|scope| {
            scope
                .input_from(&mut input)
                .unary::<CapacityContainerBuilder<Vec<()>>, _, _, _>(
                    ExchangeCore::<EachAlone, _>::new_core(|m: &Addressed| m.0),
                    "Inbox",
                    move |_, _| {
                        move |input, _output| {
                            input.for_each(|cap, data| {
                                let mut into = into.borrow_mut();
                                // An input's messages always carry their time.
                                if let Some(&time) = cap.least() {
                                    let round = into.entry(time).or_insert_with(Vec::new);
                                    round.extend(data.drain(..).map(|(_, m)| m));
                                }
                            })
                        }
                    },
                )
                .probe_with(&probe);
        });
        Rounds {
            worker,
            input,
            probe,
            inbox,
            round: 0,
            deadline: None,
        }
    }

    /// The check's time limit: see [`finish`](Self::finish).
    pub(crate) fn set_deadline(&mut self, at: Option<std::time::Instant>) {
        self.deadline = at;
    }

    /// This worker's number, from 0.
    pub(crate) fn index(&self) -> usize {
        self.worker.index()
    }

    /// How many workers there are, in every process.
    pub(crate) fn peers(&self) -> usize {
        self.worker.peers()
    }

    /// Sends `msg` to worker `to` in this round.
    pub(crate) fn send(&mut self, to: usize, msg: Msg) {
        self.input.send((to as u64, msg));
    }

    /// Sends a copy of `msg` to every worker, this one included.
    pub(crate) fn broadcast(&mut self, msg: Msg) {
        for to in 0..self.peers() {
            self.send(to, msg.clone());
        }
    }

    /// The messages of this round that have arrived so far, without
    /// waiting: to take them in while the round goes on.
    pub(crate) fn poll(&mut self) -> Vec<Msg> {
        self.worker.step_or_park(Some(std::time::Duration::ZERO));
        let mut inbox = self.inbox.borrow_mut();
        inbox.remove(&self.round).unwrap_or_default()
    }

    /// Ends the round: waits until every worker has ended it and every
    /// message of it has arrived, and returns those addressed here, in no
    /// particular order.
    ///
    /// # Errors
    /// [`Error::Lost`] when a process stopped taking part: its messages
    /// would never come.
    ///
    /// [`Error::Stalled`] when the check has a time limit and this round
    /// is still open [`STALL_GRACE`] after it passed (or after the round
    /// began, if later): a process that stopped without dying (suspended,
    /// swapping) keeps its connections open, so only the clock tells.
    pub(crate) fn finish(&mut self) -> Result<Vec<Msg>, Error> {
        self.round += 1;
        self.input.advance_to(self.round);
        let began = std::time::Instant::now();
        while self.probe.less_than(self.input.time()) {
            // Parked until a message comes, or for a moment: long enough
            // to leave the cores to the other workers, short enough to
            // notice a lost process at once.
            self.worker.step_or_park(Some(PARK));
            if let Some(e) = crate::lost::lost() {
                return Err(e);
            }
            if let Some(at) = self.deadline {
                let now = std::time::Instant::now();
                if now > at.max(began) + STALL_GRACE {
                    return Err(Error::Stalled {
                        waited: now - began,
                    });
                }
            }
        }
        // The messages sent at time `round - 1`, this round's.
        let mut inbox = self.inbox.borrow_mut();
        Ok(inbox.remove(&(self.round - 1)).unwrap_or_default())
    }
}

/// Sends every message on its own, as soon as it is sent. Timely's
/// default gathers 8 KiB of `Msg` values a destination first, about 85
/// messages: with batches of states that is megabytes a destination held
/// by the sender and sent at once, and the connection buffers at both
/// ends grow to that size and are kept for the rest of the search.
#[derive(Default)]
struct EachAlone {
    waiting: VecDeque<Addressed>,
    current: Vec<Addressed>,
}

impl PushInto<Addressed> for EachAlone {
    fn push_into(&mut self, item: Addressed) {
        self.waiting.push_back(item);
    }
}

impl ContainerBuilder for EachAlone {
    type Container = Vec<Addressed>;

    fn extract(&mut self) -> Option<&mut Vec<Addressed>> {
        let item = self.waiting.pop_front()?;
        self.current.clear();
        self.current.push(item);
        Some(&mut self.current)
    }

    fn finish(&mut self) -> Option<&mut Vec<Addressed>> {
        self.extract()
    }
}

// Each container holds exactly the one message pushed.
impl LengthPreservingContainerBuilder for EachAlone {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::Msg;

    fn digest(process: u32) -> Addressed {
        (u64::from(process), Msg::Digest { process, digest: 0 })
    }

    /// The messages pushed, as the containers the builder gives.
    fn containers(b: &mut EachAlone, finish: bool) -> Vec<Vec<u32>> {
        let mut out = Vec::new();
        loop {
            let c = if finish { b.finish() } else { b.extract() };
            let Some(c) = c else { break };
            out.push(c.drain(..).map(|(to, _)| to as u32).collect());
        }
        out
    }

    #[test]
    fn every_message_is_a_container_at_once() {
        let mut b = EachAlone::default();
        b.push_into(digest(0));
        b.push_into(digest(1));
        assert_eq!(containers(&mut b, false), vec![vec![0], vec![1]]);
        b.push_into(digest(2));
        assert_eq!(containers(&mut b, true), vec![vec![2]]);
        assert!(b.finish().is_none());
    }
}
