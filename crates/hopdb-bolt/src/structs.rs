//! Typed helpers for the Bolt structures: graph entities, temporal and spatial values.
//!
//! Values are built in their *canonical* form, the Bolt 5.x one (element ids present, UTC-based
//! `DateTime` and `DateTimeZoneId`). The [`Encoder`](crate::Encoder) converts them to the form
//! of the negotiated version, described by a [`StructFormat`]:
//!
//! * Bolt 4.4 has no element ids: `Node`, `Relationship` and `UnboundRelationship` lose them.
//! * Bolt 4.4 uses the legacy `DateTime` (0x46) and `DateTimeZoneId` (0x66), whose seconds are
//!   local wall-clock seconds, unless the client negotiated the `"utc"` patch in `HELLO`.
//!   Converting a `DateTimeZoneId` to the legacy form needs the zone's offset at that instant,
//!   which the canonical value may carry as a fourth field ([`DateTimeZoneId::offset_seconds`]);
//!   the 5.x encoder drops it.
//!
//! A canonical graph entity may omit its element ids: the 5.x encoder then sends the numeric id
//! as a string.

use crate::handshake::Version;
use crate::value::{Map, Value};

/// Structure tag bytes.
pub mod tag {
    /// `Node` (`N`).
    pub const NODE: u8 = 0x4E;
    /// `Relationship` (`R`).
    pub const RELATIONSHIP: u8 = 0x52;
    /// `UnboundRelationship` (`r`).
    pub const UNBOUND_RELATIONSHIP: u8 = 0x72;
    /// `Path` (`P`).
    pub const PATH: u8 = 0x50;
    /// `Date` (`D`).
    pub const DATE: u8 = 0x44;
    /// `Time` (`T`).
    pub const TIME: u8 = 0x54;
    /// `LocalTime` (`t`).
    pub const LOCAL_TIME: u8 = 0x74;
    /// `DateTime` with a UTC-based seconds field (`I`, Bolt 5.0+ or 4.4 with the utc patch).
    pub const DATE_TIME: u8 = 0x49;
    /// `DateTimeZoneId` with a UTC-based seconds field (`i`, Bolt 5.0+ or 4.4 with the patch).
    pub const DATE_TIME_ZONE_ID: u8 = 0x69;
    /// Legacy `DateTime` with local seconds (`F`, Bolt 4.4 and earlier).
    pub const LEGACY_DATE_TIME: u8 = 0x46;
    /// Legacy `DateTimeZoneId` with local seconds (`f`, Bolt 4.4 and earlier).
    pub const LEGACY_DATE_TIME_ZONE_ID: u8 = 0x66;
    /// `LocalDateTime` (`d`).
    pub const LOCAL_DATE_TIME: u8 = 0x64;
    /// `Duration` (`E`).
    pub const DURATION: u8 = 0x45;
    /// `Point2D` (`X`).
    pub const POINT_2D: u8 = 0x58;
    /// `Point3D` (`Y`).
    pub const POINT_3D: u8 = 0x59;
}

/// The wire form of version-dependent structures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StructFormat {
    /// Graph entities carry element ids (Bolt 5.0+).
    pub element_ids: bool,
    /// `DateTime`/`DateTimeZoneId` use UTC seconds (5.0+, or 4.4 with the `"utc"` patch).
    pub utc_datetime: bool,
}

impl StructFormat {
    /// Bolt 5.x: the canonical form.
    pub const V5: Self = Self {
        element_ids: true,
        utc_datetime: true,
    };
    /// Bolt 4.4 without patches.
    pub const V4_4: Self = Self {
        element_ids: false,
        utc_datetime: false,
    };
    /// Bolt 4.4 with the `"utc"` patch negotiated in `HELLO`.
    pub const V4_4_UTC: Self = Self {
        element_ids: false,
        utc_datetime: true,
    };

    /// The format of `version`, given whether the `"utc"` patch was negotiated (4.x only).
    pub fn for_version(version: Version, utc_patch: bool) -> Self {
        if version.major >= 5 {
            Self::V5
        } else {
            Self {
                element_ids: false,
                utc_datetime: utc_patch,
            }
        }
    }
}

/// A typed view of one Bolt structure.
pub trait BoltStruct: Sized {
    /// The structure's tag byte (canonical form).
    const TAG: u8;
    /// The canonical [`Value::Structure`].
    fn into_value(self) -> Value;
    /// Recognises the structure (canonical or 4.4 form); `None` if `value` is not one.
    fn from_value(value: &Value) -> Option<Self>;
}

fn fields(value: &Value, t: u8) -> Option<&[Value]> {
    match value {
        Value::Structure { tag, fields } if *tag == t => Some(fields),
        _ => None,
    }
}

