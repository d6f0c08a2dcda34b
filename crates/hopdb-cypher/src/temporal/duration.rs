//! Durations: construction from maps (fractions cascade into smaller units as in Neo4j: a
//! month is 2,629,746 seconds on average, a day 86,400), scaling by numbers, and
//! `duration.between` / `inMonths` / `inDays` / `inSeconds` across temporal types.

use super::types::{invalid, overflow, plus_months, Duration, Parts, NANOS_PER_DAY, NANOS_PER_SECOND, SECONDS_PER_DAY};
use super::zone::Zone;
use crate::error::{CypherError, Result};
use crate::value::{Map, Value};

/// Average seconds in a month (a Gregorian year / 12), as Neo4j uses for fractional months.
const AVG_SECONDS_PER_MONTH: f64 = 2_629_746.0;
const NANOS_F: f64 = NANOS_PER_SECOND as f64;
const DAY_F: f64 = SECONDS_PER_DAY as f64;

/// Truncates toward zero as Java's `(long)` cast does, but snaps values within `tol` of an
/// integer to it (so float noise such as `62072.99999999` counts as `62073`).
fn to_long(x: f64, tol: f64) -> Result<i64> {
    if !x.is_finite() || x.abs() >= 9.2e18 {
        return Err(overflow());
    }
    let r = x.round();
    let v = if (x - r).abs() <= tol { r } else { x.trunc() };
    Ok(v as i64)
}

fn rel_tol(x: f64) -> f64 {
    1e-9 * (1.0 + x.abs())
}

/// Neo4j's `DurationValue.approximate`: whole months, the fraction of a month as days, the
/// fraction of a day as seconds, the fraction of a second as nanoseconds.
pub(crate) fn approximate(months: f64, days: f64, seconds: f64, nanos: f64) -> Result<Duration> {
    let m = to_long(months, rel_tol(months))?;
    let days = days + (months - m as f64) * AVG_SECONDS_PER_MONTH / DAY_F;
    let d = to_long(days, rel_tol(days))?;
    let seconds = seconds + (days - d as f64) * DAY_F;
    let s = to_long(seconds, rel_tol(seconds))?;
    let nanos = nanos + (seconds - s as f64) * NANOS_F;
    let n = to_long(nanos, 1e-3 + seconds.abs() * 1e-6)?;
    Duration::new(m, d, s, n).ok_or_else(overflow)
}

/// `d * k` for an integer `k`.
pub(crate) fn scale_int(d: &Duration, k: i64) -> Result<Duration> {
    let months = d.months.checked_mul(k).ok_or_else(overflow)?;
    let days = d.days.checked_mul(k).ok_or_else(overflow)?;
    let total = (i128::from(d.seconds) * i128::from(NANOS_PER_SECOND) + i128::from(d.nanos)) * i128::from(k);
    let mut r = Duration::from_nanos(total)?;
    r.months = months;
    r.days = days;
    Ok(r)
}

/// `d * f` (or `d / f` when `divide`) for a float factor.
pub(crate) fn scale_float(d: &Duration, f: f64, divide: bool) -> Result<Duration> {
    if divide && f == 0.0 {
        return Err(CypherError::argument(
            "DivisionByZero",
            "division of a duration by zero",
        ));
    }
    let op = |x: i64| if divide { x as f64 / f } else { x as f64 * f };
    approximate(op(d.months), op(d.days), op(d.seconds), op(i64::from(d.nanos)))
}

/// `a + b` (or `a - b`) for two durations.
pub(crate) fn add_durations(a: &Duration, b: &Duration, negate_b: bool) -> Result<Duration> {
    let b = if negate_b { scale_int(b, -1)? } else { b.clone() };
    let months = a.months.checked_add(b.months).ok_or_else(overflow)?;
    let days = a.days.checked_add(b.days).ok_or_else(overflow)?;
    let seconds = a.seconds.checked_add(b.seconds).ok_or_else(overflow)?;
    Duration::new(months, days, seconds, i64::from(a.nanos) + i64::from(b.nanos)).ok_or_else(overflow)
}

