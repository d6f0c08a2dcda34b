//! Building temporal values: from text, from maps of components (calendar, week, ordinal and
//! quarter dates; times with sub-second fields; time zones), from other temporal values
//! (`{date: d, time: t, day: 3}` keeps what is not overridden), from the current instant
//! (`date()`, `datetime.statement('Europe/Stockholm')`), and from the epoch.
//!
//! A value's zone comes from its time source (`time:` or `datetime:`) when that is zoned;
//! a `timezone` field then converts the instant into that zone, otherwise it attaches to the
//! local fields. Without either the default zone is UTC.

use super::parse::parse_temporal;
use super::types::{
    check_days, check_field, civil_from_days, date_from_ordinal, date_from_quarter, date_from_week, date_from_ymd,
    day_of_week, days_in_month, invalid, iso_week, overflow, quarter_first_month, split_time, time_from_hms, Date,
    DateTime, Kind, LocalDateTime, LocalTime, Parts, Time, NANOS_PER_DAY, NANOS_PER_SECOND, SECONDS_PER_DAY,
};
use super::zone::Zone;
use crate::error::{CypherError, Result};
use crate::value::{Map, Value};

/// The component fields of a construction (or truncation) map.
#[derive(Debug, Default, Clone)]
pub(crate) struct Fields {
    pub year: Option<i64>,
    pub month: Option<i64>,
    pub day: Option<i64>,
    pub week: Option<i64>,
    pub day_of_week: Option<i64>,
    pub ordinal_day: Option<i64>,
    pub quarter: Option<i64>,
    pub day_of_quarter: Option<i64>,
    pub hour: Option<i64>,
    pub minute: Option<i64>,
    pub second: Option<i64>,
    pub millisecond: Option<i64>,
    pub microsecond: Option<i64>,
    pub nanosecond: Option<i64>,
    pub timezone: Option<Zone>,
}

impl Fields {
    /// Reads the component fields of `m` for `kind`; `date`, `time` and `datetime` (sources)
    /// are left to the caller.
    pub(crate) fn read(kind: Kind, m: &Map) -> Result<Fields> {
        let mut f = Fields::default();
        for (k, v) in m {
            if v.is_null() {
                continue;
            }
            let date_key = kind.has_date();
            let time_key = kind.has_time();
            let slot = match k.as_str() {
                "timezone" if kind.has_zone() => {
                    let Value::String(s) = v else {
                        return Err(CypherError::type_error(format!(
                            "timezone must be a STRING, not {}",
                            v.type_name()
                        )));
                    };
                    f.timezone = Some(Zone::parse(s)?);
                    continue;
                }
                "date" | "time" | "datetime" => continue,
                "year" if date_key => &mut f.year,
                "month" if date_key => &mut f.month,
                "day" if date_key => &mut f.day,
                "week" if date_key => &mut f.week,
                "dayOfWeek" if date_key => &mut f.day_of_week,
                "ordinalDay" if date_key => &mut f.ordinal_day,
                "quarter" if date_key => &mut f.quarter,
                "dayOfQuarter" if date_key => &mut f.day_of_quarter,
                "hour" if time_key => &mut f.hour,
                "minute" if time_key => &mut f.minute,
                "second" if time_key => &mut f.second,
                "millisecond" if time_key => &mut f.millisecond,
                "microsecond" if time_key => &mut f.microsecond,
                "nanosecond" if time_key => &mut f.nanosecond,
                _ => return Err(invalid(format!("no such field for a {}: {k}", kind.name()))),
            };
            match v {
                Value::Int(i) => *slot = Some(*i),
                other => {
                    return Err(CypherError::type_error(format!(
                        "{k} must be an INTEGER, not {}",
                        other.type_name()
                    )))
                }
            }
        }
        Ok(f)
    }

    fn subsecond_given(&self) -> bool {
        self.millisecond.is_some() || self.microsecond.is_some() || self.nanosecond.is_some()
    }
}

