//! Time zones: fixed offsets (`+01:00`, `Z`) and IANA named zones (`Europe/Stockholm`, through
//! `chrono-tz`), offset lookup at an instant and resolution of a local date-time to an offset
//! the way Java's `ZonedDateTime.ofLocal` does it (overlap: the preferred offset if valid,
//! else the earlier one; gap: moved forward by the gap's length).

use super::types::{invalid, NANOS_PER_SECOND, SECONDS_PER_DAY};
use crate::error::Result;
use chrono::{Offset, TimeZone};
use chrono_tz::Tz;

/// A time zone.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Zone {
    /// A fixed offset in seconds east of UTC.
    Offset(i32),
    /// A named IANA zone.
    Named(Tz),
}

/// Largest offset allowed (Java's `ZoneOffset` range).
const MAX_OFFSET: i32 = 18 * 3600;
/// chrono's representable range, in seconds since the epoch (about ±262,000 years).
const CHRONO_LIMIT: i64 = 8_000_000_000_000;

impl Zone {
    /// Parses a zone: an offset (`Z`, `+01`, `+0100`, `+01:00`, `-02:05:07`) or a zone name.
    pub(crate) fn parse(s: &str) -> Result<Zone> {
        if let Some(o) = parse_offset(s) {
            return Ok(Zone::Offset(o));
        }
        if s.starts_with('+') || s.starts_with('-') {
            return Err(invalid(format!("invalid time zone offset '{s}'")));
        }
        match s.parse::<Tz>() {
            Ok(tz) => Ok(Zone::Named(tz)),
            Err(_) => Err(invalid(format!("unknown time zone '{s}'"))),
        }
    }

    /// The zone's name for a named zone.
    pub(crate) fn name(&self) -> Option<String> {
        match self {
            Zone::Offset(_) => None,
            Zone::Named(tz) => Some(tz.name().to_owned()),
        }
    }

    /// The offset in force at `epoch_seconds` (UTC).
    pub(crate) fn offset_at(&self, epoch_seconds: i64) -> i32 {
        match self {
            Zone::Offset(o) => *o,
            Zone::Named(tz) => named_offset_at(*tz, epoch_seconds),
        }
    }

    /// Resolves local date-time (`days`, `nanos` of day) in this zone to (days, nanos, offset);
    /// the local time moves forward only when it falls in a gap.
    pub(crate) fn resolve_local(&self, days: i64, nanos: i64, preferred: Option<i32>) -> (i64, i64, i32) {
        let tz = match self {
            Zone::Offset(o) => return (days, nanos, *o),
            Zone::Named(tz) => *tz,
        };
        let local = days.saturating_mul(SECONDS_PER_DAY) + nanos / NANOS_PER_SECOND;
        let clamped = local.clamp(-CHRONO_LIMIT, CHRONO_LIMIT);
        let Some(ndt) = naive(clamped) else {
            return (days, nanos, named_offset_at(tz, local));
        };
        use chrono::LocalResult as L;
        match tz.offset_from_local_datetime(&ndt) {
            L::Single(o) => (days, nanos, o.fix().local_minus_utc()),
            L::Ambiguous(a, b) => {
                let (a, b) = (a.fix().local_minus_utc(), b.fix().local_minus_utc());
                match preferred {
                    Some(p) if p == a || p == b => (days, nanos, p),
                    _ => (days, nanos, a.max(b)),
                }
            }
            L::None => {
                // In a gap: keep the instant the earlier offset gives, shown in the later offset.
                let early = named_offset_at(tz, local - SECONDS_PER_DAY);
                let late = named_offset_at(tz, local - i64::from(early));
                let shift = i64::from(late - early) * NANOS_PER_SECOND;
                let total = nanos + shift;
                let d = days + total.div_euclid(super::types::NANOS_PER_DAY);
                (d, total.rem_euclid(super::types::NANOS_PER_DAY), late)
            }
        }
    }
}

fn naive(epoch_seconds: i64) -> Option<chrono::NaiveDateTime> {
    chrono::DateTime::from_timestamp(epoch_seconds, 0).map(|d| d.naive_utc())
}

fn named_offset_at(tz: Tz, epoch_seconds: i64) -> i32 {
    match naive(epoch_seconds.clamp(-CHRONO_LIMIT, CHRONO_LIMIT)) {
        Some(ndt) => tz.offset_from_utc_datetime(&ndt).fix().local_minus_utc(),
        None => 0,
    }
}

/// Parses an offset: `Z`, `+HH`, `+HHMM`, `+HH:MM`, `+HHMMSS`, `+HH:MM:SS`; `None` otherwise.
pub(crate) fn parse_offset(s: &str) -> Option<i32> {
    if s == "Z" || s == "z" {
        return Some(0);
    }
    let sign = match s.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let body = &s[1..];
    let digits: String = body.chars().filter(|c| *c != ':').collect();
    if !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let colon = body.contains(':');
    if colon {
        // Colons must separate two-digit groups.
        if !body.split(':').all(|g| g.len() == 2) {
            return None;
        }
    }
    let (h, m, sec) = match digits.len() {
        2 => (digits.parse::<i32>().ok()?, 0, 0),
        4 => (digits[..2].parse::<i32>().ok()?, digits[2..].parse::<i32>().ok()?, 0),
        6 => (
            digits[..2].parse::<i32>().ok()?,
            digits[2..4].parse::<i32>().ok()?,
            digits[4..].parse::<i32>().ok()?,
        ),
        _ => return None,
    };
    if m > 59 || sec > 59 {
        return None;
    }
    let total = h * 3600 + m * 60 + sec;
    if total > MAX_OFFSET {
        return None;
    }
    Some(sign * total)
}

/// Java's `ZoneOffset` id: `Z`, `+01:00`, `-02:05:07`.
pub(crate) fn format_offset(o: i32) -> String {
    if o == 0 {
        return "Z".to_owned();
    }
    let sign = if o < 0 { '-' } else { '+' };
    let a = o.abs();
    let (h, m, s) = (a / 3600, a / 60 % 60, a % 60);
    if s != 0 {
        format!("{sign}{h:02}:{m:02}:{s:02}")
    } else {
        format!("{sign}{h:02}:{m:02}")
    }
}
