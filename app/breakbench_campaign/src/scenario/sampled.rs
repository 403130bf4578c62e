//! Sampled designs of continuous fault parameters (REQ-STAT-SAMPLED, seed
//! 004 "Pokrycie fault space": Monte Carlo for continuous parameters):
//! instead of a grid, `samples` points of the box of the axes' ranges, each
//! a cell with its runs.
//!
//! ```yaml
//! design: {kind: latin_hypercube, samples: 16, seed: 3}
//! axes:
//!   - {name: latency_s, channel: scan, mode: delay, parameter: delay_s,
//!      range: {min: 0.0, max: 0.8}}
//! ```
//!
//! - `latin_hypercube`: each axis' range is cut into `samples` equal strata
//!   and every stratum holds exactly one point; the strata are paired
//!   across axes by seeded random permutations, the point placed uniformly
//!   in its stratum (M. D. McKay, R. J. Beckman, W. J. Conover, "A
//!   comparison of three methods for selecting values of input variables
//!   in the analysis of output from a computer code", Technometrics 21
//!   (1979) 239–245).
//! - `sobol`: the first `samples` points of the Sobol' sequence (Gray-code
//!   order, I. A. Antonov, V. M. Saleev, USSR Comput. Math. Math. Phys. 19
//!   (1979) 252–256) with the direction numbers of S. Joe and F. Y. Kuo,
//!   "Constructing Sobol sequences with better two-dimensional projections",
//!   SIAM J. Sci. Comput. 30 (2008) 2635–2654 (file `new-joe-kuo-6.21201`,
//!   its first [`MAX_SOBOL_AXES`] dimensions), with a seeded random digital
//!   shift (each coordinate's 32 bits XOR a seeded word), which keeps the
//!   sequence's net structure. Unshifted, the points equal scipy's
//!   `qmc.Sobol(scramble=False)` (held by a unit test). Its balance
//!   properties hold for `samples` a power of two.
//!
//! A point's value on an axis is `min + (max - min)·u`, `u` in `[0, 1)`,
//! rounded to `d` decimals: the fewest from `4 - floor(log10(max - min))`
//! up that keep the axis' values distinct (so run ids stay short and every
//! point is its own cell), then held in `[min, max]`. The points are
//! recomputed from the scenario file alone (so `analyze`, resume and shards
//! see the same cells) and recorded in campaign.json's plan (each run's
//! cell) and in summary.json's `design.points`.
//!
//! What it does not claim: a sampled design estimates P at scattered
//! points; with one point per cell (repeats runs each) a cell's p̂ is
//! coarse, and the information is in the dose-response fit over all of them
//! ([`crate::dose`], s* at the other axes' `reference` values).

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use kraken_interfaces::seed::{derive_seed, named_stream};
use rand::RngExt as _;

use super::{Axis, ScenarioFile};

/// Most fault axes a Sobol' design samples (the direction numbers held).
pub const MAX_SOBOL_AXES: usize = 16;

/// Joe–Kuo `new-joe-kuo-6.21201` rows for dimensions 2..=16: `(s, a, m_1..m_s)`.
const JOE_KUO: [(u32, u32, &[u32]); MAX_SOBOL_AXES - 1] = [
    (1, 0, &[1]),
    (2, 1, &[1, 3]),
    (3, 1, &[1, 3, 1]),
    (3, 2, &[1, 1, 1]),
    (4, 1, &[1, 1, 3, 3]),
    (4, 4, &[1, 3, 5, 13]),
    (5, 2, &[1, 1, 5, 5, 17]),
    (5, 4, &[1, 1, 5, 5, 5]),
    (5, 7, &[1, 1, 7, 11, 19]),
    (5, 11, &[1, 1, 5, 1, 1]),
    (5, 13, &[1, 1, 1, 3, 11]),
    (5, 14, &[1, 3, 5, 5, 31]),
    (6, 1, &[1, 3, 3, 9, 7, 49]),
    (6, 13, &[1, 1, 1, 15, 21, 21]),
    (6, 16, &[1, 3, 1, 13, 27, 49]),
];

/// How a sampled design places its points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SampleKind {
    LatinHypercube,
    Sobol,
}

