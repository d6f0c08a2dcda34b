"""Temporal values as they travel over Bolt, next to what the official driver makes of them.

The driver turns Bolt's temporal structures into ``neo4j.time`` values, and in three ways it
cannot show what the server sent: offsets are cut to whole minutes (pytz's ``FixedOffset``:
``time('12:00+00:53:28')`` arrives as ``+00:53``), a named zone's offset comes from the
client's own zone database (pytz rounds local mean time to minutes: Europe/Stockholm in 1818 is
``+00:53`` there, ``+00:53:28`` in the engine and the TCK), and years outside 1..9999 or huge
durations cannot be represented at all (a ``BrokenHydrationObject``).

So that such a value is judged by what the server put on the wire, :func:`keep_raw_temporals`
wraps the driver's hydration of temporal structures (a private hook of neo4j 6.x, see
:data:`HOOKED`): every temporal value becomes a :class:`WireTemporal` holding both the driver's
value and the structure's fields. The comparison tries the driver's value first and falls back
to the fields only when they differ; those fallbacks are counted and reported."""

from __future__ import annotations

import contextlib
import datetime
import re

NANOS = 1_000_000_000
DAY_SECONDS = 86_400

#: Bolt 5 temporal structure tags (and the Bolt 4 datetimes, for completeness).
TEMPORAL_TAGS = {b"D", b"t", b"T", b"d", b"I", b"i", b"E", b"F", b"f"}


class WireTemporal:
    """A temporal value: the Bolt structure (tag and fields) and the driver's value of it (None
    when the driver could not make one, with the error)."""

    __slots__ = ("tag", "fields", "driver", "error")

    def __init__(self, tag, fields, driver, error=None):
        self.tag = tag.decode() if isinstance(tag, bytes) else tag
        self.fields = tuple(fields) if fields is not None else None
        self.driver = driver
        self.error = error

    def __repr__(self):
        return f"WireTemporal({self.tag!r}, {self.fields!r}, driver={self.driver!r})"


HOOKED = False  # whether the last keep_raw_temporals() could install its hook


@contextlib.contextmanager
def keep_raw_temporals():
    """While active, the driver hydrates temporal structures into :class:`WireTemporal`s."""
    global HOOKED
    try:
        from neo4j._codec.hydration.bolt import _common as hydration
    except ImportError:
        hydration = None
    scope = getattr(hydration, "HydrationScopeBolt", None)
    original = getattr(scope, "_hydrate_structure", None)
    if original is None:
        HOOKED = False
        yield False
        return

    def hydrate(self, value):
        if value.tag not in TEMPORAL_TAGS:
            return original(self, value)
        f = self._struct_hydration_functions.get(value.tag)
        try:
            if f is None:
                raise ValueError(f"no hydration for structure {value.tag!r}")
            return WireTemporal(value.tag, value.fields, f(*value.fields))
        except Exception as e:  # the driver's own hydration failed: keep the fields
            return WireTemporal(value.tag, value.fields, None, e)

    scope._hydrate_structure = hydrate
    HOOKED = True
    try:
        yield True
    finally:
        scope._hydrate_structure = original


def adopt_broken(v):
    """A ``BrokenHydrationObject`` of a temporal structure (when the hook is not installed) as a
    :class:`WireTemporal`; anything else unchanged."""
    raw = getattr(v, "raw_data", None)
    if raw is not None and hasattr(v, "error"):
        tag = getattr(raw, "tag", None)
        if tag in TEMPORAL_TAGS:
            return WireTemporal(tag, raw.fields, None, v.error)
    return v


# ---- the engine's string forms (crates/hopdb-cypher/src/temporal/format.rs) ---------------------


def _tdiv(a: int, b: int) -> int:
    """Integer division truncating toward zero, as Rust's."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _trem(a: int, b: int) -> int:
    return a - b * _tdiv(a, b)


def civil_from_days(z: int):
    z += 719_468
    era = z // 146_097
    doe = z - era * 146_097
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return (y + 1 if m <= 2 else y), m, d


def year_string(y: int) -> str:
    if y > 9999:
        return f"+{y}"
    if y < 0:
        return f"-{-y:04d}"
    return f"{y:04d}"


def date_string(days: int) -> str:
    y, m, d = civil_from_days(days)
    return f"{year_string(y)}-{m:02d}-{d:02d}"


def clock_string(h: int, m: int, s: int, n: int) -> str:
    out = f"{h:02d}:{m:02d}"
    if s > 0 or n > 0:
        out += f":{s:02d}"
        if n > 0:
            if n % 1_000_000 == 0:
                out += f".{n // 1_000_000:03d}"
            elif n % 1000 == 0:
                out += f".{n // 1000:06d}"
            else:
                out += f".{n:09d}"
    return out


def time_string(nanos: int) -> str:
    s = nanos // NANOS
    return clock_string(s // 3600, s // 60 % 60, s % 60, nanos % NANOS)


def offset_string(o: int) -> str:
    if o == 0:
        return "Z"
    sign = "-" if o < 0 else "+"
    a = abs(o)
    h, m, s = a // 3600, a // 60 % 60, a % 60
    return f"{sign}{h:02d}:{m:02d}:{s:02d}" if s else f"{sign}{h:02d}:{m:02d}"


def duration_string(months: int, days: int, seconds: int, nanos: int) -> str:
    """Neo4j's ``DurationValue.prettyPrint`` of (months, days, seconds, nanos), nanos normalized
    into 0..1e9 first (the engine's invariant; the driver keeps nanos with the seconds' sign)."""
    seconds, nanos = divmod(seconds * NANOS + nanos, NANOS)
    out = "P"

    def part(q, unit):
        return f"{q}{unit}" if q != 0 else ""

    out += part(_tdiv(months, 12), "Y") + part(_trem(months, 12), "M") + part(days, "D")
    if seconds != 0 or nanos != 0:
        s, n = seconds, nanos
        if s < 0 and n != 0:
            s += 1
            n -= NANOS
        out += "T" + part(_tdiv(s, 3600), "H")
        s = _trem(s, 3600)
        out += part(_tdiv(s, 60), "M")
        s = _trem(s, 60)
        if s != 0:
            out += str(s) + (_fraction(n) if n != 0 else "") + "S"
        elif n != 0:
            out += ("-" if n < 0 else "") + "0" + _fraction(n) + "S"
    if out == "P":
        out += "T0S"
    return out


def _fraction(n: int) -> str:
    return "." + f"{abs(n):09d}".rstrip("0")


def _local_string(local_seconds: int, nanos: int) -> str:
    days, sod = divmod(local_seconds, DAY_SECONDS)
    return f"{date_string(days)}T{time_string(sod * NANOS + nanos)}"


_ZONED = re.compile(r"(Z|[+-]\d{2}:\d{2}(?::\d{2})?)\[([^\]]+)\]$")


def zone_offset_hint(text: str):
    """The offset (seconds) written in a zoned datetime's text ``...+01:00[Europe/London]``."""
    m = _ZONED.search(text)
    if not m:
        return None
    o = m.group(1)
    if o == "Z":
        return 0
    sign = -1 if o[0] == "-" else 1
    parts = [int(p) for p in o[1:].split(":")] + [0]
    return sign * (parts[0] * 3600 + parts[1] * 60 + parts[2])


