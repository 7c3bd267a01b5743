//! The hand-over between the calling thread and the workers: the calling
//! thread runs the levels, starts each phase of a level (expand, then
//! settle) and waits for the workers, watching the budget meanwhile.

use std::sync::atomic::Ordering;
use std::sync::PoisonError;
use std::time::Duration;

use crate::protocol::Protocol;
use crate::report::{Limit, Stats};
use crate::successors::{Store, Successors};
use crate::Error;

use super::*;
use crate::search::{Search, SearchOutcome};

/// What the workers are told to do next.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Cmd {
    /// Expand the level's states of the thread's shards.
    Expand,
    /// Deduplicate what the others handed over, and list the new states.
    Settle,
    Quit,
}

/// The hand-over between the calling thread and the workers: a new
/// generation starts a phase, and each worker counts itself done.
pub(super) struct Phase {
    pub(super) generation: u64,
    pub(super) cmd: Cmd,
    pub(super) finished: usize,
    /// A worker panicked (a bug of the search, not protocol code, which
    /// runs under `catch_unwind`): stop waiting for it.
    pub(super) crashed: bool,
}

impl<P: Protocol> Shared<'_, P> {
    /// A worker: waits for a phase, runs it, counts itself done.
    pub(super) fn work(&self, mut w: Worker<P>) {
        /// Counts a panicking worker out, so that the calling thread does
        /// not wait for it for ever (the scope then re-raises the panic).
        struct Guard<'g, 's, P>(&'g Shared<'s, P>);
        impl<P> Drop for Guard<'_, '_, P> {
            fn drop(&mut self) {
                if std::thread::panicking() {
                    let mut ph = self.0.phase.lock().unwrap_or_else(PoisonError::into_inner);
                    ph.crashed = true;
                    self.0.done.notify_all();
                }
            }
        }
        let _guard = Guard(self);
        let mut generation = 0;
        loop {
            let cmd = {
                let mut ph = self.phase.lock().unwrap_or_else(PoisonError::into_inner);
                while ph.generation == generation {
                    ph = self.start.wait(ph).unwrap_or_else(PoisonError::into_inner);
                }
                generation = ph.generation;
                ph.cmd
            };
            match cmd {
                Cmd::Quit => return,
                Cmd::Expand => self.expand_level(&mut w, || false),
                Cmd::Settle => self.settle_level(&mut w),
            }
            let mut ph = self.phase.lock().unwrap_or_else(PoisonError::into_inner);
            ph.finished += 1;
            self.done.notify_all();
        }
    }
}