/// What a construction starts from: a date, a time of day, and the time source's zone with
/// the offset it was in.
#[derive(Debug, Default, Clone)]
pub(crate) struct Source {
    pub date: Option<i64>,
    pub time: Option<i64>,
    pub zone: Option<(i32, Zone)>,
}

impl Source {
    pub(crate) fn of(p: &Parts) -> Source {
        Source {
            date: p.date,
            time: p.time,
            zone: p.offset.zip(p.zone),
        }
    }
}

/// `date(...)`, `localtime(...)`, ...: no argument (now), null, a string, a map or another
/// temporal value.
pub(crate) fn construct(kind: Kind, args: &[Value], now_nanos: i128) -> Result<Value> {
    match args {
        [] => now(kind, None, now_nanos),
        [Value::Null] => Ok(Value::Null),
        [Value::String(s)] => from_text(kind, s, now_nanos),
        [Value::Map(m)] => from_map(kind, m, now_nanos),
        [v] => match Parts::of(v) {
            Some(p) => select(kind, &p, v, now_nanos),
            None => Err(CypherError::type_error(format!(
                "{}() expects a STRING, a MAP or a temporal value, not {}",
                kind.name(),
                v.type_name()
            ))),
        },
        _ => Err(CypherError::type_error(format!(
            "{}() takes at most one argument, got {}",
            kind.name(),
            args.len()
        ))),
    }
}

/// `date.statement()`, `datetime.realtime('Europe/Stockholm')`, ...: the instant `now_nanos`
/// in the zone given as a string or `{timezone: ...}` (UTC by default).
pub(crate) fn current(kind: Kind, args: &[Value], now_nanos: i128) -> Result<Value> {
    let zone = match args {
        [] => None,
        [Value::Null] => return Ok(Value::Null),
        [Value::String(s)] => Some(Zone::parse(s)?),
        [Value::Map(m)] => match m.get("timezone") {
            Some(Value::String(s)) if m.len() == 1 => Some(Zone::parse(s)?),
            _ => return Err(invalid("expected a map with only a timezone")),
        },
        _ => {
            return Err(CypherError::type_error(format!(
                "{}.statement/transaction/realtime take an optional time zone STRING",
                kind.name()
            )))
        }
    };
    now(kind, zone, now_nanos)
}

/// The instant `utc_nanos` in `zone` (UTC by default) as a value of `kind`.
pub(crate) fn now(kind: Kind, zone: Option<Zone>, utc_nanos: i128) -> Result<Value> {
    let zone = zone.unwrap_or(Zone::Offset(0));
    let secs = i64::try_from(utc_nanos.div_euclid(i128::from(NANOS_PER_SECOND))).map_err(|_| overflow())?;
    let nano = utc_nanos.rem_euclid(i128::from(NANOS_PER_SECOND)) as i64;
    Ok(project(kind, from_instant(secs, nano, zone)?))
}

/// The date-time at `epoch_seconds` + `nano` (UTC) shown in `zone`.
pub(crate) fn from_instant(epoch_seconds: i64, nano: i64, zone: Zone) -> Result<DateTime> {
    let off = zone.offset_at(epoch_seconds);
    let local = epoch_seconds.checked_add(i64::from(off)).ok_or_else(overflow)?;
    let days = check_days(local.div_euclid(SECONDS_PER_DAY))?;
    Ok(DateTime {
        days,
        nanos: local.rem_euclid(SECONDS_PER_DAY) * NANOS_PER_SECOND + nano,
        offset_seconds: off,
        zone: zone.name(),
    })
}

/// The part of a date-time a value of `kind` keeps.
pub(crate) fn project(kind: Kind, dt: DateTime) -> Value {
    match kind {
        Kind::Date => Value::Date(Date { days: dt.days }),
        Kind::LocalTime => Value::LocalTime(LocalTime { nanos: dt.nanos }),
        Kind::Time => Value::Time(Time {
            nanos: dt.nanos,
            offset_seconds: dt.offset_seconds,
        }),
        Kind::LocalDateTime => Value::LocalDateTime(LocalDateTime {
            days: dt.days,
            nanos: dt.nanos,
        }),
        Kind::DateTime => Value::DateTime(dt),
    }
}