/// `design: {kind, samples, seed}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sampling {
    pub kind: SampleKind,
    /// Points (cells), in [2, 10000].
    pub samples: usize,
    /// The design's own seed (the runs keep the scenario's `seed`), any u64.
    pub seed: u64,
}

/// A sampled axis' range, in the axis' unit (its FaultSpec parameter's,
/// like `values`), each end in [-2^32, 2^32], `min < max`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AxisRange {
    pub min: f64,
    pub max: f64,
    /// Where this axis is held when s* is taken along another axis
    /// (REQ-STAT-SAMPLED); in `[min, max]`, default `min`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<f64>,
}

impl AxisRange {
    /// The reference value: `reference`, or `min`.
    pub fn reference(&self) -> f64 {
        self.reference.unwrap_or(self.min)
    }
}

/// Which combinations of the axes' values are cells.
///
/// ```yaml
/// design: pairwise   # every pair of values of every two axes, not every combination
/// design: {kind: sobol, samples: 16, seed: 3}   # 16 points of the axes' ranges
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Design {
    /// Every combination (the full grid).
    #[default]
    Grid,
    /// A strength-2 covering array ([`super::pairwise`]): every
    /// pair of values of every two axes in at least one cell; needs three
    /// or more axes (with two it is the grid).
    Pairwise,
    /// Points of the axes' ranges (this module).
    Sampled(Sampling),
}

impl Design {
    /// The default: serialised only when not.
    pub fn is_grid(&self) -> bool {
        *self == Design::Grid
    }

    /// The sampling, for a sampled design.
    pub fn sampling(&self) -> Option<&Sampling> {
        match self {
            Design::Sampled(s) => Some(s),
            _ => None,
        }
    }
}

impl Serialize for Design {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Design::Grid => s.serialize_str("grid"),
            Design::Pairwise => s.serialize_str("pairwise"),
            Design::Sampled(x) => x.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for Design {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Design;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("`grid`, `pairwise` or {kind: latin_hypercube|sobol, samples, seed}")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Design, E> {
                match v {
                    "grid" => Ok(Design::Grid),
                    "pairwise" => Ok(Design::Pairwise),
                    _ => Err(E::unknown_variant(v, &["grid", "pairwise"])),
                }
            }
            fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<Design, A::Error> {
                Sampling::deserialize(de::value::MapAccessDeserializer::new(m)).map(Design::Sampled)
            }
        }
        d.deserialize_any(V)
    }
}

/// The unit-cube points of a design: `samples` rows of `dims` coordinates
/// in `[0, 1)`, in the order drawn.
pub fn unit_points(s: &Sampling, names: &[&str]) -> Vec<Vec<f64>> {
    match s.kind {
        SampleKind::LatinHypercube => latin_hypercube(s.samples, names, s.seed),
        SampleKind::Sobol => {
            let shift: Vec<u32> = names
                .iter()
                .map(|n| named_stream(derive_seed(s.seed, "sobol"), n).random::<u32>())
                .collect();
            sobol(s.samples, names.len(), &shift)
        }
    }
}

/// A Latin hypercube of `n` points over axes `names` (one seeded stream
/// per axis name: `derive_seed(seed, "latin_hypercube")`, stream the name):
/// a Fisher–Yates permutation of the strata, then a uniform offset in each.
pub fn latin_hypercube(n: usize, names: &[&str], seed: u64) -> Vec<Vec<f64>> {
    let mut out = vec![vec![0.0; names.len()]; n];
    for (k, name) in names.iter().enumerate() {
        let mut rng = named_stream(derive_seed(seed, "latin_hypercube"), name);
        let mut perm: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            let j = ((rng.random::<f64>() * (i + 1) as f64) as usize).min(i);
            perm.swap(i, j);
        }
        for (i, row) in out.iter_mut().enumerate() {
            row[k] = (perm[i] as f64 + rng.random::<f64>()) / n as f64;
        }
    }
    out
}

