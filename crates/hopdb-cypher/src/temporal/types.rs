//! The six temporal value types, proleptic-Gregorian calendar arithmetic on epoch days, and
//! [`Parts`], the type-erased view (date, time of day, zone) the construction, truncation and
//! `duration.between` code works on.
//!
//! Dates are days since 1970-01-01 (any year from -999,999,999 to +999,999,999, as in Java's
//! `LocalDate`); times of day are nanoseconds since midnight; offsets are seconds east of UTC.

use super::zone::Zone;
use crate::error::{CypherError, Result};

pub(crate) const NANOS_PER_SECOND: i64 = 1_000_000_000;
pub(crate) const SECONDS_PER_DAY: i64 = 86_400;
pub(crate) const NANOS_PER_DAY: i64 = SECONDS_PER_DAY * NANOS_PER_SECOND;
/// Smallest year a date may have.
pub(crate) const MIN_YEAR: i64 = -999_999_999;
/// Largest year a date may have.
pub(crate) const MAX_YEAR: i64 = 999_999_999;

/// A calendar date (Cypher `DATE`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Date {
    /// Days since 1970-01-01 (negative before).
    pub days: i64,
}

/// A time of day without time zone (Cypher `LOCAL TIME`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LocalTime {
    /// Nanoseconds since midnight, `0..86_400_000_000_000`.
    pub nanos: i64,
}

/// A time of day with a UTC offset (Cypher `ZONED TIME`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Time {
    /// Local nanoseconds since midnight, `0..86_400_000_000_000`.
    pub nanos: i64,
    /// Offset from UTC in seconds (east positive), within ±18 hours.
    pub offset_seconds: i32,
}

/// A date and time without time zone (Cypher `LOCAL DATETIME`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LocalDateTime {
    /// Days since 1970-01-01 of the local date.
    pub days: i64,
    /// Local nanoseconds since midnight.
    pub nanos: i64,
}

/// A date and time with a time zone (Cypher `ZONED DATETIME`): the local date and time, the
/// offset in force at that instant, and the named zone (`Europe/Stockholm`) when it has one.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DateTime {
    /// Days since 1970-01-01 of the local date.
    pub days: i64,
    /// Local nanoseconds since midnight.
    pub nanos: i64,
    /// Offset from UTC in seconds at this instant.
    pub offset_seconds: i32,
    /// The IANA zone name; `None` for a fixed offset.
    pub zone: Option<String>,
}

/// A duration (Cypher `DURATION`): months, days, seconds and nanoseconds kept apart, as Neo4j
/// does (a month or a day has no fixed length).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Duration {
    /// Months (years are 12 months).
    pub months: i64,
    /// Days (weeks are 7 days).
    pub days: i64,
    /// Seconds (hours and minutes included).
    pub seconds: i64,
    /// Nanoseconds, always `0..1_000_000_000` (the sign lives in `seconds`).
    pub nanos: i32,
}

impl Date {
    /// The date `year-month-day`; `None` when it does not exist.
    pub fn from_ymd(year: i64, month: u32, day: u32) -> Option<Date> {
        if !(MIN_YEAR..=MAX_YEAR).contains(&year) || !(1..=12).contains(&month) {
            return None;
        }
        if day < 1 || day > days_in_month(year, month) {
            return None;
        }
        Some(Date {
            days: days_from_civil(year, month, day),
        })
    }
    /// (year, month, day).
    pub fn ymd(&self) -> (i64, u32, u32) {
        civil_from_days(self.days)
    }
}

impl LocalTime {
    /// (hour, minute, second, nanosecond of second).
    pub fn hmsn(&self) -> (i64, i64, i64, i64) {
        split_time(self.nanos)
    }
}

impl DateTime {
    /// Seconds since the Unix epoch (UTC) and the nanosecond of that second.
    pub fn epoch(&self) -> (i64, i64) {
        let local = self.days * SECONDS_PER_DAY + self.nanos / NANOS_PER_SECOND;
        (local - i64::from(self.offset_seconds), self.nanos % NANOS_PER_SECOND)
    }
}

impl Duration {
    /// A duration from components, carrying nanoseconds into seconds so `nanos` is `0..1e9`;
    /// `None` on overflow.
    pub fn new(months: i64, days: i64, seconds: i64, nanos: i64) -> Option<Duration> {
        let carry = nanos.div_euclid(NANOS_PER_SECOND);
        let seconds = seconds.checked_add(carry)?;
        Some(Duration {
            months,
            days,
            seconds,
            nanos: nanos.rem_euclid(NANOS_PER_SECOND) as i32,
        })
    }
    /// A duration from a signed total of nanoseconds (no months or days).
    pub(crate) fn from_nanos(total: i128) -> Result<Duration> {
        let s = total.div_euclid(i128::from(NANOS_PER_SECOND));
        let n = total.rem_euclid(i128::from(NANOS_PER_SECOND));
        let seconds = i64::try_from(s).map_err(|_| overflow())?;
        Ok(Duration {
            months: 0,
            days: 0,
            seconds,
            nanos: n as i32,
        })
    }
}