/// `datetime.fromepoch(seconds, nanoseconds)` / `datetime.fromepochmillis(ms)`.
pub(crate) fn from_epoch(args: &[Value], millis: bool) -> Result<Value> {
    let int = |v: &Value| match v {
        Value::Int(i) => Ok(Some(*i)),
        Value::Null => Ok(None),
        other => Err(CypherError::type_error(format!(
            "datetime.fromepoch expects INTEGER arguments, not {}",
            other.type_name()
        ))),
    };
    let total: i128 = match (args, millis) {
        ([ms], true) => match int(ms)? {
            Some(ms) => i128::from(ms) * 1_000_000,
            None => return Ok(Value::Null),
        },
        ([s, n], false) => match (int(s)?, int(n)?) {
            (Some(s), Some(n)) => i128::from(s) * i128::from(NANOS_PER_SECOND) + i128::from(n),
            _ => return Ok(Value::Null),
        },
        _ => {
            return Err(CypherError::type_error(
                "wrong number of arguments to datetime.fromepoch",
            ))
        }
    };
    now(Kind::DateTime, None, total)
}

fn from_text(kind: Kind, s: &str, now_nanos: i128) -> Result<Value> {
    let p = parse_temporal(s, kind)?;
    let now_secs = (now_nanos / i128::from(NANOS_PER_SECOND)) as i64;
    let days = p.date.unwrap_or(0);
    let nanos = p.time.unwrap_or(0);
    Ok(match kind {
        Kind::Date => Value::Date(Date { days }),
        Kind::LocalTime => Value::LocalTime(LocalTime { nanos }),
        Kind::LocalDateTime => Value::LocalDateTime(LocalDateTime { days, nanos }),
        Kind::Time => {
            let off = match (p.offset, p.zone) {
                (Some(o), _) => o,
                (None, Some(z)) => z.offset_at(now_secs),
                (None, None) => 0,
            };
            Value::Time(Time {
                nanos,
                offset_seconds: off,
            })
        }
        Kind::DateTime => {
            let zone = match (p.zone, p.offset) {
                (Some(z), _) => z,
                (None, Some(o)) => Zone::Offset(o),
                (None, None) => Zone::Offset(0),
            };
            Value::DateTime(zoned(days, nanos, zone, p.offset)?)
        }
    })
}

/// The date-time with local fields `days`/`nanos` in `zone`.
pub(crate) fn zoned(days: i64, nanos: i64, zone: Zone, preferred: Option<i32>) -> Result<DateTime> {
    let (d, n, o) = zone.resolve_local(days, nanos, preferred);
    Ok(DateTime {
        days: check_days(d)?,
        nanos: n,
        offset_seconds: o,
        zone: zone.name(),
    })
}

/// `date(other)`: the parts of another temporal value that `kind` needs.
fn select(kind: Kind, p: &Parts, v: &Value, now_nanos: i128) -> Result<Value> {
    if (kind.has_date() && p.date.is_none()) || (!kind.has_date() && p.time.is_none()) {
        return Err(CypherError::type_error(format!(
            "cannot construct a {} from a {}",
            kind.name(),
            v.type_name()
        )));
    }
    assemble(kind, &Fields::default(), &Source::of(p), false, now_nanos)
}

fn source_parts(v: &Value, key: &str, need_date: bool) -> Result<Option<Parts>> {
    if v.is_null() {
        return Ok(None);
    }
    match Parts::of(v) {
        Some(p) if (need_date && p.date.is_some()) || (!need_date && p.time.is_some()) => Ok(Some(p)),
        _ => Err(CypherError::type_error(format!(
            "cannot take `{key}` from a {}",
            v.type_name()
        ))),
    }
}

