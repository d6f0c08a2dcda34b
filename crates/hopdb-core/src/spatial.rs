//! Spatial points, as Neo4j has them: a coordinate reference system (one of four) and two or
//! three coordinates. The store has no point type, so a point is stored as the map
//! `{crs, srid, x, y[, z]}` ([`Point::to_store`]); [`Point::from_store`] recognises exactly
//! that shape (the four keys, a known crs with its own srid, float coordinates), so the
//! importer, the exporter, the Cypher engine and the clients agree on one encoding. A
//! geographic point keeps longitude as `x`, latitude as `y` and height as `z`, as Neo4j's does.

use crate::value::Value;
use std::collections::BTreeMap;

/// A coordinate reference system (Neo4j's names and SRIDs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Crs {
    /// `cartesian`, SRID 7203: x and y.
    Cartesian,
    /// `cartesian-3d`, SRID 9157: x, y and z.
    Cartesian3D,
    /// `wgs-84`, SRID 4326: longitude and latitude in degrees.
    Wgs84,
    /// `wgs-84-3d`, SRID 4979: longitude, latitude and height in metres.
    Wgs843D,
}

impl Crs {
    /// All four, in Neo4j's order.
    pub const ALL: [Crs; 4] = [Crs::Cartesian, Crs::Cartesian3D, Crs::Wgs84, Crs::Wgs843D];

    /// The crs's name as Cypher writes it.
    pub fn name(self) -> &'static str {
        match self {
            Crs::Cartesian => "cartesian",
            Crs::Cartesian3D => "cartesian-3d",
            Crs::Wgs84 => "wgs-84",
            Crs::Wgs843D => "wgs-84-3d",
        }
    }

    /// The EPSG (or Neo4j) SRID.
    pub fn srid(self) -> i64 {
        match self {
            Crs::Cartesian => 7203,
            Crs::Cartesian3D => 9157,
            Crs::Wgs84 => 4326,
            Crs::Wgs843D => 4979,
        }
    }

    /// 2 or 3.
    pub fn dims(self) -> usize {
        match self {
            Crs::Cartesian | Crs::Wgs84 => 2,
            Crs::Cartesian3D | Crs::Wgs843D => 3,
        }
    }

    /// Whether coordinates are longitude/latitude(/height).
    pub fn geographic(self) -> bool {
        matches!(self, Crs::Wgs84 | Crs::Wgs843D)
    }

    /// The crs of a name, case-insensitively.
    pub fn from_name(name: &str) -> Option<Crs> {
        Crs::ALL.into_iter().find(|c| c.name().eq_ignore_ascii_case(name))
    }

    /// The crs of an SRID.
    pub fn from_srid(srid: i64) -> Option<Crs> {
        Crs::ALL.into_iter().find(|c| c.srid() == srid)
    }

    fn with(dims: usize, geographic: bool) -> Crs {
        match (dims, geographic) {
            (3, false) => Crs::Cartesian3D,
            (3, true) => Crs::Wgs843D,
            (_, false) => Crs::Cartesian,
            (_, true) => Crs::Wgs84,
        }
    }
}

/// A point: its crs and `dims()` coordinates (`z` is `Some` exactly for 3-D systems).
/// Equality and hashing are bit for bit on the coordinates, as Neo4j compares points (so
/// `0.0` and `-0.0` differ); coordinates are finite, so this is a total equivalence.
#[derive(Debug, Clone, Copy)]
pub struct Point {
    /// The coordinate reference system.
    pub crs: Crs,
    /// x, or longitude.
    pub x: f64,
    /// y, or latitude.
    pub y: f64,
    /// z, or height; `Some` exactly for 3-D systems.
    pub z: Option<f64>,
}

/// The axis (0-2) a coordinate name (case-insensitive) stands for, and whether the name is
/// a geographic one.
fn axis_of(name: &str) -> Option<(usize, bool)> {
    Some(match name.to_ascii_lowercase().as_str() {
        "x" => (0, false),
        "y" => (1, false),
        "z" => (2, false),
        "longitude" => (0, true),
        "latitude" => (1, true),
        "height" => (2, true),
        _ => return None,
    })
}