/// The error for arithmetic that leaves the representable range.
pub(crate) fn overflow() -> CypherError {
    CypherError::argument("InvalidArgumentValue", "temporal arithmetic overflow")
}

/// An invalid value (`InvalidArgumentValue`).
pub(crate) fn invalid(msg: impl Into<String>) -> CypherError {
    CypherError::argument("InvalidArgumentValue", msg)
}

/// Splits nanoseconds of day into (hour, minute, second, nanosecond).
pub(crate) fn split_time(nanos: i64) -> (i64, i64, i64, i64) {
    let s = nanos / NANOS_PER_SECOND;
    (s / 3600, s / 60 % 60, s % 60, nanos % NANOS_PER_SECOND)
}

/// Whether `y` is a leap year.
pub(crate) fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

/// Days in month `m` of year `y`.
pub(crate) fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days in year `y`.
pub(crate) fn days_in_year(y: i64) -> i64 {
    if is_leap(y) {
        366
    } else {
        365
    }
}

/// Days since 1970-01-01 of a (valid) civil date (H. Hinnant's algorithm).
pub(crate) fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date (year, month, day) of days since 1970-01-01.
pub(crate) fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// ISO day of week, Monday = 1 .. Sunday = 7.
pub(crate) fn day_of_week(days: i64) -> i64 {
    (days + 3).rem_euclid(7) + 1
}

/// The Monday starting week 1 of ISO week-based year `wy` (the week with January 4th).
pub(crate) fn week_year_start(wy: i64) -> i64 {
    let jan4 = days_from_civil(wy, 1, 4);
    jan4 - (day_of_week(jan4) - 1)
}

/// Number of ISO weeks (52 or 53) in week-based year `wy`.
pub(crate) fn weeks_in_year(wy: i64) -> i64 {
    (week_year_start(wy + 1) - week_year_start(wy)) / 7
}

/// (ISO week-based year, week of that year) of a date.
pub(crate) fn iso_week(days: i64) -> (i64, i64) {
    let (y, _, _) = civil_from_days(days);
    let mut wy = y + 1;
    while days < week_year_start(wy) {
        wy -= 1;
    }
    (wy, (days - week_year_start(wy)) / 7 + 1)
}

/// Day of the year, 1-based.
pub(crate) fn ordinal_day(days: i64) -> i64 {
    let (y, _, _) = civil_from_days(days);
    days - days_from_civil(y, 1, 1) + 1
}

/// First month of quarter `q` (1..=4).
pub(crate) fn quarter_first_month(q: i64) -> u32 {
    ((q - 1) * 3 + 1) as u32
}

/// Day of the quarter, 1-based.
pub(crate) fn day_of_quarter(days: i64) -> i64 {
    let (y, m, _) = civil_from_days(days);
    let q = (i64::from(m) - 1) / 3 + 1;
    days - days_from_civil(y, quarter_first_month(q), 1) + 1
}

/// Checks a date is within the supported years.
pub(crate) fn check_days(days: i64) -> Result<i64> {
    let (y, _, _) = civil_from_days(days);
    if (MIN_YEAR..=MAX_YEAR).contains(&y) {
        Ok(days)
    } else {
        Err(invalid(format!("year {y} is out of range")))
    }
}

/// Adds months to a date, clamping the day to the target month's length (as Java does).
pub(crate) fn plus_months(days: i64, months: i64) -> Result<i64> {
    let (y, m, d) = civil_from_days(days);
    let total = y
        .checked_mul(12)
        .and_then(|t| t.checked_add(i64::from(m) - 1))
        .and_then(|t| t.checked_add(months))
        .ok_or_else(overflow)?;
    let ny = total.div_euclid(12);
    let nm = (total.rem_euclid(12) + 1) as u32;
    if !(MIN_YEAR..=MAX_YEAR).contains(&ny) {
        return Err(invalid(format!("year {ny} is out of range")));
    }
    Ok(days_from_civil(ny, nm, d.min(days_in_month(ny, nm))))
}

/// The five temporal instant types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Date,
    LocalTime,
    Time,
    LocalDateTime,
    DateTime,
}

impl Kind {
    pub(crate) fn from_name(s: &str) -> Option<Kind> {
        Some(match s {
            "date" => Kind::Date,
            "localtime" => Kind::LocalTime,
            "time" => Kind::Time,
            "localdatetime" => Kind::LocalDateTime,
            "datetime" => Kind::DateTime,
            _ => return None,
        })
    }
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Date => "date",
            Kind::LocalTime => "localtime",
            Kind::Time => "time",
            Kind::LocalDateTime => "localdatetime",
            Kind::DateTime => "datetime",
        }
    }
    pub(crate) fn has_date(self) -> bool {
        matches!(self, Kind::Date | Kind::LocalDateTime | Kind::DateTime)
    }
    pub(crate) fn has_time(self) -> bool {
        !matches!(self, Kind::Date)
    }
    pub(crate) fn has_zone(self) -> bool {
        matches!(self, Kind::Time | Kind::DateTime)
    }
}

