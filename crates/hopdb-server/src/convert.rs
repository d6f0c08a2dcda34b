//! Values between the Cypher engine ([`hopdb_cypher::Value`]) and Bolt ([`hopdb_bolt::Value`]).
//!
//! Results go out in Bolt's canonical (5.x) form; the connection rewrites them for a 4.4 client.
//!
//! * Nodes carry the engine's `id(n)` and, as element id, `elementId(n)` (the id in decimal).
//!   Their properties are those of `properties(n)`: the node key (`_key`) is not among them,
//!   as `keys(n)` does not list it; a client that wants it returns `n._key`.
//! * Relationships carry `id(r)`, `elementId(r)` (`"r"` and the id) and their end nodes' ids.
//! * Paths are sent as the distinct nodes, the distinct relationships (unbound) and the index
//!   sequence that walks them, a relationship index negative when it is walked backwards.
//! * `DATETIME` with a named zone becomes `DateTimeZoneId` (with its offset at that instant,
//!   needed by 4.4 clients), with a fixed offset `DateTime`; the other temporal types map one
//!   to one. Points are `Point2D` / `Point3D` with their SRID.
//!
//! Parameters come in the other way: every PackStream value, the temporal structures (a
//! zoned `DateTimeZoneId` is resolved in the IANA zone database the engine uses) and points
//! (checked as `point()` checks them: a known SRID of the right dimension, a latitude within
//! ±90). Graph entities are refused with a FAILURE naming the parameter.

use hopdb_bolt::structs::{self as bs, tag, BoltStruct};
use hopdb_bolt::{BoltFailure, Value as Bolt};
use hopdb_cypher::temporal::{self, Clock, Date, DateTime, Duration, LocalDateTime, LocalTime, Time};
use hopdb_cypher::{Map, NodeRef, Params, PathValue, RelRef, Value, KEY_PROPERTY};
use hopdb_database::spatial::{Crs, Point};

const NANOS_PER_SECOND: i64 = 1_000_000_000;
const SECONDS_PER_DAY: i64 = 86_400;
const NANOS_PER_DAY: i64 = SECONDS_PER_DAY * NANOS_PER_SECOND;
/// Largest UTC offset (Java's `ZoneOffset` range, as the engine's).
const MAX_OFFSET_SECONDS: i64 = 18 * 3600;

/// The status code for a value of the wrong type.
const TYPE_ERROR: &str = "Neo.ClientError.Statement.TypeError";

/// A Cypher value as a Bolt value. Fails only on a graph entity the engine did not
/// materialize, which is a server bug.
pub fn to_bolt(v: &Value) -> Result<Bolt, BoltFailure> {
    Ok(match v {
        Value::Null => Bolt::Null,
        Value::Bool(b) => Bolt::Boolean(*b),
        Value::Int(i) => Bolt::Integer(*i),
        Value::Float(f) => Bolt::Float(*f),
        Value::String(s) => Bolt::String(s.clone()),
        Value::Bytes(b) => Bolt::Bytes(b.clone()),
        Value::List(l) => Bolt::List(l.iter().map(to_bolt).collect::<Result<_, _>>()?),
        Value::Map(m) => Bolt::Map(map_to_bolt(m)?),
        Value::Node(n) => node(n)?.into_value(),
        Value::Relationship(r) => relationship(r)?.into_value(),
        Value::Path(p) => path(p)?.into_value(),
        Value::Date(d) => bs::Date { days: d.days }.into_value(),
        Value::LocalTime(t) => bs::LocalTime { nanoseconds: t.nanos }.into_value(),
        Value::Time(t) => bs::Time {
            nanoseconds: t.nanos,
            tz_offset_seconds: i64::from(t.offset_seconds),
        }
        .into_value(),
        Value::LocalDateTime(t) => bs::LocalDateTime {
            seconds: t.days * SECONDS_PER_DAY + t.nanos.div_euclid(NANOS_PER_SECOND),
            nanoseconds: t.nanos.rem_euclid(NANOS_PER_SECOND),
        }
        .into_value(),
        Value::DateTime(t) => {
            let (seconds, nanoseconds) = t.epoch();
            let offset = i64::from(t.offset_seconds);
            match &t.zone {
                Some(zone) => bs::DateTimeZoneId {
                    seconds,
                    nanoseconds,
                    tz_id: zone.clone(),
                    offset_seconds: Some(offset),
                }
                .into_value(),
                None => bs::DateTime {
                    seconds,
                    nanoseconds,
                    tz_offset_seconds: offset,
                }
                .into_value(),
            }
        }
        Value::Duration(d) => bs::Duration {
            months: d.months,
            days: d.days,
            seconds: d.seconds,
            nanoseconds: i64::from(d.nanos),
        }
        .into_value(),
        Value::Point(p) => match p.z {
            None => bs::Point2D {
                srid: p.crs.srid(),
                x: p.x,
                y: p.y,
            }
            .into_value(),
            Some(z) => bs::Point3D {
                srid: p.crs.srid(),
                x: p.x,
                y: p.y,
                z,
            }
            .into_value(),
        },
    })
}

