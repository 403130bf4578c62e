//! The input guards real drivers need: why a measurement is refused
//! ([`RejectReason`]), the per-sensor counters, the covariance checks and the
//! stamp rules.
//!
//! - `NavSatFix.status.status == STATUS_NO_FIX` and
//!   `position_covariance_type == COVARIANCE_TYPE_UNKNOWN` skip the update
//!   (sensor_msgs/NavSatFix message definition: an unknown covariance carries
//!   no weight to fuse with).
//! - A NaN or ±Inf value or covariance entry, a negative variance, a variance
//!   at or above the sensor's declared `max_variance_*` (so `DBL_MAX`,
//!   `f64::MAX`, is refused) or a covariance that is not positive definite is
//!   refused; nothing of it reaches the state.
//! - A variance below the declared `min_variance_*` (0 included, which some
//!   drivers send) is raised to it and counted (`variance_floored`).
//! - Stamps: see [`effective_time`].

use nalgebra::SMatrix;
use serde::Serialize;

use crate::config::TimeConfig;

/// Why a measurement was not fused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum RejectReason {
    /// `NavSatFix` with `STATUS_NO_FIX`.
    NoFix,
    /// `NavSatFix` with `COVARIANCE_TYPE_UNKNOWN`.
    CovarianceUnknown,
    /// `Imu.angular_velocity_covariance[0] == -1`: the driver says it does
    /// not provide the quantity (sensor_msgs/Imu message definition).
    NotProvided,
    /// A NaN or ±Inf in the value or in a used covariance entry.
    NonFinite,
    /// A negative variance.
    NegativeVariance,
    /// A variance at or above the declared `max_variance_*` (DBL_MAX
    /// included).
    HugeCovariance,
    /// A covariance block that is not positive definite.
    NotPositiveDefinite,
    /// The caller's geodetic conversion failed or returned a non-finite
    /// position.
    ConversionFailed,
    /// Older than the filter time by more than `time.late_tolerance_s`.
    TooOld,
    /// d² above the χ² quantile of the sensor's gate.
    MahalanobisGate,
    /// The consistency monitor refuses GNSS (suspected spoof / drift).
    ConsistencyMonitor,
    /// The innovation covariance was singular (not expected with the
    /// covariance floors; kept so nothing fails silently).
    SingularInnovation,
    /// The sensor is disabled in the configuration.
    Disabled,
}

impl RejectReason {
    /// Every reason, in counter order.
    pub const ALL: [RejectReason; 13] = [
        RejectReason::NoFix,
        RejectReason::CovarianceUnknown,
        RejectReason::NotProvided,
        RejectReason::NonFinite,
        RejectReason::NegativeVariance,
        RejectReason::HugeCovariance,
        RejectReason::NotPositiveDefinite,
        RejectReason::ConversionFailed,
        RejectReason::TooOld,
        RejectReason::MahalanobisGate,
        RejectReason::ConsistencyMonitor,
        RejectReason::SingularInnovation,
        RejectReason::Disabled,
    ];

    /// snake_case name (log messages, diagnostic keys).
    pub fn name(self) -> &'static str {
        match self {
            RejectReason::NoFix => "no_fix",
            RejectReason::CovarianceUnknown => "covariance_unknown",
            RejectReason::NotProvided => "not_provided",
            RejectReason::NonFinite => "non_finite",
            RejectReason::NegativeVariance => "negative_variance",
            RejectReason::HugeCovariance => "huge_covariance",
            RejectReason::NotPositiveDefinite => "not_positive_definite",
            RejectReason::ConversionFailed => "conversion_failed",
            RejectReason::TooOld => "too_old",
            RejectReason::MahalanobisGate => "mahalanobis_gate",
            RejectReason::ConsistencyMonitor => "consistency_monitor",
            RejectReason::SingularInnovation => "singular_innovation",
            RejectReason::Disabled => "disabled",
        }
    }

    fn index(self) -> usize {
        Self::ALL.iter().position(|r| *r == self).unwrap_or(0)
    }
}

/// What a stamp rule did to a message's time (besides nothing).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum StampNote {
    /// The stamp was usable as is (a stamp ahead of the receive time by at
    /// most `future_tolerance_s` is clamped to the receive time, uncounted).
    AsStamped,
    /// Stamp 0: used at the receive time.
    ZeroStamp,
    /// Stamp beyond the future tolerance: used at the receive time.
    FutureStamp,
    /// Older than the filter time within the late tolerance: fused at the
    /// filter time.
    Late,
}