/// The first `n` points of the `dims`-dimensional Sobol' sequence (`dims` at
/// most [`MAX_SOBOL_AXES`]), coordinate `k` XOR `shift[k]` (0: unshifted).
///
/// # Panics
/// If `dims` exceeds [`MAX_SOBOL_AXES`] (refused at load).
pub fn sobol(n: usize, dims: usize, shift: &[u32]) -> Vec<Vec<f64>> {
    let v: Vec<[u32; 32]> = (0..dims).map(direction_numbers).collect();
    let mut x = vec![0u32; dims];
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        if i > 0 {
            let c = ((i - 1).trailing_ones() as usize).min(31);
            for (xk, vk) in x.iter_mut().zip(&v) {
                *xk ^= vk[c];
            }
        }
        out.push(
            x.iter()
                .zip(shift)
                .map(|(a, b)| f64::from(a ^ b) / 4_294_967_296.0)
                .collect(),
        );
    }
    out
}

/// The 32 direction numbers of dimension `k` (0-based), scaled to 32 bits.
fn direction_numbers(k: usize) -> [u32; 32] {
    let mut v = [0u32; 32];
    if k == 0 {
        for (i, x) in v.iter_mut().enumerate() {
            *x = 1 << (31 - i);
        }
        return v;
    }
    let (s, a, m) = JOE_KUO[k - 1];
    let s = s as usize;
    for i in 0..32 {
        v[i] = if i < s {
            m[i] << (31 - i)
        } else {
            let mut x = v[i - s] ^ (v[i - s] >> s);
            for l in 1..s {
                if (a >> (s - 1 - l)) & 1 == 1 {
                    x ^= v[i - l];
                }
            }
            x
        };
    }
    v
}

/// A sampled design's cells: per axis its distinct values (sorted), and
/// per point (in the order drawn) the index of its value on each axis.
pub type SampledCells = (Vec<Vec<f64>>, Vec<Vec<usize>>);

/// `u` in `[0, 1)` mapped onto each axis' range, rounded as the module
/// says: per axis, its distinct sorted values, and per point the index of
/// its value on each axis (the point order kept).
pub fn scale(points: &[Vec<f64>], axes: &[&Axis]) -> SampledCells {
    let mut values = Vec::with_capacity(axes.len());
    let mut rows = vec![Vec::with_capacity(axes.len()); points.len()];
    for (k, a) in axes.iter().enumerate() {
        let r = a.range.unwrap_or(AxisRange {
            min: 0.0,
            max: 1.0,
            reference: None,
        });
        let width = r.max - r.min;
        let raw: Vec<f64> = points.iter().map(|p| r.min + width * p[k]).collect();
        let (sorted, index) = round_distinct(&raw, width, (r.min, r.max));
        for (row, i) in rows.iter_mut().zip(index) {
            row.push(i);
        }
        values.push(sorted);
    }
    (values, rows)
}

/// `raw` rounded to the fewest decimals from `4 - floor(log10(width))` up
/// (at most 12 more) that keep its values distinct, each held in
/// `[lo, hi]`: the distinct values sorted, and each raw value's index
/// among them.
pub fn round_distinct(raw: &[f64], width: f64, (lo, hi): (f64, f64)) -> (Vec<f64>, Vec<usize>) {
    let d0 = if width > 0.0 {
        (4 - width.log10().floor() as i32).clamp(0, 20) as usize
    } else {
        0
    };
    let col = |d: usize| -> Vec<f64> {
        raw.iter()
            .map(|x| {
                let v: f64 = format!("{x:.d$}").parse().unwrap_or(lo);
                v.clamp(lo, hi)
            })
            .collect()
    };
    let mut d = d0;
    loop {
        let c = col(d);
        let mut sorted = c.clone();
        sorted.sort_by(f64::total_cmp);
        sorted.dedup();
        if sorted.len() == c.len() || d >= d0 + 12 {
            let index = c
                .iter()
                .map(|v| sorted.partition_point(|x| x < v))
                .collect();
            return (sorted, index);
        }
        d += 1;
    }
}

impl ScenarioFile {
    /// A sampled design's per-axis values (sorted) and its points as value
    /// indices per axis, in the order drawn ([`unit_points`], [`scale`]),
    /// or a `rare_event:` section's draws ([`super::rare_event`]); `None`
    /// for a grid or pairwise design.
    pub fn sampled(&self) -> Option<SampledCells> {
        if let Some(r) = &self.rare_event {
            // one axis (checked at load): θ's draws, to 4 decimals of sd
            let (values, index) = round_distinct(&r.draws(), r.sd, (f64::MIN, f64::MAX));
            let rows = index.into_iter().map(|i| vec![i]).collect();
            return Some((vec![values; self.axes.len().min(1)], rows));
        }
        let s = self.design.sampling()?;
        let names: Vec<&str> = self.axes.iter().map(|a| a.name.as_str()).collect();
        let axes: Vec<&Axis> = self.axes.iter().collect();
        Some(scale(&unit_points(s, &names), &axes))
    }

