//! Temporal values as stored properties. The store has no temporal types, so each value is a
//! map with the single reserved key [`STORE_KEY`] holding `[type tag, text form]`, e.g.
//! `{"$hopdb.temporal": ["datetime", "2015-07-21T21:40:32.142+01:00[Europe/London]"]}`.
//! Tags: `date`, `localtime`, `time`, `localdatetime`, `datetime`, `duration`. The text form
//! is the Cypher string form, which parses back to the identical value (a named zone's
//! offset is kept as the preferred offset, so DST overlaps round-trip). Lists holding
//! temporal values store each element this way.

use super::construct::construct;
use super::parse::parse_duration;
use super::types::Kind;
use crate::value::Value;
use hopdb_database::Value as S;

/// The reserved key of a stored temporal value's map.
pub use hopdb_database::TEMPORAL_KEY as STORE_KEY;

fn tag(v: &Value) -> Option<&'static str> {
    Some(match v {
        Value::Date(_) => "date",
        Value::LocalTime(_) => "localtime",
        Value::Time(_) => "time",
        Value::LocalDateTime(_) => "localdatetime",
        Value::DateTime(_) => "datetime",
        Value::Duration(_) => "duration",
        _ => return None,
    })
}

/// Encodes a temporal value, or a list holding at least one, for the store; `None` for
/// anything else (and for lists with elements the store cannot hold).
pub fn to_store(v: &Value) -> Option<S> {
    if let Some(t) = tag(v) {
        let text = super::to_cypher_string(v)?;
        let list = S::List(vec![S::Str(t.to_owned()), S::Str(text)]);
        return Some(S::Map([(STORE_KEY.to_owned(), list)].into_iter().collect()));
    }
    match v {
        Value::List(items) if items.iter().any(|i| tag(i).is_some()) => Some(S::List(
            items
                .iter()
                .map(|i| to_store(i).or_else(|| i.to_store()))
                .collect::<Option<Vec<_>>>()?,
        )),
        _ => None,
    }
}

/// Decodes a stored temporal value (or a list holding at least one); `None` for anything
/// else, ordinary maps included.
pub fn from_store(v: &S) -> Option<Value> {
    match v {
        S::Map(m) if m.len() == 1 => {
            let S::List(l) = m.get(STORE_KEY)? else { return None };
            let [S::Str(t), S::Str(text)] = l.as_slice() else {
                return None;
            };
            decode(t, text)
        }
        S::List(items)
            if items
                .iter()
                .any(|i| matches!(i, S::Map(m) if m.contains_key(STORE_KEY))) =>
        {
            Some(Value::List(
                items
                    .iter()
                    .map(|i| from_store(i).unwrap_or_else(|| Value::from_store(i.clone())))
                    .collect(),
            ))
        }
        _ => None,
    }
}

fn decode(tag: &str, text: &str) -> Option<Value> {
    if tag == "duration" {
        return parse_duration(text).ok().map(Value::Duration);
    }
    let kind = Kind::from_name(tag)?;
    construct(kind, &[Value::String(text.to_owned())], 0).ok()
}

/// A temporal column of a neo4j-admin CSV file (`date`, `localtime`, `time`,
/// `localdatetime`, `datetime`, `duration`) as the store encodes it. `zone` is the column's
/// `{timezone:...}` default for `time` and `datetime` texts that name none (neo4j-admin's
/// rule); without it they are UTC. The import layer calls this through
/// `hopdb_import::TemporalParser`.
pub fn import_value(kind: &str, text: &str, zone: Option<&str>) -> std::result::Result<S, String> {
    let invalid = |e: crate::error::CypherError| format!("'{text}' is not a valid {kind}: {}", e.message);
    let value = if kind == "duration" {
        Value::Duration(parse_duration(text).map_err(invalid)?)
    } else {
        let k = Kind::from_name(kind).ok_or_else(|| format!("unknown temporal type {kind}"))?;
        let local = match k {
            Kind::DateTime => Some((Kind::LocalDateTime, "datetime")),
            Kind::Time => Some((Kind::LocalTime, "time")),
            _ => None,
        };
        let text_value = Value::String(text.to_owned());
        match (zone, local) {
            // A text without a zone of its own takes the column's.
            (Some(z), Some((local_kind, base))) => match construct(local_kind, std::slice::from_ref(&text_value), 0) {
                Ok(l) => {
                    let m = [
                        (base.to_owned(), l),
                        ("timezone".to_owned(), Value::String(z.to_owned())),
                    ]
                    .into_iter()
                    .collect();
                    construct(k, &[Value::Map(m)], 0).map_err(invalid)?
                }
                Err(_) => construct(k, &[text_value], 0).map_err(invalid)?,
            },
            _ => construct(k, &[text_value], 0).map_err(invalid)?,
        }
    };
    to_store(&value).ok_or_else(|| format!("'{text}' has no stored form as a {kind}"))
}