/// A temporal instant taken apart: local date, local time of day, and zone. A named zone
/// keeps the offset currently in force (`offset`), used as the preferred offset in overlaps.
#[derive(Debug, Clone)]
pub(crate) struct Parts {
    pub date: Option<i64>,
    pub time: Option<i64>,
    pub offset: Option<i32>,
    pub zone: Option<Zone>,
}

impl Parts {
    /// The parts of a temporal value other than a duration.
    pub(crate) fn of(v: &crate::value::Value) -> Option<Parts> {
        use crate::value::Value as V;
        Some(match v {
            V::Date(d) => Parts {
                date: Some(d.days),
                time: None,
                offset: None,
                zone: None,
            },
            V::LocalTime(t) => Parts {
                date: None,
                time: Some(t.nanos),
                offset: None,
                zone: None,
            },
            V::Time(t) => Parts {
                date: None,
                time: Some(t.nanos),
                offset: Some(t.offset_seconds),
                zone: Some(Zone::Offset(t.offset_seconds)),
            },
            V::LocalDateTime(t) => Parts {
                date: Some(t.days),
                time: Some(t.nanos),
                offset: None,
                zone: None,
            },
            V::DateTime(t) => Parts {
                date: Some(t.days),
                time: Some(t.nanos),
                offset: Some(t.offset_seconds),
                zone: Some(match &t.zone {
                    Some(name) => Zone::parse(name).unwrap_or(Zone::Offset(t.offset_seconds)),
                    None => Zone::Offset(t.offset_seconds),
                }),
            },
            _ => return None,
        })
    }

    /// Nanoseconds since the epoch in UTC when zoned (a time without date counts from day 0),
    /// local nanoseconds otherwise.
    pub(crate) fn instant_nanos(&self) -> i128 {
        let day = i128::from(self.date.unwrap_or(0)) * i128::from(NANOS_PER_DAY);
        let t = i128::from(self.time.unwrap_or(0));
        let off = i128::from(self.offset.unwrap_or(0)) * i128::from(NANOS_PER_SECOND);
        day + t - off
    }
}

fn check_year(y: i64) -> Result<()> {
    if (MIN_YEAR..=MAX_YEAR).contains(&y) {
        Ok(())
    } else {
        Err(invalid(format!(
            "invalid value for year: {y} (must be {MIN_YEAR}..{MAX_YEAR})"
        )))
    }
}

fn check_range(what: &str, v: i64, lo: i64, hi: i64) -> Result<()> {
    if (lo..=hi).contains(&v) {
        Ok(())
    } else {
        Err(invalid(format!(
            "invalid value for {what}: {v} (valid values {lo} - {hi})"
        )))
    }
}

/// Epoch days of `y-m-d`, checking every field.
pub(crate) fn date_from_ymd(y: i64, m: i64, d: i64) -> Result<i64> {
    check_year(y)?;
    check_range("month", m, 1, 12)?;
    check_range("day", d, 1, i64::from(days_in_month(y, m as u32)))?;
    Ok(days_from_civil(y, m as u32, d as u32))
}

/// Epoch days of ISO week date `wy-Www-dow`.
pub(crate) fn date_from_week(wy: i64, w: i64, dow: i64) -> Result<i64> {
    check_year(wy)?;
    check_range("week", w, 1, weeks_in_year(wy))?;
    check_range("dayOfWeek", dow, 1, 7)?;
    check_days(week_year_start(wy) + (w - 1) * 7 + dow - 1)
}

/// Epoch days of ordinal date `y-ddd`.
pub(crate) fn date_from_ordinal(y: i64, o: i64) -> Result<i64> {
    check_year(y)?;
    check_range("ordinalDay", o, 1, days_in_year(y))?;
    Ok(days_from_civil(y, 1, 1) + o - 1)
}

/// Epoch days of day `doq` of quarter `q` of year `y`.
pub(crate) fn date_from_quarter(y: i64, q: i64, doq: i64) -> Result<i64> {
    check_year(y)?;
    check_range("quarter", q, 1, 4)?;
    let start = days_from_civil(y, quarter_first_month(q), 1);
    let end = if q == 4 {
        days_from_civil(y + 1, 1, 1)
    } else {
        days_from_civil(y, quarter_first_month(q + 1), 1)
    };
    check_range("dayOfQuarter", doq, 1, end - start)?;
    Ok(start + doq - 1)
}

/// Checks hour, minute, second ranges and builds nanoseconds of day.
pub(crate) fn time_from_hms(h: i64, m: i64, s: i64, n: i64) -> Result<i64> {
    check_range("hour", h, 0, 23)?;
    check_range("minute", m, 0, 59)?;
    check_range("second", s, 0, 59)?;
    check_range("nanosecond", n, 0, NANOS_PER_SECOND - 1)?;
    Ok(((h * 60 + m) * 60 + s) * NANOS_PER_SECOND + n)
}

/// Range check with the TCK-style message (public to the module).
pub(crate) fn check_field(what: &str, v: i64, lo: i64, hi: i64) -> Result<()> {
    check_range(what, v, lo, hi)
}
