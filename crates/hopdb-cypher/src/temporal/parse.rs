//! ISO 8601 text: dates (calendar `2015-07-21` / `20150721`, `2015-07`, week `2015-W30-2` /
//! `2015W302`, ordinal `2015-202` / `2015202`, year `2015`, signed years `+999999999-12-31`),
//! times (`21:40:32.142`, `214032.142`, `21:40`, `21`), offsets (`Z`, `+01`, `+0100`,
//! `+01:00`, `+02:05:59`), zone names in brackets (`[Europe/Stockholm]`), and durations
//! (`P1Y2M10DT12H45M30.5S`, fractions in any unit, `P2012-02-02T14:37:21.545`).

use super::duration::approximate;
use super::types::{
    date_from_ordinal, date_from_week, date_from_ymd, invalid, overflow, time_from_hms, Duration, Kind,
};
use super::zone::{parse_offset, Zone};
use crate::error::Result;

/// A parsed temporal string, before it becomes a value of the requested type.
#[derive(Debug, Clone)]
pub(crate) struct Parsed {
    pub date: Option<i64>,
    pub time: Option<i64>,
    pub offset: Option<i32>,
    pub zone: Option<Zone>,
}

fn cannot(s: &str, kind: Kind) -> crate::error::CypherError {
    invalid(format!("Text cannot be parsed to a {}: '{s}'", kind.name()))
}

/// Parses `s` as the text form of `kind`.
pub(crate) fn parse_temporal(s: &str, kind: Kind) -> Result<Parsed> {
    let s = s.trim();
    let (date_txt, rest) = if kind.has_date() {
        match s.find(['T', 't']) {
            Some(i) if kind != Kind::Date => (Some(&s[..i]), Some(&s[i + 1..])),
            Some(_) => return Err(cannot(s, kind)),
            None => (Some(s), None),
        }
    } else {
        (None, Some(s))
    };
    let date = match date_txt {
        Some(t) => Some(parse_date(t).map_err(|e| {
            if e.message.starts_with("invalid value") {
                e
            } else {
                cannot(s, kind)
            }
        })?),
        None => None,
    };
    let (time, offset, zone) = match rest {
        Some(t) => {
            let (nanos, zone_txt) = parse_time(t).ok_or_else(|| cannot(s, kind))??;
            let (offset, zone) = parse_zone_suffix(zone_txt).ok_or_else(|| cannot(s, kind))??;
            (Some(nanos), offset, zone)
        }
        None => (None, None, None),
    };
    if !kind.has_zone() && (offset.is_some() || zone.is_some()) {
        return Err(cannot(s, kind));
    }
    Ok(Parsed {
        date,
        time,
        offset,
        zone,
    })
}

/// Counts leading ASCII digits.
fn digits(s: &str) -> usize {
    s.bytes().take_while(u8::is_ascii_digit).count()
}

fn num(s: &str) -> Result<i64> {
    s.parse::<i64>().map_err(|_| invalid(format!("invalid number '{s}'")))
}

/// Parses a date; the error message starts with "invalid value" when the text is well formed
/// but a field is out of range.
fn parse_date(s: &str) -> Result<i64> {
    let bad = || invalid(format!("cannot parse date '{s}'"));
    let b = s.as_bytes();
    let (year, mut rest, signed) = match b.first() {
        Some(b'+') | Some(b'-') => {
            let n = digits(&s[1..]);
            if n == 0 || n > 9 {
                return Err(bad());
            }
            let y = num(&s[1..=n])?;
            (if b[0] == b'-' { -y } else { y }, &s[n + 1..], true)
        }
        _ => {
            if digits(s) < 4 {
                return Err(bad());
            }
            (num(&s[..4])?, &s[4..], false)
        }
    };
    if rest.is_empty() {
        return date_from_ymd(year, 1, 1);
    }
    let extended = rest.starts_with('-');
    if extended {
        rest = &rest[1..];
    } else if signed {
        return Err(bad());
    }
    if let Some(w) = rest.strip_prefix(['W', 'w']) {
        if digits(w) < 2 {
            return Err(bad());
        }
        let week = num(&w[..2])?;
        let after = &w[2..];
        let dow = if after.is_empty() {
            1
        } else {
            let t = if extended {
                after.strip_prefix('-').ok_or_else(bad)?
            } else {
                after
            };
            if t.len() != 1 || digits(t) != 1 {
                return Err(bad());
            }
            num(t)?
        };
        return date_from_week(year, week, dow);
    }
    let n = digits(rest);
    if extended {
        match n {
            2 => {
                let month = num(&rest[..2])?;
                let after = &rest[2..];
                if after.is_empty() {
                    return date_from_ymd(year, month, 1);
                }
                let d = after.strip_prefix('-').ok_or_else(bad)?;
                if d.len() != 2 || digits(d) != 2 {
                    return Err(bad());
                }
                date_from_ymd(year, month, num(d)?)
            }
            3 if rest.len() == 3 => date_from_ordinal(year, num(rest)?),
            _ => Err(bad()),
        }
    } else {
        if n != rest.len() {
            return Err(bad());
        }
        match n {
            2 => date_from_ymd(year, num(rest)?, 1),
            3 => date_from_ordinal(year, num(rest)?),
            4 => date_from_ymd(year, num(&rest[..2])?, num(&rest[2..])?),
            _ => Err(bad()),
        }
    }
}

