//! Cypher's value semantics: equality (ternary), comparison, the global sort order of ORDER BY,
//! grouping equivalence (DISTINCT, aggregation keys), and the arithmetic operators.
//!
//! Three different notions of "same" live here, as openCypher defines them:
//!
//! * [`equals`] is `=`: ternary (`null` when a null is involved, also inside lists and maps),
//!   `1 = 1.0` is true, `NaN = NaN` is false, values of different types are unequal.
//! * [`compare`] / [`compare_op`] are `<`, `<=`, `>`, `>=`: only numbers, strings, booleans,
//!   lists of comparable values and temporal values of one type are comparable; anything
//!   else yields `null`. Points are as Neo4j has them: equal points satisfy `<=` and `>=`,
//!   and every other comparison of points is `null`. Comparisons with `NaN` are `false` (not `null`), which an
//!   [`Ordering`] cannot express: operators should use [`compare_op`].
//! * [`order`] is the total order of ORDER BY, `min` and `max` (Neo4j's orderability:
//!   `MAP < NODE < RELATIONSHIP < LIST < PATH < POINT < DATETIME < LOCALDATETIME < DATE < TIME <
//!   LOCALTIME < DURATION < STRING < BOOLEAN < NUMBER < NULL`, `NaN` after all numbers).
//! * [`equivalent`] / [`GroupKey`] is grouping equivalence (DISTINCT, grouping keys): like
//!   `=` but `null` is equivalent to `null` and `NaN` to `NaN`.

use crate::error::{CypherError, Result};
use crate::temporal;
use crate::value::{Map, PathValue, Value};
use hopdb_database::spatial::Point;
use std::cmp::Ordering;
use std::hash::{Hash, Hasher};

/// `2^63` as a float: the first float above every `i64`.
const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;

/// Whether `v` is one of the temporal types (date, times, datetimes, duration).
pub fn is_temporal(v: &Value) -> bool {
    matches!(
        v,
        Value::Date(_)
            | Value::LocalTime(_)
            | Value::Time(_)
            | Value::LocalDateTime(_)
            | Value::DateTime(_)
            | Value::Duration(_)
    )
}

/// Exact comparison of an integer and a float (no rounding of large integers); `None` when
/// `f` is NaN.
pub fn cmp_int_float(i: i64, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    if f >= TWO_POW_63 {
        return Some(Ordering::Less);
    }
    if f < -TWO_POW_63 {
        return Some(Ordering::Greater);
    }
    // `f` is now within the i64 range (its truncation fits exactly).
    let t = f.trunc();
    let ti = t as i64;
    match i.cmp(&ti) {
        Ordering::Equal => {
            let frac = f - t;
            Some(if frac > 0.0 {
                Ordering::Less
            } else if frac < 0.0 {
                Ordering::Greater
            } else {
                Ordering::Equal
            })
        }
        o => Some(o),
    }
}

/// Numeric comparison of two numbers (int/float mixed, exact); `None` if either is not a
/// number or is NaN.
fn cmp_numbers(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Some(x.cmp(y)),
        (Value::Float(x), Value::Float(y)) => x.partial_cmp(y),
        (Value::Int(x), Value::Float(y)) => cmp_int_float(*x, *y),
        (Value::Float(x), Value::Int(y)) => cmp_int_float(*y, *x).map(Ordering::reverse),
        _ => None,
    }
}

fn is_number(v: &Value) -> bool {
    matches!(v, Value::Int(_) | Value::Float(_))
}

/// Combines ternary results of element-wise equality: any definite `false` wins, then any
/// unknown, else `true`.
fn all_equal<'a>(pairs: impl Iterator<Item = (&'a Value, &'a Value)>) -> Option<bool> {
    let mut unknown = false;
    for (x, y) in pairs {
        match equals(x, y) {
            Some(false) => return Some(false),
            None => unknown = true,
            Some(true) => {}
        }
    }
    if unknown {
        None
    } else {
        Some(true)
    }
}

fn maps_equal(x: &Map, y: &Map) -> Option<bool> {
    if x.len() != y.len() || !x.keys().eq(y.keys()) {
        return Some(false);
    }
    all_equal(x.values().zip(y.values()))
}

fn paths_equal(x: &PathValue, y: &PathValue) -> bool {
    x.nodes == y.nodes && x.rels == y.rels
}

/// Equality of two temporal values: the same type and [`temporal::compare`] says equal;
/// durations (and values `temporal::compare` cannot order) by their components.
fn temporal_equals(a: &Value, b: &Value) -> bool {
    if std::mem::discriminant(a) != std::mem::discriminant(b) {
        return false;
    }
    if let (Value::Duration(x), Value::Duration(y)) = (a, b) {
        return x == y;
    }
    match temporal::compare(a, b) {
        Some(o) => o == Ordering::Equal,
        None => a == b,
    }
}

