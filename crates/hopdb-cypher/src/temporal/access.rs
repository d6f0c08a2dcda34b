//! Component access: `d.year`, `t.offsetMinutes`, `dt.epochMillis`, `dur.minutesOfHour`, ...

use super::types::{
    civil_from_days, day_of_quarter, day_of_week, invalid, iso_week, ordinal_day, split_time, Duration, Parts,
    NANOS_PER_SECOND,
};
use super::zone::format_offset;
use crate::error::Result;
use crate::value::Value;

/// A component of a temporal value; `None` when `v` is not temporal.
pub(crate) fn property(v: &Value, key: &str) -> Option<Result<Value>> {
    if let Value::Duration(d) = v {
        return Some(duration_property(d, key).ok_or_else(|| no_such(v, key)));
    }
    let p = Parts::of(v)?;
    Some(instant_property(v, &p, key).ok_or_else(|| no_such(v, key)))
}

fn no_such(v: &Value, key: &str) -> crate::error::CypherError {
    invalid(format!("a {} has no component `{key}`", v.type_name()))
}

fn instant_property(v: &Value, p: &Parts, key: &str) -> Option<Value> {
    if let Some(days) = p.date {
        let (y, m, d) = civil_from_days(days);
        let found = match key {
            "year" => Some(y),
            "quarter" => Some((i64::from(m) - 1) / 3 + 1),
            "month" => Some(i64::from(m)),
            "week" => Some(iso_week(days).1),
            "weekYear" => Some(iso_week(days).0),
            "day" => Some(i64::from(d)),
            "ordinalDay" => Some(ordinal_day(days)),
            "dayOfWeek" | "weekDay" => Some(day_of_week(days)),
            "dayOfQuarter" => Some(day_of_quarter(days)),
            _ => None,
        };
        if let Some(x) = found {
            return Some(Value::Int(x));
        }
    }
    if let Some(t) = p.time {
        let (h, m, s, n) = split_time(t);
        let found = match key {
            "hour" => Some(h),
            "minute" => Some(m),
            "second" => Some(s),
            "millisecond" => Some(n / 1_000_000),
            "microsecond" => Some(n / 1_000),
            "nanosecond" => Some(n),
            _ => None,
        };
        if let Some(x) = found {
            return Some(Value::Int(x));
        }
    }
    if let Some(off) = p.offset {
        match key {
            "timezone" => {
                let name = match v {
                    Value::DateTime(dt) => dt.zone.clone(),
                    _ => None,
                };
                return Some(Value::String(name.unwrap_or_else(|| format_offset(off))));
            }
            "offset" => return Some(Value::String(format_offset(off))),
            "offsetMinutes" => return Some(Value::Int(i64::from(off) / 60)),
            "offsetSeconds" => return Some(Value::Int(i64::from(off))),
            _ => {}
        }
    }
    if let Value::DateTime(dt) = v {
        let (secs, nano) = dt.epoch();
        match key {
            "epochSeconds" => return Some(Value::Int(secs)),
            "epochMillis" => return Some(Value::Int(secs.saturating_mul(1000).saturating_add(nano / 1_000_000))),
            _ => {}
        }
    }
    None
}

fn duration_property(d: &Duration, key: &str) -> Option<Value> {
    let nanos = i64::from(d.nanos);
    let wide = |scale: i64, div: i64| {
        let v = i128::from(d.seconds) * i128::from(scale) + i128::from(nanos / div);
        i64::try_from(v).unwrap_or(if v < 0 { i64::MIN } else { i64::MAX })
    };
    Some(Value::Int(match key {
        "years" => d.months / 12,
        "quarters" => d.months / 3,
        "months" => d.months,
        "weeks" => d.days / 7,
        "days" => d.days,
        "hours" => d.seconds / 3600,
        "minutes" => d.seconds / 60,
        "seconds" => d.seconds,
        "milliseconds" => wide(1_000, 1_000_000),
        "microseconds" => wide(1_000_000, 1_000),
        "nanoseconds" => wide(NANOS_PER_SECOND, 1),
        "quartersOfYear" => d.months / 3 % 4,
        "monthsOfQuarter" => d.months % 3,
        "monthsOfYear" => d.months % 12,
        "daysOfWeek" => d.days % 7,
        "minutesOfHour" => d.seconds / 60 % 60,
        "secondsOfMinute" => d.seconds % 60,
        "millisecondsOfSecond" => nanos / 1_000_000,
        "microsecondsOfSecond" => nanos / 1_000,
        "nanosecondsOfSecond" => nanos,
        _ => return None,
    }))
}