/// Parses a time of day at the start of `s`: `Some(Ok((nanos, rest)))`, `None` when malformed.
fn parse_time(s: &str) -> Option<Result<(i64, &str)>> {
    if digits(s) < 2 {
        return None;
    }
    let hour = s[..2].parse::<i64>().ok()?;
    let mut rest = &s[2..];
    let (mut minute, mut second, mut nanos) = (0, 0, 0);
    let extended = rest.starts_with(':');
    let field = |r: &str| -> Option<i64> {
        if digits(r) >= 2 {
            r[..2].parse::<i64>().ok()
        } else {
            None
        }
    };
    fn sep(r: &str, extended: bool) -> Option<&str> {
        if extended {
            r.strip_prefix(':')
        } else {
            Some(r)
        }
    }
    if let Some(r) = sep(rest, extended).filter(|r| digits(r) >= 2) {
        minute = field(r)?;
        rest = &r[2..];
        if let Some(r) = sep(rest, extended).filter(|r| digits(r) >= 2) {
            second = field(r)?;
            rest = &r[2..];
            if let Some(r) = rest.strip_prefix(['.', ',']) {
                let n = digits(r);
                if n == 0 || n > 9 {
                    return None;
                }
                let frac = r[..n].parse::<i64>().ok()?;
                nanos = frac * 10i64.pow(9 - n as u32);
                rest = &r[n..];
            }
        }
    } else if extended {
        return None;
    }
    Some(time_from_hms(hour, minute, second, nanos).map(|t| (t, rest)))
}

/// Parses what follows a time: nothing, an offset, `[Zone/Name]`, or an offset then a name.
fn parse_zone_suffix(s: &str) -> Option<Result<(Option<i32>, Option<Zone>)>> {
    if s.is_empty() {
        return Some(Ok((None, None)));
    }
    let (off_txt, name) = match s.find('[') {
        Some(i) => {
            let inner = s[i + 1..].strip_suffix(']')?;
            (&s[..i], Some(inner))
        }
        None => (s, None),
    };
    let offset = if off_txt.is_empty() {
        None
    } else {
        Some(parse_offset(off_txt)?)
    };
    let zone = match name.map(Zone::parse) {
        Some(Ok(z)) => Some(z),
        Some(Err(e)) => return Some(Err(e)),
        None => None,
    };
    Some(Ok((offset, zone)))
}

/// One number of a duration: its text (for fractions), integer part and fraction nanoseconds.
#[derive(Debug, Clone, Copy, Default)]
struct Num {
    value: f64,
    int: i64,
    /// Fraction as nanoseconds (signed like the number), for seconds.
    frac_nanos: i64,
    fractional: bool,
}