/// A point parameter: a known SRID of the structure's dimension, valid coordinates.
fn point(what: &str, srid: i64, x: f64, y: f64, z: Option<f64>) -> Result<Value, BoltFailure> {
    let crs = Crs::from_srid(srid).ok_or_else(|| bad(what, format!("unknown SRID {srid} (7203, 9157, 4326, 4979)")))?;
    Point::new(crs, x, y, z).map(Value::Point).map_err(|e| bad(what, e))
}

/// A result row as Bolt values.
pub fn row_to_bolt(row: &[Value]) -> Result<Vec<Bolt>, BoltFailure> {
    row.iter().map(to_bolt).collect()
}

fn map_to_bolt(m: &Map) -> Result<hopdb_bolt::Map, BoltFailure> {
    m.iter().map(|(k, v)| Ok((k.clone(), to_bolt(v)?))).collect()
}

/// Properties as sent to clients: without the node key, as `properties(n)` shows them.
fn props_to_bolt(m: &Map) -> Result<hopdb_bolt::Map, BoltFailure> {
    m.iter()
        .filter(|(k, _)| k.as_str() != KEY_PROPERTY)
        .map(|(k, v)| Ok((k.clone(), to_bolt(v)?)))
        .collect()
}

fn unmaterialized(what: &str) -> BoltFailure {
    BoltFailure::internal(format!("a {what} left the engine without its contents"))
}

fn id_i64(id: u64) -> i64 {
    i64::try_from(id).unwrap_or(i64::MAX)
}

fn node(n: &NodeRef) -> Result<bs::Node, BoltFailure> {
    let data = n.data.as_ref().ok_or_else(|| unmaterialized("node"))?;
    Ok(bs::Node {
        id: id_i64(data.id),
        labels: data.labels.clone(),
        properties: props_to_bolt(&data.props)?,
        element_id: data.id.to_string(),
    })
}

fn relationship(r: &RelRef) -> Result<bs::Relationship, BoltFailure> {
    let data = r.data.as_ref().ok_or_else(|| unmaterialized("relationship"))?;
    Ok(bs::Relationship {
        id: data.id,
        start_node_id: id_i64(data.start_id),
        end_node_id: id_i64(data.end_id),
        rel_type: r.ty.to_string(),
        properties: props_to_bolt(&data.props)?,
        element_id: format!("r{}", data.id),
        start_node_element_id: data.start_id.to_string(),
        end_node_element_id: data.end_id.to_string(),
    })
}

/// A path as Bolt's `Path`: distinct nodes (the first is the start), distinct unbound
/// relationships, and per step a 1-based relationship index (negative when the relationship
/// points against the walk) and the 0-based index of the node reached.
fn path(p: &PathValue) -> Result<bs::Path, BoltFailure> {
    let mut nodes: Vec<bs::Node> = Vec::new();
    let mut rels: Vec<bs::UnboundRelationship> = Vec::new();
    let mut indices = Vec::with_capacity(p.rels.len() * 2);
    let first = p.nodes.first().ok_or_else(|| unmaterialized("path"))?;
    nodes.push(node(first)?);
    let mut previous = first;
    for (i, r) in p.rels.iter().enumerate() {
        let next = p.nodes.get(i + 1).ok_or_else(|| unmaterialized("path"))?;
        let data = r.data.as_ref().ok_or_else(|| unmaterialized("relationship"))?;
        let rel_index = match rels.iter().position(|u| u.id == data.id) {
            Some(at) => at + 1,
            None => {
                rels.push(bs::UnboundRelationship {
                    id: data.id,
                    rel_type: r.ty.to_string(),
                    properties: props_to_bolt(&data.props)?,
                    element_id: format!("r{}", data.id),
                });
                rels.len()
            }
        };
        let rel_index = i64::try_from(rel_index).unwrap_or(i64::MAX);
        let forward = r.src == previous.key;
        indices.push(if forward { rel_index } else { -rel_index });
        let next_node = node(next)?;
        let node_index = match nodes.iter().position(|n| n.id == next_node.id) {
            Some(at) => at,
            None => {
                nodes.push(next_node);
                nodes.len() - 1
            }
        };
        indices.push(i64::try_from(node_index).unwrap_or(i64::MAX));
        previous = next;
    }
    Ok(bs::Path { nodes, rels, indices })
}

