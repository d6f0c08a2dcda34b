//! Spatial functions and the point value's accessors, as Neo4j 5 has them: `point(map)`,
//! `point.distance(a, b)`, `point.withinBBox(p, lowerLeft, upperRight)`, `p.x` / `p.y` /
//! `p.z`, `p.longitude` / `p.latitude` / `p.height` (geographic points only), `p.crs`,
//! `p.srid`, and `toString(p)`. The point type itself (its systems, validation and stored
//! form) is the store's ([`hopdb_database::spatial`]), so the importer reads the same values.

use super::{arg, arg_type_error, format_float};
use crate::error::{CypherError, Result};
use crate::value::Value;
use hopdb_database::spatial::{Point, PointFields};

pub(super) fn call(name: &str, args: &[Value]) -> Option<Result<Value>> {
    Some(match name {
        "point" => point(arg(args, 0)),
        "point.distance" => match (arg(args, 0), arg(args, 1)) {
            (Value::Point(a), Value::Point(b)) => Ok(a.distance(b).map_or(Value::Null, Value::Float)),
            (Value::Null, _) | (_, Value::Null) => Ok(Value::Null),
            (a, b) => Err(arg_type_error(
                name,
                "two points",
                if matches!(a, Value::Point(_)) { b } else { a },
            )),
        },
        "point.withinbbox" => match (arg(args, 0), arg(args, 1), arg(args, 2)) {
            (Value::Point(p), Value::Point(low), Value::Point(high)) => Ok(within_bbox(p, low, high)),
            (Value::Null, _, _) | (_, Value::Null, _) | (_, _, Value::Null) => Ok(Value::Null),
            (a, b, c) => {
                let bad = [a, b, c]
                    .into_iter()
                    .find(|v| !matches!(v, Value::Point(_)))
                    .unwrap_or(a);
                Err(arg_type_error(name, "three points", bad))
            }
        },
        _ => return None,
    })
}

/// `point({x, y[, z][, crs | srid]})` or `point({longitude, latitude[, height][, crs | srid]})`:
/// other keys are ignored; a null coordinate (or argument) gives null. A key of the wrong
/// type is an `ArgumentError`, as in Neo4j.
fn point(arg: &Value) -> Result<Value> {
    let m = match arg {
        Value::Null => return Ok(Value::Null),
        Value::Map(m) => m,
        v => return Err(arg_type_error("point", "a map", v)),
    };
    let bad = |msg: String| CypherError::argument("InvalidArgumentValue", format!("point(): {msg}"));
    let mut fields = PointFields::default();
    for (k, v) in m {
        match k.to_ascii_lowercase().as_str() {
            "crs" => match v {
                Value::String(name) => fields.crs(name),
                v => Err(format!("crs must be a string, not {}", v.type_name())),
            },
            "srid" => match v {
                Value::Int(id) => fields.srid(*id),
                v => Err(format!("srid must be an integer, not {}", v.type_name())),
            },
            name if PointFields::is_coordinate(name) => match v {
                Value::Null => return Ok(Value::Null),
                Value::Int(i) => fields.coordinate(k, *i as f64),
                Value::Float(f) => fields.coordinate(k, *f),
                v => Err(format!("{k} must be a number, not {}", v.type_name())),
            },
            _ => Ok(()),
        }
        .map_err(bad)?;
    }
    fields.build().map(Value::Point).map_err(bad)
}

/// Whether `p` lies in the box (edges included); null across coordinate systems. A
/// geographic box whose lower-left longitude is east of its upper-right one crosses the
/// antimeridian.
fn within_bbox(p: &Point, low: &Point, high: &Point) -> Value {
    if p.crs != low.crs || p.crs != high.crs {
        return Value::Null;
    }
    let between = |v: f64, a: f64, b: f64| a <= v && v <= b;
    let x_in = if p.crs.geographic() && low.x > high.x {
        p.x >= low.x || p.x <= high.x
    } else {
        between(p.x, low.x, high.x)
    };
    let z_in = match (p.z, low.z, high.z) {
        (Some(z), Some(a), Some(b)) => between(z, a, b),
        _ => true,
    };
    Value::Bool(x_in && between(p.y, low.y, high.y) && z_in)
}

/// `p.key`: the accessors Neo4j has; a geographic name on a cartesian point, `z` on a 2-D
/// point, or any other key is an error.
pub(crate) fn property(p: &Point, key: &str) -> Result<Value> {
    let geographic_only = |v: Option<f64>| {
        if p.crs.geographic() {
            v.map(Value::Float)
        } else {
            None
        }
    };
    let value = match key {
        "x" => Some(Value::Float(p.x)),
        "y" => Some(Value::Float(p.y)),
        "z" => p.z.map(Value::Float),
        "longitude" => geographic_only(Some(p.x)),
        "latitude" => geographic_only(Some(p.y)),
        "height" => geographic_only(p.z),
        "crs" => Some(Value::String(p.crs.name().to_owned())),
        "srid" => Some(Value::Int(p.crs.srid())),
        _ => {
            return Err(CypherError::argument(
                "InvalidArgumentValue",
                format!("no such field on a point: {key}"),
            ))
        }
    };
    value.ok_or_else(|| {
        CypherError::argument(
            "InvalidArgumentValue",
            format!("field {key} is not available on the point {}", to_cypher_string(p)),
        )
    })
}

/// `toString(p)`: `point({x: 1.0, y: 2.0, crs: 'cartesian'})`, floats as Neo4j writes them.
pub(crate) fn to_cypher_string(p: &Point) -> String {
    let mut out = String::from("point({");
    for (axis, c) in ["x", "y", "z"].into_iter().zip(p.coords()) {
        out.push_str(&format!("{axis}: {}, ", format_float(c)));
    }
    out.push_str(&format!("crs: '{}'}})", p.crs.name()));
    out
}