fn parse_num(s: &str) -> Option<(Num, &str)> {
    let (neg, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let n = digits(body);
    if n == 0 {
        return None;
    }
    let int = body[..n].parse::<i64>().ok()?;
    let mut rest = &body[n..];
    let mut num = Num {
        value: int as f64,
        int,
        frac_nanos: 0,
        fractional: false,
    };
    if let Some(r) = rest.strip_prefix(['.', ',']) {
        let f = digits(r);
        if f == 0 {
            return None;
        }
        let txt = &r[..f];
        let mut nanos_txt: String = txt.chars().take(9).collect();
        while nanos_txt.len() < 9 {
            nanos_txt.push('0');
        }
        num.frac_nanos = nanos_txt.parse::<i64>().ok()?;
        num.value = format!("{int}.{txt}").parse::<f64>().ok()?;
        num.fractional = txt.bytes().any(|c| c != b'0');
        rest = &r[f..];
    }
    if neg {
        num.value = -num.value;
        num.int = -num.int;
        num.frac_nanos = -num.frac_nanos;
    }
    Some((num, rest))
}

/// Parses an ISO 8601 duration.
pub(crate) fn parse_duration(text: &str) -> Result<Duration> {
    let bad = || invalid(format!("Text cannot be parsed to a Duration: '{text}'"));
    let s = text.trim();
    let (negate, s) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let s = s.strip_prefix(['P', 'p']).ok_or_else(bad)?;
    // [years, months, weeks, days, hours, minutes, seconds]
    let mut parts: [Option<Num>; 7] = [None; 7];
    if digits(s) >= 4 && s.as_bytes().get(4) == Some(&b'-') {
        parse_alternative(s, &mut parts).ok_or_else(bad)?;
    } else {
        let mut rest = s;
        let mut in_time = false;
        let mut last = 0usize;
        if rest.is_empty() {
            return Err(bad());
        }
        while !rest.is_empty() {
            if let Some(r) = rest.strip_prefix(['T', 't']) {
                if in_time {
                    return Err(bad());
                }
                in_time = true;
                rest = r;
                last = 4;
                continue;
            }
            let (n, r) = parse_num(rest).ok_or_else(bad)?;
            let unit = r.chars().next().ok_or_else(bad)?.to_ascii_uppercase();
            let idx = match (in_time, unit) {
                (false, 'Y') => 0,
                (false, 'M') => 1,
                (false, 'W') => 2,
                (false, 'D') => 3,
                (true, 'H') => 4,
                (true, 'M') => 5,
                (true, 'S') => 6,
                _ => return Err(bad()),
            };
            if idx < last || parts[idx].is_some() {
                return Err(bad());
            }
            last = idx;
            parts[idx] = Some(n);
            rest = &r[1..];
        }
    }
    let get = |i: usize| parts[i].unwrap_or_default();
    let fractional = parts[..6].iter().flatten().any(|n| n.fractional);
    let d = if fractional {
        let months = get(0).value * 12.0 + get(1).value;
        let days = get(2).value * 7.0 + get(3).value;
        let seconds = get(4).value * 3600.0 + get(5).value * 60.0 + get(6).int as f64;
        approximate(months, days, seconds, get(6).frac_nanos as f64)?
    } else {
        let m = get(0).int.checked_mul(12).and_then(|y| y.checked_add(get(1).int));
        let d = get(2).int.checked_mul(7).and_then(|w| w.checked_add(get(3).int));
        let s = get(4)
            .int
            .checked_mul(3600)
            .and_then(|h| get(5).int.checked_mul(60).and_then(|m| h.checked_add(m)))
            .and_then(|hm| hm.checked_add(get(6).int));
        match (m, d, s) {
            (Some(m), Some(d), Some(s)) => Duration::new(m, d, s, get(6).frac_nanos).ok_or_else(overflow)?,
            _ => return Err(overflow()),
        }
    };
    if negate {
        super::duration::scale_int(&d, -1)
    } else {
        Ok(d)
    }
}

/// `YYYY-MM-DDThh:mm:ss.fff` (the time part optional).
fn parse_alternative(s: &str, parts: &mut [Option<Num>; 7]) -> Option<()> {
    let (date, time) = match s.find(['T', 't']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let d: Vec<&str> = date.split('-').collect();
    if d.len() != 3 || d.iter().any(|p| p.is_empty() || digits(p) != p.len()) {
        return None;
    }
    for (i, idx) in [0usize, 1, 3].into_iter().enumerate() {
        parts[idx] = Some(parse_num(d[i])?.0);
    }
    if let Some(t) = time {
        let f: Vec<&str> = t.split(':').collect();
        if f.len() != 3 {
            return None;
        }
        parts[4] = Some(parse_num(f[0])?.0);
        parts[5] = Some(parse_num(f[1])?.0);
        let (sec, rest) = parse_num(f[2])?;
        if !rest.is_empty() {
            return None;
        }
        parts[6] = Some(sec);
    }
    Some(())
}