/// Which named coordinates a point was given: `x`/`y`/`z` or `longitude`/`latitude`/`height`.
#[derive(Debug, Default)]
pub struct PointFields {
    coords: [Option<f64>; 3],
    geographic_names: bool,
    coords_named_xy: bool,
    crs: Option<Crs>,
    srid: Option<Crs>,
}

impl PointFields {
    /// Whether `name` (case-insensitive) names a coordinate: x, y, z, longitude, latitude or
    /// height.
    pub fn is_coordinate(name: &str) -> bool {
        axis_of(name).is_some()
    }

    /// Adds one field given by name (case-insensitive): a coordinate name takes a number.
    /// Returns an error naming the field for an unknown name or a repeated coordinate.
    pub fn coordinate(&mut self, name: &str, value: f64) -> Result<(), String> {
        let Some((axis, geographic)) = axis_of(name) else {
            return Err(format!(
                "unknown point key '{name}' (x, y, z, longitude, latitude, height, crs, srid)"
            ));
        };
        if !value.is_finite() {
            return Err(format!("point coordinate {name} is {value}, not a finite number"));
        }
        if self.coords[axis].replace(value).is_some() {
            return Err(format!("point gives coordinate {} twice", ["x", "y", "z"][axis]));
        }
        self.geographic_names |= geographic;
        self.coords_named_xy |= !geographic;
        Ok(())
    }

    /// Sets the crs by name.
    pub fn crs(&mut self, name: &str) -> Result<(), String> {
        self.crs = Some(Crs::from_name(name).ok_or_else(|| {
            format!("unknown coordinate reference system '{name}' (cartesian, cartesian-3d, wgs-84, wgs-84-3d)")
        })?);
        Ok(())
    }

    /// Sets the crs by SRID.
    pub fn srid(&mut self, srid: i64) -> Result<(), String> {
        self.srid = Some(Crs::from_srid(srid).ok_or_else(|| format!("unknown SRID {srid} (7203, 9157, 4326, 4979)"))?);
        Ok(())
    }

    /// The point, as Cypher's `point()` makes it: x and y (or longitude and latitude) are
    /// required, z (height) optional; the crs is `crs` or `srid` (not both), else follows
    /// from the names and number of coordinates. A crs of the wrong dimension is an error.
    pub fn build(self) -> Result<Point, String> {
        if self.crs.is_some() && self.srid.is_some() {
            return Err("a point takes crs or srid, not both".into());
        }
        self.finish(false)
    }

    /// The point as neo4j-admin reads it: like [`build`](Self::build), but `crs` wins over
    /// `srid` and a crs of the wrong dimension takes its sibling of the right one.
    pub fn build_adapting(self) -> Result<Point, String> {
        self.finish(true)
    }

    fn finish(self, adapt: bool) -> Result<Point, String> {
        let [Some(x), Some(y), z] = self.coords else {
            return Err("a point needs x and y (or longitude and latitude), and optionally z (or height)".into());
        };
        if self.geographic_names && self.coords_named_xy {
            return Err("a point names its coordinates x, y, z or longitude, latitude, height, not both".into());
        }
        let dims = if z.is_some() { 3 } else { 2 };
        let crs = match self.crs.or(self.srid) {
            Some(c) if c.dims() == dims => c,
            Some(c) if adapt => Crs::with(dims, c.geographic()),
            Some(c) => return Err(format!("a {} point has {} coordinates, not {dims}", c.name(), c.dims())),
            None => Crs::with(dims, self.geographic_names),
        };
        Point::new(crs, x, y, z)
    }
}

impl PartialEq for Point {
    fn eq(&self, other: &Point) -> bool {
        self.bits() == other.bits()
    }
}

impl Eq for Point {}

impl std::hash::Hash for Point {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.bits().hash(h)
    }
}

impl Point {
    /// The point's identity: its crs and the bits of its coordinates.
    fn bits(&self) -> (Crs, [u64; 3]) {
        (
            self.crs,
            [self.x.to_bits(), self.y.to_bits(), self.z.map_or(0, f64::to_bits)],
        )
    }