def _zone_offset(zone: str, utc_seconds: int):
    """The offset of a named zone at an instant from Python's own zone database (display only)."""
    try:
        import zoneinfo

        instant = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc) + datetime.timedelta(
            seconds=utc_seconds
        )
        off = instant.astimezone(zoneinfo.ZoneInfo(zone)).utcoffset()
        return int(off.total_seconds())
    except Exception:  # out of datetime's range or an unknown zone
        return None


def raw_string(w: WireTemporal, offset_hint=None):
    """The engine's string form of the structure's fields (None if it cannot be formed). A named
    zone's offset is not on the wire in Bolt 5: it is ``offset_hint`` when given (the expected
    text's: then the string equals that text exactly when the instant and zone sent are the ones
    it describes), else Python's zone database's."""
    f = w.fields
    if f is None:
        return None
    try:
        if w.tag == "D":
            return date_string(f[0])
        if w.tag == "t":
            return time_string(f[0])
        if w.tag == "T":
            return time_string(f[0]) + offset_string(f[1])
        if w.tag == "d":
            return _local_string(f[0], f[1])
        if w.tag == "I":
            return _local_string(f[0] + f[2], f[1]) + offset_string(f[2])
        if w.tag == "i":
            off = offset_hint if offset_hint is not None else _zone_offset(f[2], f[0])
            if off is None:
                return None
            return _local_string(f[0] + off, f[1]) + offset_string(off) + f"[{f[2]}]"
        if w.tag == "F":  # Bolt 4 DateTime: local seconds
            return _local_string(f[0], f[1]) + offset_string(f[2])
        if w.tag == "f":
            off = offset_hint if offset_hint is not None else _zone_offset(f[2], f[0])
            return None if off is None else _local_string(f[0], f[1]) + offset_string(off) + f"[{f[2]}]"
        if w.tag == "E":
            return duration_string(f[0], f[1], f[2], f[3])
    except (TypeError, IndexError, ValueError):
        return None
    return None


def _offset_seconds(v):
    off = v.utc_offset() if hasattr(v, "utc_offset") else v.utcoffset()
    return None if off is None else int(off.total_seconds())


def driver_string(w: WireTemporal):
    """The engine's string form of the driver's value (None without one)."""
    v = w.driver
    if v is None:
        return None
    try:
        import neo4j.time as nt

        if isinstance(v, nt.Duration):
            return duration_string(v.months, v.days, v.seconds, v.nanoseconds)
        if isinstance(v, nt.DateTime):
            text = f"{year_string(v.year)}-{v.month:02d}-{v.day:02d}T" + clock_string(
                v.hour, v.minute, v.second, v.nanosecond
            )
            off = _offset_seconds(v) if v.tzinfo is not None else None
            if off is None:
                return text
            text += offset_string(off)
            zone = getattr(v.tzinfo, "zone", None) or getattr(v.tzinfo, "key", None)
            if w.tag in ("i", "f") or (w.tag is None and zone and zone != "UTC"):
                text += f"[{zone}]"
            return text
        if isinstance(v, nt.Date):
            return f"{year_string(v.year)}-{v.month:02d}-{v.day:02d}"
        if isinstance(v, nt.Time):
            text = clock_string(v.hour, v.minute, v.second, v.nanosecond)
            off = _offset_seconds(v) if v.tzinfo is not None else None
            return text if off is None else text + offset_string(off)
    except Exception:  # a value the driver built but cannot describe
        return None
    return None


def canonical(w: WireTemporal) -> str:
    """A string that identifies the value sent (for graph-state differences and reports)."""
    s = raw_string(w)
    if s is not None:
        return s
    d = driver_string(w)
    return d if d is not None else f"<{w.tag} {w.fields}>"


def is_temporal_driver_value(v) -> bool:
    import neo4j.time as nt

    return isinstance(v, (nt.Date, nt.Time, nt.DateTime, nt.Duration))
