//! How an [`Exploration`] reads: the report a failing test prints.

use std::fmt;

use super::{Exploration, Shortness};

impl<T> fmt::Display for Exploration<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = if self.replayed {
            "replayed 1 schedule".to_string()
        } else if let Some(sample) = self.sample() {
            format!("sampled {sample},")
        } else {
            format!(
                "explored {} execution{}",
                self.executions,
                if self.executions == 1 { "" } else { "s" }
            )
        };
        write!(f, "{what} in {:.2?}", self.elapsed)?;
        if self.redundant > 0 {
            write!(f, " ({} cut short by sleep sets)", self.redundant)?;
        }
        match &self.incomplete {
            None => write!(f, " (complete)")?,
            Some(why) => write!(f, " (INCOMPLETE: {why})")?,
        }
        // Said where the reduction is not the one asked for: the count of
        // executions means something else then.
        let off = |f: &mut fmt::Formatter<'_>| {
            if let Some(why) = &self.reduction_off {
                writeln!(f, "reduction: {why}")?;
            }
            if !self.left_running.is_empty() {
                writeln!(
                    f,
                    "left running: the thread{} of {}, stuck outside the session (it cannot \
                     be stopped; it can reach no other execution, and ends when its code \
                     returns or with the process)",
                    if self.left_running.len() == 1 {
                        ""
                    } else {
                        "s"
                    },
                    self.left_running.join(", ")
                )?;
            }
            Ok(())
        };
        if self.failures.is_empty() {
            writeln!(f, ": no failure")?;
            off(f)?;
            if self.is_complete() {
                write!(f, "the program is correct in every schedule")?;
            } else if let Some(sample) = self.sample() {
                write!(
                    f,
                    "not a proof: sampled, not exhaustive ({sample}: no failure found)"
                )?;
            } else if self.replayed {
                write!(f, "not a proof: only the replayed schedule ran")?;
            } else {
                write!(f, "not a proof: the exploration was cut short")?;
            }
            return Ok(());
        }
        writeln!(
            f,
            ": {} distinct failure{}",
            self.failures.len(),
            if self.failures.len() == 1 { "" } else { "s" }
        )?;
        off(f)?;
        for (i, fail) in self.failures.iter().enumerate() {
            // A sampled failure names its seed, so that a report cut to
            // one failure still says how to run its search again.
            let seed = self.seed().map_or(String::new(), |s| format!(", seed {s}"));
            writeln!(
                f,
                "\nfailure {} (in {} execution{}{seed}) {fail}",
                i + 1,
                self.counts[i],
                if self.counts[i] == 1 { "" } else { "s" }
            )?;
            if let Some(note) = self.shortness.get(i).and_then(Shortness::note) {
                writeln!(f, "  {note}")?;
            }
        }
        // The first failure with a schedule (a bound that stopped the
        // whole exploration has none to replay).
        let Some((i, first)) = self
            .failures
            .iter()
            .enumerate()
            .find(|(_, f)| !f.schedule.is_empty())
            .map(|(i, f)| (i, &f.schedule))
        else {
            return Ok(());
        };
        write!(
            f,
            "\nto replay failure {}, run the same test with PRUST_SCHEDULE=\"{first}\" \
             (or Explorer::new().replay(&\"{first}\".parse()?))",
            i + 1
        )?;
        if let Some(seed) = self.seed() {
            write!(
                f,
                "\nto run the same sampled search again, give it the seed {seed} (or \
                 PRUST_SEED={seed}, where the program gives no seed)"
            )?;
        }
        Ok(())
    }
}
