//! Temporal values between Cypher and Python's `datetime` module, in both directions:
//! `date` <-> `datetime.date`, `localtime` / `time` <-> `datetime.time` (naive / with a fixed
//! offset), `localdatetime` / `datetime` <-> `datetime.datetime` (naive / aware: a named zone
//! becomes a `zoneinfo.ZoneInfo`), `duration` <-> `datetime.timedelta`.
//!
//! Python's types hold less than Cypher's: microseconds (not nanoseconds), years 1-9999, and
//! no months in a timedelta. A value they cannot hold exactly comes back as its Cypher string
//! (ISO 8601), never rounded.

use hopdb_cypher::temporal::{self, Clock, Date, DateTime, Duration, LocalDateTime, LocalTime, Time};
use hopdb_cypher::Value;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use pyo3::IntoPyObjectExt;

/// `date(1970, 1, 1).toordinal()`.
const EPOCH_ORDINAL: i64 = 719_163;
/// `date(9999, 12, 31).toordinal()`.
const MAX_ORDINAL: i64 = 3_652_059;
const NANOS_PER_SECOND: i64 = 1_000_000_000;

fn date_py<'py>(dt: &Bound<'py, PyModule>, days: i64) -> PyResult<Option<Bound<'py, PyAny>>> {
    let ordinal = EPOCH_ORDINAL + days;
    if !(1..=MAX_ORDINAL).contains(&ordinal) {
        return Ok(None);
    }
    Ok(Some(dt.getattr("date")?.call_method1("fromordinal", (ordinal,))?))
}

/// (hour, minute, second, microsecond) of nanoseconds since midnight, when exact.
fn clock(nanos: i64) -> Option<(i64, i64, i64, i64)> {
    if nanos % 1000 != 0 {
        return None;
    }
    let s = nanos / NANOS_PER_SECOND;
    Some((s / 3600, s / 60 % 60, s % 60, nanos % NANOS_PER_SECOND / 1000))
}

fn fixed_zone<'py>(dt: &Bound<'py, PyModule>, offset_seconds: i32) -> PyResult<Bound<'py, PyAny>> {
    let delta = dt.getattr("timedelta")?.call1((0, offset_seconds))?;
    dt.getattr("timezone")?.call1((delta,))
}

fn local_time<'py>(
    dt: &Bound<'py, PyModule>,
    nanos: i64,
    tz: Option<Bound<'py, PyAny>>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let Some((h, m, s, us)) = clock(nanos) else {
        return Ok(None);
    };
    Ok(Some(dt.getattr("time")?.call1((h, m, s, us, tz))?))
}

fn date_time<'py>(
    dt: &Bound<'py, PyModule>,
    days: i64,
    nanos: i64,
    tz: Option<Bound<'py, PyAny>>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let (Some(date), Some(time)) = (date_py(dt, days)?, local_time(dt, nanos, tz)?) else {
        return Ok(None);
    };
    Ok(Some(dt.getattr("datetime")?.call_method1("combine", (date, time))?))
}

/// A Cypher temporal value as a Python object (`None` when `v` is not temporal).
pub(crate) fn temporal_py(py: Python<'_>, v: &Value) -> PyResult<Option<Py<PyAny>>> {
    let dt = py.import("datetime")?;
    let exact = match v {
        Value::Date(Date { days }) => date_py(&dt, *days)?,
        Value::LocalTime(LocalTime { nanos }) => local_time(&dt, *nanos, None)?,
        Value::Time(Time { nanos, offset_seconds }) => {
            local_time(&dt, *nanos, Some(fixed_zone(&dt, *offset_seconds)?))?
        }
        Value::LocalDateTime(LocalDateTime { days, nanos }) => date_time(&dt, *days, *nanos, None)?,
        Value::DateTime(DateTime {
            days,
            nanos,
            offset_seconds,
            zone,
        }) => match date_time(&dt, *days, *nanos, Some(fixed_zone(&dt, *offset_seconds)?))? {
            // The instant in its named zone (the fixed offset first, so a time in a DST
            // overlap keeps the offset it was given).
            Some(fixed) => match zone {
                Some(name) => match py
                    .import("zoneinfo")
                    .and_then(|z| z.getattr("ZoneInfo")?.call1((name,)))
                {
                    Ok(zi) => Some(fixed.call_method1("astimezone", (zi,))?),
                    Err(_) => Some(fixed),
                },
                None => Some(fixed),
            },
            None => None,
        },
        Value::Duration(Duration {
            months,
            days,
            seconds,
            nanos,
        }) => {
            if *months != 0 || nanos % 1000 != 0 {
                None
            } else {
                let kw = PyDict::new(py);
                kw.set_item("days", *days)?;
                kw.set_item("seconds", *seconds)?;
                kw.set_item("microseconds", *nanos / 1000)?;
                dt.getattr("timedelta").and_then(|t| t.call((), Some(&kw))).ok()
            }
        }
        _ => return Ok(None),
    };
    Ok(Some(match exact {
        Some(o) => o.unbind(),
        None => temporal::to_cypher_string(v).unwrap_or_default().into_py_any(py)?,
    }))
}

