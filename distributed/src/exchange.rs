//! Rounds of all-to-all messages between the workers, on one timely
//! dataflow: each worker sends messages addressed to workers, closes the
//! round, and gets every message addressed to it in that round. The
//! search is a sequence of such rounds; timely's progress tracking is what
//! tells a worker that nothing more of the round is on its way.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Exchange as ByWorker;
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::{Input, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};
use timely::worker::Worker;

use crate::message::Msg;
use crate::Error;

/// The longest a waiting worker sleeps between two looks for a lost
/// process.
const PARK: std::time::Duration = std::time::Duration::from_millis(20);

/// A message and the worker it is for.
type Addressed = (u64, Msg);

/// One worker's end of the rounds.
pub(crate) struct Rounds {
    worker: Worker,
    input: InputHandle<u64, CapacityContainerBuilder<Vec<Addressed>>>,
    probe: ProbeHandle<u64>,
    /// The messages that arrived, by the round (timestamp) they were sent
    /// in: a worker that ended a round early may already send those of
    /// the next one while this one still waits for the last of its own.
    inbox: Rc<RefCell<BTreeMap<u64, Vec<Msg>>>>,
    round: u64,
}

impl Rounds {
    /// Builds the dataflow on `worker`.
    pub(crate) fn new(mut worker: Worker) -> Self {
        let mut input = InputHandle::new();
        let probe = ProbeHandle::new();
        let inbox = Rc::new(RefCell::new(BTreeMap::new()));
        let into = Rc::clone(&inbox);
        worker.dataflow::<u64, _, _>(|scope| {
            scope
                .input_from(&mut input)
                .unary::<CapacityContainerBuilder<Vec<()>>, _, _, _>(
                    ByWorker::new(|m: &Addressed| m.0),
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
        }
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
    pub(crate) fn finish(&mut self) -> Result<Vec<Msg>, Error> {
        self.round += 1;
        self.input.advance_to(self.round);
        while self.probe.less_than(self.input.time()) {
            // Parked until a message comes, or for a moment: long enough
            // to leave the cores to the other workers, short enough to
            // notice a lost process at once.
            self.worker.step_or_park(Some(PARK));
            if let Some(e) = crate::lost::lost() {
                return Err(e);
            }
        }
        // The messages sent at time `round - 1`, this round's.
        let mut inbox = self.inbox.borrow_mut();
        Ok(inbox.remove(&(self.round - 1)).unwrap_or_default())
    }
}
