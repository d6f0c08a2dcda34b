//! Pattern matching: binds the variables of MATCH patterns by backtracking over the store,
//! starting each pattern part at its cheapest end (a bound node, a key, an index, a label,
//! or all nodes) with relationships unique within one match.

use super::adjacency::{can_expand_into, path_query, rels_between};
use super::ctx::Ctx;
use super::eval::{eval, Scope};
use crate::ast::{Expr, NodePattern, PathKind, PatternElement, PatternPart, RelDirection, RelPattern};
use crate::compare;
use crate::engine::KEY_PROPERTY;
use crate::error::{CypherError, ErrorClass, Result};
use crate::value::{NodeRef, PathValue, RelRef, Value};
use hopdb_database::NodeKey;

mod starts;

use starts::{few_ends, where_hints, Hint, Start};

/// An expand-into looks up the relationships to at most this many known ends; more, and
/// listing the start node's relationships is the cheaper bet.
const INTO_MAX_ENDS: usize = 16;

/// Called per match with the output names and row; returns false to stop.
pub(crate) type Emit<'e> = dyn FnMut(&[String], &[Value]) -> Result<bool> + 'e;

/// The variables a pattern binds that are not in `names`, in order of appearance.
pub(crate) fn new_vars(parts: &[PatternPart], names: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |v: &Option<String>| {
        if let Some(v) = v {
            if !names.contains(v) && !out.contains(v) {
                out.push(v.clone());
            }
        }
    };
    for p in parts {
        add(&p.var);
        add(&p.element.start.var);
        for (r, n) in &p.element.chain {
            add(&r.var);
            add(&n.var);
        }
    }
    // The path variable is bound last in a row, but listed where it was written: keep
    // written order, which is what RETURN * sorts anyway.
    out
}

/// Every match of `parts` extending the row `(names, row)`.
pub(crate) fn for_each_match(
    ctx: &Ctx,
    names: &[String],
    row: &[Value],
    parts: &[PatternPart],
    f: &mut Emit,
) -> Result<()> {
    for_each_match_with(ctx, names, row, parts, MatchOptions::default(), f)
}

/// What the planner lets a match skip.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct MatchOptions<'w> {
    /// Path multiplicity does not matter (a DISTINCT projection follows): an anonymous
    /// variable-length step may yield each end node once.
    pub distinct_ends: bool,
    /// With `distinct_ends`: at most this many end nodes per start are needed.
    pub ends_limit: Option<usize>,
    /// The MATCH's WHERE, which the caller still applies to every match: its conjuncts that
    /// name a node's key, id or indexed property only narrow where the node's candidates
    /// come from (see [`Hint`]).
    pub where_: Option<&'w Expr>,
}

/// Like [`for_each_match`]; with `distinct_ends`, an anonymous variable-length step yields
/// each end node once instead of once per path (the planner asks for this when a DISTINCT
/// projection follows, which makes the two equivalent), so it can run as a breadth-first
/// search in the analytics layer instead of enumerating paths.
pub(crate) fn for_each_match_with(
    ctx: &Ctx,
    names: &[String],
    row: &[Value],
    parts: &[PatternPart],
    opts: MatchOptions,
    f: &mut Emit,
) -> Result<()> {
    let mut hints = Vec::new();
    if let Some(w) = opts.where_ {
        where_hints(w, &mut hints);
    }
    let mut all = names.to_vec();
    all.extend(new_vars(parts, names));
    let mut vals = row.to_vec();
    vals.resize(all.len(), Value::Null);
    let mut bound = vec![false; all.len()];
    bound[..names.len()].iter_mut().for_each(|b| *b = true);
    let mut m = Matcher {
        ctx,
        names: all,
        bound,
        used: Vec::new(),
        opts,
        hints,
        far_ends: vec![None; parts.len()],
    };
    m.parts(parts, 0, &mut vals, f)?;
    Ok(())
}

/// Whether the pattern element matches at least once.
pub(crate) fn exists_element(ctx: &Ctx, names: &[String], row: &[Value], el: &PatternElement) -> Result<bool> {
    let mut found = false;
    for_each_element_match(ctx, names, row, el, None, &mut |_, _| {
        found = true;
        Ok(false)
    })?;
    Ok(found)
}

/// Every match of one pattern element (pattern predicates and comprehensions).
pub(crate) fn for_each_element_match(
    ctx: &Ctx,
    names: &[String],
    row: &[Value],
    el: &PatternElement,
    path_var: Option<&str>,
    f: &mut Emit,
) -> Result<()> {
    let part = PatternPart {
        var: path_var.map(str::to_string),
        kind: PathKind::Plain,
        element: el.clone(),
    };
    for_each_match(ctx, names, row, std::slice::from_ref(&part), f)
}