/// A stored property value that encodes a temporal value, as a Python object.
pub(crate) fn stored_temporal_py(py: Python<'_>, v: &hopdb_database::Value) -> PyResult<Option<Py<PyAny>>> {
    match temporal::from_store(v) {
        Some(
            t @ (Value::Date(_)
            | Value::LocalTime(_)
            | Value::Time(_)
            | Value::LocalDateTime(_)
            | Value::DateTime(_)
            | Value::Duration(_)),
        ) => temporal_py(py, &t),
        _ => Ok(None),
    }
}

fn construct(kind: &str, iso: String) -> PyResult<Value> {
    match temporal::call(kind, &[Value::String(iso)], &Clock { statement_nanos: 0 }) {
        Some(Ok(v)) => Ok(v),
        Some(Err(e)) => Err(pyo3::exceptions::PyValueError::new_err(e.to_string())),
        None => Err(pyo3::exceptions::PyValueError::new_err(format!(
            "no temporal type {kind}"
        ))),
    }
}

/// A Python `date`, `time`, `datetime` or `timedelta` as a Cypher value (`None` for
/// anything else). Each type is tested once; `datetime` before `date`, its base class.
pub(crate) fn py_temporal(obj: &Bound<'_, PyAny>) -> PyResult<Option<Value>> {
    let py = obj.py();
    let dt = py.import("datetime")?;
    let is = |name: &str| -> PyResult<bool> { obj.is_instance(&dt.getattr(name)?) };
    let aware = || -> PyResult<bool> { Ok(!obj.call_method0("utcoffset")?.is_none()) };
    let iso = || -> PyResult<String> { obj.call_method0("isoformat")?.extract() };
    if is("datetime")? {
        if !aware()? {
            return construct("localdatetime", iso()?).map(Some);
        }
        let zone = match obj.getattr("tzinfo")?.getattr("key") {
            Ok(k) if !k.is_none() => Some(k.extract::<String>()?),
            _ => None,
        };
        let text = match zone {
            Some(z) => format!("{}[{z}]", iso()?),
            None => iso()?,
        };
        return construct("datetime", text).map(Some);
    }
    if is("date")? {
        return construct("date", iso()?).map(Some);
    }
    if is("time")? {
        let kind = if aware()? { "time" } else { "localtime" };
        return construct(kind, iso()?).map(Some);
    }
    if is("timedelta")? {
        let days: i64 = obj.getattr("days")?.extract()?;
        let seconds: i64 = obj.getattr("seconds")?.extract()?;
        let micros: i32 = obj.getattr("microseconds")?.extract()?;
        return Ok(Some(Value::Duration(Duration {
            months: 0,
            days,
            seconds,
            nanos: micros * 1000,
        })));
    }
    Ok(None)
}

/// A Python temporal value as a stored property value (the store's temporal encoding).
pub(crate) fn py_stored_temporal(obj: &Bound<'_, PyAny>) -> PyResult<Option<hopdb_database::Value>> {
    Ok(py_temporal(obj)?.and_then(|v| temporal::to_store(&v)))
}
