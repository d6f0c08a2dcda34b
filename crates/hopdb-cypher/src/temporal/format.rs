//! String forms, as Neo4j prints them: Java's ISO forms for instants (`2015-07-21`,
//! `21:40:32.142`, seconds omitted when zero, fractions in groups of three digits, offsets as
//! `Z` / `+01:00` / `+00:53:28`, a named zone in brackets), and Neo4j's duration form
//! (`P1Y2M3DT4H5M6.7S`: zero parts omitted, trailing fraction zeros trimmed, `PT0S` for zero).

use super::types::{civil_from_days, split_time, Date, DateTime, Duration, LocalDateTime, LocalTime, Time};
use super::zone::format_offset;
use std::fmt::Write;

/// `2015-07-21`, `0028-11-11`, `-0044-03-15`, `+12345-01-01`.
pub(crate) fn date_string(days: i64) -> String {
    let (y, m, d) = civil_from_days(days);
    let year = if y > 9999 {
        format!("+{y}")
    } else if y < 0 {
        format!("-{:04}", -y)
    } else {
        format!("{y:04}")
    };
    format!("{year}-{m:02}-{d:02}")
}

/// `21:40`, `21:40:32`, `21:40:32.142`, `21:40:32.142500`, `21:40:32.000000001`.
pub(crate) fn time_string(nanos: i64) -> String {
    let (h, m, s, n) = split_time(nanos);
    let mut out = format!("{h:02}:{m:02}");
    if s > 0 || n > 0 {
        let _ = write!(out, ":{s:02}");
        if n > 0 {
            if n % 1_000_000 == 0 {
                let _ = write!(out, ".{:03}", n / 1_000_000);
            } else if n % 1_000 == 0 {
                let _ = write!(out, ".{:06}", n / 1_000);
            } else {
                let _ = write!(out, ".{n:09}");
            }
        }
    }
    out
}

impl std::fmt::Display for Date {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&date_string(self.days))
    }
}

impl std::fmt::Display for LocalTime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&time_string(self.nanos))
    }
}

impl std::fmt::Display for Time {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", time_string(self.nanos), format_offset(self.offset_seconds))
    }
}

impl std::fmt::Display for LocalDateTime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}T{}", date_string(self.days), time_string(self.nanos))
    }
}

impl std::fmt::Display for DateTime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}T{}{}",
            date_string(self.days),
            time_string(self.nanos),
            format_offset(self.offset_seconds)
        )?;
        if let Some(z) = &self.zone {
            write!(f, "[{z}]")?;
        }
        Ok(())
    }
}

impl std::fmt::Display for Duration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&duration_string(self))
    }
}

/// Neo4j's `DurationValue.prettyPrint`.
pub(crate) fn duration_string(d: &Duration) -> String {
    let mut out = String::from("P");
    let part = |out: &mut String, q: i64, unit: char| {
        if q != 0 {
            let _ = write!(out, "{q}{unit}");
        }
    };
    part(&mut out, d.months / 12, 'Y');
    part(&mut out, d.months % 12, 'M');
    part(&mut out, d.days, 'D');
    if d.seconds != 0 || d.nanos != 0 {
        let mut s = d.seconds;
        let mut n = i64::from(d.nanos);
        if s < 0 && n != 0 {
            s += 1;
            n -= 1_000_000_000;
        }
        out.push('T');
        part(&mut out, s / 3600, 'H');
        s %= 3600;
        part(&mut out, s / 60, 'M');
        s %= 60;
        if s != 0 {
            let _ = write!(out, "{s}");
            if n != 0 {
                fraction(&mut out, n);
            }
            out.push('S');
        } else if n != 0 {
            if n < 0 {
                out.push('-');
            }
            out.push('0');
            fraction(&mut out, n);
            out.push('S');
        }
    }
    if out.len() == 1 {
        out.push_str("T0S");
    }
    out
}

/// `.` and the digits of `|n|` nanoseconds, trailing zeros trimmed.
fn fraction(out: &mut String, n: i64) {
    let digits = format!("{:09}", n.abs());
    out.push('.');
    out.push_str(digits.trim_end_matches('0'));
}