/// `a = b`: `None` when the answer is null (a null operand, or null inside lists compared).
pub fn equals(a: &Value, b: &Value) -> Option<bool> {
    match (a, b) {
        (Value::Null, _) | (_, Value::Null) => None,
        (Value::Bool(x), Value::Bool(y)) => Some(x == y),
        (Value::String(x), Value::String(y)) => Some(x == y),
        (Value::Bytes(x), Value::Bytes(y)) => Some(x == y),
        _ if is_number(a) && is_number(b) => Some(cmp_numbers(a, b) == Some(Ordering::Equal)),
        (Value::List(x), Value::List(y)) => {
            if x.len() != y.len() {
                return Some(false);
            }
            all_equal(x.iter().zip(y.iter()))
        }
        (Value::Map(x), Value::Map(y)) => maps_equal(x, y),
        (Value::Node(x), Value::Node(y)) => Some(x == y),
        (Value::Relationship(x), Value::Relationship(y)) => Some(x == y),
        (Value::Path(x), Value::Path(y)) => Some(paths_equal(x, y)),
        (Value::Point(x), Value::Point(y)) => Some(x == y),
        _ if is_temporal(a) && is_temporal(b) => Some(temporal_equals(a, b)),
        _ => Some(false),
    }
}

/// `a <> b`: the negation of [`equals`] (null stays null).
pub fn not_equals(a: &Value, b: &Value) -> Option<bool> {
    equals(a, b).map(|e| !e)
}

/// `x IN list`: `true` if some element equals `x`; otherwise `null` if some comparison was
/// unknown (or `x` is null and the list is not empty), else `false`. `None` = null; a null
/// list gives null. The caller checks that `list` is a list (this returns `None` otherwise).
pub fn in_list(x: &Value, list: &Value) -> Option<bool> {
    let Value::List(items) = list else {
        return None;
    };
    let mut unknown = false;
    for item in items {
        match equals(x, item) {
            Some(true) => return Some(true),
            None => unknown = true,
            Some(false) => {}
        }
    }
    if unknown {
        None
    } else {
        Some(false)
    }
}

/// `a < b` and friends: `None` when not comparable (different types, nulls, NaN involved).
///
/// Operators should use [`compare_op`], which also gets `NaN` right (`NaN < 1` is `false`,
/// not `null`).
pub fn compare(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::Null, _) | (_, Value::Null) => None,
        _ if is_number(a) && is_number(b) => cmp_numbers(a, b),
        (Value::String(x), Value::String(y)) => Some(x.cmp(y)),
        (Value::Bool(x), Value::Bool(y)) => Some(x.cmp(y)),
        (Value::List(x), Value::List(y)) => {
            for (p, q) in x.iter().zip(y.iter()) {
                match compare(p, q)? {
                    Ordering::Equal => {}
                    o => return Some(o),
                }
            }
            Some(x.len().cmp(&y.len()))
        }
        _ if is_temporal(a) && std::mem::discriminant(a) == std::mem::discriminant(b) => temporal::compare(a, b),
        _ => None,
    }
}

/// The four ordering comparison operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
}

impl CmpOp {
    /// Whether an ordering satisfies the operator.
    pub fn holds(self, o: Ordering) -> bool {
        match self {
            CmpOp::Lt => o == Ordering::Less,
            CmpOp::Le => o != Ordering::Greater,
            CmpOp::Gt => o == Ordering::Greater,
            CmpOp::Ge => o != Ordering::Less,
        }
    }
}

/// `a op b` for `<`, `<=`, `>`, `>=`: `None` is null (incomparable values, nulls); two numbers
/// one of which is NaN compare `false` under every operator.
pub fn compare_op(op: CmpOp, a: &Value, b: &Value) -> Option<bool> {
    if is_number(a) && is_number(b) {
        return Some(cmp_numbers(a, b).is_some_and(|o| op.holds(o)));
    }
    if let (Value::Point(x), Value::Point(y)) = (a, b) {
        let inclusive = matches!(op, CmpOp::Le | CmpOp::Ge);
        return (inclusive && x == y).then_some(true);
    }
    compare(a, b).map(|o| op.holds(o))
}

