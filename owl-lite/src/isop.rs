//! Small sums of products for truth tables: how the WDBA minimisation and
//! the state merging turn a set of letters back into a guard.

/// An irredundant sum of products between `lower` and `upper` (truth
/// tables over `n` variables, `lower ⊆ upper`), by Minato and Morreale's
/// recursion on the last variable; cubes are `(pos, neg)` variable masks.
/// The guards it builds are what the product searches evaluate on every
/// step, so a few cubes instead of one per letter matter.
pub(crate) fn isop(lower: &[bool], upper: &[bool], n: usize) -> Vec<(usize, usize)> {
    if lower.iter().all(|&b| !b) {
        return Vec::new();
    }
    if upper.iter().all(|&b| b) {
        return vec![(0, 0)];
    }
    debug_assert!(n > 0, "a constant table is handled above");
    let half = lower.len() / 2;
    let var = n - 1;
    let (l0, l1) = lower.split_at(half);
    let (u0, u1) = upper.split_at(half);
    let and_not =
        |a: &[bool], b: &[bool]| -> Vec<bool> { a.iter().zip(b).map(|(&x, &y)| x && !y).collect() };
    let c0 = isop(&and_not(l0, u1), u0, var);
    let c1 = isop(&and_not(l1, u0), u1, var);
    let covers =
        |cubes: &[(usize, usize)], m: usize| cubes.iter().any(|&(p, q)| m & p == p && m & q == 0);
    let rest: Vec<bool> = (0..half)
        .map(|m| (l0[m] && !covers(&c0, m)) || (l1[m] && !covers(&c1, m)))
        .collect();
    let both: Vec<bool> = u0.iter().zip(u1).map(|(&x, &y)| x && y).collect();
    let cs = isop(&rest, &both, var);
    let bit = 1 << var;
    c0.into_iter()
        .map(|(p, q)| (p, q | bit))
        .chain(c1.into_iter().map(|(p, q)| (p | bit, q)))
        .chain(cs)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn isop_covers_exactly_the_onset() {
        // Over 3 variables: on = {x0 & x1} ∪ {!x2}, don't-care none.
        let on: Vec<bool> = (0..8).map(|m| m & 3 == 3 || m & 4 == 0).collect();
        let cubes = isop(&on, &on, 3);
        for (m, &want) in on.iter().enumerate() {
            let got = cubes.iter().any(|&(p, q)| m & p == p && m & q == 0);
            assert_eq!(got, want, "minterm {m}");
        }
        assert_eq!(cubes.len(), 2);
        // Don't-cares may widen the cover, never the onset's complement.
        let upper = vec![true; 8];
        assert_eq!(isop(&on, &upper, 3), vec![(0, 0)]);
    }
}