    /// A point, checking the coordinate count and (for geographic points) the latitude; a
    /// longitude outside -180..180 is brought into it by whole turns, as Neo4j does.
    pub fn new(crs: Crs, x: f64, y: f64, z: Option<f64>) -> Result<Point, String> {
        if z.is_some() != (crs.dims() == 3) {
            return Err(format!("a {} point has {} coordinates", crs.name(), crs.dims()));
        }
        if ![x, y, z.unwrap_or(0.0)].iter().all(|c| c.is_finite()) {
            return Err("point coordinates must be finite numbers".into());
        }
        if !crs.geographic() {
            return Ok(Point { crs, x, y, z });
        }
        if !(-90.0..=90.0).contains(&y) {
            return Err(format!("latitude {y} is outside -90..90"));
        }
        let turns = if x > 180.0 {
            -((x - 180.0) / 360.0).ceil()
        } else if x < -180.0 {
            ((-180.0 - x) / 360.0).ceil()
        } else {
            0.0
        };
        Ok(Point {
            crs,
            x: x + 360.0 * turns,
            y,
            z,
        })
    }

    /// The coordinates, two or three.
    pub fn coords(&self) -> impl Iterator<Item = f64> {
        [Some(self.x), Some(self.y), self.z].into_iter().flatten()
    }

    /// The stored form, `{crs, srid, x, y[, z]}`.
    pub fn to_store(&self) -> Value {
        let mut m = BTreeMap::new();
        m.insert("crs".to_string(), Value::Str(self.crs.name().to_string()));
        m.insert("srid".to_string(), Value::Int(self.crs.srid()));
        for (axis, c) in ["x", "y", "z"].into_iter().zip(self.coords()) {
            m.insert(axis.to_string(), Value::Float(c));
        }
        Value::Map(m)
    }

    /// The point a stored map holds, if it has exactly the stored shape.
    pub fn from_store(m: &BTreeMap<String, Value>) -> Option<Point> {
        let (Some(Value::Str(name)), Some(Value::Int(srid))) = (m.get("crs"), m.get("srid")) else {
            return None;
        };
        let crs = Crs::from_srid(*srid).filter(|c| c.name() == name)?;
        if m.len() != 2 + crs.dims() {
            return None;
        }
        let axis = |k: &str| match m.get(k) {
            Some(Value::Float(f)) => Some(*f),
            _ => None,
        };
        let z = if crs.dims() == 3 { Some(axis("z")?) } else { None };
        Some(Point {
            crs,
            x: axis("x")?,
            y: axis("y")?,
            z,
        })
    }