fn strings(v: &Value) -> Option<Vec<String>> {
    v.as_list()?.iter().map(|s| s.as_str().map(str::to_owned)).collect()
}

fn st(tag: u8, fields: Vec<Value>) -> Value {
    Value::Structure { tag, fields }
}

/// A node snapshot.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Numeric id.
    pub id: i64,
    /// Labels.
    pub labels: Vec<String>,
    /// Properties.
    pub properties: Map,
    /// Element id (5.0+; in 4.4 values, the numeric id as a string).
    pub element_id: String,
}

impl BoltStruct for Node {
    const TAG: u8 = tag::NODE;
    fn into_value(self) -> Value {
        st(
            Self::TAG,
            vec![
                self.id.into(),
                Value::list(self.labels),
                Value::Map(self.properties),
                self.element_id.into(),
            ],
        )
    }
    fn from_value(value: &Value) -> Option<Self> {
        let f = fields(value, Self::TAG)?;
        let (id, labels, props, eid) = match f {
            [id, l, p] => (id.as_int()?, l, p, None),
            [id, l, p, e] => (id.as_int()?, l, p, Some(e.as_str()?.to_owned())),
            _ => return None,
        };
        Some(Self {
            id,
            labels: strings(labels)?,
            properties: props.as_map()?.clone(),
            element_id: eid.unwrap_or_else(|| id.to_string()),
        })
    }
}

/// A relationship snapshot.
#[derive(Debug, Clone, PartialEq)]
pub struct Relationship {
    /// Numeric id.
    pub id: i64,
    /// Numeric id of the start node.
    pub start_node_id: i64,
    /// Numeric id of the end node.
    pub end_node_id: i64,
    /// Relationship type.
    pub rel_type: String,
    /// Properties.
    pub properties: Map,
    /// Element id.
    pub element_id: String,
    /// Element id of the start node.
    pub start_node_element_id: String,
    /// Element id of the end node.
    pub end_node_element_id: String,
}

impl BoltStruct for Relationship {
    const TAG: u8 = tag::RELATIONSHIP;
    fn into_value(self) -> Value {
        st(
            Self::TAG,
            vec![
                self.id.into(),
                self.start_node_id.into(),
                self.end_node_id.into(),
                self.rel_type.into(),
                Value::Map(self.properties),
                self.element_id.into(),
                self.start_node_element_id.into(),
                self.end_node_element_id.into(),
            ],
        )
    }
    fn from_value(value: &Value) -> Option<Self> {
        let f = fields(value, Self::TAG)?;
        let (base, eids) = match f.len() {
            5 => (f, None),
            8 => (f.get(..5)?, f.get(5..)),
            _ => return None,
        };
        let [id, s, e, t, p] = base else { return None };
        let (id, s, e) = (id.as_int()?, s.as_int()?, e.as_int()?);
        let (eid, seid, eeid) = match eids {
            Some([a, b, c]) => (a.as_str()?.to_owned(), b.as_str()?.to_owned(), c.as_str()?.to_owned()),
            _ => (id.to_string(), s.to_string(), e.to_string()),
        };
        Some(Self {
            id,
            start_node_id: s,
            end_node_id: e,
            rel_type: t.as_str()?.to_owned(),
            properties: p.as_map()?.clone(),
            element_id: eid,
            start_node_element_id: seid,
            end_node_element_id: eeid,
        })
    }
}

/// A relationship without its end points, as it appears inside a [`Path`].
#[derive(Debug, Clone, PartialEq)]
pub struct UnboundRelationship {
    /// Numeric id.
    pub id: i64,
    /// Relationship type.
    pub rel_type: String,
    /// Properties.
    pub properties: Map,
    /// Element id.
    pub element_id: String,
}

impl BoltStruct for UnboundRelationship {
    const TAG: u8 = tag::UNBOUND_RELATIONSHIP;
    fn into_value(self) -> Value {
        st(
            Self::TAG,
            vec![
                self.id.into(),
                self.rel_type.into(),
                Value::Map(self.properties),
                self.element_id.into(),
            ],
        )
    }
    fn from_value(value: &Value) -> Option<Self> {
        let f = fields(value, Self::TAG)?;
        let (id, t, p, eid) = match f {
            [id, t, p] => (id.as_int()?, t, p, None),
            [id, t, p, e] => (id.as_int()?, t, p, Some(e.as_str()?.to_owned())),
            _ => return None,
        };
        Some(Self {
            id,
            rel_type: t.as_str()?.to_owned(),
            properties: p.as_map()?.clone(),
            element_id: eid.unwrap_or_else(|| id.to_string()),
        })
    }
}

