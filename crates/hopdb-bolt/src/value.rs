//! The PackStream value model.

/// A PackStream dictionary: entries in the order they were received or inserted. Decoding
/// collapses duplicate keys (the last value wins, at the first key's position), so a decoded map
/// never holds a key twice.
pub type Map = Vec<(String, Value)>;

/// A PackStream v1 value.
///
/// Graph and temporal values are [`Value::Structure`]s; the typed helpers in
/// [`structs`](crate::structs) build and recognise them.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Value {
    /// `Null` (marker `C0`).
    #[default]
    Null,
    /// `Boolean` (markers `C2`, `C3`).
    Boolean(bool),
    /// `Integer`: a signed 64-bit integer (tiny int, `C8`..`CB`).
    Integer(i64),
    /// `Float`: an IEEE 754 double (`C1`).
    Float(f64),
    /// `Bytes`: a byte array (`CC`..`CE`).
    Bytes(Vec<u8>),
    /// `String`: UTF-8 text (`8x`, `D0`..`D2`).
    String(String),
    /// `List`: a heterogeneous sequence (`9x`, `D4`..`D6`).
    List(Vec<Value>),
    /// `Dictionary`: string keys in insertion order (`Ax`, `D8`..`DA`).
    Map(Map),
    /// `Structure`: a tag byte (0..=127) and up to 15 fields (`Bx`).
    Structure {
        /// The tag byte.
        tag: u8,
        /// The fields.
        fields: Vec<Value>,
    },
}

impl Value {
    /// A short name of the value's type, for error messages (`"Integer"`, `"Map"`, ...).
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "Null",
            Value::Boolean(_) => "Boolean",
            Value::Integer(_) => "Integer",
            Value::Float(_) => "Float",
            Value::Bytes(_) => "Bytes",
            Value::String(_) => "String",
            Value::List(_) => "List",
            Value::Map(_) => "Map",
            Value::Structure { .. } => "Structure",
        }
    }

    /// Whether this is `Null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// The boolean, if this is a `Boolean`.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Boolean(b) => Some(*b),
            _ => None,
        }
    }

    /// The integer, if this is an `Integer`.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Integer(i) => Some(*i),
            _ => None,
        }
    }

    /// The float, if this is a `Float`.
    pub fn as_float(&self) -> Option<f64> {
        match self {
            Value::Float(f) => Some(*f),
            _ => None,
        }
    }

    /// The text, if this is a `String`.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The bytes, if this is `Bytes`.
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match self {
            Value::Bytes(b) => Some(b),
            _ => None,
        }
    }

    /// The items, if this is a `List`.
    pub fn as_list(&self) -> Option<&[Value]> {
        match self {
            Value::List(l) => Some(l),
            _ => None,
        }
    }

    /// The entries, if this is a `Map`.
    pub fn as_map(&self) -> Option<&Map> {
        match self {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The tag and fields, if this is a `Structure`.
    pub fn as_structure(&self) -> Option<(u8, &[Value])> {
        match self {
            Value::Structure { tag, fields } => Some((*tag, fields)),
            _ => None,
        }
    }

    /// The value under `key`, if this is a `Map` holding it (the last entry wins).
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_map().and_then(|m| map_get(m, key))
    }

    /// Builds a `Map` value from `(key, value)` pairs.
    pub fn map<K: Into<String>, V: Into<Value>>(entries: impl IntoIterator<Item = (K, V)>) -> Self {
        Value::Map(entries.into_iter().map(|(k, v)| (k.into(), v.into())).collect())
    }

    /// Builds a `List` value.
    pub fn list<V: Into<Value>>(items: impl IntoIterator<Item = V>) -> Self {
        Value::List(items.into_iter().map(Into::into).collect())
    }
}

/// The value of the last entry named `key`.
pub fn map_get<'a>(map: &'a [(String, Value)], key: &str) -> Option<&'a Value> {
    map.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// Sets `key` to `value`: replaces the existing entry in place, or appends one.
pub fn map_insert(map: &mut Map, key: impl Into<String>, value: impl Into<Value>) {
    let key = key.into();
    let value = value.into();
    match map.iter_mut().rev().find(|(k, _)| *k == key) {
        Some(entry) => entry.1 = value,
        None => map.push((key, value)),
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Boolean(b)
    }
}

impl From<i64> for Value {
    fn from(i: i64) -> Self {
        Value::Integer(i)
    }
}

impl From<i32> for Value {
    fn from(i: i32) -> Self {
        Value::Integer(i64::from(i))
    }
}

impl From<u32> for Value {
    fn from(i: u32) -> Self {
        Value::Integer(i64::from(i))
    }
}

impl From<f64> for Value {
    fn from(f: f64) -> Self {
        Value::Float(f)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(s.to_owned())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::String(s)
    }
}

impl From<Vec<u8>> for Value {
    fn from(b: Vec<u8>) -> Self {
        Value::Bytes(b)
    }
}

impl From<Vec<Value>> for Value {
    fn from(l: Vec<Value>) -> Self {
        Value::List(l)
    }
}

impl From<Map> for Value {
    fn from(m: Map) -> Self {
        Value::Map(m)
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(o: Option<T>) -> Self {
        o.map_or(Value::Null, Into::into)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_helpers_keep_order_and_replace_in_place() {
        let mut m: Map = Vec::new();
        map_insert(&mut m, "b", 1);
        map_insert(&mut m, "a", 2);
        map_insert(&mut m, "b", 3);
        assert_eq!(m, vec![("b".into(), 3.into()), ("a".into(), 2.into())]);
        assert_eq!(map_get(&m, "b"), Some(&Value::Integer(3)));
        assert_eq!(Value::Map(m).get("a"), Some(&Value::Integer(2)));
    }

    #[test]
    fn accessors_and_conversions() {
        assert_eq!(Value::from(Some("x")).as_str(), Some("x"));
        assert!(Value::from(None::<i64>).is_null());
        assert_eq!(Value::list([1, 2]).as_list().map(<[Value]>::len), Some(2));
        assert_eq!(Value::Integer(1).type_name(), "Integer");
        assert_eq!(Value::Float(1.5).as_float(), Some(1.5));
        assert_eq!(Value::Boolean(true).as_bool(), Some(true));
        assert_eq!(Value::Bytes(vec![1]).as_bytes(), Some(&[1u8][..]));
        let s = Value::Structure {
            tag: 0x44,
            fields: vec![Value::Integer(1)],
        };
        assert_eq!(s.as_structure().map(|(t, f)| (t, f.len())), Some((0x44, 1)));
    }
}