/// The rank of a value's type in the global sort order.
fn type_rank(v: &Value) -> u8 {
    match v {
        Value::Map(_) => 0,
        Value::Node(_) => 1,
        Value::Relationship(_) => 2,
        Value::List(_) => 3,
        Value::Bytes(_) => 4,
        Value::Path(_) => 5,
        Value::Point(_) => 6,
        Value::DateTime(_) => 7,
        Value::LocalDateTime(_) => 8,
        Value::Date(_) => 9,
        Value::Time(_) => 10,
        Value::LocalTime(_) => 11,
        Value::Duration(_) => 12,
        Value::String(_) => 13,
        Value::Bool(_) => 14,
        Value::Int(_) | Value::Float(_) => 15,
        Value::Null => 16,
    }
}

/// Points in ORDER BY: by SRID (so `wgs-84 < cartesian < cartesian-3d`), then coordinate by
/// coordinate (`total_cmp`: equal exactly when [`Point`]'s bitwise equality says so).
fn order_points(x: &Point, y: &Point) -> Ordering {
    x.crs.srid().cmp(&y.crs.srid()).then_with(|| {
        x.coords()
            .zip(y.coords())
            .fold(Ordering::Equal, |o, (p, q)| o.then(p.total_cmp(&q)))
    })
}

fn order_numbers(a: &Value, b: &Value) -> Ordering {
    let a_nan = matches!(a, Value::Float(f) if f.is_nan());
    let b_nan = matches!(b, Value::Float(f) if f.is_nan());
    match (a_nan, b_nan) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => cmp_numbers(a, b).unwrap_or(Ordering::Equal),
    }
}

fn order_lists(x: &[Value], y: &[Value]) -> Ordering {
    for (p, q) in x.iter().zip(y.iter()) {
        match order(p, q) {
            Ordering::Equal => {}
            o => return o,
        }
    }
    x.len().cmp(&y.len())
}

fn order_maps(x: &Map, y: &Map) -> Ordering {
    x.len()
        .cmp(&y.len())
        .then_with(|| x.keys().cmp(y.keys()))
        .then_with(|| {
            for (p, q) in x.values().zip(y.values()) {
                match order(p, q) {
                    Ordering::Equal => {}
                    o => return o,
                }
            }
            Ordering::Equal
        })
}

fn order_paths(x: &PathValue, y: &PathValue) -> Ordering {
    // Element by element: node, relationship, node, ...
    let mut i = 0;
    loop {
        match (x.nodes.get(i), y.nodes.get(i)) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(p), Some(q)) => match p.key.cmp(&q.key) {
                Ordering::Equal => {}
                o => return o,
            },
        }
        match (x.rels.get(i), y.rels.get(i)) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(p), Some(q)) => match rel_order(p, q) {
                Ordering::Equal => {}
                o => return o,
            },
        }
        i += 1;
    }
}

fn rel_order(p: &crate::value::RelRef, q: &crate::value::RelRef) -> Ordering {
    p.src
        .cmp(&q.src)
        .then_with(|| p.ty.cmp(&q.ty))
        .then_with(|| p.dst.cmp(&q.dst))
        .then_with(|| p.edge_id.cmp(&q.edge_id))
}

/// The total order of ORDER BY (nulls last ascending), also used by `min` and `max`.
///
/// Across types: `MAP < NODE < RELATIONSHIP < LIST < PATH < DATETIME < LOCALDATETIME < DATE <
/// TIME < LOCALTIME < DURATION < STRING < BOOLEAN < NUMBER < NULL` with points between paths
/// and datetimes (bytes sort between lists
/// and paths); `NaN` sorts after every other number; lists lexicographically by this order;
/// maps by size, then keys, then values; nodes and relationships by identity.
pub fn order(a: &Value, b: &Value) -> Ordering {
    let (ra, rb) = (type_rank(a), type_rank(b));
    if ra != rb {
        return ra.cmp(&rb);
    }
    match (a, b) {
        (Value::Null, Value::Null) => Ordering::Equal,
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (Value::String(x), Value::String(y)) => x.cmp(y),
        (Value::Bytes(x), Value::Bytes(y)) => x.cmp(y),
        (Value::List(x), Value::List(y)) => order_lists(x, y),
        (Value::Map(x), Value::Map(y)) => order_maps(x, y),
        (Value::Node(x), Value::Node(y)) => x.key.cmp(&y.key),
        (Value::Relationship(x), Value::Relationship(y)) => rel_order(x, y),
        (Value::Path(x), Value::Path(y)) => order_paths(x, y),
        (Value::Point(x), Value::Point(y)) => order_points(x, y),
        _ if is_number(a) => order_numbers(a, b),
        _ => temporal::compare(a, b).unwrap_or(Ordering::Equal),
    }
}

