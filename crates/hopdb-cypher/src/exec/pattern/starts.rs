//! Where a node pattern's candidates come from: a bound variable, the pattern's `_key` or
//! indexed properties, or the WHERE's hints (decision 0054); and what a step can expand into
//! (decision 0053).

use super::{stored_node, Matcher, INTO_MAX_ENDS};
use crate::ast::{BinaryOp, Expr, NodePattern};
use crate::engine::KEY_PROPERTY;
use crate::error::Result;
use crate::exec::eval::eval;
use crate::exec::node_key;
use crate::value::{NodeRef, Value};
use hopdb_database::NodeKey;

/// A WHERE conjunct that names the nodes a pattern variable can be: every node the WHERE
/// holds for is among them, so the matcher may start from them (or expand into them)
/// instead of scanning; the WHERE itself still filters every match.
#[derive(Debug, Clone, Copy)]
pub(super) enum Hint<'w> {
    /// `v.prop = expr`, or `v.prop IN expr` (`list`).
    Property { prop: &'w str, expr: &'w Expr, list: bool },
    /// `elementId(v) = expr` (`element`) or `id(v) = expr`, or `IN`.
    Id { expr: &'w Expr, list: bool, element: bool },
}

/// The hints among `w`'s top-level AND conjuncts, by variable.
pub(super) fn where_hints<'w>(w: &'w Expr, out: &mut Vec<(&'w str, Hint<'w>)>) {
    match w {
        Expr::Binary(BinaryOp::And, a, b) => {
            where_hints(a, out);
            where_hints(b, out);
        }
        Expr::Binary(BinaryOp::Eq, a, b) => {
            out.extend(hint_of(a, b, false));
            out.extend(hint_of(b, a, false));
        }
        Expr::Binary(BinaryOp::In, a, b) => out.extend(hint_of(a, b, true)),
        _ => {}
    }
}