/// `date({...})` and friends.
pub(crate) fn from_map(kind: Kind, m: &Map, now_nanos: i128) -> Result<Value> {
    let given: Vec<(&String, &Value)> = m.iter().filter(|(_, v)| !v.is_null()).collect();
    match given.as_slice() {
        [] => return now(kind, None, now_nanos),
        [(k, Value::String(s))] if k.as_str() == "timezone" => return now(kind, Some(Zone::parse(s)?), now_nanos),
        _ => {}
    }
    let f = Fields::read(kind, m)?;
    let mut src = Source::default();
    if let Some(v) = m.get("datetime") {
        if !(kind.has_date() && kind.has_time()) {
            return Err(invalid(format!("no such field for a {}: datetime", kind.name())));
        }
        if let Some(p) = source_parts(v, "datetime", true)? {
            src = Source::of(&p);
        }
    }
    if let Some(v) = m.get("date") {
        if !kind.has_date() {
            return Err(invalid(format!("no such field for a {}: date", kind.name())));
        }
        if let Some(p) = source_parts(v, "date", true)? {
            src.date = p.date;
        }
    }
    if let Some(v) = m.get("time") {
        if !kind.has_time() {
            return Err(invalid(format!("no such field for a {}: time", kind.name())));
        }
        if let Some(p) = source_parts(v, "time", false)? {
            src.time = p.time;
            src.zone = p.offset.zip(p.zone);
        }
    }
    assemble(kind, &f, &src, false, now_nanos)
}

/// Builds a value of `kind` from fields over a source. `truncating`: sub-second fields add to
/// the source's (already truncated) fraction, and `timezone` replaces the zone keeping the
/// local fields rather than converting the instant.
pub(crate) fn assemble(kind: Kind, f: &Fields, src: &Source, truncating: bool, now_nanos: i128) -> Result<Value> {
    let days = if kind.has_date() { resolve_date(f, src.date)? } else { 0 };
    let nanos = if kind.has_time() {
        resolve_time(f, src.time, truncating)?
    } else {
        0
    };
    match kind {
        Kind::Date => return Ok(Value::Date(Date { days })),
        Kind::LocalTime => return Ok(Value::LocalTime(LocalTime { nanos })),
        Kind::LocalDateTime => return Ok(Value::LocalDateTime(LocalDateTime { days, nanos })),
        Kind::Time | Kind::DateTime => {}
    }
    let now_secs = (now_nanos / i128::from(NANOS_PER_SECOND)) as i64;
    let is_time = kind == Kind::Time;
    let dt = match (src.zone, f.timezone) {
        (Some((off, zone)), Some(new)) if !truncating => {
            if is_time {
                let new_off = new.offset_at(now_secs);
                let shifted = nanos + i64::from(new_off - off) * NANOS_PER_SECOND;
                return Ok(Value::Time(Time {
                    nanos: shifted.rem_euclid(NANOS_PER_DAY),
                    offset_seconds: new_off,
                }));
            }
            let here = zoned(days, nanos, zone, Some(off))?;
            let (secs, nano) = here.epoch();
            from_instant(secs, nano, new)?
        }
        (Some((off, zone)), None) => {
            if is_time {
                return Ok(Value::Time(Time {
                    nanos,
                    offset_seconds: off,
                }));
            }
            zoned(days, nanos, zone, Some(off))?
        }
        (_, Some(new)) => {
            if is_time {
                return Ok(Value::Time(Time {
                    nanos,
                    offset_seconds: new.offset_at(now_secs),
                }));
            }
            zoned(days, nanos, new, None)?
        }
        (None, None) => zoned(days, nanos, Zone::Offset(0), None)?,
    };
    Ok(project(kind, dt))
}