/// A path: distinct nodes and relationships, and the indices that walk them.
#[derive(Debug, Clone, PartialEq)]
pub struct Path {
    /// The distinct nodes; the first is where the path starts.
    pub nodes: Vec<Node>,
    /// The distinct relationships.
    pub rels: Vec<UnboundRelationship>,
    /// Alternating 1-based relationship indices (negative: traversed backwards) and 0-based
    /// node indices.
    pub indices: Vec<i64>,
}

impl BoltStruct for Path {
    const TAG: u8 = tag::PATH;
    fn into_value(self) -> Value {
        st(
            Self::TAG,
            vec![
                Value::List(self.nodes.into_iter().map(Node::into_value).collect()),
                Value::List(self.rels.into_iter().map(UnboundRelationship::into_value).collect()),
                Value::list(self.indices),
            ],
        )
    }
    fn from_value(value: &Value) -> Option<Self> {
        let [n, r, i] = fields(value, Self::TAG)? else {
            return None;
        };
        Some(Self {
            nodes: n.as_list()?.iter().map(Node::from_value).collect::<Option<_>>()?,
            rels: r
                .as_list()?
                .iter()
                .map(UnboundRelationship::from_value)
                .collect::<Option<_>>()?,
            indices: i.as_list()?.iter().map(Value::as_int).collect::<Option<_>>()?,
        })
    }
}

/// Declares a structure of integer fields.
macro_rules! int_struct {
    ($(#[$doc:meta])* $name:ident, $tag:expr, $($(#[$fdoc:meta])* $field:ident),+) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub struct $name {
            $($(#[$fdoc])* pub $field: i64,)+
        }

        impl BoltStruct for $name {
            const TAG: u8 = $tag;
            fn into_value(self) -> Value {
                st(Self::TAG, vec![$(Value::Integer(self.$field)),+])
            }
            fn from_value(value: &Value) -> Option<Self> {
                let f = fields(value, Self::TAG)?;
                let mut it = f.iter();
                $(let $field = it.next()?.as_int()?;)+
                if it.next().is_some() {
                    return None;
                }
                Some(Self { $($field),+ })
            }
        }
    };
}

int_struct!(
    /// A date: days since 1970-01-01.
    Date, tag::DATE,
    /// Days since the Unix epoch.
    days
);
int_struct!(
    /// A time of day with a UTC offset.
    Time, tag::TIME,
    /// Nanoseconds since midnight (local time).
    nanoseconds,
    /// Offset from UTC in seconds.
    tz_offset_seconds
);
int_struct!(
    /// A time of day without a zone.
    LocalTime, tag::LOCAL_TIME,
    /// Nanoseconds since midnight.
    nanoseconds
);
int_struct!(
    /// A date and time without a zone.
    LocalDateTime, tag::LOCAL_DATE_TIME,
    /// Seconds since the Unix epoch, read as wall-clock time.
    seconds,
    /// Nanoseconds within the second (0..=999,999,999).
    nanoseconds
);
int_struct!(
    /// A temporal amount.
    Duration, tag::DURATION,
    /// Months.
    months,
    /// Days.
    days,
    /// Seconds.
    seconds,
    /// Nanoseconds.
    nanoseconds
);

/// An instant with a fixed UTC offset (canonical: `DateTime` 0x49, UTC seconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DateTime {
    /// Seconds since the Unix epoch, in UTC.
    pub seconds: i64,
    /// Nanoseconds within the second (0..=999,999,999).
    pub nanoseconds: i64,
    /// Offset from UTC in seconds.
    pub tz_offset_seconds: i64,
}

impl BoltStruct for DateTime {
    const TAG: u8 = tag::DATE_TIME;
    fn into_value(self) -> Value {
        st(
            Self::TAG,
            vec![
                self.seconds.into(),
                self.nanoseconds.into(),
                self.tz_offset_seconds.into(),
            ],
        )
    }
    /// Recognises 0x49 and the legacy 0x46 (whose local seconds are converted to UTC).
    fn from_value(value: &Value) -> Option<Self> {
        let (t, f) = value.as_structure()?;
        let [s, ns, off] = f else { return None };
        let (s, ns, off) = (s.as_int()?, ns.as_int()?, off.as_int()?);
        let seconds = match t {
            tag::DATE_TIME => s,
            tag::LEGACY_DATE_TIME => s.saturating_sub(off),
            _ => return None,
        };
        Some(Self {
            seconds,
            nanoseconds: ns,
            tz_offset_seconds: off,
        })
    }
}

/// An instant in a named zone (canonical: `DateTimeZoneId` 0x69, UTC seconds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DateTimeZoneId {
    /// Seconds since the Unix epoch, in UTC.
    pub seconds: i64,
    /// Nanoseconds within the second (0..=999,999,999).
    pub nanoseconds: i64,
    /// IANA zone name (`"Europe/Paris"`).
    pub tz_id: String,
    /// The zone's offset from UTC at this instant, in seconds: needed only to send the value to
    /// a Bolt 4.4 client without the `"utc"` patch. Carried as a fourth field of the canonical
    /// structure, which the 5.x encoder drops.
    pub offset_seconds: Option<i64>,
}

