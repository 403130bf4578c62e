//! The world's geodetic datum and the exact WGS84 conversions between
//! geodetic coordinates (latitude, longitude, ellipsoidal height), geocentric
//! ECEF coordinates and the world's local east-north-up frame.
//!
//! Convention (REP-103, REP-105): the world frame is ENU with its origin at
//! the datum: `x` east, `y` north, `z` up along the ellipsoid normal at the
//! datum (GeographicLib's `LocalCartesian`: the plane `z = -altitude_m` is
//! tangent to the ellipsoid). No flat-earth step: a world point goes
//! ENU → ECEF (a rotation and a translation) → geodetic (closed form).
//!
//! Ellipsoid: WGS84, semi-major axis `a = 6378137 m` and flattening
//! `f = 1 / 298.257223563` (NIMA TR8350.2, "Department of Defense World
//! Geodetic System 1984", 3rd ed., 2000, table 3.1).
//!
//! ECEF → geodetic uses the closed form of H. Vermeille, "Direct
//! transformation from geocentric coordinates to geodetic coordinates",
//! J. Geodesy 76, 451–454 (2002), the method GeographicLib's `Geocentric`
//! starts from; it is exact (to rounding, about 1e-9 m) for every point
//! farther than about 50 km from the Earth's centre.

use serde::{Deserialize, Serialize};

use crate::range::Range;

/// WGS84 semi-major axis, metres (NIMA TR8350.2, table 3.1).
pub const WGS84_A_M: f64 = 6_378_137.0;
/// WGS84 flattening (NIMA TR8350.2, table 3.1: `1 / f = 298.257223563`).
pub const WGS84_F: f64 = 1.0 / 298.257_223_563;
/// WGS84 first eccentricity squared, `e^2 = f (2 - f)`.
pub const WGS84_E2: f64 = WGS84_F * (2.0 - WGS84_F);

/// The declared range of every numeric field of a datum section, relative
/// to the section.
pub const DATUM_RANGES: &[Range] = &[
    Range::new("latitude_deg", -90.0, 90.0, "deg"),
    Range::new("longitude_deg", -180.0, 180.0, "deg"),
    Range::new("altitude_m", -1.0e4, 1.0e5, "m"),
];

/// The geodetic position of the world origin on the WGS84 ellipsoid.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeodeticDatum {
    /// Geodetic latitude, degrees north, in [-90, 90] deg.
    pub latitude_deg: f64,
    /// Longitude, degrees east, in [-180, 180] deg.
    pub longitude_deg: f64,
    /// Height above the WGS84 ellipsoid, metres, in [-1e4, 1e5] m.
    pub altitude_m: f64,
}

/// Geodetic `(lat deg, lon deg, h m)` → ECEF `[X, Y, Z]` metres:
/// `X = (N + h) cos(lat) cos(lon)`, `Y = (N + h) cos(lat) sin(lon)`,
/// `Z = (N (1 - e^2) + h) sin(lat)` with the prime-vertical radius
/// `N = a / sqrt(1 - e^2 sin^2(lat))`.
pub fn geodetic_to_ecef(lat_deg: f64, lon_deg: f64, h_m: f64) -> [f64; 3] {
    let (sp, cp) = lat_deg.to_radians().sin_cos();
    let (sl, cl) = lon_deg.to_radians().sin_cos();
    let n = WGS84_A_M / (1.0 - WGS84_E2 * sp * sp).sqrt();
    [
        (n + h_m) * cp * cl,
        (n + h_m) * cp * sl,
        (n * (1.0 - WGS84_E2) + h_m) * sp,
    ]
}

