//! Plain edge lists as SNAP, networkrepository, SuiteSparse and DIMACS publish them.
//!
//! - `#` and `%` start comment lines; fields are split on whitespace, tabs or commas;
//! - a MatrixMarket banner (`%%MatrixMarket matrix coordinate FIELD SYMMETRY`) is read: its
//!   size line is skipped, `symmetric` makes the type undirected, a non-`pattern` field gives
//!   a weight column;
//! - DIMACS shortest-path files: `c` comments, the `p sp N M` line, `a U V W` arcs (weighted);
//! - `skip_lines` skips leading data lines (e.g. a `NODES EDGES` count line);
//! - a first line of non-numeric column names (`id_1,id_2`) is taken as a header and skipped
//!   when ids are integers.
//!
//! Undirected input makes the edge type undirected: one edge per unordered pair, listed from
//! both ends, so files that store both directions (`u v` and `v u`) load each pair once.
//! Repeated pairs (parallel arcs) merge into one edge (the last weight wins) unless `multi`
//! keeps each line as its own edge. Self-loops are kept.

use crate::bad::BadKind;
use crate::error::{ImportError, Result};
use crate::neo4j::IdType;
use crate::Run;
use hopdb_core::{EdgeTypeOptions, NodeKey, Props};
use std::io::BufRead;
use std::path::PathBuf;

/// One edge-list file to import.
#[derive(Debug, Clone)]
pub struct EdgeList {
    /// The file, gzip when its name ends in `.gz`.
    pub file: PathBuf,
    /// The edge type (default `EDGE`).
    pub ty: String,
    /// Make the edge type undirected (a MatrixMarket `symmetric` banner does it too).
    pub undirected: bool,
    /// Read the third column as the weight (MatrixMarket and DIMACS files say so themselves).
    pub weighted: bool,
    /// Keep parallel edges (one edge per line).
    pub multi: bool,
    /// Leading data lines to skip.
    pub skip_lines: u64,
    /// Integer ids (SNAP) or strings.
    pub id_type: IdType,
}

impl EdgeList {
    /// `file` with the defaults: type `EDGE`, directed, unweighted, simple, string ids.
    pub fn new(file: impl Into<PathBuf>) -> Self {
        EdgeList {
            file: file.into(),
            ty: "EDGE".into(),
            undirected: false,
            weighted: false,
            multi: false,
            skip_lines: 0,
            id_type: IdType::Integer,
        }
    }

    pub(crate) fn type_options(&self) -> EdgeTypeOptions {
        let (undirected, _) = self.sniff().unwrap_or((self.undirected, false));
        EdgeTypeOptions {
            undirected: self.undirected || undirected,
            multi: self.multi,
        }
    }

    /// Reads a MatrixMarket banner, if any: (symmetric, has values).
    fn sniff(&self) -> Option<(bool, bool)> {
        let r = crate::input::open(&self.file, Default::default()).ok()?;
        let mut first = String::new();
        std::io::BufReader::new(r).read_line(&mut first).ok()?;
        mm_banner(&first)
    }
}

fn mm_banner(line: &str) -> Option<(bool, bool)> {
    let l = line.trim().to_ascii_lowercase();
    if !l.starts_with("%%matrixmarket") {
        return None;
    }
    let words: Vec<&str> = l.split_whitespace().collect();
    let field = words.get(3).copied().unwrap_or("pattern");
    let symmetry = words.get(4).copied().unwrap_or("general");
    Some((symmetry == "symmetric" || symmetry == "hermitian", field != "pattern"))
}

fn key(id_type: IdType, s: &str) -> std::result::Result<NodeKey, String> {
    match id_type {
        IdType::String | IdType::Json => Ok(NodeKey::Str(s.to_string())),
        IdType::Integer => s
            .parse::<i64>()
            .map(NodeKey::Int)
            .map_err(|_| format!("node id '{s}' is not an integer (use --id-type=string)")),
    }
}

pub(crate) fn read(run: &mut Run, e: &EdgeList) -> Result<()> {
    let r = crate::input::open(&e.file, run.bytes.clone())?;
    let mut lines = std::io::BufReader::with_capacity(1 << 20, r);
    let mut buf = String::new();
    let mut line_no = 0u64;
    let mut skip = e.skip_lines;
    let mut weighted = e.weighted;
    let mut mm_size_line = false;
    let mut first_data = true;
    loop {
        buf.clear();
        let n = lines.read_line(&mut buf).map_err(|source| ImportError::Io {
            path: e.file.clone(),
            source,
        })?;
        if n == 0 {
            break;
        }
        line_no += 1;
        let t = buf.trim();
        if line_no == 1 {
            if let Some((_, values)) = mm_banner(t) {
                mm_size_line = true;
                weighted |= values;
                continue;
            }
        }
        if t.is_empty() || t.starts_with('#') || t.starts_with('%') || t.starts_with("c ") || t == "c" {
            continue;
        }
        if t.starts_with("p ") {
            continue; // DIMACS problem line
        }
        if std::mem::take(&mut mm_size_line) {
            continue;
        }
        if skip > 0 {
            skip -= 1;
            continue;
        }
        let mut fields = t
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|f| !f.is_empty());
        let mut a = fields.next();
        if a == Some("a") {
            weighted = true; // DIMACS arc
            a = fields.next();
        }
        let (Some(a), Some(b)) = (a, fields.next()) else {
            run.bad.bad(
                BadKind::Malformed,
                &e.file,
                line_no,
                None,
                format!("expected two node ids, found '{t}'"),
            )?;
            continue;
        };
        let w = if weighted { fields.next() } else { None };
        if first_data && e.id_type == IdType::Integer && a.parse::<i64>().is_err() && b.parse::<i64>().is_err() {
            first_data = false;
            continue; // a header line of column names
        }
        first_data = false;
        let (src, dst) = match (key(e.id_type, a), key(e.id_type, b)) {
            (Ok(s), Ok(d)) => (s, d),
            (Err(m), _) | (_, Err(m)) => {
                run.bad.bad(BadKind::Malformed, &e.file, line_no, None, m)?;
                continue;
            }
        };
        let weight = match w {
            None if weighted => {
                run.bad.bad(
                    BadKind::Malformed,
                    &e.file,
                    line_no,
                    Some("3".into()),
                    "no weight column".into(),
                )?;
                continue;
            }
            None => None,
            Some(w) => match w.parse::<f64>() {
                Ok(x) if x.is_finite() => Some(x),
                _ => {
                    run.bad.bad(
                        BadKind::Malformed,
                        &e.file,
                        line_no,
                        Some("3".into()),
                        format!("weight '{w}' is not a finite number"),
                    )?;
                    continue;
                }
            },
        };
        if let Err(err) = run.load.add_edge(src, &e.ty, dst, weight, Props::new()) {
            run.bad
                .bad(BadKind::Malformed, &e.file, line_no, None, err.to_string())?;
            continue;
        }
        if run.load.rows().is_multiple_of(65_536) {
            run.tick();
        }
    }
    Ok(())
}