    /// Neo4j's `point.distance`: Euclidean for cartesian systems; for geographic ones the
    /// haversine great-circle distance in metres on Neo4j's sphere (radius 6,378,140 m), for
    /// 3-D at the mean height and combined with the height difference. `None` across systems.
    pub fn distance(&self, other: &Point) -> Option<f64> {
        if self.crs != other.crs {
            return None;
        }
        let (za, zb) = (self.z.unwrap_or(0.0), other.z.unwrap_or(0.0));
        let dz = za - zb;
        if !self.crs.geographic() {
            let (dx, dy) = (self.x - other.x, self.y - other.y);
            return Some((dx * dx + dy * dy + dz * dz).sqrt());
        }
        const EARTH_RADIUS_METRES: f64 = 6_378_140.0;
        let (lat1, lat2) = (self.y.to_radians(), other.y.to_radians());
        let (dlat, dlon) = (lat2 - lat1, (other.x - self.x).to_radians());
        let a = (dlat / 2.0).sin().powi(2) + lat1.cos() * lat2.cos() * (dlon / 2.0).sin().powi(2);
        let angle = 2.0 * a.sqrt().atan2((1.0 - a).sqrt());
        let great_circle = (EARTH_RADIUS_METRES + (za + zb) / 2.0) * angle;
        Some((great_circle * great_circle + dz * dz).sqrt())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(fields: &[(&str, f64)], crs: Option<&str>) -> Result<Point, String> {
        let mut f = PointFields::default();
        for (k, v) in fields {
            f.coordinate(k, *v)?;
        }
        if let Some(c) = crs {
            f.crs(c)?;
        }
        f.build()
    }

    #[test]
    fn crs_follows_names_and_dimensions() {
        assert_eq!(build(&[("x", 1.0), ("y", 2.0)], None).unwrap().crs, Crs::Cartesian);
        assert_eq!(
            build(&[("x", 1.0), ("y", 2.0), ("z", 3.0)], None).unwrap().crs,
            Crs::Cartesian3D
        );
        let geo = build(&[("longitude", 12.0), ("latitude", 56.0)], None).unwrap();
        assert_eq!((geo.crs, geo.x, geo.y), (Crs::Wgs84, 12.0, 56.0));
        assert!(build(&[("x", 1.0), ("y", 2.0), ("z", 3.0)], Some("WGS-84")).is_err());
        let mut f = PointFields::default();
        for (k, v) in [("x", 1.0), ("y", 2.0), ("z", 3.0)] {
            f.coordinate(k, v).unwrap();
        }
        f.crs("WGS-84").unwrap();
        assert_eq!(f.build_adapting().unwrap().crs, Crs::Wgs843D);
        assert!(build(&[("longitude", 1.0), ("y", 2.0)], None).is_err());
        assert!(build(&[("x", 1.0)], None).is_err());
        assert!(build(&[("x", 1.0), ("longitude", 1.0), ("y", 2.0)], None).is_err());
        assert!(build(&[("longitude", 1.0), ("latitude", 91.0)], None).is_err());
        assert!(build(&[("x", 1.0), ("y", 2.0)], Some("mars")).is_err());
        let lon = |x: f64| build(&[("longitude", x), ("latitude", 0.0)], None).unwrap().x;
        assert_eq!(
            (lon(540.0), lon(200.0), lon(-200.0), lon(180.0), lon(-180.0)),
            (180.0, -160.0, 160.0, 180.0, -180.0)
        );
    }

    #[test]
    fn stored_shape_round_trips_and_nothing_else_is_a_point() {
        for p in [
            Point::new(Crs::Cartesian, 1.0, -2.5, None).unwrap(),
            Point::new(Crs::Wgs843D, 12.5, 56.25, Some(100.0)).unwrap(),
        ] {
            let Value::Map(m) = p.to_store() else { panic!() };
            assert_eq!(Point::from_store(&m), Some(p));
            let mut extra = m.clone();
            extra.insert("name".into(), Value::Null);
            assert_eq!(Point::from_store(&extra), None);
            let mut wrong_srid = m.clone();
            wrong_srid.insert("srid".into(), Value::Int(7203 + 9157 - p.crs.srid()));
            assert_eq!(Point::from_store(&wrong_srid), None);
        }
    }

    #[test]
    fn distances() {
        let a = Point::new(Crs::Cartesian3D, 0.0, 0.0, Some(0.0)).unwrap();
        let b = Point::new(Crs::Cartesian3D, 2.0, 3.0, Some(6.0)).unwrap();
        assert_eq!(a.distance(&b), Some(7.0));
        let quarter = Point::new(Crs::Wgs84, 0.0, 0.0, None)
            .unwrap()
            .distance(&Point::new(Crs::Wgs84, 90.0, 0.0, None).unwrap())
            .unwrap();
        assert!((quarter - std::f64::consts::FRAC_PI_2 * 6_378_140.0).abs() < 1e-6);
        // Neo4j 5.26's answers for the same pairs.
        let geo = |lon: f64, lat: f64, h: Option<f64>| {
            Point::new(if h.is_some() { Crs::Wgs843D } else { Crs::Wgs84 }, lon, lat, h).unwrap()
        };
        let d2 = geo(12.5, 56.0, None).distance(&geo(13.0, 57.0, None)).unwrap();
        assert!((d2 - 115479.9077214131).abs() < 1e-6, "{d2}");
        let d3 = geo(12.5, 56.0, Some(100.0))
            .distance(&geo(13.0, 57.0, Some(1000.0)))
            .unwrap();
        assert!((d3 - 115493.37253696841).abs() < 1e-6, "{d3}");
        assert_eq!(a.distance(&Point::new(Crs::Cartesian, 0.0, 0.0, None).unwrap()), None);
    }
}