/// ECEF `[X, Y, Z]` metres → geodetic `(lat deg, lon deg, h m)` by
/// Vermeille's closed form (see the module docs). Longitude is
/// `atan2(Y, X)` (0 on the polar axis).
pub fn ecef_to_geodetic(ecef: [f64; 3]) -> (f64, f64, f64) {
    let [x, y, z] = ecef;
    let a2 = WGS84_A_M * WGS84_A_M;
    let e4 = WGS84_E2 * WGS84_E2;
    let w2 = x * x + y * y;
    let w = w2.sqrt();
    let lon = y.atan2(x);
    let p = w2 / a2;
    let q = (1.0 - WGS84_E2) / a2 * z * z;
    let r = (p + q - e4) / 6.0;
    let s = e4 * p * q / (4.0 * r * r * r);
    let t = (1.0 + s + (s * (2.0 + s)).sqrt()).cbrt();
    let u = r * (1.0 + t + 1.0 / t);
    let v = (u * u + e4 * q).sqrt();
    let wv = WGS84_E2 * (u + v - q) / (2.0 * v);
    let k = (u + v + wv * wv).sqrt() - wv;
    let d = k * w / (k + WGS84_E2);
    let dz = d.hypot(z);
    let lat = 2.0 * z.atan2(d + dz);
    let h = (k + WGS84_E2 - 1.0) / k * dz;
    (lat.to_degrees(), lon.to_degrees(), h)
}

/// The world's local ENU frame at a datum: conversions between world
/// points `[east m, north m, up m]` and geodetic coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LocalEnu {
    datum: GeodeticDatum,
    origin_ecef: [f64; 3],
    /// Rows: the ECEF directions of east, north and up at the datum.
    rot: [[f64; 3]; 3],
}

impl LocalEnu {
    /// The ENU frame whose origin is `datum`.
    pub fn new(datum: GeodeticDatum) -> Self {
        let (sp, cp) = datum.latitude_deg.to_radians().sin_cos();
        let (sl, cl) = datum.longitude_deg.to_radians().sin_cos();
        Self {
            datum,
            origin_ecef: geodetic_to_ecef(
                datum.latitude_deg,
                datum.longitude_deg,
                datum.altitude_m,
            ),
            rot: [
                [-sl, cl, 0.0],
                [-sp * cl, -sp * sl, cp],
                [cp * cl, cp * sl, sp],
            ],
        }
    }

    /// The datum (the frame origin).
    pub fn datum(&self) -> GeodeticDatum {
        self.datum
    }

    /// World point `enu_m = [east, north, up]` metres → geodetic
    /// `(lat deg, lon deg, h m)`: ECEF `= origin + R^T enu`, then
    /// [`ecef_to_geodetic`].
    pub fn to_geodetic(&self, enu_m: [f64; 3]) -> (f64, f64, f64) {
        let r = &self.rot;
        let o = &self.origin_ecef;
        let ecef = std::array::from_fn(|i| {
            o[i] + r[0][i] * enu_m[0] + r[1][i] * enu_m[1] + r[2][i] * enu_m[2]
        });
        ecef_to_geodetic(ecef)
    }

