//! Arguments of the algorithm procedures: required positional values, then an optional
//! trailing config map whose keys are checked against the procedure's list (GDS style).
//!
//! Config keys match ignoring case and underscores (`maxIterations`, `max_iterations` and
//! `MAXITERATIONS` are one key); a `null` value means "use the default".

use crate::error::{CypherError, ErrorClass, Result};
use crate::value::{Map, Value};
use hopdb_database::{Direction, NodeKey};

use super::Spec;

/// A procedure call's arguments, checked against its [`Spec`].
pub(super) struct Args<'a> {
    spec: &'static Spec,
    positional: &'a [Value],
    /// Config entries by canonical key (nulls dropped).
    config: Vec<(&'static str, &'a Value)>,
}

/// Wrong number of arguments, or an unknown config key: the call's shape is wrong.
fn shape_error(detail: &'static str, message: String) -> CypherError {
    CypherError::runtime(ErrorClass::ProcedureError, detail, message)
}

fn normalize(key: &str) -> String {
    key.chars().filter(|c| *c != '_').flat_map(char::to_lowercase).collect()
}

impl<'a> Args<'a> {
    /// Splits `args` into the positional values and the config map of `spec`.
    pub fn parse(spec: &'static Spec, args: &'a [Value]) -> Result<Args<'a>> {
        let n = spec.params.len();
        let (positional, config) = match args.len() {
            len if len == n => (args, None),
            len if len == n + 1 => (&args[..n], Some(&args[n])),
            len => {
                let params = if n == 0 {
                    String::from("no arguments")
                } else {
                    format!(
                        "{n} argument{} ({})",
                        if n == 1 { "" } else { "s" },
                        spec.params.join(", ")
                    )
                };
                return Err(shape_error(
                    "InvalidNumberOfArguments",
                    format!(
                        "{} expects {params} and an optional config map, got {len} argument{}; signature: {}",
                        spec.name,
                        if len == 1 { "" } else { "s" },
                        spec.signature()
                    ),
                ));
            }
        };
        let mut entries = Vec::new();
        match config {
            None | Some(Value::Null) => {}
            Some(Value::Map(m)) => entries = Self::check_keys(spec, m)?,
            Some(other) => {
                return Err(CypherError::argument(
                    "InvalidArgumentType",
                    format!(
                        "{}: the argument after ({}) must be a config map, got {}",
                        spec.name,
                        spec.params.join(", "),
                        other.type_name()
                    ),
                ))
            }
        }
        Ok(Args {
            spec,
            positional,
            config: entries,
        })
    }

    fn check_keys(spec: &'static Spec, m: &'a Map) -> Result<Vec<(&'static str, &'a Value)>> {
        let mut entries: Vec<(&'static str, &'a Value)> = Vec::new();
        for (k, v) in m {
            let nk = normalize(k);
            let Some(canon) = spec.config.iter().find(|c| normalize(c) == nk) else {
                let allowed = if spec.config.is_empty() {
                    String::from("it takes no config keys")
                } else {
                    format!("allowed keys: {}", spec.config.join(", "))
                };
                return Err(shape_error(
                    "InvalidConfigKey",
                    format!("{}: unknown config key `{k}`; {allowed}", spec.name),
                ));
            };
            if entries.iter().any(|(c, _)| c == canon) {
                return Err(shape_error(
                    "InvalidConfigKey",
                    format!("{}: config key `{canon}` is given twice (as `{k}` too)", spec.name),
                ));
            }
            if !v.is_null() {
                entries.push((canon, v));
            }
        }
        Ok(entries)
    }

    fn bad(&self, what: &str, expected: &str, got: &Value) -> CypherError {
        let shown = match got {
            Value::Int(i) => format!("{i}"),
            Value::Float(f) => format!("{f}"),
            Value::String(s) => format!("'{s}'"),
            Value::Bool(b) => format!("{b}"),
            other => other.type_name().to_string(),
        };
        let detail = if matches!(
            (expected, got),
            (_, Value::Int(_) | Value::Float(_)) if expected.starts_with("an integer") || expected.starts_with("a number")
        ) {
            "InvalidArgumentValue"
        } else {
            "InvalidArgumentType"
        };
        CypherError::argument(
            detail,
            format!("{}: {what} must be {expected}, got {shown}", self.spec.name),
        )
    }

    /// The positional argument `i`'s value and its description for messages.
    fn arg(&self, i: usize) -> (&'a Value, String) {
        let name = self.spec.params.get(i).copied().unwrap_or("?");
        (
            &self.positional[i.min(self.positional.len().saturating_sub(1))],
            format!("argument `{name}`"),
        )
    }

    /// The procedure's documented name.
    pub fn name(&self) -> &'static str {
        self.spec.name
    }

    /// The config value of `key` (`None`: absent or null).
    pub fn get(&self, key: &str) -> Option<&'a Value> {
        self.config.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }

    /// The first of `keys` that is given (aliases); two of them given is an error.
    pub fn get_any(&self, keys: &[&str]) -> Result<Option<(&'static str, &'a Value)>> {
        let mut found = self.config.iter().filter(|(k, _)| keys.contains(k));
        let first = found.next().copied();
        if let (Some((a, _)), Some((b, _))) = (first, found.next()) {
            return Err(shape_error(
                "InvalidConfigKey",
                format!(
                    "{}: config keys `{a}` and `{b}` mean the same; give one",
                    self.spec.name
                ),
            ));
        }
        Ok(first)
    }

    // ---- positional ----

    /// Positional argument `i` as a node: a node value, or a key (string or integer).
    pub fn node(&self, i: usize) -> Result<NodeKey> {
        let (v, what) = self.arg(i);
        self.to_node(v, &what)
    }

    /// Positional argument `i` as one node or a list of nodes (values or keys).
    pub fn nodes(&self, i: usize) -> Result<Vec<NodeKey>> {
        let (v, what) = self.arg(i);
        self.to_nodes(v, &what)
    }

    /// Positional argument `i` as an integer in `min..=max`.
    pub fn int(&self, i: usize, min: i64, max: i64) -> Result<i64> {
        let (v, what) = self.arg(i);
        self.to_int(v, &what, min, max)
    }

    /// Positional argument `i` as a list of integers `>= 0` (a single integer is a list of one).
    pub fn counts(&self, i: usize) -> Result<Vec<usize>> {
        let (v, what) = self.arg(i);
        match v {
            Value::List(l) if !l.is_empty() => l
                .iter()
                .map(|x| self.to_int(x, &what, 0, i64::MAX).map(|n| n as usize))
                .collect(),
            Value::Int(_) => Ok(vec![self.to_int(v, &what, 0, i64::MAX)? as usize]),
            other => Err(self.bad(&what, "a non-empty list of integers >= 0", other)),
        }
    }

    // ---- config ----

    /// Config `key` as a number (integers accepted) in the range `ok` describes.
    pub fn f64(&self, key: &str, default: f64, ok: fn(f64) -> bool, range: &str) -> Result<f64> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => {
                let what = format!("config `{key}`");
                let x = match v {
                    Value::Int(i) => *i as f64,
                    Value::Float(f) => *f,
                    other => return Err(self.bad(&what, &format!("a number {range}"), other)),
                };
                if ok(x) {
                    Ok(x)
                } else {
                    Err(self.bad(&what, &format!("a number {range}"), v))
                }
            }
        }
    }

    /// Config `key` as an integer in `min..=max` (`None`: absent).
    pub fn int_opt(&self, key: &str, min: i64, max: i64) -> Result<Option<i64>> {
        self.get(key)
            .map(|v| self.to_int(v, &format!("config `{key}`"), min, max))
            .transpose()
    }

    /// Config `key` as a seed: any integer (negative ones are taken as their two's complement).
    pub fn seed(&self, key: &str, default: u64) -> Result<u64> {
        Ok(self.int_opt(key, i64::MIN, i64::MAX)?.map_or(default, |s| s as u64))
    }

    /// Config `key` as a boolean.
    pub fn bool(&self, key: &str, default: bool) -> Result<bool> {
        match self.get(key) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => Err(self.bad(&format!("config `{key}`"), "a boolean", other)),
        }
    }

    /// Config `key` as one of `choices` (case-insensitive), returned as the index of the choice.
    pub fn choice(&self, key: &str, choices: &[&[&str]], default: usize) -> Result<usize> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => {
                let names: Vec<&str> = choices.iter().filter_map(|c| c.first().copied()).collect();
                let expected = format!("one of '{}'", names.join("', '"));
                let Value::String(s) = v else {
                    return Err(self.bad(&format!("config `{key}`"), &expected, v));
                };
                choices
                    .iter()
                    .position(|c| c.iter().any(|n| n.eq_ignore_ascii_case(s)))
                    .ok_or_else(|| {
                        CypherError::argument(
                            "InvalidArgumentValue",
                            format!("{}: config `{key}` must be {expected}, got '{s}'", self.spec.name),
                        )
                    })
            }
        }
    }

    /// Config `key` as a direction: `'OUTGOING'`, `'INCOMING'` or `'BOTH'` (also `OUT`, `IN`,
    /// `NATURAL`, `REVERSE`, `UNDIRECTED`, `ANY`), case-insensitive.
    pub fn direction(&self, key: &str, default: Direction) -> Result<Direction> {
        const DIRS: [&[&str]; 3] = [
            &["OUTGOING", "OUT", "NATURAL"],
            &["INCOMING", "IN", "REVERSE"],
            &["BOTH", "UNDIRECTED", "ANY"],
        ];
        let d = match default {
            Direction::Out => 0,
            Direction::In => 1,
            Direction::Both => 2,
        };
        Ok(match self.choice(key, &DIRS, d)? {
            0 => Direction::Out,
            1 => Direction::In,
            _ => Direction::Both,
        })
    }

    /// Config `key` as relationship types: a string or a list of strings (`None`: all types).
    pub fn types(&self, key: &str) -> Result<Option<Vec<String>>> {
        let what = format!("config `{key}`");
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(vec![s.clone()])),
            Some(Value::List(l)) => l
                .iter()
                .map(|t| match t {
                    Value::String(s) => Ok(s.clone()),
                    other => Err(self.bad(&what, "a relationship type name or a list of them", other)),
                })
                .collect::<Result<Vec<_>>>()
                .map(Some),
            Some(other) => Err(self.bad(&what, "a relationship type name or a list of them", other)),
        }
    }

    /// Config `key` as nodes (one, or a list of node values or keys); empty when absent.
    pub fn node_list(&self, key: &str) -> Result<Vec<NodeKey>> {
        match self.get(key) {
            None => Ok(Vec::new()),
            Some(v) => self.to_nodes(v, &format!("config `{key}`")),
        }
    }

    /// Checks that none of `keys` is given (they do not combine with the chosen mode).
    pub fn forbid(&self, keys: &[&str], because: &str) -> Result<()> {
        match self.config.iter().find(|(k, _)| keys.contains(k)) {
            Some((k, _)) => Err(CypherError::argument(
                "InvalidArgumentValue",
                format!("{}: config `{k}` cannot be used {because}", self.spec.name),
            )),
            None => Ok(()),
        }
    }

    // ---- conversions ----

    fn to_node(&self, v: &Value, what: &str) -> Result<NodeKey> {
        match v {
            Value::Node(n) => Ok(n.key.clone()),
            Value::Int(i) => Ok(NodeKey::Int(*i)),
            Value::String(s) if !s.is_empty() => Ok(NodeKey::Str(s.clone())),
            other => Err(self.bad(what, "a node or a node key (a non-empty string or an integer)", other)),
        }
    }

    fn to_nodes(&self, v: &Value, what: &str) -> Result<Vec<NodeKey>> {
        match v {
            Value::List(l) => l.iter().map(|x| self.to_node(x, what)).collect(),
            one => self.to_node(one, what).map(|k| vec![k]),
        }
    }

    fn to_int(&self, v: &Value, what: &str, min: i64, max: i64) -> Result<i64> {
        let range = match (min, max) {
            (i64::MIN, i64::MAX) => String::from("an integer"),
            (lo, i64::MAX) => format!("an integer >= {lo}"),
            (lo, hi) => format!("an integer from {lo} to {hi}"),
        };
        match v {
            Value::Int(i) if (min..=max).contains(i) => Ok(*i),
            other => Err(self.bad(what, &range, other)),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::super::{spec_of, Spec};
    use super::*;
    use crate::value::NodeRef;

    fn spec(name: &str) -> &'static Spec {
        spec_of(name).unwrap()
    }

    fn map(entries: &[(&str, Value)]) -> Value {
        Value::Map(entries.iter().map(|(k, v)| (k.to_string(), v.clone())).collect())
    }

    #[test]
    fn config_is_optional_and_trailing() {
        let s = spec("hopdb.algo.khop");
        let args = [Value::from("a"), Value::Int(2)];
        let a = Args::parse(s, &args).unwrap();
        assert_eq!(a.node(0).unwrap(), NodeKey::from("a"));
        assert_eq!(a.int(1, 1, i64::from(u32::MAX)).unwrap(), 2);
        assert_eq!(a.direction("direction", Direction::Both).unwrap(), Direction::Both);
        let args = [
            Value::Int(7),
            Value::Int(1),
            map(&[("direction", Value::from("outgoing"))]),
        ];
        let a = Args::parse(s, &args).unwrap();
        assert_eq!(a.node(0).unwrap(), NodeKey::Int(7));
        assert_eq!(a.direction("direction", Direction::Both).unwrap(), Direction::Out);
        let args = [
            Value::Node(NodeRef::new(NodeKey::from("n"))),
            Value::Int(1),
            Value::Null,
        ];
        assert_eq!(Args::parse(s, &args).unwrap().node(0).unwrap(), NodeKey::from("n"));
    }

    #[test]
    fn wrong_arity_names_the_procedure_and_signature() {
        let s = spec("hopdb.algo.khop");
        let e = Args::parse(s, &[Value::from("a")]).err().unwrap();
        assert_eq!(e.class, ErrorClass::ProcedureError);
        assert_eq!(e.detail, "InvalidNumberOfArguments");
        assert!(e.message.contains("hopdb.algo.kHop"), "{}", e.message);
        assert!(e.message.contains("start, k"), "{}", e.message);
        let s = spec("hopdb.algo.wcc");
        let e = Args::parse(s, &[map(&[]), map(&[])]).err().unwrap();
        assert!(e.message.contains("no arguments"), "{}", e.message);
    }

    #[test]
    fn config_must_be_a_map() {
        let s = spec("hopdb.algo.pagerank");
        let e = Args::parse(s, &[Value::Int(3)]).err().unwrap();
        assert_eq!(e.class, ErrorClass::ArgumentError);
        assert!(
            e.message.contains("config map") && e.message.contains("INTEGER"),
            "{}",
            e.message
        );
    }

    #[test]
    fn unknown_keys_list_the_allowed_ones() {
        let s = spec("hopdb.algo.pagerank");
        let e = Args::parse(s, &[map(&[("dampingFactor", Value::Float(0.5))])])
            .err()
            .unwrap();
        assert_eq!(e.class, ErrorClass::ProcedureError);
        assert!(e.message.contains("`dampingFactor`"), "{}", e.message);
        for k in ["damping", "maxIterations", "tolerance", "seeds"] {
            assert!(e.message.contains(k), "{}", e.message);
        }
        let s = spec("hopdb.algo.triangles");
        let e = Args::parse(s, &[map(&[("x", Value::Int(1))])]).err().unwrap();
        assert!(e.message.contains("takes no config keys"), "{}", e.message);
    }

    #[test]
    fn keys_match_ignoring_case_and_underscores() {
        let s = spec("hopdb.algo.pagerank");
        let args = [map(&[
            ("max_iterations", Value::Int(5)),
            ("DAMPING", Value::Float(0.5)),
        ])];
        let a = Args::parse(s, &args).unwrap();
        assert_eq!(a.int_opt("maxIterations", 1, 10).unwrap(), Some(5));
        assert_eq!(a.f64("damping", 0.85, |_| true, "").unwrap(), 0.5);
        // Same key twice under two spellings.
        let args = [map(&[
            ("maxIterations", Value::Int(5)),
            ("max_iterations", Value::Int(6)),
        ])];
        assert!(Args::parse(s, &args).is_err());
        // Aliases given together.
        let args = [map(&[("maxIterations", Value::Int(5)), ("iterations", Value::Int(6))])];
        let a = Args::parse(s, &args).unwrap();
        let e = a.get_any(&["maxIterations", "iterations"]).err().unwrap();
        assert!(e.message.contains("mean the same"), "{}", e.message);
    }

    #[test]
    fn nulls_mean_defaults() {
        let s = spec("hopdb.algo.louvain");
        let args = [map(&[("resolution", Value::Null), ("weighted", Value::Null)])];
        let a = Args::parse(s, &args).unwrap();
        assert_eq!(a.f64("resolution", 1.0, |x| x > 0.0, "> 0").unwrap(), 1.0);
        assert!(!a.bool("weighted", false).unwrap());
    }

    #[test]
    fn typed_getters_reject_wrong_types_and_ranges() {
        let s = spec("hopdb.algo.louvain");
        let args = [map(&[
            ("resolution", Value::from("high")),
            ("weighted", Value::Int(1)),
            ("seed", Value::Float(1.5)),
            ("threshold", Value::Float(-1.0)),
        ])];
        let a = Args::parse(s, &args).unwrap();
        let e = a.f64("resolution", 1.0, |x| x > 0.0, "> 0").err().unwrap();
        assert_eq!(e.class, ErrorClass::ArgumentError);
        assert!(
            e.message.contains("hopdb.algo.louvain") && e.message.contains("`resolution`"),
            "{}",
            e.message
        );
        assert!(a.bool("weighted", false).is_err());
        assert!(a.seed("seed", 0).is_err());
        let e = a.f64("threshold", 1e-7, |x| x >= 0.0, ">= 0").err().unwrap();
        assert_eq!(e.detail, "InvalidArgumentValue");
        assert!(e.message.contains("-1"), "{}", e.message);
    }

    #[test]
    fn nodes_types_directions_and_choices() {
        let s = spec("hopdb.algo.sampleneighbors");
        let args = [
            Value::List(vec![
                Value::from("a"),
                Value::Int(3),
                Value::Node(NodeRef::new(NodeKey::from("b"))),
            ]),
            Value::List(vec![Value::Int(2), Value::Int(0)]),
            map(&[("types", Value::from("KNOWS")), ("direction", Value::from("In"))]),
        ];
        let a = Args::parse(s, &args).unwrap();
        assert_eq!(
            a.nodes(0).unwrap(),
            vec![NodeKey::from("a"), NodeKey::Int(3), NodeKey::from("b")]
        );
        assert_eq!(a.counts(1).unwrap(), vec![2, 0]);
        assert_eq!(a.types("types").unwrap(), Some(vec!["KNOWS".to_string()]));
        assert_eq!(a.direction("direction", Direction::Both).unwrap(), Direction::In);
        // A single seed and a single fanout are lists of one.
        let args = [Value::from("a"), Value::Int(4)];
        let a = Args::parse(s, &args).unwrap();
        assert_eq!(a.nodes(0).unwrap(), vec![NodeKey::from("a")]);
        assert_eq!(a.counts(1).unwrap(), vec![4]);
        assert_eq!(a.types("types").unwrap(), None);
        // Bad values.
        let args = [
            Value::List(vec![Value::Float(1.0)]),
            Value::List(vec![Value::Int(-1)]),
            map(&[
                ("types", Value::List(vec![Value::Int(1)])),
                ("direction", Value::from("up")),
            ]),
        ];
        let a = Args::parse(s, &args).unwrap();
        let e = a.nodes(0).err().unwrap();
        assert!(
            e.message.contains("argument `seeds`") && e.message.contains("node key"),
            "{}",
            e.message
        );
        assert!(a.counts(1).err().unwrap().message.contains(">= 0"));
        assert!(a.types("types").is_err());
        let e = a.direction("direction", Direction::Both).err().unwrap();
        assert!(
            e.message.contains("'OUTGOING'") && e.message.contains("'up'"),
            "{}",
            e.message
        );
        let e = Args::parse(spec("hopdb.algo.khop"), &[Value::from(""), Value::Int(1)])
            .unwrap()
            .node(0)
            .err()
            .unwrap();
        assert!(e.message.contains("argument `start`"), "{}", e.message);
        let e = Args::parse(spec("hopdb.algo.khop"), &[Value::Null, Value::Int(1)])
            .unwrap()
            .node(0)
            .err()
            .unwrap();
        assert!(e.message.contains("got NULL"), "{}", e.message);
    }
}
