//! [`Progress`]: the line a long exploration prints on stderr while it
//! runs, when `PRUST_PROGRESS` asks for it (never otherwise: an
//! exploration is a test, and a test's output is its report).

use std::io::Write;
use std::time::{Duration, Instant};

/// When and what to print.
pub(crate) struct Progress {
    on: bool,
    started: Instant,
    next: Instant,
    /// After the first line (which may come sooner, by
    /// `PRUST_PROGRESS_AFTER_MS`), at most one a second.
    every: Duration,
    /// The sample size of a sampled search (the line says how far it is).
    of: Option<usize>,
}

impl Progress {
    pub(crate) fn new(on: bool, after: Duration, of: Option<usize>) -> Progress {
        let started = Instant::now();
        Progress {
            on,
            started,
            next: started + after,
            every: after.max(Duration::from_secs(1)),
            of,
        }
    }

    /// After each execution: prints the line if it is time.
    #[inline]
    pub(crate) fn tick(&mut self, executions: usize, failures: usize) {
        if self.on {
            self.show(executions, failures);
        }
    }

    #[cold]
    fn show(&mut self, executions: usize, failures: usize) {
        let now = Instant::now();
        if now < self.next {
            return;
        }
        self.next = now + self.every;
        let secs = now.duration_since(self.started).as_secs_f64();
        let of = self.of.map_or(String::new(), |n| format!(" of {n}"));
        let line = format!(
            "prust explore: {executions}{of} executions, {failures} distinct failure{}, \
             {:.0} executions/s, {secs:.1} s\n",
            if failures == 1 { "" } else { "s" },
            executions as f64 / secs.max(1e-9),
        );
        // Straight to the process's stderr, as a check's progress line:
        // the test harness captures only the print macros, and would
        // show the line after the test instead of while it runs.
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(line.as_bytes());
        let _ = err.flush();
    }
}