impl<P: Protocol> Search<'_, P> {
    /// Runs the levels until the search is decided (on the calling
    /// thread, with the workers of `crew` once a level is large enough).
    pub(super) fn coordinate<'scope, 'env>(
        &mut self,
        shared: &'scope Shared<'_, P>,
        crew: &mut Crew<'scope, 'env, P>,
    ) -> Result<Coordinated, Error>
    where
        P: 'scope,
    {
        let successors = Successors::new(
            self.ex.alphabet.clone(),
            Store::whole(),
            WORKER_CACHE,
            false,
        );
        let mut own = Worker::new(0, successors, crew.template.cloned());
        let mut depth: u64 = 0;
        loop {
            let len = shared
                .level
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .len();
            let wide = len >= self.opts.parallel.level.max(1);
            if wide && !crew.tried {
                crew.tried = true;
                self.start_workers(shared, crew);
            }
            let helpers = if wide { crew.running } else { 0 };
            shared.depth.store(depth, Ordering::Relaxed);
            shared.parties.store(helpers as u64 + 1, Ordering::Relaxed);
            shared.store.start_level();
            let limit = self.run_level(shared, helpers, depth, &mut own);
            let fallback = *shared
                .fallback
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if let Some(why) = fallback {
                return Ok(Coordinated::Fallback(why));
            }
            if let Some(limit) = limit {
                return Ok(Coordinated::Done(SearchOutcome::Inconclusive(limit)));
            }
            if shared.full.load(Ordering::Relaxed) {
                return Ok(Coordinated::Done(SearchOutcome::Inconclusive(
                    Limit::States(self.limits.max_states),
                )));
            }
            let event = shared
                .event
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            if let Some(event) = event {
                if matches!(event.found, Found::Bad(_)) {
                    // As the one-thread search counts it: the violation's
                    // state is one level deeper.
                    self.stats.max_depth = depth + 1;
                }
                return Ok(Coordinated::Found(event));
            }
            let found =
                std::mem::take(&mut *shared.found.lock().unwrap_or_else(PoisonError::into_inner));
            let next = merge(found);
            if next.is_empty() {
                break;
            }
            self.stats.max_depth = depth + 1;
            *shared.level.write().unwrap_or_else(PoisonError::into_inner) = next;
            depth += 1;
        }
        if shared.truncated.load(Ordering::Relaxed) {
            return Ok(Coordinated::Done(SearchOutcome::Inconclusive(
                Limit::Depth(self.limits.max_depth),
            )));
        }
        Ok(Coordinated::Done(SearchOutcome::Holds))
    }

    /// Starts the crew's workers (all but the calling thread). A thread
    /// the system refuses is one worker fewer (the phases count the
    /// workers that run), not a failed check.
    pub(super) fn start_workers<'scope, 'env>(
        &self,
        shared: &'scope Shared<'_, P>,
        crew: &mut Crew<'scope, 'env, P>,
    ) where
        P: 'scope,
    {
        for _ in 1..crew.threads {
            let me = crew.running + 1;
            // The thread's copy of the initial object is made here and
            // moves to it once: it decodes with it from then on.
            let w = Worker::new(
                me,
                Successors::new(
                    self.ex.alphabet.clone(),
                    Store::whole(),
                    WORKER_CACHE,
                    false,
                ),
                crew.template.cloned(),
            );
            let spawned = crate::stack::worker(format!("prust-search-{me}"))
                .spawn_scoped(crew.scope, move || shared.work(w));
            crew.running += usize::from(spawned.is_ok());
        }
    }

    /// One level, in two phases (expand, then settle), each shared by the
    /// calling thread (watching the budget as it goes) and `helpers`
    /// workers; a limit is returned.
    pub(super) fn run_level(
        &mut self,
        shared: &Shared<'_, P>,
        helpers: usize,
        depth: u64,
        own: &mut Worker<P>,
    ) -> Option<Limit> {
        let mut limit = self.tick(shared, depth);
        if limit.is_some() {
            return limit;
        }
        for cmd in [Cmd::Expand, Cmd::Settle] {
            if helpers > 0 {
                let mut ph = shared.phase.lock().unwrap_or_else(PoisonError::into_inner);
                ph.generation += 1;
                ph.cmd = cmd;
                ph.finished = 0;
                shared.start.notify_all();
            }
            match cmd {
                Cmd::Expand => shared.expand_level(own, || {
                    limit = self.tick(shared, depth);
                    limit.is_some()
                }),
                _ => shared.settle_level(own),
            }
            if helpers > 0 {
                limit = self.run_phase(shared, helpers, cmd, depth).or(limit);
            }
            if limit.is_some() {
                return limit;
            }
        }
        None
    }

    /// The budget's tick with the shared counts; a limit stops the
    /// threads.
    pub(super) fn tick(&mut self, shared: &Shared<'_, P>, depth: u64) -> Option<Limit> {
        let stats = Stats {
            product_states: shared.store.states(),
            transitions: shared.transitions.load(Ordering::Relaxed),
            ..self.stats.clone()
        };
        let limit = self.budget.tick(&stats, depth);
        if limit.is_some() {
            shared.stop.store(true, Ordering::Relaxed);
        }
        limit
    }

    /// Waits for every worker to finish the phase (after starting it, for
    /// `Quit`), watching the budget (time, memory, the progress line)
    /// meanwhile; a limit stops the workers and is returned.
    pub(super) fn run_phase(
        &mut self,
        shared: &Shared<'_, P>,
        threads: usize,
        cmd: Cmd,
        depth: u64,
    ) -> Option<Limit> {
        let mut ph = shared.phase.lock().unwrap_or_else(PoisonError::into_inner);
        if cmd == Cmd::Quit {
            ph.generation += 1;
            ph.cmd = cmd;
            ph.finished = 0;
            shared.start.notify_all();
            return None;
        }
        let mut limit = None;
        while ph.finished < threads && !ph.crashed {
            let (g, _) = shared
                .done
                .wait_timeout(ph, Duration::from_millis(1))
                .unwrap_or_else(PoisonError::into_inner);
            ph = g;
            if limit.is_none() && ph.finished < threads {
                drop(ph);
                limit = self.tick(shared, depth);
                ph = shared.phase.lock().unwrap_or_else(PoisonError::into_inner);
            }
        }
        if ph.crashed {
            // The scope re-raises the worker's panic; until it does, stop.
            shared.stop.store(true, Ordering::Relaxed);
        }
        limit
    }
}

/// The worker threads of one search, started on demand in `scope`.
pub(super) struct Crew<'scope, 'env, P> {
    pub(super) scope: &'scope std::thread::Scope<'scope, 'env>,
    /// The threads asked for, the calling one included.
    pub(super) threads: usize,
    /// Workers started (the calling thread not counted).
    pub(super) running: usize,
    /// Whether they were started (or tried).
    pub(super) tried: bool,
    /// A store of bytes: the initial object, cloned for each thread to
    /// decode with.
    pub(super) template: Option<&'scope P>,
}
