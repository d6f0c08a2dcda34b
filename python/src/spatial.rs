//! `hopdb.Point`: the spatial point of Cypher and of stored properties, in Python.
//!
//! One type for the four coordinate systems (as Cypher has one POINT type): `Point(1, 2)` is
//! cartesian, `Point(1, 2, 3)` cartesian-3d, `Point.wgs84(longitude, latitude[, height])`
//! geographic; `crs=` or `srid=` names a system explicitly. It iterates over its coordinates
//! like the Neo4j driver's points do, and compares equal by system and coordinates.

use hopdb_database::spatial::{Point as P, PointFields};
use pyo3::exceptions::{PyAttributeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::hash::{Hash, Hasher};

/// A spatial point: a coordinate reference system and two or three coordinates.
#[pyclass(module = "hopdb._hopdb", frozen)]
#[derive(Clone, Copy)]
pub struct Point(pub(crate) P);

fn build(coords: [(&str, Option<f64>); 3], crs: Option<&str>, srid: Option<i64>) -> PyResult<Point> {
    let mut f = PointFields::default();
    let err = PyValueError::new_err;
    for (name, c) in coords {
        if let Some(c) = c {
            f.coordinate(name, c).map_err(err)?;
        }
    }
    if let Some(c) = crs {
        f.crs(c).map_err(err)?;
    }
    if let Some(s) = srid {
        f.srid(s).map_err(err)?;
    }
    f.build().map(Point).map_err(err)
}

#[pymethods]
impl Point {
    /// `Point(x, y, z=None, *, crs=None, srid=None)`: cartesian unless `crs`/`srid` say otherwise.
    #[new]
    #[pyo3(signature = (x, y, z=None, *, crs=None, srid=None))]
    fn new(x: f64, y: f64, z: Option<f64>, crs: Option<&str>, srid: Option<i64>) -> PyResult<Point> {
        build([("x", Some(x)), ("y", Some(y)), ("z", z)], crs, srid)
    }

    /// A WGS-84 point (2-D, or 3-D with a height in metres).
    #[staticmethod]
    #[pyo3(signature = (longitude, latitude, height=None))]
    fn wgs84(longitude: f64, latitude: f64, height: Option<f64>) -> PyResult<Point> {
        build(
            [
                ("longitude", Some(longitude)),
                ("latitude", Some(latitude)),
                ("height", height),
            ],
            None,
            None,
        )
    }

    /// `cartesian`, `cartesian-3d`, `wgs-84` or `wgs-84-3d`.
    #[getter]
    fn crs(&self) -> &'static str {
        self.0.crs.name()
    }

    #[getter]
    fn srid(&self) -> i64 {
        self.0.crs.srid()
    }

    #[getter]
    fn x(&self) -> f64 {
        self.0.x
    }

    #[getter]
    fn y(&self) -> f64 {
        self.0.y
    }

    /// The third coordinate, or `None` for a 2-D point.
    #[getter]
    fn z(&self) -> Option<f64> {
        self.0.z
    }

    #[getter]
    fn longitude(&self) -> PyResult<f64> {
        self.geographic("longitude").map(|p| p.x)
    }

    #[getter]
    fn latitude(&self) -> PyResult<f64> {
        self.geographic("latitude").map(|p| p.y)
    }

    #[getter]
    fn height(&self) -> PyResult<Option<f64>> {
        self.geographic("height").map(|p| p.z)
    }

    /// The distance to another point as Cypher's `point.distance` computes it (metres for
    /// WGS-84), or `None` across coordinate systems.
    fn distance(&self, other: &Point) -> Option<f64> {
        self.0.distance(&other.0)
    }

    fn __len__(&self) -> usize {
        self.0.crs.dims()
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        PyTuple::new(py, self.0.coords().collect::<Vec<_>>())?
            .try_iter()
            .map(Bound::into_any)
    }

    fn __eq__(&self, other: &Point) -> bool {
        self.0 == other.0
    }

    fn __hash__(&self) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.0.hash(&mut h);
        h.finish()
    }

    fn __repr__(&self) -> String {
        let p = &self.0;
        let z = p.z.map(|z| format!(", {z:?}")).unwrap_or_default();
        if p.crs.geographic() {
            format!("Point.wgs84({:?}, {:?}{z})", p.x, p.y)
        } else {
            format!("Point({:?}, {:?}{z})", p.x, p.y)
        }
    }
}

impl Point {
    fn geographic(&self, what: &str) -> PyResult<&P> {
        if self.0.crs.geographic() {
            Ok(&self.0)
        } else {
            Err(PyAttributeError::new_err(format!(
                "a {} point has no {what} (use x, y, z)",
                self.0.crs.name()
            )))
        }
    }
}

/// The Python point of a Cypher point.
pub(crate) fn point_py(py: Python<'_>, p: &P) -> PyResult<Py<PyAny>> {
    Ok(Py::new(py, Point(*p))?.into_any())
}

/// The point a Python object is, if it is a `hopdb.Point`.
pub(crate) fn py_point(obj: &Bound<'_, PyAny>) -> Option<P> {
    obj.cast::<Point>().ok().map(|p| p.get().0)
}