/// Per-sensor counters. `received = fused + Σ rejected`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SensorCounters {
    /// Messages handed to the estimator.
    pub received: u64,
    /// Messages fused into the map-frame filter (wheel and IMU: also into
    /// the odom-frame one).
    pub fused: u64,
    /// Refusals per [`RejectReason::ALL`] index.
    pub rejected: [u64; 13],
    /// Stamp-0 messages used at their receive time.
    pub zero_stamp: u64,
    /// Future-stamped messages used at their receive time.
    pub future_stamp: u64,
    /// Late messages fused at the filter time.
    pub late_fused: u64,
    /// Messages with a variance raised to its floor.
    pub variance_floored: u64,
}

impl SensorCounters {
    /// Refusals for `reason`.
    pub fn rejected(&self, reason: RejectReason) -> u64 {
        self.rejected[reason.index()]
    }
    /// Total refusals.
    pub fn rejected_total(&self) -> u64 {
        self.rejected.iter().sum()
    }
    pub(crate) fn reject(&mut self, reason: RejectReason) {
        self.rejected[reason.index()] += 1;
    }
    pub(crate) fn note(&mut self, note: StampNote) {
        match note {
            StampNote::AsStamped => {}
            StampNote::ZeroStamp => self.zero_stamp += 1,
            StampNote::FutureStamp => self.future_stamp += 1,
            StampNote::Late => self.late_fused += 1,
        }
    }
}

/// The time (ns) a message is fused at, from its stamp, the caller's receive
/// time `now_ns` and the filter time `filter_ns`:
///
/// 1. stamp 0 → `now_ns` ([`StampNote::ZeroStamp`]); a driver without a
///    clock would otherwise be older than the filter forever;
/// 2. stamp > `now_ns + future_tolerance_s` → `now_ns`
///    ([`StampNote::FutureStamp`]); a stamp ahead within the tolerance is
///    clamped to `now_ns`, uncounted (clock skew);
/// 3. a time before `filter_ns` by at most `late_tolerance_s` → `filter_ns`
///    ([`StampNote::Late`]); the filter keeps no history to re-run, so the
///    measurement is fused at the filter time;
/// 4. older → [`RejectReason::TooOld`].
///
/// # Errors
/// [`RejectReason::TooOld`] for rule 4.
pub fn effective_time(
    stamp_ns: i64,
    now_ns: i64,
    filter_ns: i64,
    time: &TimeConfig,
) -> Result<(i64, StampNote), RejectReason> {
    let fut_ns = (time.future_tolerance_s * 1e9).round() as i64;
    let late_ns = (time.late_tolerance_s * 1e9).round() as i64;
    let (t, note) = if stamp_ns == 0 {
        (now_ns, StampNote::ZeroStamp)
    } else if stamp_ns > now_ns.saturating_add(fut_ns) {
        (now_ns, StampNote::FutureStamp)
    } else {
        (stamp_ns.min(now_ns), StampNote::AsStamped)
    };
    if t >= filter_ns {
        Ok((t, note))
    } else if filter_ns - t <= late_ns {
        // A zero/future stamp used at `now_ns` before the filter time keeps
        // its first note: it is counted once.
        let note = if note == StampNote::AsStamped {
            StampNote::Late
        } else {
            note
        };
        Ok((filter_ns, note))
    } else {
        Err(RejectReason::TooOld)
    }
}

/// Checks a measurement value vector.
///
/// # Errors
/// [`RejectReason::NonFinite`] for a NaN or ±Inf.
pub fn check_values(values: &[f64]) -> Result<(), RejectReason> {
    if values.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(RejectReason::NonFinite)
    }
}