/// Grouping equivalence: like [`equals`], but `null` is equivalent to `null` and `NaN` to
/// `NaN` (also inside lists and maps), and the answer is never unknown.
pub fn equivalent(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Null, _) | (_, Value::Null) => false,
        (Value::Float(x), Value::Float(y)) if x.is_nan() && y.is_nan() => true,
        (Value::List(x), Value::List(y)) => x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| equivalent(p, q)),
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|((k1, v1), (k2, v2))| k1 == k2 && equivalent(v1, v2))
        }
        _ => equals(a, b) == Some(true),
    }
}

/// Hashes a value consistently with [`equivalent`]: integers and integral floats of the
/// same value hash alike.
fn hash_value<H: Hasher>(v: &Value, h: &mut H) {
    match v {
        Value::Null => 0u8.hash(h),
        Value::Bool(b) => {
            1u8.hash(h);
            b.hash(h)
        }
        Value::Int(i) => {
            2u8.hash(h);
            i.hash(h)
        }
        Value::Float(f) => {
            let f = *f;
            if f.is_nan() {
                3u8.hash(h);
            } else if f.fract() == 0.0 && (-TWO_POW_63..TWO_POW_63).contains(&f) {
                // Equivalent to the integer of the same value.
                2u8.hash(h);
                (f as i64).hash(h)
            } else {
                4u8.hash(h);
                f.to_bits().hash(h)
            }
        }
        Value::String(s) => {
            5u8.hash(h);
            s.hash(h)
        }
        Value::Bytes(b) => {
            6u8.hash(h);
            b.hash(h)
        }
        Value::List(l) => {
            7u8.hash(h);
            l.len().hash(h);
            for x in l {
                hash_value(x, h);
            }
        }
        Value::Map(m) => {
            8u8.hash(h);
            m.len().hash(h);
            for (k, x) in m {
                k.hash(h);
                hash_value(x, h);
            }
        }
        Value::Node(n) => {
            9u8.hash(h);
            n.hash(h)
        }
        Value::Relationship(r) => {
            10u8.hash(h);
            r.hash(h)
        }
        Value::Path(p) => {
            11u8.hash(h);
            p.nodes.hash(h);
            p.rels.hash(h)
        }
        Value::DateTime(_) => {
            // Equality may be by instant across zones: hash the instant when available.
            12u8.hash(h);
            if let Some(Ok(Value::Int(ms))) = temporal::property(v, "epochMillis") {
                ms.hash(h)
            }
        }
        Value::Time(_) => 13u8.hash(h),
        Value::Point(p) => {
            14u8.hash(h);
            p.hash(h);
        }
        Value::Date(_) | Value::LocalTime(_) | Value::LocalDateTime(_) | Value::Duration(_) => {
            // These have one canonical string form per value.
            std::mem::discriminant(v).hash(h);
            if let Some(s) = temporal::to_cypher_string(v) {
                s.hash(h)
            }
        }
    }
}

/// A value wrapped for hashing and equality under grouping equivalence (null equals null,
/// `1` equals `1.0`), for DISTINCT and aggregation keys.
#[derive(Debug, Clone)]
pub struct GroupKey(pub Value);

impl PartialEq for GroupKey {
    fn eq(&self, other: &Self) -> bool {
        equivalent(&self.0, &other.0)
    }
}
impl Eq for GroupKey {}
impl Hash for GroupKey {
    fn hash<H: Hasher>(&self, h: &mut H) {
        hash_value(&self.0, h)
    }
}

/// The arithmetic operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arith {
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
    /// `/`.
    Div,
    /// `%`.
    Mod,
    /// `^`.
    Pow,
}

impl Arith {
    /// The operator's symbol.
    pub fn symbol(self) -> &'static str {
        match self {
            Arith::Add => "+",
            Arith::Sub => "-",
            Arith::Mul => "*",
            Arith::Div => "/",
            Arith::Mod => "%",
            Arith::Pow => "^",
        }
    }
}

fn overflow(op: Arith, x: i64, y: i64) -> CypherError {
    CypherError::argument(
        "NumberOutOfRange",
        format!(
            "integer overflow: {x} {} {y} does not fit in a 64-bit integer",
            op.symbol()
        ),
    )
}

