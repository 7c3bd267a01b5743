//! Name lookup with "did you mean" suggestions.
//!
//! A typo in a formula must never turn a property into one that holds
//! vacuously, so every name an atom mentions is checked against the names
//! that exist, and the error proposes the closest one. [`closest`] is
//! public so that every front end of the tool (formula atoms, `.owl`
//! suites, the command line) suggests names the same way.

/// Names longer than this (in characters) get no suggestion. A typo is
/// suggested for names people type; comparing two long names costs time
/// proportional to the product of their lengths, and a formula or a suite
/// file may contain names of any length.
pub const MAX_SUGGESTION_LEN: usize = 256;

/// Edit distance with adjacent transpositions (optimal string alignment),
/// by characters: `blakc` is one edit from `black`. Keeps three rows of
/// the matrix (the transposition looks two rows back), each as long as the
/// shorter name, so memory is O(min(|a|, |b|)).
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // The distance is symmetric: run along the shorter name.
    let (a, b) = if a.len() < b.len() { (b, a) } else { (a, b) };
    let w = b.len() + 1;
    let mut two_back = vec![0usize; w];
    let mut prev: Vec<usize> = (0..w).collect();
    let mut cur = vec![0usize; w];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..w {
            let mut best = (prev[j] + 1)
                .min(cur[j - 1] + 1)
                .min(prev[j - 1] + usize::from(a[i - 1] != b[j - 1]));
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(two_back[j - 2] + 1);
            }
            cur[j] = best;
        }
        // Rotate: two_back <- prev <- cur, reusing the oldest row.
        std::mem::swap(&mut two_back, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The known name closest to `name`, if it is close enough to be a likely
/// typo: at most a third of the longer name's length (at least 1) edits
/// away, ignoring case (an exact match but for case is the best); an
/// adjacent transposition is one edit. Among equally close names, the
/// first. Names (given or known) longer than [`MAX_SUGGESTION_LEN`]
/// characters are not compared, so a huge name costs no more than reading
/// it.
///
/// ```
/// use engine::names::closest;
/// assert_eq!(closest("blakc", ["white", "black"]), Some("black"));
/// assert_eq!(closest("White", ["white", "black"]), Some("white"));
/// assert_eq!(closest("zebra", ["white", "black"]), None);
/// let long = "w".repeat(60_000);
/// assert_eq!(closest(&long, [long.as_str()]), None);
/// ```
pub fn closest<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let len = name.chars().take(MAX_SUGGESTION_LEN + 1).count();
    if len > MAX_SUGGESTION_LEN {
        return None;
    }
    let lower = name.to_lowercase();
    let mut best: Option<(usize, &str)> = None;
    for k in known {
        let k_len = k.chars().take(MAX_SUGGESTION_LEN + 1).count();
        if k_len > MAX_SUGGESTION_LEN {
            continue;
        }
        let budget = 2 * len.max(k_len).div_ceil(3).max(1) + 1;
        // The distance is at least the difference in length: skip names
        // that cannot be close enough without filling a matrix.
        if 2 * len.abs_diff(k_len) > budget {
            continue;
        }
        let d = edit_distance(&lower, &k.to_lowercase()) * 2 + usize::from(name != k);
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

/// Why `name` cannot be a role name, if it cannot: a role is named in a
/// formula's atom as one token (`"ROLE SEND ..."`), so its name is not
/// empty and has no white space, no control character, no `*` (which an
/// atom reads as a wildcard), no `"` or `\` (which end or escape the
/// atom) and none of `(`, `)` and `,` (which delimit names in `.aut`
/// labels). Front ends that read names from text (`.aut` labels) check
/// them with this rule.
///
/// ```
/// use engine::names::role_name_error;
/// assert_eq!(role_name_error("worker_1_"), None);
/// assert_eq!(role_name_error("my-role"), None);
/// assert!(role_name_error("a b").unwrap().contains("white space"));
/// assert!(role_name_error("").is_some());
/// ```
pub fn role_name_error(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("a role name cannot be empty".into());
    }
    let bad = name.chars().find(|&c| {
        c.is_whitespace() || c.is_control() || matches!(c, '*' | '"' | '\\' | '(' | ')' | ',')
    })?;
    Some(match bad {
        c if c.is_whitespace() => "a role name cannot contain white space".into(),
        c if c.is_control() => format!(
            "a role name cannot contain the control character {}",
            c.escape_debug()
        ),
        c => format!("a role name cannot contain `{c}`"),
    })
}

/// Why `name` cannot be the name of a message type that a protocol
/// declares, if it cannot: a protocol's types are short names
/// ([`Protocol::type_names`](crate::Protocol::type_names)), which a
/// formula's atom names as `<Short>`, so a name is letters, digits and
/// `_`, not empty, and not a path (`a::Move` is the path of a Rust type,
/// whose short name is `Move`).
///
/// ```
/// use engine::names::type_name_error;
/// assert_eq!(type_name_error("Move"), None);
/// assert_eq!(type_name_error("Move_2"), None);
/// assert!(type_name_error("M\"").is_some());
/// assert!(type_name_error("chess::Move").unwrap().contains("short name"));
/// ```
pub fn type_name_error(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("a type name cannot be empty".into());
    }
    if name.contains("::") {
        return Some(format!(
            "a protocol's type is a short name (`{}`), not a path",
            name.rsplit("::").next().unwrap_or(name)
        ));
    }
    let c = name.chars().find(|&c| !(c.is_alphanumeric() || c == '_'))?;
    let shown = if c.is_control() || c.is_whitespace() {
        c.escape_debug().to_string()
    } else {
        c.to_string()
    };
    Some(format!(
        "a type name is letters, digits and `_`, not `{shown}`"
    ))
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
        assert_eq!(edit_distance("ca", "abc"), 3);
        assert_eq!(edit_distance("abc", "ca"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("abcd", "badc"), 2);
    }

    /// The rolling-row distance equals the full-matrix one it replaced.
    #[test]
    fn distance_matches_the_full_matrix() {
        fn full(a: &str, b: &str) -> usize {
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
        let words = [
            "",
            "a",
            "ab",
            "ba",
            "abc",
            "acb",
            "bca",
            "worker_1",
            "wokrer_12",
            "black",
            "blakc",
            "éa",
            "aé",
        ];
        for a in words {
            for b in words {
                assert_eq!(edit_distance(a, b), full(a, b), "{a:?} {b:?}");
            }
        }
    }

    /// Two 60,000-character names once needed a 28 GB matrix: now they get
    /// no suggestion, at once.
    #[test]
    fn huge_names_get_no_suggestion() {
        let a = "a".repeat(60_000);
        let b = format!("{}b", "a".repeat(59_999));
        assert_eq!(closest(&a, [b.as_str()]), None);
        assert_eq!(closest("black", [a.as_str(), "blakc"]), Some("blakc"));
        assert_eq!(closest(&a, ["black"]), None);
        let at_limit = "x".repeat(MAX_SUGGESTION_LEN);
        let typo = format!("{}y", "x".repeat(MAX_SUGGESTION_LEN - 1));
        assert_eq!(closest(&typo, [at_limit.as_str()]), Some(at_limit.as_str()));
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
