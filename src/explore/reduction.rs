//! [`Reduction`]: how the explorer skips schedules equivalent to ones it ran.

use std::fmt;

/// How the explorer avoids running schedules equivalent to ones it ran
/// (orders of independent steps: different roles, different channels,
/// operations that commute on the object).
///
/// ```
/// use prust::explore::Reduction;
/// assert_eq!("none".parse::<Reduction>(), Ok(Reduction::None));
/// assert_eq!(Reduction::SleepSets.to_string(), "sleep-sets");
/// assert_eq!("dpor".parse::<Reduction>(), Ok(Reduction::Dpor));
/// assert_eq!(Reduction::default(), Reduction::Dpor);
/// assert!("fast".parse::<Reduction>().is_err());
/// ```
///
/// Every reduction is turned off (plain depth-first search) by a
/// preemption bound, which could cut a schedule whose only equivalent was
/// itself cut by the bound, and by a property, which may tell two orders
/// of independent steps apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Reduction {
    /// Plain depth-first search: every schedule.
    None,
    /// Sleep sets: a schedule that only reorders independent steps of
    /// one already run is cut short. The outcomes found are the same; the
    /// executions fewer.
    SleepSets,
    /// Dynamic partial-order reduction with sleep sets (the default): at
    /// each scheduling point only the choices that reverse a race seen in
    /// an execution (two dependent steps of different roles that nothing
    /// else orders) are explored, besides the first. Dependent means: the
    /// same role, the same channel, or the two operations do not commute
    /// on the object (both orders applied on clones of the object must be
    /// accepted and give equal objects). The outcomes found are the same
    /// as plain depth-first search's; the executions far fewer when roles
    /// mostly talk on different channels.
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
            "dpor" => Ok(Reduction::Dpor),
            _ => Err(format!(
                "unknown reduction `{s}`: expected none, sleep-sets or dpor"
            )),
        }
    }
}
