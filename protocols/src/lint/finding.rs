//! What a lint check reports: a [`Finding`] with its witness run, printed
//! like a counterexample (numbered steps, a marked cycle).

use std::fmt;

use crate::ids::StateId;
use crate::lts::{Action, Label, Lts};

use super::Check;

/// One step of a witness: the transition `from --label--> to` of the LTS,
/// with the label as people read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The state the step leaves.
    pub from: StateId,
    /// The transition's label.
    pub label: Label,
    /// The state the step reaches.
    pub to: StateId,
    /// The label as text: `buyer1 SEND <Title> TO seller`,
    /// `seller RECV <Title> FROM buyer1`, `buyer1 CLOSE TO seller`.
    pub text: String,
}

impl Step {
    /// The step `from --label--> to` of `lts`.
    pub fn new(lts: &Lts, from: StateId, label: Label, to: StateId) -> Step {
        Step {
            from,
            label,
            to,
            text: describe(lts, &label),
        }
    }
}

/// A label in the words of prust's counterexamples (and of its LTL atoms):
/// `p SEND <T> TO q`, `q RECV <T> FROM p`, `p CLOSE TO q`.
pub(crate) fn describe(lts: &Lts, l: &Label) -> String {
    let (p, q) = (&lts.roles()[l.from.index()], &lts.roles()[l.to.index()]);
    match l.action {
        Action::Send => format!("{p} SEND <{}> TO {q}", lts.type_names()[l.ty.index()]),
        Action::Recv => format!("{q} RECV <{}> FROM {p}", lts.type_names()[l.ty.index()]),
        Action::Close => format!("{p} CLOSE TO {q}"),
    }
}

/// A mistake found by a [`Check`], with a shortest run that shows it.
///
/// The witness starts at the initial state. If `cycle_start` is `Some(i)`,
/// the run is a lasso: steps `i..` lead back to the state where step `i`
/// starts and repeat forever; otherwise the run is finite and `summary`
/// says what is wrong where it stops.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The check that failed.
    pub check: Check,
    /// The channel `(sender, receiver)` it is about, for the channel checks.
    pub channel: Option<(String, String)>,
    /// The run, from the initial state.
    pub witness: Vec<Step>,
    /// Where the repeated part of a lasso begins (an index into `witness`).
    pub cycle_start: Option<usize>,
    /// What is wrong, in one line.
    pub summary: String,
    /// The check found the mistake but gave it no witness (`witness` is
    /// empty): only the first [`MAX_WITNESSES`](super::MAX_WITNESSES)
    /// findings of a check get one, so that a protocol with a mistake on
    /// each of thousands of channels costs linear memory, not a run per
    /// channel.
    pub witness_omitted: bool,
}

impl Finding {
    /// The witness steps as text (the `witness` array of `--format json`).
    pub fn witness_texts(&self) -> Vec<String> {
        self.witness.iter().map(|s| s.text.clone()).collect()
    }

    /// About how many bytes the finding takes (its witness's steps and
    /// their text, its strings, the allocator's headers): what lint counts
    /// against its memory limit.
    pub(crate) fn bytes(&self) -> usize {
        const MALLOC: usize = 16;
        let steps: usize = self
            .witness
            .iter()
            .map(|s| std::mem::size_of::<Step>() + s.text.len() + MALLOC)
            .sum();
        let channel = self
            .channel
            .as_ref()
            .map_or(0, |(p, q)| p.len() + q.len() + 2 * MALLOC);
        std::mem::size_of::<Finding>() + self.summary.len() + MALLOC + channel + steps
    }
}

impl fmt::Display for Finding {
    /// The check, the channel, what is wrong, then the numbered steps; a
    /// lasso marks where its cycle starts:
    /// ```text
    /// must-terminate: a run that goes on forever without reaching a final state
    ///   -- cycle starts here --
    ///   1. p SEND <A> TO q
    ///   2. q RECV <A> FROM p
    ///   -- back to the start of the cycle, forever --
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_after(f, 0)
    }
}

impl Finding {
    /// The finding as its [`Display`](fmt::Display) writes it, but with
    /// its first `shared` steps (which the caller printed once, above
    /// several findings whose witnesses start alike) written as one line
    /// that points back to them; if a lasso's cycle starts among them, that
    /// line says at which step.
    ///
    /// ```
    /// use protocols::lint::{lint, Check, Options};
    /// let lts = protocols::chess::spec().compile().unwrap();
    /// let findings = lint(&lts, &Options::only([Check::CantTerminate]));
    /// let finding = &findings[0];
    /// let mut text = String::new();
    /// finding.write_after(&mut text, 1).unwrap();
    /// assert!(text.contains("1. (the shared step above)"));
    /// assert!(!text.contains(&format!("1. {}", finding.witness[0].text)));
    /// ```
    pub fn write_after(&self, f: &mut impl fmt::Write, shared: usize) -> fmt::Result {
        let shared = shared.min(self.witness.len());
        write!(f, "{}", self.check.name())?;
        if let Some((p, q)) = &self.channel {
            write!(f, " (channel {p}→{q})")?;
        }
        writeln!(f, ": {}", self.summary)?;
        if self.witness_omitted {
            return writeln!(
                f,
                "  (no witness: only the first {} findings of a check get one)",
                super::MAX_WITNESSES
            );
        }
        if self.witness.is_empty() {
            writeln!(f, "  (in the initial state)")?;
        }
        let cycle = match self.cycle_start {
            Some(c) if c < shared => format!("; the cycle starts at step {}", c + 1),
            _ => String::new(),
        };
        match shared {
            0 => {}
            1 => writeln!(f, "  1. (the shared step above{cycle})")?,
            n => writeln!(f, "  1.–{n}. (the {n} shared steps above{cycle})")?,
        }
        for (i, step) in self.witness.iter().enumerate().skip(shared) {
            if Some(i) == self.cycle_start {
                writeln!(f, "  -- cycle starts here --")?;
            }
            writeln!(f, "  {}. {}", i + 1, step.text)?;
        }
        if self.cycle_start.is_some() {
            writeln!(f, "  -- back to the start of the cycle, forever --")?;
        }
        Ok(())
    }
}
