//! [`Schedule`]: the choices of one execution, printable and parsable, so
//! that a failure found by exploring can be run again exactly.

use std::fmt;
use std::str::FromStr;

/// One choice of the scheduler: which role's pending operation the object
/// takes next, and, for a receive from anyone, from which sender.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Choice {
    /// The role whose operation happens.
    pub role: String,
    /// For a `recv()` from anyone: the sender chosen. `None` for every
    /// other operation (a send, a close, or a `recv_from`, whose sender is
    /// fixed).
    pub from: Option<String>,
    /// For a [`choose`](super::choose): the value chosen.
    pub pick: Option<usize>,
}

impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.role)?;
        if let Some(from) = &self.from {
            write!(f, "<-{from}")?;
        }
        if let Some(k) = self.pick {
            write!(f, "#{k}")?;
        }
        Ok(())
    }
}

/// The sequence of scheduling choices of one execution.
///
/// Printed as the choices separated by spaces, each a role name,
/// `role<-sender` for a receive from anyone, or `role#k` for a
/// [`choose`](super::choose) that gave `k`; the text parses back to the
/// same schedule, which is how a failure is replayed
/// ([`Explorer::replay`](super::Explorer::replay), or `PRUST_SCHEDULE`
/// with the printed text). Role names must not contain white space or
/// `<-` (the names of specs are identifiers).
///
/// ```
/// use prust::explore::Schedule;
/// let s: Schedule = "buyer1 seller buyer2<-buyer1 seller#2".parse().unwrap();
/// assert_eq!(s.len(), 4);
/// assert_eq!(s.to_string().parse::<Schedule>().unwrap(), s);
/// assert!("buyer1 <-seller".parse::<Schedule>().is_err());
/// assert!("buyer1#x".parse::<Schedule>().is_err());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Schedule {
    choices: Vec<Choice>,
}

impl Schedule {
    /// A schedule of these choices.
    pub fn new(choices: Vec<Choice>) -> Schedule {
        Schedule { choices }
    }

    /// The choices, in order.
    pub fn choices(&self) -> &[Choice] {
        &self.choices
    }

    /// The number of choices (steps).
    pub fn len(&self) -> usize {
        self.choices.len()
    }

    /// Whether the schedule has no choice.
    pub fn is_empty(&self) -> bool {
        self.choices.is_empty()
    }

    /// How many times the running role changes along the schedule: what
    /// simplification tries to cut.
    pub fn context_switches(&self) -> usize {
        self.choices
            .windows(2)
            .filter(|w| w[0].role != w[1].role)
            .count()
    }
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, c) in self.choices.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            c.fmt(f)?;
        }
        Ok(())
    }
}

/// A schedule text that does not parse: which word, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScheduleError {
    /// The 1-based position of the offending word.
    pub word: usize,
    /// The byte column (1-based) where the word starts in the text.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ScheduleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "schedule, column {} (choice {}): {}; expected role names separated by spaces, \
             `role<-sender` for a receive from anyone, `role#k` for a choice (as a failure report prints them)",
            self.column, self.word, self.message
        )
    }
}

impl std::error::Error for ScheduleError {}

impl FromStr for Schedule {
    type Err = ScheduleError;

    fn from_str(text: &str) -> Result<Schedule, ScheduleError> {
        let mut choices = Vec::new();
        let mut word = 0;
        let mut rest = text;
        let mut offset = 0;
        loop {
            let trimmed = rest.trim_start();
            offset += rest.len() - trimmed.len();
            if trimmed.is_empty() {
                break;
            }
            let end = trimmed.find(char::is_whitespace).unwrap_or(trimmed.len());
            let token = &trimmed[..end];
            word += 1;
            let error = |message: &str| ScheduleError {
                word,
                column: offset + 1,
                message: format!("`{token}`: {message}"),
            };
            let (token, pick) = match token.split_once('#') {
                None => (token, None),
                Some((t, k)) => match k.parse::<usize>() {
                    Ok(k) => (t, Some(k)),
                    Err(_) => return Err(error("`#` must be followed by the value chosen")),
                },
            };
            let mut choice = match token.split_once("<-") {
                Some((role, from)) => {
                    if role.is_empty() || from.is_empty() {
                        return Err(error("a role name is missing around `<-`"));
                    }
                    if from.contains("<-") {
                        return Err(error("more than one `<-`"));
                    }
                    Choice {
                        role: role.to_string(),
                        from: Some(from.to_string()),
                        pick: None,
                    }
                }
                None => Choice {
                    role: token.to_string(),
                    from: None,
                    pick: None,
                },
            };
            choice.pick = pick;
            choices.push(choice);
            offset += end;
            rest = &trimmed[end..];
        }
        Ok(Schedule { choices })
    }
}