/// `x` compared with `expr` as a hint, when `x` is `v.prop`, `elementId(v)` or `id(v)`.
fn hint_of<'w>(x: &'w Expr, expr: &'w Expr, list: bool) -> Option<(&'w str, Hint<'w>)> {
    match x {
        Expr::Property(v, prop) => match &**v {
            Expr::Variable(v) => Some((v, Hint::Property { prop, expr, list })),
            _ => None,
        },
        Expr::Function {
            name,
            distinct: false,
            args,
        } => {
            let element = name.eq_ignore_ascii_case("elementId");
            match args.as_slice() {
                [Expr::Variable(v)] if element || name.eq_ignore_ascii_case("id") => {
                    Some((v, Hint::Id { expr, list, element }))
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// Where a node pattern's candidates come from.
pub(super) enum Start {
    Bound(Value),
    Keys(Vec<NodeKey>),
    /// The nodes with these `_key` values (the pattern's key entry holds by construction).
    ByKey(Vec<NodeKey>),
    Label(String),
    All,
}

/// `keys` without repeats, in their first order (a list may name a node twice; the match
/// must find it once).
fn dedup(keys: Vec<NodeKey>) -> Vec<NodeKey> {
    let mut seen = std::collections::HashSet::with_capacity(keys.len());
    keys.into_iter().filter(|k| seen.insert(k.clone())).collect()
}

/// The ends a step into `start`'s nodes can look up directly: at most [`INTO_MAX_ENDS`]
/// named nodes (see `Matcher::expand_into`).
pub(super) fn few_ends(start: Start) -> Option<Vec<NodeKey>> {
    match start {
        Start::Bound(Value::Node(n)) => Some(vec![n.key]),
        Start::ByKey(keys) => Some(keys),
        Start::Keys(keys) => (keys.len() <= INTO_MAX_ENDS).then_some(keys),
        Start::Bound(_) | Start::Label(_) | Start::All => None,
    }
}

impl Matcher<'_, '_, '_, '_> {
    /// How expensive starting at this node pattern is (lower is better), and how.
    pub(super) fn start_of(&self, np: &NodePattern, vals: &[Value]) -> Result<(u64, Start)> {
        match self.named(np, vals, None)? {
            Some(s @ Start::Bound(_)) => return Ok((0, s)),
            Some(s @ Start::ByKey(_)) => return Ok((1, s)),
            Some(Start::Keys(keys)) => return Ok((2 + keys.len() as u64, Start::Keys(keys))),
            _ => {}
        }
        let g = self.ctx.read();
        let mut best: Option<(u64, &String)> = None;
        for l in &np.labels {
            // Counting a label over a cluster reads every partition: every label costs the same.
            let c = if self.ctx.is_remote() {
                g.node_count()?
            } else {
                g.label_count(l)?
            };
            if best.is_none_or(|(b, _)| c < b) {
                best = Some((c, l));
            }
        }
        Ok(match best {
            Some((c, l)) => (2 + c, Start::Label(l.clone())),
            None => (3 + g.node_count()?, Start::All),
        })
    }

    pub(super) fn candidates(&self, start: Start) -> Result<Vec<Value>> {
        Ok(match start {
            Start::Bound(v) => vec![v],
            Start::Keys(keys) | Start::ByKey(keys) => {
                let mut out = Vec::with_capacity(keys.len());
                for k in keys {
                    if self.ctx.live(&k)? {
                        out.push(Value::Node(NodeRef::new(k)));
                    }
                }
                out
            }
            Start::Label(l) => self.scan(Some(&l))?,
            Start::All => self.scan(None)?,
        })
    }

    /// The nodes with `label` (or all), each with its record: carried by the node value in a
    /// read-only query, whose snapshot never changes; cached by key in a writing one.
    fn scan(&self, label: Option<&str>) -> Result<Vec<Value>> {
        let read_only = self.ctx.snapshot().is_some();
        let mut out = Vec::new();
        self.ctx.read().for_each_node_record(label, &mut |rec| {
            out.push(if read_only {
                stored_node(rec)
            } else {
                let n = Value::Node(NodeRef::new(rec.key.clone()));
                self.ctx.remember(rec);
                n
            });
            true
        })?;
        Ok(out)
    }

    /// The nodes `np` names without listing anything: its variable's node when bound
    /// ([`Start::Bound`]), the node of its `_key` entry ([`Start::ByKey`]), or the nodes of an
    /// indexed property of one of its labels ([`Start::Keys`], at most `limit` read). Only
    /// entries that read nothing but variables already bound count: in `(a)-->(b {p: a.q})`
    /// `b` is not named before `a` is.
    fn named(&self, np: &NodePattern, vals: &[Value], limit: Option<usize>) -> Result<Option<Start>> {
        if let Some(v) = np.var.as_ref().and_then(|v| self.slot(v)) {
            if self.bound[v] {
                return Ok(Some(Start::Bound(vals[v].clone())));
            }
        }
        let entries = match np.props.as_deref() {
            Some(Expr::Map(entries)) => entries.as_slice(),
            _ => &[],
        };
        let hints: Vec<Hint> = match &np.var {
            Some(var) => self.hints.iter().filter(|(v, _)| v == var).map(|(_, h)| *h).collect(),
            None => Vec::new(),
        };
        if entries.is_empty() && hints.is_empty() {
            return Ok(None);
        }
        let bound = |v: &str| self.slot(v).is_some_and(|s| self.bound[s]);
        let scope = self.scope(vals);
        let ready = |e: &Expr| e.reads_only(&bound);
        if let Some((_, e)) = entries.iter().find(|(k, e)| k == KEY_PROPERTY && ready(e)) {
            let keys = node_key(eval(self.ctx, e, &scope)?).into_iter().collect();
            return Ok(Some(Start::ByKey(keys)));
        }
        for label in &np.labels {
            for (k, e) in entries.iter().filter(|(_, e)| ready(e)) {
                let Some(sv) = eval(self.ctx, e, &scope)?.to_store() else {
                    continue;
                };
                if let Some(keys) = self.ctx.read().nodes_by_property(label, k, &sv, limit)? {
                    return Ok(Some(Start::Keys(keys)));
                }
            }
        }
        for h in hints {
            let (Hint::Property { expr, list, .. } | Hint::Id { expr, list, .. }) = h;
            if !ready(expr) {
                continue;
            }
            let values = match (eval(self.ctx, expr, &scope)?, list) {
                (Value::List(items), true) => items,
                // `x IN null` holds for no node; anything else but a list is the WHERE's
                // error to raise.
                (Value::Null, true) => Vec::new(),
                (_, true) => continue,
                (v, false) => vec![v],
            };
            if let Some(start) = self.hinted(np, h, values, limit)? {
                return Ok(Some(start));
            }
        }
        Ok(None)
    }

    /// The nodes hint `h` names, given the values its expression evaluated to (one, or a
    /// list's items); `None` when it cannot say (no index, or a value it cannot look up).
    fn hinted(&self, np: &NodePattern, h: Hint, values: Vec<Value>, limit: Option<usize>) -> Result<Option<Start>> {
        let g = self.ctx.read();
        let mut keys = Vec::new();
        match h {
            Hint::Property { prop: KEY_PROPERTY, .. } => {
                for v in values {
                    match v {
                        // Keys are strings and integers: no other value equals one.
                        Value::String(_) | Value::Int(_) => keys.extend(node_key(v)),
                        Value::Null | Value::Bool(_) | Value::List(_) | Value::Map(_) => {}
                        // A float equal to an integer key, and the like: ask the WHERE.
                        _ => return Ok(None),
                    }
                }
            }
            Hint::Property { prop, .. } => {
                // Null equals nothing, and a map or an entity is never a property value.
                let mut values = values.into_iter().filter_map(|v| v.to_store());
                if let Some(first) = values.next() {
                    // The first of the pattern's labels with an index on the property.
                    let mut indexed = None;
                    for l in &np.labels {
                        if let Some(found) = g.nodes_by_property(l, prop, &first, limit)? {
                            indexed = Some(l);
                            keys.extend(found);
                            break;
                        }
                    }
                    let Some(label) = indexed else { return Ok(None) };
                    for sv in values {
                        match g.nodes_by_property(label, prop, &sv, limit)? {
                            Some(found) => keys.extend(found),
                            None => return Ok(None),
                        }
                    }
                }
            }
            Hint::Id { element, .. } => {
                // Ids name stored nodes only: a write transaction's new ones have none yet.
                if self.ctx.snapshot().is_none() || self.ctx.is_remote() {
                    return Ok(None);
                }
                for v in values {
                    let id = match (v, element) {
                        (Value::String(s), true) => s.parse::<u64>().ok(),
                        (Value::Int(i), false) => u64::try_from(i).ok(),
                        (Value::Float(f), false) if f.fract() == 0.0 && f >= 0.0 => Some(f as u64),
                        (Value::Null | Value::String(_) | Value::Int(_) | Value::Float(_), _) => None,
                        _ => return Ok(None),
                    };
                    if let Some(key) = id.map(|id| g.node_key(id)).transpose()?.flatten() {
                        keys.push(key);
                    }
                }
            }
        }
        // Not `ByKey`: the pattern's own `_key` entry, if any, is still to be checked.
        Ok(Some(Start::Keys(dedup(keys))))
    }

    /// The nodes `np` can only be, when they are few and known without listing anything (see
    /// [`Self::named`]): `None` when they are not, or more than [`INTO_MAX_ENDS`].
    pub(super) fn known_ends(&self, np: &NodePattern, vals: &[Value]) -> Result<Option<Vec<NodeKey>>> {
        Ok(self.named(np, vals, Some(INTO_MAX_ENDS + 1))?.and_then(few_ends))
    }
}
