//! Temporal arithmetic (instant ± duration, duration ± duration, duration × ÷ number) and
//! comparison, following Java's `Temporal.plus(TemporalAmount)` as Neo4j applies a duration:
//! months, then days, then seconds and nanoseconds (a date adds whole days of the seconds;
//! a time of day wraps around midnight; a zoned date-time adds months and days to its local
//! date, seconds to its instant).

use super::construct::{from_instant, zoned};
use super::duration::{add_durations, scale_float, scale_int};
use super::types::{
    overflow, plus_months, Date, DateTime, Duration, LocalDateTime, LocalTime, Time, NANOS_PER_DAY, NANOS_PER_SECOND,
    SECONDS_PER_DAY,
};
use super::zone::Zone;
use crate::error::Result;
use crate::value::Value;
use std::cmp::Ordering;

fn is_instant(v: &Value) -> bool {
    matches!(
        v,
        Value::Date(_) | Value::LocalTime(_) | Value::Time(_) | Value::LocalDateTime(_) | Value::DateTime(_)
    )
}

/// `a + b`.
pub(crate) fn add(a: &Value, b: &Value) -> Option<Result<Value>> {
    match (a, b) {
        (Value::Duration(x), Value::Duration(y)) => Some(add_durations(x, y, false).map(Value::Duration)),
        (t, Value::Duration(d)) | (Value::Duration(d), t) if is_instant(t) => Some(plus(t, d, false)),
        _ => None,
    }
}

/// `a - b`.
pub(crate) fn sub(a: &Value, b: &Value) -> Option<Result<Value>> {
    match (a, b) {
        (Value::Duration(x), Value::Duration(y)) => Some(add_durations(x, y, true).map(Value::Duration)),
        (t, Value::Duration(d)) if is_instant(t) => Some(plus(t, d, true)),
        _ => None,
    }
}

/// `d * n`, `n * d`, `d / n`.
pub(crate) fn mul_div(a: &Value, b: &Value, divide: bool) -> Option<Result<Value>> {
    let (d, n) = match (a, b) {
        (Value::Duration(d), n) => (d, n),
        (n, Value::Duration(d)) if !divide => (d, n),
        _ => return None,
    };
    let r = match n {
        Value::Int(k) if !divide => scale_int(d, *k),
        Value::Int(k) => scale_float(d, *k as f64, true),
        Value::Float(f) => scale_float(d, *f, divide),
        _ => return None,
    };
    Some(r.map(Value::Duration))
}

/// Nanoseconds of a duration's seconds part (`seconds * 1e9 + nanos`), signed.
fn time_part(d: &Duration) -> i128 {
    i128::from(d.seconds) * i128::from(NANOS_PER_SECOND) + i128::from(d.nanos)
}

/// Adds `n` nanoseconds to a time of day, wrapping around midnight.
fn wrap_time(nanos: i64, n: i128) -> i64 {
    (i128::from(nanos) + n).rem_euclid(i128::from(NANOS_PER_DAY)) as i64
}

/// Local (days, nanos) plus nanoseconds, carrying whole days.
fn carry(days: i64, nanos: i64, n: i128) -> Result<(i64, i64)> {
    let total = i128::from(nanos) + n;
    let d = i64::try_from(total.div_euclid(i128::from(NANOS_PER_DAY))).map_err(|_| overflow())?;
    let days = days.checked_add(d).ok_or_else(overflow)?;
    Ok((days, total.rem_euclid(i128::from(NANOS_PER_DAY)) as i64))
}

/// Months then days on a date.
fn shift_date(days: i64, d: &Duration, sign: i64) -> Result<i64> {
    let days = plus_months(days, d.months.checked_mul(sign).ok_or_else(overflow)?)?;
    let days = days
        .checked_add(d.days.checked_mul(sign).ok_or_else(overflow)?)
        .ok_or_else(overflow)?;
    super::types::check_days(days)
}