    /// Geodetic `(lat deg, lon deg, h m)` → world point `[east, north, up]`
    /// metres: `R (ECEF - origin)`.
    pub fn from_geodetic(&self, lat_deg: f64, lon_deg: f64, h_m: f64) -> [f64; 3] {
        let e = geodetic_to_ecef(lat_deg, lon_deg, h_m);
        let d = [
            e[0] - self.origin_ecef[0],
            e[1] - self.origin_ecef[1],
            e[2] - self.origin_ecef[2],
        ];
        std::array::from_fn(|i| {
            self.rot[i][0] * d[0] + self.rot[i][1] * d[1] + self.rot[i][2] * d[2]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ellipsoid's defining points: the equator at lon 0 and 90 deg and
    /// the pole, at the semi-minor axis `b = a (1 - f) = 6356752.314245 m`.
    #[test]
    fn ecef_of_the_axes_is_the_ellipsoid() {
        let close = |a: [f64; 3], b: [f64; 3]| (0..3).all(|i| (a[i] - b[i]).abs() < 1e-6);
        assert!(close(
            geodetic_to_ecef(0.0, 0.0, 0.0),
            [WGS84_A_M, 0.0, 0.0]
        ));
        assert!(close(
            geodetic_to_ecef(0.0, 90.0, 10.0),
            [0.0, WGS84_A_M + 10.0, 0.0]
        ));
        let b = WGS84_A_M * (1.0 - WGS84_F);
        assert!((b - 6_356_752.314_245).abs() < 1e-6, "{b}");
        assert!(close(geodetic_to_ecef(90.0, 0.0, 0.0), [0.0, 0.0, b]));
        let (lat, lon, h) = ecef_to_geodetic([0.0, -WGS84_A_M - 5.0, 0.0]);
        assert!(lat.abs() < 1e-12 && (lon + 90.0).abs() < 1e-12 && (h - 5.0).abs() < 1e-6);
    }

    /// GeographicLib's `Geocentric` example: Mt Everest (27.99 N, 86.93 E,
    /// 8820 m) is at (302, 5636, 2980) km; PROJ 9.6 (`+proj=cart
    /// +ellps=WGS84`) gives (302271.4327, 5635928.3675, 2979666.1349) m. The
    /// ECEF point converts back to the same geodetic coordinates.
    #[test]
    fn everest_round_trip() {
        let [x, y, z] = geodetic_to_ecef(27.99, 86.93, 8820.0);
        assert_eq!(
            [(x / 1e3).round(), (y / 1e3).round(), (z / 1e3).round()],
            [302.0, 5636.0, 2980.0]
        );
        for (got, want) in [
            (x, 302_271.432_7),
            (y, 5_635_928.367_5),
            (z, 2_979_666.134_9),
        ] {
            assert!((got - want).abs() < 1e-3, "{got} vs {want}");
        }
        let (lat, lon, h) = ecef_to_geodetic([x, y, z]);
        assert!((lat - 27.99).abs() < 1e-12, "{lat}");
        assert!((lon - 86.93).abs() < 1e-12, "{lon}");
        assert!((h - 8820.0).abs() < 1e-6, "{h}");
    }

    /// ENU: the origin is the datum; 1 km north and east match the radii of
    /// curvature; an up offset is the height; every point round-trips.
    #[test]
    fn local_enu_known_values_and_round_trip() {
        let datum = GeodeticDatum {
            latitude_deg: 52.2297,
            longitude_deg: 21.0122,
            altitude_m: 100.0,
        };
        let enu = LocalEnu::new(datum);
        let (lat, lon, h) = enu.to_geodetic([0.0, 0.0, 0.0]);
        assert!((lat - 52.2297).abs() < 1e-12 && (lon - 21.0122).abs() < 1e-12);
        assert!((h - 100.0).abs() < 1e-8, "{h}");
        // Reference values: PROJ 9.6 `+proj=topocentric +ellps=WGS84
        // +lat_0=52.2297 +lon_0=21.0122 +h_0=100` (inverse). 1000 m north is
        // about 1000 / M rad = 0.008987 deg of latitude (meridian radius
        // M = 6,375,399.6 m); the tangent point is d^2 / (2 R) = 0.078 m up.
        let (lat, lon, h) = enu.to_geodetic([0.0, 1000.0, 0.0]);
        assert!((lat - 52.238_686_862_074).abs() < 1e-10, "{lat}");
        assert!((lon - 21.0122).abs() < 1e-12, "{lon}");
        assert!((h - 100.078_425).abs() < 1e-5, "{h}");
        // 1000 m east: about 1000 / (N cos lat) rad = 0.014636 deg of
        // longitude (prime-vertical radius N = 6,391,518.8 m); the east axis is
        // tangent to the parallel, so the latitude drops slightly.
        let (lat, lon, h) = enu.to_geodetic([1000.0, 0.0, 0.0]);
        assert!((lat - 52.229_699_092_702).abs() < 1e-10, "{lat}");
        assert!((lon - 21.026_835_498_595).abs() < 1e-10, "{lon}");
        assert!((h - 100.078_227).abs() < 1e-5, "{h}");
        let (lat, lon, _) = enu.to_geodetic([3.5, -12.25, 0.0]);
        assert!((lat - 52.229_589_910_842).abs() < 1e-10, "{lat}");
        assert!((lon - 21.012_251_224_119).abs() < 1e-10, "{lon}");
        let (lat, lon, h) = enu.to_geodetic([0.0, 0.0, 25.0]);
        assert!((lat - 52.2297).abs() < 1e-12 && (lon - 21.0122).abs() < 1e-12);
        assert!((h - 125.0).abs() < 1e-8, "{h}");
        for p in [
            [3.5, -12.25, 0.0],
            [-2500.0, 8000.0, 40.0],
            [1e4, 1e4, -30.0],
        ] {
            let (lat, lon, h) = enu.to_geodetic(p);
            let q = enu.from_geodetic(lat, lon, h);
            for i in 0..3 {
                assert!((p[i] - q[i]).abs() < 1e-6, "{p:?} -> {q:?}");
            }
        }
    }
}
