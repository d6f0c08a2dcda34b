//! The temporal types (date, time, localtime, datetime, localdatetime, duration): values,
//! construction functions, component access, arithmetic, comparison, formatting and storage,
//! as the openCypher TCK (1.0.0-M23, `expressions/temporal`) and Neo4j define them.
//!
//! - [`types`]: the value types and calendar arithmetic (years ±999,999,999 as in Java).
//! - `zone`: fixed offsets and IANA zones (`chrono-tz`), resolved like `ZonedDateTime.ofLocal`.
//! - `parse`: ISO 8601 text (calendar, week, ordinal and basic forms; offsets; `[Zone/Name]`;
//!   durations with fractions).
//! - `construct`: from text, maps, other temporal values, the clock and the epoch.
//! - `truncate`: `*.truncate(unit, value[, map])`.
//! - `arithmetic`: `±` durations, `* /` numbers, ordering and equality.
//! - `duration`: duration maps, scaling, `duration.between/inMonths/inDays/inSeconds`.
//! - `format`: string forms; `access`: components; [`store`]: property storage.

mod access;
mod arithmetic;
mod construct;
mod duration;
mod format;
mod parse;
pub mod store;
mod truncate;
pub mod types;
mod zone;

use crate::error::{CypherError, Result};
use crate::value::Value;
use std::cmp::Ordering;

pub use store::{from_store, import_value, to_store, STORE_KEY};
pub use types::{Date, DateTime, Duration, LocalDateTime, LocalTime, Time};

use duration::Between;
use types::Kind;

/// The statement's clock: every `*.statement()` / default "now" call in one query sees the
/// same instant.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    /// Nanoseconds since the Unix epoch, UTC, taken when the query started.
    pub statement_nanos: i128,
}

impl Clock {
    /// A clock reading the system time now.
    pub fn now() -> Clock {
        Clock {
            statement_nanos: realtime_nanos(),
        }
    }
}

fn realtime_nanos() -> i128 {
    match std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i128,
        Err(e) => -(e.duration().as_nanos() as i128),
    }
}

/// Runs a temporal function (`date`, `date.truncate`, `duration.between`, `datetime.fromepoch`,
/// ...; `name` lowercased); `None` when `name` is not a temporal function.
///
/// `*.statement()` and `*.transaction()` read [`Clock::statement_nanos`]; `*.realtime()`
/// reads the system clock; the no-argument forms are `*.statement()`. The default time zone
/// is UTC.
pub fn call(name: &str, args: &[Value], clock: &Clock) -> Option<Result<Value>> {
    let now = clock.statement_nanos;
    let (base, sub) = match name.split_once('.') {
        Some((b, s)) => (b, Some(s)),
        None => (name, None),
    };
    if base == "duration" {
        let between = |which| match args {
            [a, b] => duration::between(a, b, which),
            _ => Err(CypherError::type_error(format!("{name} takes two arguments"))),
        };
        return Some(match sub {
            None => duration_fn(args),
            Some("between") => between(Between::All),
            Some("inmonths") => between(Between::Months),
            Some("indays") => between(Between::Days),
            Some("inseconds") => between(Between::Seconds),
            Some(_) => return None,
        });
    }
    let kind = Kind::from_name(base)?;
    Some(match sub {
        None => construct::construct(kind, args, now),
        Some("statement") | Some("transaction") => construct::current(kind, args, now),
        Some("realtime") => construct::current(kind, args, realtime_nanos()),
        Some("truncate") => truncate::truncate(kind, args, now),
        Some("fromepoch") if kind == Kind::DateTime => construct::from_epoch(args, false),
        Some("fromepochmillis") if kind == Kind::DateTime => construct::from_epoch(args, true),
        Some(_) => return None,
    })
}

fn duration_fn(args: &[Value]) -> Result<Value> {
    match args {
        [Value::Null] => Ok(Value::Null),
        [Value::String(s)] => parse::parse_duration(s).map(Value::Duration),
        [Value::Map(m)] => duration::from_map(m).map(Value::Duration),
        [v] => Err(CypherError::type_error(format!(
            "duration() expects a STRING or a MAP, not {}",
            v.type_name()
        ))),
        _ => Err(CypherError::type_error("duration() takes one argument")),
    }
}

/// A component of a temporal value (`d.year`, `dur.minutes`, ...); `None` when `v` is not temporal.
/// An unknown component is an `InvalidArgumentValue` error.
pub fn property(v: &Value, key: &str) -> Option<Result<Value>> {
    access::property(v, key)
}

/// `a + b` when either side is temporal; `None` otherwise (and for combinations that have no
/// temporal meaning, such as `date + date`, leaving the caller's type error).
pub fn add(a: &Value, b: &Value) -> Option<Result<Value>> {
    arithmetic::add(a, b)
}

/// `a - b` when either side is temporal; `None` otherwise.
pub fn sub(a: &Value, b: &Value) -> Option<Result<Value>> {
    arithmetic::sub(a, b)
}

/// `a * b` / `a / b` for a duration and a number; `None` otherwise.
pub fn mul_div(a: &Value, b: &Value, divide: bool) -> Option<Result<Value>> {
    arithmetic::mul_div(a, b, divide)
}

/// Compares two temporal values of the same type; `None` when not comparable (different
/// types, durations).
pub fn compare(a: &Value, b: &Value) -> Option<Ordering> {
    arithmetic::compare(a, b)
}

/// Cypher `=` when either side is temporal: `Some(false)` across types, durations by their
/// components, instants when [`compare`] says equal; `None` when neither side is temporal or
/// either is null.
pub fn equals(a: &Value, b: &Value) -> Option<bool> {
    arithmetic::equals(a, b)
}

/// The Cypher string form (`toString`), e.g. `2015-07-21T21:40:32.142+01:00[Europe/London]`.
pub fn to_cypher_string(v: &Value) -> Option<String> {
    Some(match v {
        Value::Date(d) => d.to_string(),
        Value::LocalTime(t) => t.to_string(),
        Value::Time(t) => t.to_string(),
        Value::LocalDateTime(t) => t.to_string(),
        Value::DateTime(t) => t.to_string(),
        Value::Duration(d) => d.to_string(),
        _ => return None,
    })
}
