//! Runs one TCK scenario against a fresh in-memory database: the steps in order, stopping at
//! the first that fails.

use super::compare::{self, ListOrder};
use super::gherkin::{Scenario, Step};
use super::values;
use hopdb_cypher::compare::equivalent;
use hopdb_cypher::{
    CypherError, NodeRef, Params, ProcedureSignature, QueryEngine, QueryOptions, QueryStats, RelRef, Row, Value,
};
use hopdb_database::{Control, Database};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// How a scenario ended.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// Whether every step passed.
    pub pass: bool,
    /// Why it failed (one line), empty on success.
    pub reason: String,
    /// Passing error scenarios whose detail code differed: (expected, actual).
    pub detail_mismatch: Option<(String, String)>,
    /// Query, expected and actual values, for the failure printout.
    pub details: String,
    /// Whether the engine's [`QueryStats`] disagreed with the side effects the TCK counts
    /// (a graph-state difference) in a side-effects step.
    pub stats_disagree: bool,
}

impl Outcome {
    /// A failure with a reason.
    pub fn fail(reason: impl Into<String>) -> Outcome {
        Outcome {
            pass: false,
            reason: one_line(&reason.into()),
            ..Outcome::default()
        }
    }
}

fn one_line(s: &str) -> String {
    let s = s.replace(['\n', '\r'], " ");
    if s.chars().count() > 300 {
        let mut t: String = s.chars().take(300).collect();
        t.push('…');
        t
    } else {
        s
    }
}

/// The result of running one query: everything pulled, or the error.
enum Exec {
    Done {
        columns: Vec<String>,
        rows: Vec<Row>,
        stats: QueryStats,
    },
    Failed(CypherError),
}

/// What the scenario needs besides its steps.
pub struct Context<'a> {
    /// The TCK's `graphs/` directory (named graphs' create scripts).
    pub graphs_dir: &'a Path,
    /// Set by the supervisor when the scenario timed out: queries should stop.
    pub cancel: Arc<AtomicBool>,
    /// Per-query timeout handed to the engine.
    pub timeout: Duration,
    /// Judge side effects by the engine's [`QueryStats`] instead of the TCK's graph-state
    /// difference.
    pub side_effects_from_stats: bool,
}

/// What the TCK compares side effects over: node ids, relationship ids, label names and
/// (entity, key, value) property triples present in the graph.
#[derive(Debug, Clone, Default)]
struct GraphState {
    nodes: BTreeSet<u64>,
    rels: BTreeSet<i64>,
    labels: BTreeSet<String>,
    props: BTreeSet<(bool, i64, String, String)>,
}

/// The side-effect counters in [`SIDE_EFFECTS`] order.
type Effects = [u64; 8];

fn diff(before: &GraphState, after: &GraphState) -> Effects {
    let n = |a: usize| a as u64;
    [
        n(after.nodes.difference(&before.nodes).count()),
        n(before.nodes.difference(&after.nodes).count()),
        n(after.rels.difference(&before.rels).count()),
        n(before.rels.difference(&after.rels).count()),
        n(after.labels.difference(&before.labels).count()),
        n(before.labels.difference(&after.labels).count()),
        n(after.props.difference(&before.props).count()),
        n(before.props.difference(&after.props).count()),
    ]
}

fn stats_effects(s: &QueryStats) -> Effects {
    [
        s.nodes_created,
        s.nodes_deleted,
        s.relationships_created,
        s.relationships_deleted,
        s.labels_added,
        s.labels_removed,
        s.properties_set,
        s.properties_removed,
    ]
}

struct State<'a> {
    ctx: &'a Context<'a>,
    engine: QueryEngine,
    params: Params,
    last: Option<Exec>,
    last_query: String,
    details: String,
    detail_mismatch: Option<(String, String)>,
    /// Whether a side-effects step follows (then the graph is snapshotted around the query).
    wants_side_effects: bool,
    /// The TCK's side effects of the last `executing query` (not control query).
    effects: Option<Result<Effects, String>>,
    stats_disagree: bool,
}