/// `RUN`'s parameters as the engine's.
pub fn params_from_bolt(params: hopdb_bolt::Map) -> Result<Params, BoltFailure> {
    let mut out = Params::with_capacity(params.len());
    for (name, v) in params {
        let value = from_bolt(v).map_err(|f| BoltFailure::new(f.code, format!("parameter ${name}: {}", f.message)))?;
        out.insert(name, value);
    }
    Ok(out)
}

/// A Bolt value (a parameter) as a Cypher value.
pub fn from_bolt(v: Bolt) -> Result<Value, BoltFailure> {
    Ok(match v {
        Bolt::Null => Value::Null,
        Bolt::Boolean(b) => Value::Bool(b),
        Bolt::Integer(i) => Value::Int(i),
        Bolt::Float(f) => Value::Float(f),
        Bolt::String(s) => Value::String(s),
        Bolt::Bytes(b) => Value::Bytes(b),
        Bolt::List(l) => Value::List(l.into_iter().map(from_bolt).collect::<Result<_, _>>()?),
        Bolt::Map(m) => {
            let mut out = Map::new();
            for (k, v) in m {
                out.insert(k, from_bolt(v)?);
            }
            Value::Map(out)
        }
        s @ Bolt::Structure { .. } => structure(&s)?,
    })
}

fn bad(what: &str, why: impl std::fmt::Display) -> BoltFailure {
    BoltFailure::new(TYPE_ERROR, format!("invalid {what} value: {why}"))
}

fn check_nanos_of_second(what: &str, n: i64) -> Result<(), BoltFailure> {
    if (0..NANOS_PER_SECOND).contains(&n) {
        Ok(())
    } else {
        Err(bad(what, format!("nanoseconds {n} are not within 0..999999999")))
    }
}

fn check_nanos_of_day(what: &str, n: i64) -> Result<(), BoltFailure> {
    if (0..NANOS_PER_DAY).contains(&n) {
        Ok(())
    } else {
        Err(bad(what, format!("{n} nanoseconds is not a time of day")))
    }
}

fn check_offset(what: &str, o: i64) -> Result<i32, BoltFailure> {
    if (-MAX_OFFSET_SECONDS..=MAX_OFFSET_SECONDS).contains(&o) {
        Ok(o as i32)
    } else {
        Err(bad(what, format!("UTC offset {o} s is beyond ±18 hours")))
    }
}

/// Epoch days within the engine's years (±999,999,999).
fn check_days(what: &str, days: i64) -> Result<i64, BoltFailure> {
    let lo = Date::from_ymd(-999_999_999, 1, 1).map_or(i64::MIN, |d| d.days);
    let hi = Date::from_ymd(999_999_999, 12, 31).map_or(i64::MAX, |d| d.days);
    if (lo..=hi).contains(&days) {
        Ok(days)
    } else {
        Err(bad(
            what,
            format!("day {days} since 1970 is outside years ±999,999,999"),
        ))
    }
}

/// Local (days, nanoseconds of day) of seconds and nanoseconds since the epoch.
fn split_seconds(what: &str, seconds: i64, nanos: i64) -> Result<(i64, i64), BoltFailure> {
    check_nanos_of_second(what, nanos)?;
    let days = check_days(what, seconds.div_euclid(SECONDS_PER_DAY))?;
    Ok((days, seconds.rem_euclid(SECONDS_PER_DAY) * NANOS_PER_SECOND + nanos))
}

/// `datetime({datetime: source, timezone: zone})`: the engine's own zone resolution.
fn in_zone(source: Value, zone: &str) -> Result<Value, BoltFailure> {
    let mut m = Map::new();
    m.insert("datetime".into(), source);
    m.insert("timezone".into(), Value::String(zone.to_owned()));
    match temporal::call("datetime", &[Value::Map(m)], &Clock::now()) {
        Some(Ok(v)) => Ok(v),
        Some(Err(e)) => Err(bad("DateTimeZoneId", e.message)),
        None => Err(BoltFailure::internal("the engine has no datetime() function")),
    }
}