/// Checks a measurement covariance `r` (SI units squared) against per-axis
/// floors `min` and limits `max`; returns the covariance with its variances
/// raised to the floors and whether any was raised.
///
/// # Errors
/// In this order: [`RejectReason::NonFinite`] (any entry),
/// [`RejectReason::NegativeVariance`] (a diagonal entry < 0),
/// [`RejectReason::HugeCovariance`] (a diagonal entry ≥ its `max`),
/// [`RejectReason::NotPositiveDefinite`] (no Cholesky factor after the
/// floors).
pub fn check_covariance<const D: usize>(
    r: &SMatrix<f64, D, D>,
    min: &[f64; D],
    max: &[f64; D],
) -> Result<(SMatrix<f64, D, D>, bool), RejectReason> {
    if r.iter().any(|v| !v.is_finite()) {
        return Err(RejectReason::NonFinite);
    }
    for i in 0..D {
        if r[(i, i)] < 0.0 {
            return Err(RejectReason::NegativeVariance);
        }
        if r[(i, i)] >= max[i] {
            return Err(RejectReason::HugeCovariance);
        }
    }
    let mut out = 0.5 * (r + r.transpose());
    let mut floored = false;
    for i in 0..D {
        if out[(i, i)] < min[i] {
            out[(i, i)] = min[i];
            floored = true;
        }
    }
    if out.cholesky().is_none() {
        return Err(RejectReason::NotPositiveDefinite);
    }
    Ok((out, floored))
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: TimeConfig = TimeConfig {
        future_tolerance_s: 0.1,
        late_tolerance_s: 0.5,
    };
    const S: i64 = 1_000_000_000;

    #[test]
    fn stamp_rules() {
        // Now 10 s, filter at 9 s.
        assert_eq!(
            effective_time(9_500_000_000, 10 * S, 9 * S, &T),
            Ok((9_500_000_000, StampNote::AsStamped))
        );
        assert_eq!(
            effective_time(0, 10 * S, 9 * S, &T),
            Ok((10 * S, StampNote::ZeroStamp))
        );
        assert_eq!(
            effective_time(10 * S + 50_000_000, 10 * S, 9 * S, &T),
            Ok((10 * S, StampNote::AsStamped))
        );
        assert_eq!(
            effective_time(10 * S + 100_000_001, 10 * S, 9 * S, &T),
            Ok((10 * S, StampNote::FutureStamp))
        );
        assert_eq!(
            effective_time(8_500_000_000, 10 * S, 9 * S, &T),
            Ok((9 * S, StampNote::Late))
        );
        assert_eq!(
            effective_time(8_499_999_999, 10 * S, 9 * S, &T),
            Err(RejectReason::TooOld)
        );
    }

    #[test]
    fn covariance_checks() {
        let min = [1e-4, 1e-4];
        let max = [1e6, 1e6];
        let ok = SMatrix::<f64, 2, 2>::new(0.25, 0.0, 0.0, 0.25);
        assert_eq!(check_covariance(&ok, &min, &max), Ok((ok, false)));
        let zero = SMatrix::<f64, 2, 2>::zeros();
        let (z, floored) = check_covariance(&zero, &min, &max).unwrap();
        assert!(floored);
        assert_eq!(z[(0, 0)], 1e-4);
        let nan = SMatrix::<f64, 2, 2>::new(0.25, f64::NAN, 0.0, 0.25);
        assert_eq!(
            check_covariance(&nan, &min, &max),
            Err(RejectReason::NonFinite)
        );
        let neg = SMatrix::<f64, 2, 2>::new(-0.25, 0.0, 0.0, 0.25);
        assert_eq!(
            check_covariance(&neg, &min, &max),
            Err(RejectReason::NegativeVariance)
        );
        let huge = SMatrix::<f64, 2, 2>::new(f64::MAX, 0.0, 0.0, 0.25);
        assert_eq!(
            check_covariance(&huge, &min, &max),
            Err(RejectReason::HugeCovariance)
        );
        let at_limit = SMatrix::<f64, 2, 2>::new(0.25, 0.0, 0.0, 1e6);
        assert_eq!(
            check_covariance(&at_limit, &min, &max),
            Err(RejectReason::HugeCovariance)
        );
        let not_pd = SMatrix::<f64, 2, 2>::new(1.0, 2.0, 2.0, 1.0);
        assert_eq!(
            check_covariance(&not_pd, &min, &max),
            Err(RejectReason::NotPositiveDefinite)
        );
    }

    #[test]
    fn reason_names_are_unique() {
        let mut names: Vec<_> = RejectReason::ALL.iter().map(|r| r.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), RejectReason::ALL.len());
    }
}
