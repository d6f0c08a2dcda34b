//! What a query returns: column names, rows (pulled one at a time), update counters and,
//! for EXPLAIN / PROFILE, the plan.

use crate::error::Result;
use crate::value::Value;
use std::collections::VecDeque;
use std::sync::Arc;

/// One result row, values in column order.
pub type Row = Vec<Value>;

/// Counts of what a query changed (the TCK's side effects, Neo4j's query statistics).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QueryStats {
    /// Nodes created.
    pub nodes_created: u64,
    /// Nodes deleted.
    pub nodes_deleted: u64,
    /// Relationships created.
    pub relationships_created: u64,
    /// Relationships deleted.
    pub relationships_deleted: u64,
    /// Properties set (including to a new value over an old one).
    pub properties_set: u64,
    /// Properties removed (by REMOVE, or SET to null, or a replacing map).
    pub properties_removed: u64,
    /// Labels added.
    pub labels_added: u64,
    /// Labels removed.
    pub labels_removed: u64,
    /// Indexes created.
    pub indexes_added: u64,
    /// Indexes dropped.
    pub indexes_removed: u64,
    /// Constraints created.
    pub constraints_added: u64,
    /// Constraints dropped.
    pub constraints_removed: u64,
}

impl QueryStats {
    /// Whether the query changed anything.
    pub fn contains_updates(&self) -> bool {
        *self != QueryStats::default()
    }
}

/// One operator of a plan, as EXPLAIN and PROFILE show it.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanDescription {
    /// Operator name, e.g. `NodeByKey`, `Expand(All)`, `Filter`.
    pub operator: String,
    /// Details: variables, labels, predicates.
    pub details: String,
    /// The planner's row estimate.
    pub estimated_rows: f64,
    /// Rows produced (PROFILE only).
    pub rows: Option<u64>,
    /// Time spent in this operator, children excluded, in nanoseconds (PROFILE only).
    pub time_ns: Option<u64>,
    /// Inputs.
    pub children: Vec<PlanDescription>,
}

impl PlanDescription {
    /// The plan as an indented text tree.
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.render_into(&mut out, 0);
        out
    }

    fn render_into(&self, out: &mut String, depth: usize) {
        use std::fmt::Write;
        let _ = write!(out, "{}+{}", "  ".repeat(depth), self.operator);
        if !self.details.is_empty() {
            let _ = write!(out, " [{}]", self.details);
        }
        let _ = write!(out, " est={:.0}", self.estimated_rows);
        if let Some(r) = self.rows {
            let _ = write!(out, " rows={r}");
        }
        if let Some(t) = self.time_ns {
            let _ = write!(out, " time={:.3}ms", t as f64 / 1e6);
        }
        out.push('\n');
        for c in &self.children {
            c.render_into(out, depth + 1);
        }
    }
}

/// Where rows come from: a buffer filled by a finished query, or a live pipeline pulled lazily.
pub(crate) trait RowSource: Send {
    /// The next row, or `None` at the end.
    fn next_row(&mut self) -> Result<Option<Row>>;

    /// Every remaining row.
    fn rest(&mut self) -> Result<Vec<Row>> {
        let mut out = Vec::new();
        while let Some(r) = self.next_row()? {
            out.push(r);
        }
        Ok(out)
    }

    /// Every remaining row's only value (for a one-column result).
    fn rest_column(&mut self) -> Result<Vec<Value>> {
        Ok(self
            .rest()?
            .into_iter()
            .map(|mut r| r.pop().unwrap_or(Value::Null))
            .collect())
    }
}

/// A one-column result's values, kept without a vector per row until a row is asked for.
pub(crate) struct ColumnRows(pub std::vec::IntoIter<Value>);

impl RowSource for ColumnRows {
    fn next_row(&mut self) -> Result<Option<Row>> {
        Ok(self.0.next().map(|v| vec![v]))
    }

    fn rest_column(&mut self) -> Result<Vec<Value>> {
        // Collecting a whole `IntoIter` reuses its buffer: no copy.
        Ok(std::mem::take(&mut self.0).collect())
    }
}

impl RowSource for VecDeque<Row> {
    fn next_row(&mut self) -> Result<Option<Row>> {
        Ok(self.pop_front())
    }

    fn rest(&mut self) -> Result<Vec<Row>> {
        // No copy when the buffer is contiguous (a finished query's rows always are).
        Ok(Vec::from(std::mem::take(self)))
    }
}

/// The result of a query: columns, then rows as they are pulled.
pub struct QueryResult {
    pub(crate) columns: Arc<[String]>,
    pub(crate) rows: Box<dyn RowSource>,
    pub(crate) stats: QueryStats,
    pub(crate) plan: Option<PlanDescription>,
}

impl std::fmt::Debug for QueryResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueryResult")
            .field("columns", &self.columns)
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl QueryResult {
    /// A result with these columns and no rows.
    pub fn empty(columns: Vec<String>) -> QueryResult {
        QueryResult {
            columns: columns.into(),
            rows: Box::new(std::collections::VecDeque::<Row>::new()),
            stats: QueryStats::default(),
            plan: None,
        }
    }
    /// Column names in order.
    pub fn columns(&self) -> &[String] {
        &self.columns
    }
    /// The next row, or `None` when the result is exhausted.
    pub fn next_row(&mut self) -> Result<Option<Row>> {
        self.rows.next_row()
    }
    /// Every remaining row.
    pub fn collect_rows(mut self) -> Result<Vec<Row>> {
        self.rows.rest()
    }

    /// Every remaining row, leaving the result empty (its columns, counters and plan stay).
    pub fn take_rows(&mut self) -> Result<Vec<Row>> {
        self.rows.rest()
    }
    /// Every remaining value of a one-column result, in row order (the fast way to read a
    /// list of keys: no vector per row), leaving the result empty; `None`, taking nothing,
    /// when the result has more or fewer columns than one.
    pub fn take_column(&mut self) -> Result<Option<Vec<Value>>> {
        match self.columns.len() {
            1 => self.rows.rest_column().map(Some),
            _ => Ok(None),
        }
    }
    /// What the query changed.
    pub fn stats(&self) -> &QueryStats {
        &self.stats
    }
    /// The plan, for EXPLAIN and PROFILE (PROFILE's counters are final once the rows are consumed).
    pub fn plan(&self) -> Option<&PlanDescription> {
        self.plan.as_ref()
    }
}

impl Iterator for QueryResult {
    type Item = Result<Row>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_row().transpose()
    }
}