fn structure(v: &Bolt) -> Result<Value, BoltFailure> {
    let Some((t, fields)) = v.as_structure() else {
        return Err(BoltFailure::internal("not a structure"));
    };
    let malformed = |name: &str| {
        BoltFailure::request_invalid(format!(
            "malformed {name} structure ({} fields: {:?})",
            fields.len(),
            fields.iter().map(Bolt::type_name).collect::<Vec<_>>()
        ))
    };
    Ok(match t {
        tag::DATE => {
            let d = bs::Date::from_value(v).ok_or_else(|| malformed("Date"))?;
            Value::Date(Date {
                days: check_days("Date", d.days)?,
            })
        }
        tag::LOCAL_TIME => {
            let t = bs::LocalTime::from_value(v).ok_or_else(|| malformed("LocalTime"))?;
            check_nanos_of_day("LocalTime", t.nanoseconds)?;
            Value::LocalTime(LocalTime { nanos: t.nanoseconds })
        }
        tag::TIME => {
            let t = bs::Time::from_value(v).ok_or_else(|| malformed("Time"))?;
            check_nanos_of_day("Time", t.nanoseconds)?;
            Value::Time(Time {
                nanos: t.nanoseconds,
                offset_seconds: check_offset("Time", t.tz_offset_seconds)?,
            })
        }
        tag::LOCAL_DATE_TIME => {
            let t = bs::LocalDateTime::from_value(v).ok_or_else(|| malformed("LocalDateTime"))?;
            let (days, nanos) = split_seconds("LocalDateTime", t.seconds, t.nanoseconds)?;
            Value::LocalDateTime(LocalDateTime { days, nanos })
        }
        tag::DATE_TIME | tag::LEGACY_DATE_TIME => {
            let t = bs::DateTime::from_value(v).ok_or_else(|| malformed("DateTime"))?;
            let offset = check_offset("DateTime", t.tz_offset_seconds)?;
            let local = t
                .seconds
                .checked_add(t.tz_offset_seconds)
                .ok_or_else(|| bad("DateTime", "seconds out of range"))?;
            let (days, nanos) = split_seconds("DateTime", local, t.nanoseconds)?;
            Value::DateTime(DateTime {
                days,
                nanos,
                offset_seconds: offset,
                zone: None,
            })
        }
        tag::DATE_TIME_ZONE_ID => {
            let t = bs::DateTimeZoneId::from_value(v).ok_or_else(|| malformed("DateTimeZoneId"))?;
            let (days, nanos) = split_seconds("DateTimeZoneId", t.seconds, t.nanoseconds)?;
            let utc = Value::DateTime(DateTime {
                days,
                nanos,
                offset_seconds: 0,
                zone: None,
            });
            in_zone(utc, &t.tz_id)?
        }
        tag::LEGACY_DATE_TIME_ZONE_ID => {
            let t = bs::LegacyDateTimeZoneId::from_value(v).ok_or_else(|| malformed("DateTimeZoneId"))?;
            let (days, nanos) = split_seconds("DateTimeZoneId", t.local_seconds, t.nanoseconds)?;
            in_zone(Value::LocalDateTime(LocalDateTime { days, nanos }), &t.tz_id)?
        }
        tag::DURATION => {
            let d = bs::Duration::from_value(v).ok_or_else(|| malformed("Duration"))?;
            Value::Duration(
                Duration::new(d.months, d.days, d.seconds, d.nanoseconds)
                    .ok_or_else(|| bad("Duration", "seconds out of range"))?,
            )
        }
        tag::POINT_2D => {
            let p = bs::Point2D::from_value(v).ok_or_else(|| malformed("Point2D"))?;
            point("Point2D", p.srid, p.x, p.y, None)?
        }
        tag::POINT_3D => {
            let p = bs::Point3D::from_value(v).ok_or_else(|| malformed("Point3D"))?;
            point("Point3D", p.srid, p.x, p.y, Some(p.z))?
        }
        tag::NODE | tag::RELATIONSHIP | tag::UNBOUND_RELATIONSHIP | tag::PATH => {
            return Err(BoltFailure::new(
                TYPE_ERROR,
                "a node, relationship or path cannot be a parameter: pass its id or key instead",
            ))
        }
        other => {
            return Err(BoltFailure::request_invalid(format!(
                "unknown structure 0x{other:02X} in the parameters"
            )))
        }
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn scalars_and_collections_round_trip() {
        let mut m = Map::new();
        m.insert(
            "a".into(),
            Value::List(vec![Value::Int(1), Value::Null, Value::Float(1.5)]),
        );
        m.insert("b".into(), Value::Bytes(vec![1, 2]));
        m.insert("c".into(), Value::Bool(true));
        let v = Value::Map(m);
        assert_eq!(from_bolt(to_bolt(&v).unwrap()).unwrap(), v);
    }

    #[test]
    fn temporal_values_round_trip() {
        let values = [
            Value::Date(Date { days: 19_782 }),
            Value::Date(Date { days: -800_000 }),
            Value::LocalTime(LocalTime {
                nanos: 45_296_789_000_000,
            }),
            Value::Time(Time {
                nanos: 43_200_000_000_000,
                offset_seconds: 7200,
            }),
            Value::LocalDateTime(LocalDateTime {
                days: -3,
                nanos: 1_000_000_001,
            }),
            Value::DateTime(DateTime {
                days: 19_875,
                nanos: 43_200_000_000_000,
                offset_seconds: -18_000,
                zone: None,
            }),
            Value::Duration(Duration::new(14, -3, 5, 500).unwrap()),
        ];
        for v in values {
            assert_eq!(from_bolt(to_bolt(&v).unwrap()).unwrap(), v, "{v:?}");
        }
    }

    #[test]
    fn named_zones_resolve_in_both_directions() {
        // 2024-06-01T12:00 in Paris is 10:00 UTC (summer time, +02:00).
        let paris = Value::DateTime(DateTime {
            days: 19_875,
            nanos: 12 * 3600 * NANOS_PER_SECOND,
            offset_seconds: 7200,
            zone: Some("Europe/Paris".into()),
        });
        let b = to_bolt(&paris).unwrap();
        let z = bs::DateTimeZoneId::from_value(&b).unwrap();
        assert_eq!(z.seconds, 19_875 * SECONDS_PER_DAY + 10 * 3600);
        assert_eq!(z.offset_seconds, Some(7200));
        assert_eq!(from_bolt(b).unwrap(), paris);
        let legacy = bs::LegacyDateTimeZoneId {
            local_seconds: 19_875 * SECONDS_PER_DAY + 12 * 3600,
            nanoseconds: 0,
            tz_id: "Europe/Paris".into(),
        };
        assert_eq!(from_bolt(legacy.into_value()).unwrap(), paris);
        let unknown = bs::DateTimeZoneId {
            seconds: 0,
            nanoseconds: 0,
            tz_id: "Mars/Olympus".into(),
            offset_seconds: None,
        };
        let f = from_bolt(unknown.into_value()).unwrap_err();
        assert!(f.message.contains("Mars/Olympus"), "{f}");
    }

    #[test]
    fn points_round_trip() {
        for (crs, z) in [(Crs::Cartesian, None), (Crs::Wgs843D, Some(100.0))] {
            let v = Value::Point(Point::new(crs, 12.5, -56.25, z).unwrap());
            let bolt = to_bolt(&v).unwrap();
            let (t, fields) = bolt.as_structure().unwrap();
            assert_eq!(
                (t, fields.len()),
                (
                    if z.is_some() { tag::POINT_3D } else { tag::POINT_2D },
                    3 + z.iter().count()
                )
            );
            assert_eq!(fields[0], Bolt::Integer(crs.srid()));
            assert_eq!(from_bolt(bolt).unwrap(), v);
        }
    }

    #[test]
    fn bad_parameters_are_refused() {
        let p2 = |srid, y| bs::Point2D { srid, x: 1.0, y }.into_value();
        let p3 = |srid| {
            bs::Point3D {
                srid,
                x: 1.0,
                y: 2.0,
                z: 3.0,
            }
            .into_value()
        };
        for (point, why) in [
            (p2(1234, 2.0), "SRID 1234"),
            (p3(4326), "coordinates"),
            (p2(4326, 91.0), "latitude"),
        ] {
            let f = from_bolt(point).unwrap_err();
            assert!(f.code == TYPE_ERROR && f.message.contains(why), "{f}");
        }
        let bad_time = bs::LocalTime {
            nanoseconds: NANOS_PER_DAY,
        };
        assert_eq!(from_bolt(bad_time.into_value()).unwrap_err().code, TYPE_ERROR);
        let params: hopdb_bolt::Map = vec![(
            "when".into(),
            bs::Time {
                nanoseconds: 0,
                tz_offset_seconds: 19 * 3600,
            }
            .into_value(),
        )];
        let f = params_from_bolt(params).unwrap_err();
        assert!(f.message.starts_with("parameter $when:"), "{f}");
        let unknown = Bolt::Structure {
            tag: 0x01,
            fields: Vec::new(),
        };
        assert_eq!(from_bolt(unknown).unwrap_err().code, "Neo.ClientError.Request.Invalid");
    }
}
