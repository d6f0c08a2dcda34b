//! `date.truncate(unit, value[, map])` and the same for the other four instant types: the
//! value's local fields cut down to `unit`, then the map's fields applied over the result
//! (sub-second fields add to the kept fraction; `timezone` replaces the zone, keeping the
//! local fields).

use super::construct::{assemble, Fields, Source};
use super::types::{
    civil_from_days, day_of_week, days_from_civil, invalid, iso_week, week_year_start, Kind, Parts, NANOS_PER_DAY,
    NANOS_PER_SECOND,
};
use crate::error::{CypherError, Result};
use crate::value::{Map, Value};

/// Truncation units, coarsest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Unit {
    Millennium,
    Century,
    Decade,
    Year,
    WeekYear,
    Quarter,
    Month,
    Week,
    Day,
    Hour,
    Minute,
    Second,
    Millisecond,
    Microsecond,
}

impl Unit {
    fn parse(s: &str) -> Option<Unit> {
        Some(match s.to_ascii_lowercase().as_str() {
            "millennium" => Unit::Millennium,
            "century" => Unit::Century,
            "decade" => Unit::Decade,
            "year" => Unit::Year,
            "weekyear" => Unit::WeekYear,
            "quarter" => Unit::Quarter,
            "month" => Unit::Month,
            "week" => Unit::Week,
            "day" => Unit::Day,
            "hour" => Unit::Hour,
            "minute" => Unit::Minute,
            "second" => Unit::Second,
            "millisecond" => Unit::Millisecond,
            "microsecond" => Unit::Microsecond,
            _ => return None,
        })
    }
}

/// `kind.truncate(args...)`.
pub(crate) fn truncate(kind: Kind, args: &[Value], now_nanos: i128) -> Result<Value> {
    let (unit, value, map) = match args {
        [u, v] => (u, v, None),
        [u, v, m] => (u, v, Some(m)),
        _ => {
            return Err(CypherError::type_error(format!(
                "{}.truncate takes a unit, a temporal value and an optional map",
                kind.name()
            )))
        }
    };
    if unit.is_null() || value.is_null() {
        return Ok(Value::Null);
    }
    let Value::String(unit_name) = unit else {
        return Err(CypherError::type_error(format!(
            "truncation unit must be a STRING, not {}",
            unit.type_name()
        )));
    };
    let unit = Unit::parse(unit_name).ok_or_else(|| invalid(format!("unsupported truncation unit '{unit_name}'")))?;
    let empty = Map::new();
    let map = match map {
        None | Some(Value::Null) => &empty,
        Some(Value::Map(m)) => m,
        Some(other) => {
            return Err(CypherError::type_error(format!(
                "truncation fields must be a MAP, not {}",
                other.type_name()
            )))
        }
    };
    let Some(p) = Parts::of(value) else {
        return Err(CypherError::type_error(format!(
            "cannot truncate a {}",
            value.type_name()
        )));
    };
    if kind.has_date() && p.date.is_none() {
        return Err(CypherError::type_error(format!(
            "cannot truncate a {} to a {}",
            value.type_name(),
            kind.name()
        )));
    }
    if kind == Kind::Date && unit > Unit::Day {
        return Err(invalid(format!("cannot truncate a date to unit '{unit_name}'")));
    }
    if !kind.has_date() && unit < Unit::Day {
        return Err(invalid(format!(
            "cannot truncate a {} to unit '{unit_name}'",
            kind.name()
        )));
    }
    if p.time.is_none() && unit > Unit::Day {
        return Err(invalid(format!(
            "cannot truncate a {} to unit '{unit_name}'",
            value.type_name()
        )));
    }
    let mut src = Source::of(&p);
    src.date = p.date.map(|d| truncate_date(d, unit));
    src.time = Some(truncate_time(p.time.unwrap_or(0), unit));
    let fields = Fields::read(kind, map)?;
    assemble(kind, &fields, &src, true, now_nanos)
}

fn truncate_date(days: i64, unit: Unit) -> i64 {
    let (y, m, _) = civil_from_days(days);
    let first_of_year = |y: i64| days_from_civil(y, 1, 1);
    match unit {
        Unit::Millennium => first_of_year(y.div_euclid(1000) * 1000),
        Unit::Century => first_of_year(y.div_euclid(100) * 100),
        Unit::Decade => first_of_year(y.div_euclid(10) * 10),
        Unit::Year => first_of_year(y),
        Unit::WeekYear => week_year_start(iso_week(days).0),
        Unit::Quarter => days_from_civil(y, (m - 1) / 3 * 3 + 1, 1),
        Unit::Month => days_from_civil(y, m, 1),
        Unit::Week => days - (day_of_week(days) - 1),
        _ => days,
    }
}

fn truncate_time(nanos: i64, unit: Unit) -> i64 {
    let step = match unit {
        Unit::Hour => 3600 * NANOS_PER_SECOND,
        Unit::Minute => 60 * NANOS_PER_SECOND,
        Unit::Second => NANOS_PER_SECOND,
        Unit::Millisecond => 1_000_000,
        Unit::Microsecond => 1_000,
        _ => NANOS_PER_DAY,
    };
    nanos - nanos % step
}