/// `duration({...})`.
pub(crate) fn from_map(m: &Map) -> Result<Duration> {
    const KEYS: [&str; 11] = [
        "years",
        "quarters",
        "months",
        "weeks",
        "days",
        "hours",
        "minutes",
        "seconds",
        "milliseconds",
        "microseconds",
        "nanoseconds",
    ];
    let mut ints = [0i64; 11];
    let mut floats = [0f64; 11];
    let mut fractional = false;
    for (k, v) in m {
        let i = KEYS
            .iter()
            .position(|n| n == k)
            .ok_or_else(|| invalid(format!("no such field for a duration: {k}")))?;
        match v {
            Value::Null => {}
            Value::Int(x) => {
                ints[i] = *x;
                floats[i] = *x as f64;
            }
            Value::Float(x) => {
                floats[i] = *x;
                fractional = true;
            }
            other => {
                return Err(CypherError::type_error(format!(
                    "duration field {k} must be a number, not {}",
                    other.type_name()
                )))
            }
        }
    }
    if fractional {
        let f = floats;
        return approximate(
            f[0] * 12.0 + f[1] * 3.0 + f[2],
            f[3] * 7.0 + f[4],
            f[5] * 3600.0 + f[6] * 60.0 + f[7],
            f[8] * 1e6 + f[9] * 1e3 + f[10],
        );
    }
    let w = |v: i64| i128::from(v);
    let months = w(ints[0]) * 12 + w(ints[1]) * 3 + w(ints[2]);
    let days = w(ints[3]) * 7 + w(ints[4]);
    let nanos = (w(ints[5]) * 3600 + w(ints[6]) * 60 + w(ints[7])) * w(NANOS_PER_SECOND)
        + w(ints[8]) * 1_000_000
        + w(ints[9]) * 1_000
        + w(ints[10]);
    let mut d = Duration::from_nanos(nanos)?;
    d.months = i64::try_from(months).map_err(|_| overflow())?;
    d.days = i64::try_from(days).map_err(|_| overflow())?;
    Ok(d)
}

/// Which `duration.*` function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Between {
    /// `duration.between`: months, then days, then the rest.
    All,
    /// `duration.inMonths`.
    Months,
    /// `duration.inDays`.
    Days,
    /// `duration.inSeconds`.
    Seconds,
}

/// `duration.between(a, b)` and friends.
pub(crate) fn between(a: &Value, b: &Value, which: Between) -> Result<Value> {
    if a.is_null() || b.is_null() {
        return Ok(Value::Null);
    }
    let (Some(from), Some(to)) = (Parts::of(a), Parts::of(b)) else {
        return Err(CypherError::type_error(format!(
            "duration.between expects two temporal instants, got {} and {}",
            a.type_name(),
            b.type_name()
        )));
    };
    let both_dates = from.date.is_some() && to.date.is_some();
    let d = match which {
        Between::All => {
            let (mut months, mut days) = (0, 0);
            let mut f = from;
            if both_dates {
                months = until_date_based(&f, &to, true)?;
                f = shift(&f, months, 0)?;
                days = until_date_based(&f, &to, false)?;
                f = shift(&f, 0, days)?;
            }
            let mut d = Duration::from_nanos(until_nanos(&f, &to))?;
            d.months = months;
            d.days = days;
            d
        }
        Between::Months | Between::Days => {
            let mut d = Duration {
                months: 0,
                days: 0,
                seconds: 0,
                nanos: 0,
            };
            if both_dates {
                let n = until_date_based(&from, &to, which == Between::Months)?;
                if which == Between::Months {
                    d.months = n;
                } else {
                    d.days = n;
                }
            }
            d
        }
        Between::Seconds => Duration::from_nanos(until_nanos(&from, &to))?,
    };
    Ok(Value::Duration(d))
}