impl State<'_> {
    fn run(&self, text: &str) -> Exec {
        let opts = QueryOptions {
            control: Control::default()
                .with_cancel(self.ctx.cancel.clone())
                .with_timeout(self.ctx.timeout),
            ..Default::default()
        };
        let mut result = match self.engine.query_with(text, &self.params, &opts) {
            Ok(r) => r,
            Err(e) => return Exec::Failed(e),
        };
        let columns = result.columns().to_vec();
        let mut rows = Vec::new();
        loop {
            match result.next_row() {
                Ok(Some(r)) => rows.push(r),
                Ok(None) => break,
                Err(e) => return Exec::Failed(e),
            }
        }
        let stats = *result.stats();
        Exec::Done { columns, rows, stats }
    }

    /// The graph's state, read with `MATCH (n) RETURN n` and `MATCH ()-[r]->() RETURN r`.
    fn snapshot(&self) -> Result<GraphState, String> {
        let mut g = GraphState::default();
        let rows = |q: &str| match self.run(q) {
            Exec::Done { rows, .. } => Ok(rows),
            Exec::Failed(e) => Err(format!("harness: state query {q:?} failed: {}", describe_error(&e))),
        };
        for row in rows("MATCH (n) RETURN n")? {
            let Some(Value::Node(NodeRef { data: Some(d), .. })) = row.first() else {
                return Err("harness: state query returned something other than a node with data".into());
            };
            g.nodes.insert(d.id);
            g.labels.extend(d.labels.iter().cloned());
            for (k, v) in &d.props {
                g.props.insert((true, d.id as i64, k.clone(), compare::render(v)));
            }
        }
        for row in rows("MATCH ()-[r]->() RETURN r")? {
            let Some(Value::Relationship(RelRef { data: Some(d), .. })) = row.first() else {
                return Err("harness: state query returned something other than a relationship with data".into());
            };
            g.rels.insert(d.id);
            for (k, v) in &d.props {
                g.props.insert((false, d.id, k.clone(), compare::render(v)));
            }
        }
        Ok(g)
    }
}

fn describe_error(e: &CypherError) -> String {
    let phase = match e.phase {
        hopdb_cypher::Phase::Compile => "compile time",
        hopdb_cypher::Phase::Runtime => "runtime",
    };
    format!("{} ({}) at {phase}: {}", e.class.as_str(), e.detail, e.message)
}

/// Runs the scenario's steps.
pub fn run_scenario(sc: &Scenario, ctx: &Context<'_>) -> Outcome {
    let mut st = State {
        ctx,
        engine: QueryEngine::new(Database::in_memory()),
        params: Params::new(),
        last: None,
        last_query: String::new(),
        details: String::new(),
        detail_mismatch: None,
        wants_side_effects: sc
            .steps
            .iter()
            .any(|s| s.text == "no side effects" || s.text == "the side effects should be:"),
        effects: None,
        stats_disagree: false,
    };
    for step in &sc.steps {
        if let Err(reason) = run_step(&mut st, step) {
            let mut details = std::mem::take(&mut st.details);
            let _ = writeln!(
                details,
                "  failed step (line {}): {} {}",
                step.line, step.keyword, step.text
            );
            return Outcome {
                pass: false,
                reason: one_line(&reason),
                detail_mismatch: None,
                details,
                stats_disagree: st.stats_disagree,
            };
        }
    }
    if let Some(Exec::Done { columns, rows, .. }) = &st.last {
        let _ = writeln!(
            st.details,
            "  actual:\n    | {} |\n{}",
            columns.join(" | "),
            render_rows(rows)
        );
    }
    Outcome {
        pass: true,
        reason: String::new(),
        detail_mismatch: st.detail_mismatch,
        details: st.details,
        stats_disagree: st.stats_disagree,
    }
}

fn doc(step: &Step) -> Result<&str, String> {
    step.doc
        .as_deref()
        .ok_or_else(|| "step without its query (doc string)".to_owned())
}

