//! Pairwise (all-pairs, strength-2 covering) designs of discrete axes
//! (REQ-STAT-PAIRWISE, seed 004 "Pokrycie fault space": pairwise designs
//! for chosen axes).
//!
//! A row gives each axis one value index; the rows cover every pair of
//! values of every two axes at least once, with far fewer rows than the
//! full grid when there are three or more axes (3 axes of 3 values: 9 or
//! 10 rows against 27). The construction is the greedy one of AETG (D. M.
//! Cohen, S. R. Dalal, M. L. Fredman, G. C. Patton, "The AETG system", IEEE
//! TSE 23 (1997) 437–444), made deterministic: each row is the best of
//! candidates started from the first 64 uncovered pairs (axes, then values,
//! in order), each filling the other axes in order with the value covering
//! the most uncovered pairs with the values already set (on a tie, the value
//! in the most uncovered pairs overall, then the lowest index). The rows are
//! returned in grid order (the first axis slowest). Its cost is polynomial
//! in the number of pairs, whatever the grid's size.
//!
//! What it does not claim: a fault that shows only in a combination of
//! three or more axes' values may be missed; and the rows are not the
//! fewest possible (minimal covering arrays are NP-hard in general).

use std::collections::BTreeSet;

/// A pair of values of two axes: `(axis i, value a, axis j, value b)`, `i < j`.
type Pair = (usize, usize, usize, usize);

/// Candidate rows tried per row.
const CANDIDATES: usize = 64;

/// The uncovered pairs `row` covers.
fn newly_covered(uncovered: &BTreeSet<Pair>, row: &[usize]) -> usize {
    let mut n = 0;
    for m in 0..row.len() {
        for k in m + 1..row.len() {
            n += usize::from(uncovered.contains(&(m, row[m], k, row[k])));
        }
    }
    n
}

/// A row through pair `(i, a, j, b)`, the other axes filled in order, each
/// with the value covering the most uncovered pairs with the values set
/// (on a tie, the value in most uncovered pairs overall, then the lowest).
fn fill(
    sizes: &[usize],
    uncovered: &BTreeSet<Pair>,
    open: &[Vec<usize>],
    (i, a, j, b): Pair,
) -> Vec<usize> {
    let mut row: Vec<Option<usize>> = vec![None; sizes.len()];
    row[i] = Some(a);
    row[j] = Some(b);
    for k in 0..sizes.len() {
        if row[k].is_some() {
            continue;
        }
        let gain = |v: usize| {
            row.iter()
                .enumerate()
                .filter_map(|(m, x)| x.map(|x| (m, x)))
                .filter(|&(m, x)| {
                    let p = if m < k { (m, x, k, v) } else { (k, v, m, x) };
                    uncovered.contains(&p)
                })
                .count()
        };
        let best = (0..sizes[k])
            .map(|v| (gain(v), open[k][v], std::cmp::Reverse(v)))
            .max()
            .map_or(0, |(_, _, std::cmp::Reverse(v))| v);
        row[k] = Some(best);
    }
    row.into_iter().map(|x| x.unwrap_or(0)).collect()
}

/// The covering rows for axes of `sizes` values each (every size ≥ 1).
/// With fewer than two axes, every value (the grid).
pub fn pairwise_rows(sizes: &[usize]) -> Vec<Vec<usize>> {
    if sizes.len() < 2 {
        return (0..sizes.first().copied().unwrap_or(0))
            .map(|v| vec![v])
            .collect();
    }
    let mut uncovered: BTreeSet<Pair> = BTreeSet::new();
    for i in 0..sizes.len() {
        for j in i + 1..sizes.len() {
            for a in 0..sizes[i] {
                for b in 0..sizes[j] {
                    uncovered.insert((i, a, j, b));
                }
            }
        }
    }
    // open[k][v]: the uncovered pairs value v of axis k is in
    let mut open: Vec<Vec<usize>> = sizes
        .iter()
        .enumerate()
        .map(|(k, &n)| {
            vec![
                sizes
                    .iter()
                    .enumerate()
                    .filter(|&(m, _)| m != k)
                    .map(|(_, s)| s)
                    .sum();
                n
            ]
        })
        .collect();
    let mut rows = Vec::new();
    while !uncovered.is_empty() {
        // candidate rows from the first uncovered pairs; keep the one that
        // covers the most (the first on a tie)
        let best = uncovered
            .iter()
            .take(CANDIDATES)
            .map(|&p| fill(sizes, &uncovered, &open, p))
            .map(|r| (newly_covered(&uncovered, &r), std::cmp::Reverse(r)))
            .max()
            .map(|(_, std::cmp::Reverse(r))| r)
            .expect("uncovered is not empty");
        for m in 0..best.len() {
            for n in m + 1..best.len() {
                if uncovered.remove(&(m, best[m], n, best[n])) {
                    open[m][best[m]] -= 1;
                    open[n][best[n]] -= 1;
                }
            }
        }
        rows.push(best);
    }
    rows.sort();
    rows.dedup();
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn covers_every_pair(sizes: &[usize], rows: &[Vec<usize>]) -> bool {
        (0..sizes.len()).all(|i| {
            (i + 1..sizes.len()).all(|j| {
                (0..sizes[i])
                    .all(|a| (0..sizes[j]).all(|b| rows.iter().any(|r| r[i] == a && r[j] == b)))
            })
        })
    }

    #[test]
    fn every_pair_is_covered_with_fewer_rows_than_the_grid() {
        for (sizes, at_most) in [
            (vec![3, 3, 3], 10),
            (vec![2, 2, 2, 2], 6),
            (vec![4, 3, 2], 12),
            (vec![3, 3, 3, 3], 9),
            (vec![5, 5, 5], 26),
            (vec![2; 10], 9),
            (vec![10; 10], 160),
        ] {
            let rows = pairwise_rows(&sizes);
            let grid: usize = sizes.iter().product();
            eprintln!("{sizes:?}: {} rows (grid {grid})", rows.len());
            assert!(covers_every_pair(&sizes, &rows), "{sizes:?}: {rows:?}");
            assert!(
                rows.len() <= at_most && rows.len() < grid,
                "{sizes:?}: {} rows",
                rows.len()
            );
            assert!(
                rows.windows(2).all(|w| w[0] < w[1]),
                "grid order, no duplicate"
            );
        }
    }

    #[test]
    fn two_axes_need_the_grid_and_one_axis_is_its_values() {
        assert_eq!(pairwise_rows(&[2, 3]).len(), 6);
        assert_eq!(pairwise_rows(&[3]), vec![vec![0], vec![1], vec![2]]);
        // a missing pair is caught by the check itself
        assert!(!covers_every_pair(
            &[2, 2, 2],
            &[vec![0, 0, 0], vec![1, 1, 1]]
        ));
    }
}