/// Fills in what one side lacks from the other, as Neo4j's `TemporalValue.until` does:
/// midnight for a missing time, the other's date for a missing date, the other's zone.
fn align(from: &Parts, to: &Parts, time_based: bool) -> (Parts, Parts) {
    let (mut f, mut t) = (from.clone(), to.clone());
    if time_based {
        f.time.get_or_insert(0);
        t.time.get_or_insert(0);
    } else if f.time.is_some() && t.time.is_none() {
        t.time = Some(0);
    } else if t.time.is_some() && f.time.is_none() {
        f.time = Some(0);
    }
    if f.date.is_some() && t.date.is_none() {
        t.date = f.date;
    } else if t.date.is_some() && f.date.is_none() {
        f.date = t.date;
    }
    if f.zone.is_some() && t.zone.is_none() {
        attach_zone(&mut t, &f);
    } else if t.zone.is_some() && f.zone.is_none() {
        attach_zone(&mut f, &t);
    }
    (f, t)
}

fn attach_zone(p: &mut Parts, src: &Parts) {
    let (Some(zone), Some(off)) = (src.zone, src.offset) else {
        return;
    };
    p.zone = Some(zone);
    match (p.date, zone) {
        (Some(d), Zone::Named(_)) => {
            let (d, t, o) = zone.resolve_local(d, p.time.unwrap_or(0), None);
            p.date = Some(d);
            p.time = Some(t);
            p.offset = Some(o);
        }
        _ => p.offset = Some(off),
    }
}

/// Exact nanoseconds from `from` to `to` (by instant when zoned).
fn until_nanos(from: &Parts, to: &Parts) -> i128 {
    let (f, t) = align(from, to, true);
    t.instant_nanos() - f.instant_nanos()
}

/// Whole months (or days) from `from` to `to`, as Java's `LocalDateTime.until` counts them
/// (in `from`'s zone when both are zoned).
fn until_date_based(from: &Parts, to: &Parts, months: bool) -> Result<i64> {
    let (f, t) = align(from, to, false);
    let (Some(fd), Some(mut td)) = (f.date, t.date) else {
        return Ok(0);
    };
    let ft = f.time.unwrap_or(0);
    let mut tt = t.time.unwrap_or(0);
    if let (Some(zone), Some(_)) = (f.zone, t.zone) {
        let inst = t.instant_nanos();
        let secs = inst.div_euclid(i128::from(NANOS_PER_SECOND));
        let secs = i64::try_from(secs).map_err(|_| overflow())?;
        let local = inst + i128::from(zone.offset_at(secs)) * i128::from(NANOS_PER_SECOND);
        td = i64::try_from(local.div_euclid(i128::from(NANOS_PER_DAY))).map_err(|_| overflow())?;
        tt = local.rem_euclid(i128::from(NANOS_PER_DAY)) as i64;
    }
    let mut end = td;
    if td > fd && tt < ft {
        end -= 1;
    } else if td < fd && tt > ft {
        end += 1;
    }
    if months {
        let packed = |d: i64| {
            let (y, m, day) = super::types::civil_from_days(d);
            (i128::from(y) * 12 + i128::from(m) - 1) * 32 + i128::from(day)
        };
        i64::try_from((packed(end) - packed(fd)) / 32).map_err(|_| overflow())
    } else {
        Ok(end - fd)
    }
}

/// `p` plus months and days on its local date, re-resolving a named zone's offset.
fn shift(p: &Parts, months: i64, days: i64) -> Result<Parts> {
    let mut r = p.clone();
    if let Some(d) = p.date {
        let d = plus_months(d, months)?.checked_add(days).ok_or_else(overflow)?;
        r.date = Some(d);
        if let Some(z @ Zone::Named(_)) = p.zone {
            let (d2, t2, o) = z.resolve_local(d, p.time.unwrap_or(0), p.offset);
            r.date = Some(d2);
            r.time = p.time.map(|_| t2);
            r.offset = Some(o);
        }
    }
    Ok(r)
}