/// The date from date fields over an optional base date.
pub(crate) fn resolve_date(f: &Fields, base: Option<i64>) -> Result<i64> {
    let week_mode = f.week.is_some() || f.day_of_week.is_some();
    let ordinal_mode = f.ordinal_day.is_some();
    let quarter_mode = f.quarter.is_some() || f.day_of_quarter.is_some();
    let calendar_mode = f.month.is_some() || f.day.is_some();
    if [week_mode, ordinal_mode, quarter_mode, calendar_mode]
        .iter()
        .filter(|b| **b)
        .count()
        > 1
    {
        return Err(invalid(
            "conflicting date fields: use one of month/day, week/dayOfWeek, ordinalDay, quarter/dayOfQuarter",
        ));
    }
    let Some(base) = base else {
        let year = f.year.ok_or_else(|| invalid("year must be specified"))?;
        if week_mode {
            let week = f
                .week
                .ok_or_else(|| invalid("dayOfWeek cannot be given without week"))?;
            return date_from_week(year, week, f.day_of_week.unwrap_or(1));
        }
        if let Some(o) = f.ordinal_day {
            return date_from_ordinal(year, o);
        }
        if quarter_mode {
            let q = f
                .quarter
                .ok_or_else(|| invalid("dayOfQuarter cannot be given without quarter"))?;
            return date_from_quarter(year, q, f.day_of_quarter.unwrap_or(1));
        }
        if f.day.is_some() && f.month.is_none() {
            return Err(invalid("day cannot be given without month"));
        }
        return date_from_ymd(year, f.month.unwrap_or(1), f.day.unwrap_or(1));
    };
    let (by, bm, bd) = civil_from_days(base);
    if week_mode {
        let (bwy, bw) = iso_week(base);
        let wy = f.year.unwrap_or(bwy);
        let week = match f.week {
            Some(w) => w,
            None => bw.min(super::types::weeks_in_year(wy)),
        };
        return date_from_week(wy, week, f.day_of_week.unwrap_or_else(|| day_of_week(base)));
    }
    if let Some(o) = f.ordinal_day {
        return date_from_ordinal(f.year.unwrap_or(by), o);
    }
    let year = f.year.unwrap_or(by);
    if quarter_mode {
        let q = f.quarter.unwrap_or((i64::from(bm) - 1) / 3 + 1);
        if let Some(doq) = f.day_of_quarter {
            return date_from_quarter(year, q, doq);
        }
        check_field("quarter", q, 1, 4)?;
        let month = quarter_first_month(q) + (bm - 1) % 3;
        return date_from_ymd(year, i64::from(month), i64::from(bd.min(days_in_month(year, month))));
    }
    let month = f.month.unwrap_or(i64::from(bm));
    let day = match f.day {
        Some(d) => d,
        None if (1..=12).contains(&month) => i64::from(bd.min(days_in_month(year, month as u32))),
        None => i64::from(bd),
    };
    date_from_ymd(year, month, day)
}

/// The time of day from time fields over an optional base time.
pub(crate) fn resolve_time(f: &Fields, base: Option<i64>, add_subsecond: bool) -> Result<i64> {
    let sub_given = f.subsecond_given();
    if base.is_none() {
        if f.minute.is_some() && f.hour.is_none() {
            return Err(invalid("minute cannot be given without hour"));
        }
        if f.second.is_some() && f.minute.is_none() {
            return Err(invalid("second cannot be given without minute"));
        }
        if sub_given && f.second.is_none() {
            return Err(invalid("sub-second fields cannot be given without second"));
        }
    }
    let (bh, bm, bs, bn) = split_time(base.unwrap_or(0));
    let sub = if sub_given {
        let ms = f.millisecond.unwrap_or(0);
        let us = f.microsecond.unwrap_or(0);
        let ns = f.nanosecond.unwrap_or(0);
        check_field("millisecond", ms, 0, 999)?;
        check_field(
            "microsecond",
            us,
            0,
            if f.millisecond.is_some() { 999 } else { 999_999 },
        )?;
        let finer = f.millisecond.is_some() || f.microsecond.is_some();
        check_field("nanosecond", ns, 0, if finer { 999 } else { 999_999_999 })?;
        let v = ms * 1_000_000 + us * 1_000 + ns;
        if add_subsecond {
            bn + v
        } else {
            v
        }
    } else {
        bn
    };
    time_from_hms(
        f.hour.unwrap_or(bh),
        f.minute.unwrap_or(bm),
        f.second.unwrap_or(bs),
        sub,
    )
}