/// An instant plus (or minus) a duration.
fn plus(t: &Value, d: &Duration, negate: bool) -> Result<Value> {
    let sign: i64 = if negate { -1 } else { 1 };
    let n = time_part(d) * i128::from(sign);
    Ok(match t {
        Value::Date(x) => {
            let days = shift_date(x.days, d, sign)?;
            let extra = (d.seconds / SECONDS_PER_DAY) * sign;
            Value::Date(Date {
                days: super::types::check_days(days.checked_add(extra).ok_or_else(overflow)?)?,
            })
        }
        Value::LocalTime(x) => Value::LocalTime(LocalTime {
            nanos: wrap_time(x.nanos, n),
        }),
        Value::Time(x) => Value::Time(Time {
            nanos: wrap_time(x.nanos, n),
            offset_seconds: x.offset_seconds,
        }),
        Value::LocalDateTime(x) => {
            let days = shift_date(x.days, d, sign)?;
            let (days, nanos) = carry(days, x.nanos, n)?;
            Value::LocalDateTime(LocalDateTime {
                days: super::types::check_days(days)?,
                nanos,
            })
        }
        Value::DateTime(x) => {
            let zone = match &x.zone {
                Some(name) => Zone::parse(name)?,
                None => Zone::Offset(x.offset_seconds),
            };
            let days = shift_date(x.days, d, sign)?;
            let moved = zoned(days, x.nanos, zone, Some(x.offset_seconds))?;
            let (secs, nano) = moved.epoch();
            let total = i128::from(secs) * i128::from(NANOS_PER_SECOND) + i128::from(nano) + n;
            let secs = i64::try_from(total.div_euclid(i128::from(NANOS_PER_SECOND))).map_err(|_| overflow())?;
            let nano = total.rem_euclid(i128::from(NANOS_PER_SECOND)) as i64;
            Value::DateTime(from_instant(secs, nano, zone)?)
        }
        _ => return Err(overflow()),
    })
}

/// Orders two values of the same instant type (Neo4j's order: times by their UTC time then
/// offset; date-times by instant, then offset, then fixed offsets before named zones, then
/// zone name); `None` for durations and mixed types.
pub(crate) fn compare(a: &Value, b: &Value) -> Option<Ordering> {
    Some(match (a, b) {
        (Value::Date(x), Value::Date(y)) => x.days.cmp(&y.days),
        (Value::LocalTime(x), Value::LocalTime(y)) => x.nanos.cmp(&y.nanos),
        (Value::Time(x), Value::Time(y)) => {
            let utc = |t: &Time| t.nanos - i64::from(t.offset_seconds) * NANOS_PER_SECOND;
            utc(x).cmp(&utc(y)).then(x.offset_seconds.cmp(&y.offset_seconds))
        }
        (Value::LocalDateTime(x), Value::LocalDateTime(y)) => (x.days, x.nanos).cmp(&(y.days, y.nanos)),
        (Value::DateTime(x), Value::DateTime(y)) => compare_datetimes(x, y),
        _ => return None,
    })
}

fn compare_datetimes(x: &DateTime, y: &DateTime) -> Ordering {
    x.epoch()
        .cmp(&y.epoch())
        .then(x.offset_seconds.cmp(&y.offset_seconds))
        .then_with(|| match (&x.zone, &y.zone) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Less,
            (Some(_), None) => Ordering::Greater,
            (Some(p), Some(q)) => p.cmp(q),
        })
}

/// Cypher `=` on temporal values: `None` unless both are non-null and one is temporal.
pub(crate) fn equals(a: &Value, b: &Value) -> Option<bool> {
    let temporal = |v: &Value| is_instant(v) || matches!(v, Value::Duration(_));
    if a.is_null() || b.is_null() || !(temporal(a) || temporal(b)) {
        return None;
    }
    Some(match (a, b) {
        (Value::Duration(x), Value::Duration(y)) => x == y,
        _ => compare(a, b) == Some(Ordering::Equal),
    })
}