fn as_f64(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

fn int_arith(op: Arith, x: i64, y: i64) -> Result<Value> {
    let r = match op {
        Arith::Add => x.checked_add(y),
        Arith::Sub => x.checked_sub(y),
        Arith::Mul => x.checked_mul(y),
        Arith::Div => {
            if y == 0 {
                return Err(CypherError::argument("DivisionByZero", "/ by zero"));
            }
            x.checked_div(y)
        }
        Arith::Mod => {
            if y == 0 {
                return Err(CypherError::argument("DivisionByZero", "% by zero"));
            }
            // i64::MIN % -1 is 0 (as in Java), not an overflow.
            Some(x.checked_rem(y).unwrap_or(0))
        }
        Arith::Pow => return Ok(Value::Float((x as f64).powf(y as f64))),
    };
    r.map(Value::Int).ok_or_else(|| overflow(op, x, y))
}

fn float_arith(op: Arith, x: f64, y: f64) -> Value {
    Value::Float(match op {
        Arith::Add => x + y,
        Arith::Sub => x - y,
        Arith::Mul => x * y,
        Arith::Div => x / y,
        Arith::Mod => x % y,
        Arith::Pow => x.powf(y),
    })
}

/// The text a value contributes to string concatenation (`'a' + 1` is `'a1'`), or `None`
/// for values that do not concatenate (lists, maps, entities).
fn concat_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Int(i) => Some(i.to_string()),
        Value::Float(f) => Some(crate::functions::format_float(*f)),
        Value::Bool(b) => Some(b.to_string()),
        _ if is_temporal(v) => temporal::to_cypher_string(v),
        _ => None,
    }
}

fn type_mismatch(op: Arith, a: &Value, b: &Value) -> CypherError {
    CypherError::type_error(format!(
        "cannot apply {} to {} and {}",
        op.symbol(),
        a.type_name(),
        b.type_name()
    ))
}

/// `a op b` (numbers, string and list concatenation, temporal arithmetic); null in, null out.
///
/// Integer overflow and integer division (or modulo) by zero are argument errors
/// (`NumberOutOfRange`, `DivisionByZero`); float division by zero gives infinity or NaN;
/// `^` always gives a float. `+` concatenates lists (a non-list operand is appended or
/// prepended) and strings (a string plus a number, boolean or temporal value concatenates
/// its string form).
pub fn arithmetic(op: Arith, a: &Value, b: &Value) -> Result<Value> {
    if a.is_null() || b.is_null() {
        return Ok(Value::Null);
    }
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => return int_arith(op, *x, *y),
        (Value::Float(_), Value::Float(_) | Value::Int(_)) | (Value::Int(_), Value::Float(_)) => {
            if let (Some(x), Some(y)) = (as_f64(a), as_f64(b)) {
                return Ok(float_arith(op, x, y));
            }
        }
        _ => {}
    }
    if op == Arith::Add {
        match (a, b) {
            (Value::List(x), Value::List(y)) => {
                let mut out = Vec::with_capacity(x.len() + y.len());
                out.extend(x.iter().cloned());
                out.extend(y.iter().cloned());
                return Ok(Value::List(out));
            }
            (Value::List(x), _) => {
                let mut out = Vec::with_capacity(x.len() + 1);
                out.extend(x.iter().cloned());
                out.push(b.clone());
                return Ok(Value::List(out));
            }
            (_, Value::List(y)) => {
                let mut out = Vec::with_capacity(y.len() + 1);
                out.push(a.clone());
                out.extend(y.iter().cloned());
                return Ok(Value::List(out));
            }
            (Value::String(_), _) | (_, Value::String(_)) => {
                if let (Some(x), Some(y)) = (concat_text(a), concat_text(b)) {
                    return Ok(Value::String(x + &y));
                }
                return Err(type_mismatch(op, a, b));
            }
            _ => {}
        }
    }
    if is_temporal(a) || is_temporal(b) {
        let delegated = match op {
            Arith::Add => temporal::add(a, b),
            Arith::Sub => temporal::sub(a, b),
            Arith::Mul => temporal::mul_div(a, b, false),
            Arith::Div => temporal::mul_div(a, b, true),
            Arith::Mod | Arith::Pow => None,
        };
        if let Some(r) = delegated {
            return r;
        }
    }
    Err(type_mismatch(op, a, b))
}

/// Unary minus: integers (`-i64::MIN` is an argument error, `NumberOutOfRange`), floats and
/// durations (through the temporal module, as `d * -1`); null stays null.
pub fn negate(v: &Value) -> Result<Value> {
    match v {
        Value::Null => Ok(Value::Null),
        Value::Int(i) => i
            .checked_neg()
            .map(Value::Int)
            .ok_or_else(|| CypherError::argument("NumberOutOfRange", format!("integer overflow: -({i})"))),
        Value::Float(f) => Ok(Value::Float(-f)),
        Value::Duration(_) => temporal::mul_div(v, &Value::Int(-1), false)
            .unwrap_or_else(|| Err(CypherError::type_error("cannot negate a DURATION"))),
        _ => Err(CypherError::type_error(format!("cannot negate {}", v.type_name()))),
    }
}
