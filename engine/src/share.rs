//! One share of a check split over several machines ([`Checker::share`]):
//! the `I/N` value, its parser and its errors.

use std::fmt;
use std::str::FromStr;

#[cfg(doc)]
use crate::Checker;

/// Share `index` of `count` (both from 1): which part of one formula's
/// state space a machine searches when the check is split over `count`
/// machines that do not talk to each other ([`Checker::share`]). The
/// property holds exactly when every one of the `count` shares holds.
///
/// Written and parsed as `I/N`, as `prust check --share I/N` and
/// `PRUST_SHARE` take it:
///
/// ```
/// use engine::Share;
/// let s: Share = "2/4".parse().unwrap();
/// assert_eq!((s.index(), s.count()), (2, 4));
/// assert_eq!(s.to_string(), "2/4");
/// assert!("5/4".parse::<Share>().unwrap_err().contains("between 1 and 4"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Share {
    index: u32,
    count: u32,
}

/// What a valid share looks like, appended to every error.
const HINT: &str = "expected I/N with 1 <= I <= N, such as 1/4 (the first of four shares)";

impl Share {
    /// The most shares a check can be split into. A bound so that the
    /// split level (at least [`Checker::SHARE_STATES`] states a share) stays
    /// small enough for every share to hold it.
    pub const MAX_COUNT: u32 = 1 << 16;

    /// Share `index` of `count`; an error that says why (with the expected
    /// form) unless `1 <= index <= count <= MAX_COUNT`.
    ///
    /// ```
    /// use engine::Share;
    /// assert!(Share::new(1, 1).is_ok());
    /// assert!(Share::new(0, 4).is_err());
    /// assert!(Share::new(1, 0).is_err());
    /// ```
    pub fn new(index: u32, count: u32) -> Result<Share, String> {
        if count == 0 {
            return Err(format!(
                "{index}/0: there must be at least one share; {HINT}"
            ));
        }
        if count > Self::MAX_COUNT {
            return Err(format!(
                "{index}/{count}: at most {} shares; {HINT}",
                Self::MAX_COUNT
            ));
        }
        if index == 0 || index > count {
            return Err(format!(
                "{index}/{count}: the share must be between 1 and {count} (shares are counted \
                 from 1); {HINT}"
            ));
        }
        Ok(Share { index, count })
    }

    /// Which share (from 1).
    pub fn index(&self) -> u32 {
        self.index
    }

    /// How many shares the check is split into.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// Whether the frontier state at `position` of the split level (in
    /// the breadth-first search's canonical order) is this share's: round
    /// robin, so that neighbouring states (which tend to have similar
    /// futures) go to different shares and every share gets as many.
    pub(crate) fn owns(&self, position: usize) -> bool {
        position % self.count as usize == (self.index - 1) as usize
    }
}

impl fmt::Display for Share {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Share {
    type Err = String;

    /// `I/N`, spaces around either number allowed.
    fn from_str(s: &str) -> Result<Share, String> {
        let Some((i, n)) = s.split_once('/') else {
            return Err(format!("{s:?} is not a share; {HINT}"));
        };
        let number = |t: &str, what: &str| {
            let t = t.trim();
            t.parse::<u32>().map_err(|_| {
                // Digits that overflow are a number, only too large: saying
                // "not a whole number" sent the user looking for a typo.
                if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
                    format!(
                        "{s:?}: {what} {t:?} is too large (at most {} shares); {HINT}",
                        Self::MAX_COUNT
                    )
                } else {
                    format!("{s:?}: {what} {t:?} is not a whole number; {HINT}")
                }
            })
        };
        Share::new(number(i, "the share")?, number(n, "the count")?)
    }
}

#[cfg(test)]
mod tests {
    use super::Share;

    #[test]
    fn an_overflowing_count_is_too_large_not_a_typo() {
        let e = "1/99999999999999999999".parse::<Share>().unwrap_err();
        assert!(e.contains("is too large"), "{e}");
        let e = "99999999999999999999/2".parse::<Share>().unwrap_err();
        assert!(e.contains("is too large"), "{e}");
        let e = "1/x4".parse::<Share>().unwrap_err();
        assert!(e.contains("is not a whole number"), "{e}");
        let e = "1/-4".parse::<Share>().unwrap_err();
        assert!(e.contains("is not a whole number"), "{e}");
    }
}
