//! Name lookup with "did you mean" suggestions.
//!
//! A typo in a formula must never turn a property into one that holds
//! vacuously, so every name an atom mentions is checked against the names
//! that exist, and the error proposes the closest one. [`closest`] is
//! public so that every front end of the tool (formula atoms, `.owl`
//! suites, the command line) suggests names the same way.

/// Edit distance with adjacent transpositions (optimal string alignment),
/// by characters: `blakc` is one edit from `black`.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let w = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * w];
    for i in 0..=a.len() {
        for j in 0..=b.len() {
            d[i * w + j] = if i == 0 || j == 0 {
                i + j
            } else {
                let mut best = (d[(i - 1) * w + j] + 1)
                    .min(d[i * w + j - 1] + 1)
                    .min(d[(i - 1) * w + j - 1] + usize::from(a[i - 1] != b[j - 1]));
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    best = best.min(d[(i - 2) * w + j - 2] + 1);
                }
                best
            };
        }
    }
    d[a.len() * w + b.len()]
}

/// The known name closest to `name`, if it is close enough to be a likely
/// typo: at most a third of the longer name's length (at least 1) edits
/// away, ignoring case (an exact match but for case is the best); an
/// adjacent transposition is one edit. Among equally close names, the
/// first.
///
/// ```
/// use engine::names::closest;
/// assert_eq!(closest("blakc", ["white", "black"]), Some("black"));
/// assert_eq!(closest("White", ["white", "black"]), Some("white"));
/// assert_eq!(closest("zebra", ["white", "black"]), None);
/// ```
pub fn closest<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = name.to_lowercase();
    let mut best: Option<(usize, &str)> = None;
    for k in known {
        let d = edit_distance(&lower, &k.to_lowercase()) * 2 + usize::from(name != k);
        let budget = 2 * name
            .chars()
            .count()
            .max(k.chars().count())
            .div_ceil(3)
            .max(1)
            + 1;
        if d <= budget && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, k));
        }
    }
    best.map(|(_, k)| k)
}

/// Whether `text` matches the glob `pattern`, in which `*` stands for any
/// (possibly empty) sequence of characters.
pub(crate) fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    // Classic greedy matcher with backtracking to the last star.
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if pi < p.len() && p[pi] == t[ti] {
            pi += 1;
            ti += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("", ""), 0);
        assert_eq!(edit_distance("white", "white"), 0);
        assert_eq!(edit_distance("whte", "white"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("blakc", "black"), 1);
    }

    #[test]
    fn suggestions() {
        assert_eq!(closest("whte", ["white", "black"]), Some("white"));
        assert_eq!(closest("White", ["white", "black"]), Some("white"));
        assert_eq!(closest("zebra", ["white", "black"]), None);
        assert_eq!(
            closest("worker_2", ["worker_1", "worker_22", "master"]),
            Some("worker_1")
        );
    }

    #[test]
    fn globs() {
        assert!(glob_match("*", ""));
        assert!(glob_match("worker_*", "worker_12"));
        assert!(glob_match("w*r*2", "worker_12"));
        assert!(!glob_match("w*r*3", "worker_12"));
        assert!(glob_match("white", "white"));
        assert!(!glob_match("white", "whites"));
        assert!(glob_match("*s", "whites"));
    }
}