fn run_step(st: &mut State<'_>, step: &Step) -> Result<(), String> {
    let text = step.text.as_str();
    match text {
        "an empty graph" | "any graph" => return Ok(()),
        "having executed:" => {
            let q = doc(step)?;
            return match st.run(q) {
                Exec::Done { .. } => Ok(()),
                Exec::Failed(e) => {
                    let _ = writeln!(st.details, "  setup query:\n{}", indent(q));
                    Err(format!("setup query failed: {}", describe_error(&e)))
                }
            };
        }
        "parameters are:" => {
            let table = step.table.as_ref().ok_or("parameters without a table")?;
            for row in table {
                let [name, value] = row.as_slice() else {
                    return Err(format!("harness: bad parameter row {row:?}"));
                };
                let v = values::parse_value(value).map_err(|e| format!("harness: parameter {name}: {e}"))?;
                let v = values::to_param(&v).map_err(|e| format!("harness: parameter {name}: {e}"))?;
                st.params.insert(name.clone(), v);
            }
            return Ok(());
        }
        "executing query:" | "executing control query:" => {
            let q = doc(step)?.to_owned();
            let _ = writeln!(st.details, "  query:\n{}", indent(&q));
            if !st.params.is_empty() {
                let mut names: Vec<_> = st.params.iter().collect();
                names.sort_by(|a, b| a.0.cmp(b.0));
                for (k, v) in names {
                    let _ = writeln!(st.details, "  param ${k} = {}", compare::render(v));
                }
            }
            let control = text == "executing control query:";
            let before = (st.wants_side_effects && !control).then(|| st.snapshot());
            let exec = st.run(&q);
            if let Some(before) = before {
                st.effects = Some(before.and_then(|b| Ok(diff(&b, &st.snapshot()?))));
            }
            if let Exec::Failed(e) = &exec {
                let _ = writeln!(st.details, "  error: {}", describe_error(e));
            }
            st.last = Some(exec);
            st.last_query = q;
            return Ok(());
        }
        "the result should be empty" => {
            let (_, rows, _) = last_ok(st)?;
            if rows.is_empty() {
                return Ok(());
            }
            let (actual, n) = (render_rows(rows), rows.len());
            let _ = writeln!(st.details, "  expected no rows\n  actual:\n{actual}");
            return Err(format!("expected no rows, got {n}"));
        }
        "no side effects" => return check_side_effects(st, &[]),
        "the side effects should be:" => {
            let table = step.table.clone().ok_or("side effects without a table")?;
            return check_side_effects(st, &table);
        }
        _ => {}
    }
    if let Some(rest) = text.strip_prefix("the result should be") {
        let (ordered, lists) = match rest {
            ", in any order:" => (false, ListOrder::Strict),
            ", in order:" => (true, ListOrder::Strict),
            " (ignoring element order for lists):" | ", in any order (ignoring element order for lists):" => {
                (false, ListOrder::Ignore)
            }
            ", in order (ignoring element order for lists):" => (true, ListOrder::Ignore),
            _ => return Err(format!("unsupported step: {text}")),
        };
        let table = step.table.as_ref().ok_or("result without a table")?;
        return check_result(st, table, ordered, lists);
    }
    if let Some(rest) = text.strip_prefix("a ").or_else(|| text.strip_prefix("an ")) {
        if let Some((class, rest)) = rest.split_once(" should be raised at ") {
            let (phase, detail) = rest.split_once(':').unwrap_or((rest, "*"));
            return check_error(st, class.trim(), phase.trim(), detail.trim());
        }
    }
    if let Some(sig) = text.strip_prefix("there exists a procedure ") {
        return define_procedure(st, sig, step.table.as_deref().unwrap_or(&[]));
    }
    if text.starts_with("the ") && text.ends_with(" graph") {
        let name = &text["the ".len()..text.len() - " graph".len()];
        return load_graph(st, name);
    }
    Err(format!("unsupported step: {} {}", step.keyword, first_line(text)))
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

fn indent(s: &str) -> String {
    s.lines().map(|l| format!("    {l}")).collect::<Vec<_>>().join("\n")
}

fn last_ok<'s>(st: &'s State<'_>) -> Result<(&'s [String], &'s [Row], &'s QueryStats), String> {
    match &st.last {
        None => Err("harness: no query was executed before this step".into()),
        Some(Exec::Failed(e)) => Err(format!("query failed: {}", describe_error(e))),
        Some(Exec::Done { columns, rows, stats }) => Ok((columns, rows, stats)),
    }
}