impl BoltStruct for DateTimeZoneId {
    const TAG: u8 = tag::DATE_TIME_ZONE_ID;
    fn into_value(self) -> Value {
        let mut f = vec![self.seconds.into(), self.nanoseconds.into(), self.tz_id.into()];
        if let Some(off) = self.offset_seconds {
            f.push(off.into());
        }
        st(Self::TAG, f)
    }
    fn from_value(value: &Value) -> Option<Self> {
        let f = fields(value, Self::TAG)?;
        let (s, ns, tz, off) = match f {
            [s, ns, tz] => (s, ns, tz, None),
            [s, ns, tz, off] => (s, ns, tz, Some(off.as_int()?)),
            _ => return None,
        };
        Some(Self {
            seconds: s.as_int()?,
            nanoseconds: ns.as_int()?,
            tz_id: tz.as_str()?.to_owned(),
            offset_seconds: off,
        })
    }
}

/// A legacy `DateTimeZoneId` (0x66) as a Bolt 4.4 client sends it: local wall-clock seconds.
/// Turning it into an instant needs a time-zone database, which is the caller's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LegacyDateTimeZoneId {
    /// Local wall-clock seconds since 1970-01-01T00:00 (UTC seconds plus the zone's offset).
    pub local_seconds: i64,
    /// Nanoseconds within the second.
    pub nanoseconds: i64,
    /// IANA zone name.
    pub tz_id: String,
}

impl LegacyDateTimeZoneId {
    /// The canonical value, given the zone's offset at this local time.
    pub fn to_utc(&self, offset_seconds: i64) -> DateTimeZoneId {
        DateTimeZoneId {
            seconds: self.local_seconds.saturating_sub(offset_seconds),
            nanoseconds: self.nanoseconds,
            tz_id: self.tz_id.clone(),
            offset_seconds: Some(offset_seconds),
        }
    }
}

impl BoltStruct for LegacyDateTimeZoneId {
    const TAG: u8 = tag::LEGACY_DATE_TIME_ZONE_ID;
    fn into_value(self) -> Value {
        st(
            Self::TAG,
            vec![self.local_seconds.into(), self.nanoseconds.into(), self.tz_id.into()],
        )
    }
    fn from_value(value: &Value) -> Option<Self> {
        let [s, ns, tz] = fields(value, Self::TAG)? else {
            return None;
        };
        Some(Self {
            local_seconds: s.as_int()?,
            nanoseconds: ns.as_int()?,
            tz_id: tz.as_str()?.to_owned(),
        })
    }
}

/// A point in two dimensions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point2D {
    /// Spatial reference system id (7203 cartesian, 4326 WGS-84).
    pub srid: i64,
    /// x (or longitude).
    pub x: f64,
    /// y (or latitude).
    pub y: f64,
}

impl BoltStruct for Point2D {
    const TAG: u8 = tag::POINT_2D;
    fn into_value(self) -> Value {
        st(Self::TAG, vec![self.srid.into(), self.x.into(), self.y.into()])
    }
    fn from_value(value: &Value) -> Option<Self> {
        let [srid, x, y] = fields(value, Self::TAG)? else {
            return None;
        };
        Some(Self {
            srid: srid.as_int()?,
            x: x.as_float()?,
            y: y.as_float()?,
        })
    }
}

/// A point in three dimensions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point3D {
    /// Spatial reference system id (9157 cartesian 3D, 4979 WGS-84 3D).
    pub srid: i64,
    /// x (or longitude).
    pub x: f64,
    /// y (or latitude).
    pub y: f64,
    /// z (or height).
    pub z: f64,
}

impl BoltStruct for Point3D {
    const TAG: u8 = tag::POINT_3D;
    fn into_value(self) -> Value {
        st(
            Self::TAG,
            vec![self.srid.into(), self.x.into(), self.y.into(), self.z.into()],
        )
    }
    fn from_value(value: &Value) -> Option<Self> {
        let [srid, x, y, z] = fields(value, Self::TAG)? else {
            return None;
        };
        Some(Self {
            srid: srid.as_int()?,
            x: x.as_float()?,
            y: y.as_float()?,
            z: z.as_float()?,
        })
    }
}