struct Matcher<'c, 't, 'p, 'w> {
    ctx: &'c Ctx<'t, 'p>,
    names: Vec<String>,
    bound: Vec<bool>,
    used: Vec<RelRef>,
    opts: MatchOptions<'w>,
    /// The WHERE's hints (see [`Hint`]), by variable.
    hints: Vec<(&'w str, Hint<'w>)>,
    /// Per pattern part of one step priced at both ends: what [`Matcher::known_ends`] says of
    /// the end it did not start from, so the step does not look its index up again.
    far_ends: Vec<Option<Option<Vec<NodeKey>>>>,
}

impl<'c> Matcher<'c, '_, '_, '_> {
    fn slot(&self, v: &str) -> Option<usize> {
        self.names.iter().position(|n| n == v)
    }

    fn scope<'a>(&'a self, vals: &'a [Value]) -> Scope<'a> {
        Scope::row(&self.names, vals)
    }

    fn parts(&mut self, parts: &[PatternPart], i: usize, vals: &mut Vec<Value>, f: &mut Emit) -> Result<bool> {
        let Some(part) = parts.get(i) else {
            return f(&self.names, vals);
        };
        self.ctx.check()?;
        match part.kind {
            PathKind::Plain => self.plain_part(parts, i, vals, f),
            PathKind::Shortest | PathKind::AllShortest => self.shortest_part(parts, i, vals, f),
        }
    }

    /// Whether node value `v` satisfies the pattern's labels and properties.
    fn node_ok(&self, np: &NodePattern, v: &Value, vals: &[Value]) -> Result<bool> {
        self.node_ok_but(np, v, vals, false)
    }

    /// [`Matcher::node_ok`]; `key_known`: the node came from its `_key` entry, which needs no
    /// second check.
    fn node_ok_but(&self, np: &NodePattern, v: &Value, vals: &[Value], key_known: bool) -> Result<bool> {
        let n = match v {
            Value::Node(n) => n,
            _ => return Ok(false),
        };
        // A property map alone needs no read in a snapshot (no node of it is deleted; `_key`
        // is the key itself); in a write transaction the node may have been deleted.
        let deletable = self.ctx.store.writes();
        if !np.labels.is_empty() || (np.props.is_some() && deletable) {
            // A fresh projection (read-only queries) knows every node's labels.
            match self.ctx.has_labels_projected(&n.key, &np.labels) {
                Some(false) => return Ok(false),
                Some(true) => {}
                None => {
                    if self.ctx.node_has_labels(n, &np.labels)? != Some(true) {
                        return Ok(false);
                    }
                }
            }
        }
        if let Some(p) = &np.props {
            if !self.props_ok(p, v, vals, key_known)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn props_ok(&self, props: &Expr, v: &Value, vals: &[Value], key_known: bool) -> Result<bool> {
        let scope = self.scope(vals);
        // A written map: entry by entry, without building it (`{_key: $k}` on every start).
        if let Expr::Map(entries) = props {
            for (k, e) in entries {
                if key_known && k == KEY_PROPERTY {
                    continue;
                }
                let w = eval(self.ctx, e, &scope)?;
                let have = super::eval::property(self.ctx, v, k)?;
                if compare::equals(&have, &w) != Some(true) {
                    return Ok(false);
                }
            }
            return Ok(true);
        }
        let want = match eval(self.ctx, props, &scope)? {
            Value::Map(m) => m,
            Value::Null => return Ok(false),
            o => {
                return Err(CypherError::type_error(format!(
                    "pattern properties must be a map, got {}",
                    o.type_name()
                )))
            }
        };
        for (k, w) in &want {
            let have = super::eval::property(self.ctx, v, k)?;
            if compare::equals(&have, w) != Some(true) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Binds `var` to `v`, or checks it equals the value already bound. Returns the slot
    /// bound now (to unbind after), or `Err(false)`-like `None` with `ok = false`.
    fn bind(&mut self, var: &Option<String>, v: &Value, vals: &mut [Value]) -> (bool, Option<usize>) {
        let Some(s) = var.as_ref().and_then(|x| self.slot(x)) else {
            return (true, None);
        };
        if self.bound[s] {
            let same = match (&vals[s], v) {
                (Value::Node(a), Value::Node(b)) => a == b,
                (Value::Relationship(a), Value::Relationship(b)) => a == b,
                (Value::List(a), Value::List(b)) => a == b,
                _ => false,
            };
            return (same, None);
        }
        vals[s] = v.clone();
        self.bound[s] = true;
        (true, Some(s))
    }

    fn unbind(&mut self, s: Option<usize>, vals: &mut [Value]) {
        if let Some(s) = s {
            vals[s] = Value::Null;
            self.bound[s] = false;
        }
    }

    fn plain_part(&mut self, parts: &[PatternPart], i: usize, vals: &mut Vec<Value>, f: &mut Emit) -> Result<bool> {
        let part = &parts[i];
        let el = &part.element;
        // Start at the cheaper end.
        let (c0, s0) = self.start_of(&el.start, vals)?;
        let reversed;
        let owned;
        let last = el.chain.last().map(|(_, n)| n);
        // Only a bound end (cost 0) beats a key start (cost 1): no need to price the end
        // otherwise (pricing a plain node counts the store's nodes, a store read).
        let end_bound = last
            .and_then(|n| n.var.as_ref())
            .and_then(|v| self.slot(v))
            .is_some_and(|v| self.bound[v]);
        let (el, start, far) = match last.filter(|_| !(c0 == 0 || (c0 == 1 && !end_bound))) {
            None => {
                reversed = false;
                (el, s0, None)
            }
            Some(last) => {
                let (c1, s1) = self.start_of(last, vals)?;
                if c1 < c0 {
                    reversed = true;
                    owned = reverse(el);
                    (&owned, s1, Some(s0))
                } else {
                    reversed = false;
                    (el, s0, Some(s1))
                }
            }
        };
        self.far_ends[i] = far.filter(|_| el.chain.len() == 1).map(few_ends);
        let key_known = matches!(start, Start::ByKey(_));
        // A label scan's nodes have its label: only the pattern's other labels are checked.
        let unchecked;
        let check = match &start {
            Start::Label(l) if el.start.labels.contains(l) => {
                unchecked = NodePattern {
                    labels: el.start.labels.iter().filter(|x| *x != l).cloned().collect(),
                    ..el.start.clone()
                };
                &unchecked
            }
            _ => &el.start,
        };
        let from = |me: &mut Self, cand: Value, vals: &mut Vec<Value>, f: &mut Emit| -> Result<bool> {
            if !me.node_ok_but(check, &cand, vals, key_known)? {
                return Ok(true);
            }
            let (ok, s) = me.bind(&el.start.var, &cand, vals);
            if !ok {
                return Ok(true);
            }
            // The path so far is kept only for a path variable (`p = ...`).
            let mut path = if part.var.is_some() {
                vec![cand.clone()]
            } else {
                Vec::new()
            };
            let go = me.chain(parts, i, el, 0, &cand, &mut path, reversed, vals, f)?;
            me.unbind(s, vals);
            Ok(go)
        };
        // A read-only query matches from each scanned node as it is read, so a LIMIT (or a
        // caller that stops) ends the scan; a writing one reads every candidate first, as its
        // own writes must not reach the nodes it is still scanning.
        if let (Start::Label(_) | Start::All, Some(_)) = (&start, self.ctx.snapshot()) {
            let label = match &start {
                Start::Label(l) => Some(l.as_str()),
                _ => None,
            };
            let ctx = self.ctx;
            let (mut go, mut failed) = (true, None);
            ctx.read().for_each_node_record(label, &mut |rec| {
                match from(self, stored_node(rec), vals, f) {
                    Ok(g) => go = g,
                    Err(e) => failed = Some(e),
                }
                go && failed.is_none()
            })?;
            return failed.map_or(Ok(go), Err);
        }
        for cand in self.candidates(start)? {
            if !from(self, cand, vals, f)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Matches `el.chain[j..]` from node `cur`; `path` alternates node, relationship(s) values.
    #[allow(clippy::too_many_arguments)]
    fn chain(
        &mut self,
        parts: &[PatternPart],
        i: usize,
        el: &PatternElement,
        j: usize,
        cur: &Value,
        path: &mut Vec<Value>,
        reversed: bool,
        vals: &mut Vec<Value>,
        f: &mut Emit,
    ) -> Result<bool> {
        if j == el.chain.len() {
            let part = &parts[i];
            let mut slot = None;
            if let Some(pv) = &part.var {
                let p = make_path(path, reversed);
                let (ok, s) = self.bind(&Some(pv.clone()), &Value::Path(p), vals);
                if !ok {
                    return Ok(true);
                }
                slot = s;
            }
            let go = self.parts(parts, i + 1, vals, f)?;
            self.unbind(slot, vals);
            return Ok(go);
        }
        let (rp, np) = &el.chain[j];
        let Value::Node(cur_node) = cur else {
            return Ok(true);
        };
        match rp.length {
            None => {
                let keep_path = parts[i].var.is_some();
                // The relationship as a value only when something reads it.
                let as_value = keep_path || rp.var.is_some() || rp.props.is_some();
                let ends = match &self.far_ends[i] {
                    _ if !can_expand_into(self.ctx, rp) => None,
                    Some(priced) => priced.clone(),
                    None => self.known_ends(np, vals)?,
                };
                let into = match ends {
                    Some(ends) => self.expand_into(&cur_node.key, rp, ends)?,
                    None => None,
                };
                let rels = match into {
                    Some(found) => Box::new(found.into_iter()),
                    None => self.expand(&cur_node.key, rp)?,
                };
                for (rel, other) in rels {
                    if self.used.contains(&rel) {
                        continue;
                    }
                    let rv = if as_value {
                        Value::Relationship(rel.clone())
                    } else {
                        Value::Null
                    };
                    if let Some(p) = &rp.props {
                        if !self.props_ok(p, &rv, vals, false)? {
                            continue;
                        }
                    }
                    let ov = Value::Node(NodeRef::new(other));
                    if !self.node_ok(np, &ov, vals)? {
                        continue;
                    }
                    let (ok_r, sr) = self.bind(&rp.var, &rv, vals);
                    if !ok_r {
                        continue;
                    }
                    let (ok_n, sn) = self.bind(&np.var, &ov, vals);
                    if ok_n {
                        self.used.push(rel);
                        if keep_path {
                            path.push(rv);
                            path.push(ov.clone());
                        }
                        let go = self.chain(parts, i, el, j + 1, &ov, path, reversed, vals, f)?;
                        if keep_path {
                            path.truncate(path.len() - 2);
                        }
                        self.used.pop();
                        if !go {
                            self.unbind(sn, vals);
                            self.unbind(sr, vals);
                            return Ok(false);
                        }
                    }
                    self.unbind(sn, vals);
                    self.unbind(sr, vals);
                }
                Ok(true)
            }
            Some((min, max)) => {
                let min = min.unwrap_or(1);
                let max = max.unwrap_or(u64::MAX);
                // Only when nothing else of the match could reuse the step's relationships: a
                // single-step last part.
                let alone = el.chain.len() == 1 && i + 1 == parts.len();
                if self.opts.distinct_ends && alone && rp.var.is_none() && rp.props.is_none() && parts[i].var.is_none()
                {
                    // A limit on ends holds only when every end qualifies.
                    let limit = self
                        .opts
                        .ends_limit
                        .filter(|_| np.labels.is_empty() && np.props.is_none());
                    if let Some(ends) = self.analytics_ends(&cur_node.key, rp, min, max, limit)? {
                        for end in ends {
                            let ov = Value::Node(NodeRef::new(end));
                            if !self.node_ok(np, &ov, vals)? {
                                continue;
                            }
                            let (ok_n, sn) = self.bind(&np.var, &ov, vals);
                            if ok_n {
                                let go = self.chain(parts, i, el, j + 1, &ov, path, reversed, vals, f)?;
                                self.unbind(sn, vals);
                                if !go {
                                    return Ok(false);
                                }
                            }
                        }
                        return Ok(true);
                    }
                }
                let mut rels = Vec::new();
                self.var_len(
                    parts,
                    i,
                    el,
                    j,
                    cur_node.key.clone(),
                    0,
                    min,
                    max,
                    &mut rels,
                    path,
                    reversed,
                    vals,
                    f,
                )
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn var_len(
        &mut self,
        parts: &[PatternPart],
        i: usize,
        el: &PatternElement,
        j: usize,
        cur: NodeKey,
        depth: u64,
        min: u64,
        max: u64,
        rels: &mut Vec<RelRef>,
        path: &mut Vec<Value>,
        reversed: bool,
        vals: &mut Vec<Value>,
        f: &mut Emit,
    ) -> Result<bool> {
        let (rp, np) = &el.chain[j];
        if depth >= min {
            let ov = Value::Node(NodeRef::new(cur.clone()));
            if self.node_ok(np, &ov, vals)? {
                // Matched from the far end: the relationships were found in reverse order.
                let mut in_order: Vec<Value> = rels.iter().map(|r| Value::Relationship(r.clone())).collect();
                if reversed {
                    in_order.reverse();
                }
                let list = Value::List(in_order);
                let (ok_r, sr) = self.bind(&rp.var, &list, vals);
                if ok_r {
                    let (ok_n, sn) = self.bind(&np.var, &ov, vals);
                    if ok_n {
                        let mark = path.len();
                        // Relationships of this step are used for the rest of the match too.
                        let used_mark = self.used.len();
                        self.used.extend(rels.iter().cloned());
                        path.push(Value::List(
                            rels.iter().map(|r| Value::Relationship(r.clone())).collect(),
                        ));
                        path.push(ov.clone());
                        let go = self.chain(parts, i, el, j + 1, &ov, path, reversed, vals, f)?;
                        self.used.truncate(used_mark);
                        path.truncate(mark);
                        if !go {
                            self.unbind(sn, vals);
                            self.unbind(sr, vals);
                            return Ok(false);
                        }
                    }
                    self.unbind(sn, vals);
                }
                self.unbind(sr, vals);
            }
        }
        if depth >= max {
            return Ok(true);
        }
        self.ctx.check()?;
        for (rel, other) in self.expand(&cur, rp)? {
            if self.used.contains(&rel) || rels.contains(&rel) {
                continue;
            }
            if let Some(p) = &rp.props {
                if !self.props_ok(p, &Value::Relationship(rel.clone()), vals, false)? {
                    continue;
                }
            }
            rels.push(rel);
            let go = self.var_len(
                parts,
                i,
                el,
                j,
                other,
                depth + 1,
                min,
                max,
                rels,
                path,
                reversed,
                vals,
                f,
            )?;
            rels.pop();
            if !go {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Distinct ends of the `min..=max` trails from `start` along `rp`, from the analytics
    /// layer (projection or store, as it decides); `None` inside a write transaction, whose
    /// own changes only the executor sees.
    fn analytics_ends(
        &self,
        start: &NodeKey,
        rp: &RelPattern,
        min: u64,
        max: u64,
        limit: Option<usize>,
    ) -> Result<Option<Vec<NodeKey>>> {
        let Some(txn) = self.ctx.snapshot() else {
            return Ok(None);
        };
        if !self.used.is_empty() {
            return Ok(None);
        }
        let q = path_query(rp, max);
        let min = u32::try_from(min).unwrap_or(u32::MAX);
        let ends = self
            .ctx
            .analytics
            .var_length_endpoints_at(txn, start, min, &q, limit, &self.ctx.control)?;
        Ok(Some(ends.value))
    }

    /// The relationships of `rp` from node `key`, with the node at their other end.
    fn expand(&self, key: &NodeKey, rp: &RelPattern) -> Result<super::adjacency::Rels<'c>> {
        super::adjacency::expand_lazily(self.ctx, key, rp.direction, &rp.types)
    }

    /// The relationships of `rp` (where [`can_expand_into`] allows) from `key` to `ends`, the
    /// few nodes the step's far end can be (see [`Self::known_ends`]), by point lookups
    /// between the two ends instead of listing all of `key`'s relationships and reading each
    /// neighbour (LightRAG's `get_edges_batch` names both ends by an indexed property);
    /// `None`: list them. Each end found is still checked against the far end's pattern by
    /// the caller.
    fn expand_into(
        &self,
        key: &NodeKey,
        rp: &RelPattern,
        ends: Vec<NodeKey>,
    ) -> Result<Option<Vec<(RelRef, NodeKey)>>> {
        let mut out = Vec::new();
        for end in ends {
            match rels_between(self.ctx, key, &end, rp)? {
                Some(rels) => out.extend(rels.into_iter().map(|r| (r, end.clone()))),
                None => return Ok(None),
            }
        }
        Ok(Some(out))
    }

    fn shortest_part(&mut self, parts: &[PatternPart], i: usize, vals: &mut Vec<Value>, f: &mut Emit) -> Result<bool> {
        let part = &parts[i];
        let el = &part.element;
        if el.chain.len() != 1 {
            return Err(CypherError::compile(
                ErrorClass::SyntaxError,
                "InvalidArgumentPassingMode",
                "shortestPath needs a pattern of exactly one relationship",
            ));
        }
        let (rp, end) = &el.chain[0];
        let (_, s0) = self.start_of(&el.start, vals)?;
        let (_, s1) = self.start_of(end, vals)?;
        let starts = self.candidates(s0)?;
        let ends = self.candidates(s1)?;
        let (min, max) = rp.length.unwrap_or((Some(1), Some(1)));
        let (min, max) = (min.unwrap_or(1), max.unwrap_or(u64::MAX));
        // The relationships' property predicate, evaluated once in the match's scope.
        let want = match &rp.props {
            None => None,
            Some(p) => match eval(self.ctx, p, &self.scope(vals))? {
                Value::Map(m) => Some(m),
                _ => return Ok(true),
            },
        };
        for a in &starts {
            if !self.node_ok(&el.start, a, vals)? {
                continue;
            }
            let (ok_a, sa) = self.bind(&el.start.var, a, vals);
            if !ok_a {
                continue;
            }
            for b in &ends {
                if !self.node_ok(end, b, vals)? {
                    continue;
                }
                let (Value::Node(na), Value::Node(nb)) = (a, b) else {
                    continue;
                };
                let paths = super::shortest::shortest_paths(
                    self.ctx,
                    &na.key,
                    &nb.key,
                    rp,
                    want.as_ref(),
                    (min, max),
                    part.kind == PathKind::AllShortest,
                )?;
                for p in paths {
                    let (ok_b, sb) = self.bind(&end.var, b, vals);
                    if !ok_b {
                        continue;
                    }
                    let rels = Value::List(p.rels.iter().map(|r| Value::Relationship(r.clone())).collect());
                    let (ok_r, sr) = self.bind(&rp.var, &rels, vals);
                    let mut sp = None;
                    let mut ok_p = true;
                    if let Some(pv) = &part.var {
                        let (o, s) = self.bind(&Some(pv.clone()), &Value::Path(p.clone()), vals);
                        ok_p = o;
                        sp = s;
                    }
                    let go = if ok_r && ok_p {
                        self.parts(parts, i + 1, vals, f)?
                    } else {
                        true
                    };
                    self.unbind(sp, vals);
                    self.unbind(sr, vals);
                    self.unbind(sb, vals);
                    if !go {
                        self.unbind(sa, vals);
                        return Ok(false);
                    }
                }
            }
            self.unbind(sa, vals);
        }
        Ok(true)
    }
}

fn reverse(el: &PatternElement) -> PatternElement {
    let mut nodes = vec![el.start.clone()];
    let mut rels = Vec::new();
    for (r, n) in &el.chain {
        rels.push(r.clone());
        nodes.push(n.clone());
    }
    nodes.reverse();
    rels.reverse();
    let mut it = nodes.into_iter();
    let start = it.next().unwrap_or_default();
    let chain = rels
        .into_iter()
        .zip(it)
        .map(|(mut r, n)| {
            r.direction = match r.direction {
                RelDirection::Right => RelDirection::Left,
                RelDirection::Left => RelDirection::Right,
                RelDirection::Both => RelDirection::Both,
            };
            (r, n)
        })
        .collect();
    PatternElement { start, chain }
}

/// Builds a path value from the alternating node / relationship(-list) values matched.
fn make_path(path: &[Value], reversed: bool) -> PathValue {
    let mut nodes = Vec::new();
    let mut rels = Vec::new();
    for (k, v) in path.iter().enumerate() {
        match v {
            // After a zero-length step the node is the one before it.
            Value::Node(_) if k > 0 && matches!(&path[k - 1], Value::List(l) if l.is_empty()) => {}
            Value::Node(n) if k % 2 == 0 => nodes.push(n.clone()),
            Value::Relationship(r) => rels.push(r.clone()),
            Value::List(l) => {
                // A variable-length step: its relationships and the nodes between them.
                let mut cur = nodes.last().map(|n: &NodeRef| n.key.clone());
                for (m, x) in l.iter().enumerate() {
                    if let Value::Relationship(r) = x {
                        rels.push(r.clone());
                        let next = match &cur {
                            Some(c) if r.src == *c => r.dst.clone(),
                            _ => r.src.clone(),
                        };
                        if m + 1 < l.len() {
                            nodes.push(NodeRef::new(next.clone()));
                        }
                        cur = Some(next);
                    }
                }
            }
            _ => {}
        }
    }
    if reversed {
        nodes.reverse();
        rels.reverse();
    }
    PathValue { nodes, rels }
}

/// A read-only query's node value for a scanned record, which it carries (see
/// `NodeRef::stored`).
fn stored_node(rec: hopdb_database::NodeRecord) -> Value {
    let mut n = NodeRef::new(rec.key.clone());
    n.stored = Some(std::sync::Arc::new(rec));
    Value::Node(n)
}