fn render_rows(rows: &[Row]) -> String {
    rows.iter()
        .map(|r| {
            format!(
                "    | {} |",
                r.iter().map(compare::render).collect::<Vec<_>>().join(" | ")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn check_result(st: &mut State<'_>, table: &[Vec<String>], ordered: bool, lists: ListOrder) -> Result<(), String> {
    let Some((header, body)) = table.split_first() else {
        return Err("harness: result table without a header".into());
    };
    let mut expected = Vec::with_capacity(body.len());
    for row in body {
        let mut r = Vec::with_capacity(row.len());
        for cell in row {
            r.push(values::parse_value(cell).map_err(|e| format!("harness: cannot parse expected value: {e}"))?);
        }
        expected.push(r);
    }
    let (columns, rows, _) = last_ok(st)?;
    let expected_text = table
        .iter()
        .map(|r| format!("    | {} |", r.join(" | ")))
        .collect::<Vec<_>>()
        .join("\n");
    let actual_text = format!("    | {} |\n{}", columns.join(" | "), render_rows(rows));
    let fail = |st: &mut State<'_>, reason: String| {
        let _ = writeln!(st.details, "  expected:\n{expected_text}\n  actual:\n{actual_text}");
        Err(reason)
    };
    if columns != header.as_slice() {
        return fail(st, format!("columns differ: expected {header:?}, got {columns:?}"));
    }
    if rows.iter().any(|r| r.len() != columns.len()) {
        return fail(st, "a row's length differs from the number of columns".into());
    }
    if !compare::rows_match(&expected, rows, ordered, lists) {
        let reason = if expected.len() != rows.len() {
            format!("wrong result: expected {} rows, got {}", expected.len(), rows.len())
        } else if ordered && compare::rows_match(&expected, rows, false, lists) {
            "wrong result: right rows in the wrong order".to_owned()
        } else {
            "wrong result: rows differ".to_owned()
        };
        return fail(st, reason);
    }
    Ok(())
}

const SIDE_EFFECTS: [&str; 8] = [
    "+nodes",
    "-nodes",
    "+relationships",
    "-relationships",
    "+labels",
    "-labels",
    "+properties",
    "-properties",
];

/// Compares the side effects (unlisted counters must be zero). As in the TCK, they are the
/// difference between the graph's state before and after the query: node and relationship
/// ids, label *names* present anywhere (creating five `:L` nodes is `+labels 1`), and
/// (entity, key, value) property triples (changing a value is `+properties 1, -properties 1`;
/// deleting a node removes its properties).
fn check_side_effects(st: &mut State<'_>, table: &[Vec<String>]) -> Result<(), String> {
    let mut want = [0u64; SIDE_EFFECTS.len()];
    for row in table {
        let [key, n] = row.as_slice() else {
            return Err(format!("harness: bad side-effects row {row:?}"));
        };
        let Some(i) = SIDE_EFFECTS.iter().position(|k| k == key) else {
            return Err(format!("unsupported step: side effect {key}"));
        };
        want[i] = n.parse().map_err(|_| format!("harness: bad side-effect count {n:?}"))?;
    }
    let stats = *last_ok(st)?.2;
    let from_stats = stats_effects(&stats);
    let got = if st.ctx.side_effects_from_stats {
        from_stats
    } else {
        match &st.effects {
            Some(Ok(e)) => *e,
            Some(Err(e)) => return Err(e.clone()),
            None => return Err("harness: no graph snapshot around the query".into()),
        }
    };
    if from_stats != want {
        st.stats_disagree = true;
    }
    let diffs: Vec<String> = SIDE_EFFECTS
        .iter()
        .zip(want.iter().zip(got))
        .filter(|(_, (w, g))| *w != g)
        .map(|(k, (w, g))| format!("{k} expected {w} got {g}"))
        .collect();
    if diffs.is_empty() {
        Ok(())
    } else {
        let _ = writeln!(st.details, "  query statistics: {stats:?}");
        Err(format!("side effects differ: {}", diffs.join(", ")))
    }
}

fn check_error(st: &mut State<'_>, class: &str, phase: &str, detail: &str) -> Result<(), String> {
    let want_phase = match phase {
        "compile time" => Some(hopdb_cypher::Phase::Compile),
        "runtime" => Some(hopdb_cypher::Phase::Runtime),
        "any time" => None,
        _ => return Err(format!("unsupported step: error phase {phase:?}")),
    };
    let expected = format!("{class} at {phase}: {detail}");
    match &st.last {
        None => Err("harness: no query was executed before this step".into()),
        Some(Exec::Done { rows, .. }) => {
            let _ = writeln!(
                st.details,
                "  expected error: {expected}\n  actual rows:\n{}",
                render_rows(rows)
            );
            Err(format!("expected {expected}, but the query succeeded"))
        }
        Some(Exec::Failed(e)) => {
            let got = describe_error(e);
            if e.class.as_str() != class || want_phase.is_some_and(|p| p != e.phase) {
                let _ = writeln!(st.details, "  expected error: {expected}");
                return Err(format!("expected {expected}, got {got}"));
            }
            if detail != "*" && e.detail != detail && st.detail_mismatch.is_none() {
                st.detail_mismatch = Some((detail.to_owned(), e.detail.to_owned()));
            }
            Ok(())
        }
    }
}

/// `there exists a procedure name(in :: T, ...) :: (out :: T, ...):` with a table whose
/// header lists the inputs then the outputs: registers a procedure that, for given
/// arguments, returns the outputs of every row whose inputs equal them (null equal to null;
/// the table's inputs converted to the input types, as the arguments are).
fn define_procedure(st: &mut State<'_>, sig: &str, table: &[Vec<String>]) -> Result<(), String> {
    let sig = sig.trim();
    let sig = sig.strip_suffix(':').unwrap_or(sig);
    let sig = ProcedureSignature::parse(sig).map_err(|e| format!("harness: {e}"))?;
    let (ni, no) = (sig.inputs.len(), sig.outputs.len());
    let mut rows: Vec<(Vec<Value>, Vec<Value>)> = Vec::new();
    if let Some((header, body)) = table.split_first() {
        let names: Vec<&String> = sig.inputs.iter().chain(&sig.outputs).map(|(n, _)| n).collect();
        if !(header.is_empty() && body.is_empty()) && header.iter().collect::<Vec<_>>() != names {
            return Err(format!("harness: procedure table header {header:?} is not {names:?}"));
        }
        for row in body {
            if row.len() != ni + no {
                return Err(format!("harness: procedure table row {row:?} has the wrong width"));
            }
            let mut vals = Vec::with_capacity(row.len());
            for (cell, (n, t)) in row.iter().zip(sig.inputs.iter().chain(&sig.outputs)) {
                let v = values::parse_value(cell).and_then(|e| values::to_param(&e));
                let v = v.map_err(|e| format!("harness: procedure table cell {cell:?}: {e}"))?;
                vals.push(
                    t.coerce(v)
                        .ok_or_else(|| format!("harness: {cell} is not a {t} ({n})"))?,
                );
            }
            let outs = vals.split_off(ni);
            rows.push((vals, outs));
        }
    }
    let body = move |args: &[Value]| {
        Ok(rows
            .iter()
            .filter(|(ins, _)| ins.len() == args.len() && ins.iter().zip(args).all(|(a, b)| equivalent(a, b)))
            .map(|(_, outs)| outs.clone())
            .collect())
    };
    st.engine
        .register_procedure(sig, Arc::new(body))
        .map_err(|e| format!("harness: cannot register the procedure: {}", describe_error(&e)))
}

/// Runs a named graph's create script (`graphs/<name>/<name>.cypher`; statements split at a
/// `;` that ends a line).
fn load_graph(st: &mut State<'_>, name: &str) -> Result<(), String> {
    let path = st.ctx.graphs_dir.join(name).join(format!("{name}.cypher"));
    let script = std::fs::read_to_string(&path)
        .map_err(|e| format!("unsupported step: graph {name} ({}: {e})", path.display()))?;
    let mut statement = String::new();
    let mut statements = Vec::new();
    for line in script.lines() {
        let t = line.trim_end();
        if let Some(body) = t.strip_suffix(';') {
            statement.push_str(body);
            statements.push(std::mem::take(&mut statement));
        } else {
            statement.push_str(t);
            statement.push('\n');
        }
    }
    statements.push(statement);
    for s in statements.iter().filter(|s| !s.trim().is_empty()) {
        if let Exec::Failed(e) = st.run(s) {
            return Err(format!("setup: graph {name} failed to load: {}", describe_error(&e)));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{diff, GraphState};

    #[test]
    fn side_effects_are_a_state_difference() {
        let mut before = GraphState::default();
        before.nodes.extend([1, 2]);
        before.labels.insert("A".into());
        before.props.insert((true, 1, "x".into(), "1".into()));
        before.props.insert((true, 2, "y".into(), "'a'".into()));
        let mut after = before.clone();
        // Node 2 deleted (with its property), node 3 created with labels A and B,
        // node 1's x changed from 1 to 2.
        after.nodes.remove(&2);
        after.nodes.insert(3);
        after.labels.insert("B".into());
        after.props.remove(&(true, 2, "y".into(), "'a'".into()));
        after.props.remove(&(true, 1, "x".into(), "1".into()));
        after.props.insert((true, 1, "x".into(), "2".into()));
        after.rels.insert(7);
        // +nodes -nodes +rels -rels +labels -labels +props -props
        assert_eq!(diff(&before, &after), [1, 1, 1, 0, 1, 0, 1, 2]);
    }
}
