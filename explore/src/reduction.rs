//! [`Reduction`]: how the explorer skips schedules equivalent to ones it ran.

use std::fmt;

/// How the explorer avoids running schedules equivalent to ones it ran
/// (orders of independent steps: different roles, different channels,
/// operations that commute on the object). Commuting is judged by the
/// object's `==`, which compares messages in transit by type: an object
/// must not move payloads where `==` cannot see (the `Protocol`
/// contract), or a reduction may miss an order plain search
/// ([`Reduction::None`]) runs.
///
/// ```
/// use prust::explore::Reduction;
/// assert_eq!("none".parse::<Reduction>(), Ok(Reduction::None));
/// assert_eq!(Reduction::SleepSets.to_string(), "sleep-sets");
/// assert_eq!("dpor".parse::<Reduction>(), Ok(Reduction::Dpor));
/// // The Flanagan–Godefroid DPOR that source sets replaced is gone: it
/// // missed races on objects that disable operations.
/// assert!("dpor-classic".parse::<Reduction>().unwrap_err().contains("removed"));
/// assert_eq!(Reduction::default(), Reduction::Dpor);
/// assert!("fast".parse::<Reduction>().is_err());
/// ```
///
/// Under a property ([`Explorer::property`](crate::Explorer::property)),
/// a step whose action the formula's atoms can see is dependent on every
/// other step, so every order of it that may change the verdict is run;
/// orders of steps it cannot see are pruned as without a property. Under
/// a preemption bound, sleep sets are off (a schedule could be cut as
/// equivalent to one that the bound itself cut) and DPOR adds
/// conservative backtrack points (after Déjà Fu's: every choice at each
/// context switch before a race, and the race's later role at each point
/// since its last step), so that bounded DPOR finds the outcomes of
/// bounded plain search: two orders of the same steps can cost different
/// numbers of preemptions. That is checked against bounded plain search
/// on thousands of random programs, not proven.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Reduction {
    /// Plain depth-first search: every schedule.
    None,
    /// Sleep sets: a schedule that only reorders independent steps of
    /// one already run is cut short. The outcomes found are the same; the
    /// executions fewer.
    SleepSets,
    /// Source-set dynamic partial-order reduction with sleep sets (the
    /// default; Abdulla et al., "Optimal Dynamic Partial Order
    /// Reduction", POPL'14): at each scheduling point only choices that
    /// reverse a race seen in an execution (two dependent steps of
    /// different roles that nothing else orders) are explored, besides
    /// the first, and only one per race: a role that can start some
    /// reordering of the steps in between that puts the later step first,
    /// unless such a role is explored there already. Dependent means: the
    /// same role, or the two operations do not commute on the object (both
    /// orders applied on clones of the object must be accepted and give
    /// equal objects); on one channel, anything but a send and a receive
    /// that takes from its sender, and those two unless both orders also
    /// hand out and leave behind the very same messages (see the `dpor`
    /// module's docs). The outcomes found are the same as plain
    /// depth-first search's; on programs whose roles only send and
    /// receive over the mailbox of the tests, one complete execution per
    /// trace (checked against a brute-force count of the traces of
    /// thousands of random programs).
    ///
    /// Checked against plain depth-first search (the same failures and
    /// the same final states) on thousands of random programs over random
    /// specifications; see the `dpor` module's docs for the three places
    /// where it once missed a race.
    #[default]
    Dpor,
}

impl fmt::Display for Reduction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Reduction::None => "none",
            Reduction::SleepSets => "sleep-sets",
            Reduction::Dpor => "dpor",
        })
    }
}

impl std::str::FromStr for Reduction {
    type Err = String;

    fn from_str(s: &str) -> Result<Reduction, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "none" | "off" => Ok(Reduction::None),
            "sleep-sets" | "sleep" => Ok(Reduction::SleepSets),
            "dpor" | "source-dpor" => Ok(Reduction::Dpor),
            "dpor-classic" | "classic-dpor" => Err(format!(
                "the reduction `{s}` was removed: it judged dependency where the earlier \
                 step was taken and missed races on protocol objects that disable operations; \
                 use dpor (the default), sleep-sets or none"
            )),
            _ => Err(format!(
                "unknown reduction `{s}`: expected none, sleep-sets or dpor"
            )),
        }
    }
}