    /// Each fault axis' reference value (its range's `reference`, else
    /// `min`) for a sampled design: where the others are held for s*.
    pub fn references(&self) -> Option<std::collections::BTreeMap<String, f64>> {
        self.design.sampling()?;
        Some(
            self.axes
                .iter()
                .filter_map(|a| a.range.map(|r| (a.name.clone(), r.reference())))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unshifted_sobol_points_equal_scipy() {
        // scipy.stats.qmc.Sobol(d=4, scramble=False).random(8)
        let want = [
            [0.0, 0.0, 0.0, 0.0],
            [0.5, 0.5, 0.5, 0.5],
            [0.75, 0.25, 0.25, 0.25],
            [0.25, 0.75, 0.75, 0.75],
            [0.375, 0.375, 0.625, 0.875],
            [0.875, 0.875, 0.125, 0.375],
            [0.625, 0.125, 0.875, 0.625],
            [0.125, 0.625, 0.375, 0.125],
        ];
        let got = sobol(8, 4, &[0; 4]);
        for (g, w) in got.iter().zip(want) {
            assert_eq!(g.as_slice(), w.as_slice());
        }
        // scipy, d=16, point 11 (0-based) of the unscrambled sequence
        let p = &sobol(12, 16, &[0; 16])[11];
        let want11 = [
            0.4375, 0.5625, 0.1875, 0.6875, 0.8125, 0.0625, 0.6875, 0.6875, 0.6875, 0.0625, 0.9375,
            0.3125, 0.1875, 0.1875, 0.5625, 0.1875,
        ];
        assert_eq!(p.as_slice(), want11.as_slice());
    }

    #[test]
    fn a_latin_hypercube_puts_one_point_in_every_stratum_of_every_axis() {
        let names = ["a", "b", "c"];
        let pts = latin_hypercube(10, &names, 7);
        for k in 0..3 {
            let mut strata: Vec<usize> = pts.iter().map(|p| (p[k] * 10.0) as usize).collect();
            strata.sort_unstable();
            assert_eq!(strata, (0..10).collect::<Vec<_>>(), "axis {k}");
        }
        assert_eq!(pts, latin_hypercube(10, &names, 7), "seeded");
        assert_ne!(pts, latin_hypercube(10, &names, 8), "the seed matters");
    }

    #[test]
    fn a_shifted_sobol_design_keeps_its_strata() {
        let s = Sampling {
            kind: SampleKind::Sobol,
            samples: 16,
            seed: 5,
        };
        let pts = unit_points(&s, &["x", "y"]);
        // a (0,4,2)-net in base 2: every 1/4 x 1/4 box holds one point
        let mut boxes: Vec<(usize, usize)> = pts
            .iter()
            .map(|p| ((p[0] * 4.0) as usize, (p[1] * 4.0) as usize))
            .collect();
        boxes.sort_unstable();
        boxes.dedup();
        assert_eq!(boxes.len(), 16);
        assert_ne!(pts[0], vec![0.0, 0.0], "shifted off the origin");
    }

    #[test]
    fn the_design_reads_as_a_name_or_a_sampling() {
        let d: Design = serde_yaml_ng::from_str("pairwise").unwrap();
        assert_eq!(d, Design::Pairwise);
        let d: Design = serde_yaml_ng::from_str("{kind: sobol, samples: 8, seed: 1}").unwrap();
        assert_eq!(d.sampling().map(|s| s.samples), Some(8));
        let e = serde_yaml_ng::from_str::<Design>("{kind: sobol, sample: 8, seed: 1}")
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown field `sample`"), "{e}");
        let e = serde_yaml_ng::from_str::<Design>("latin")
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown variant `latin`"), "{e}");
        assert_eq!(
            serde_json::to_string(&d).unwrap(),
            r#"{"kind":"sobol","samples":8,"seed":1}"#
        );
    }
}
