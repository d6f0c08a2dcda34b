//! Bad input lines: fail at the first one, or (when asked) skip them into a report file up to
//! a tolerance, as neo4j-admin's `--skip-bad-relationships`, `--skip-duplicate-nodes` and
//! `--bad-tolerance` do.

use crate::error::{io, ImportError, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The kinds of bad entries, each skippable by its own flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BadKind {
    /// A node id given twice (`--skip-duplicate-nodes`).
    DuplicateNode,
    /// A relationship to an id no node file defines, or of an unknown id group
    /// (`--skip-bad-relationships`).
    BadRelationship,
    /// A line that cannot be parsed: column count, number format, quoting (only
    /// `--bad-tolerance` skips these).
    Malformed,
}

/// What to do with bad entries.
#[derive(Debug, Clone, Default)]
pub struct BadPolicy {
    /// Skip a node whose id an earlier row already defined (`--skip-duplicate-nodes`).
    pub skip_duplicate_nodes: bool,
    /// Skip a relationship to an id no node file defines (`--skip-bad-relationships`).
    pub skip_bad_relationships: bool,
    /// Skip up to this many bad entries of any kind (neo4j-admin's default, 1000, applies
    /// when a skip flag is given without it).
    pub tolerance: Option<u64>,
    /// Where skipped lines are listed (default `import.report` in the working directory,
    /// like neo4j-admin).
    pub report: Option<PathBuf>,
}

pub(crate) struct BadLog {
    policy: BadPolicy,
    report_path: PathBuf,
    report: Option<std::io::BufWriter<std::fs::File>>,
    pub count: u64,
    /// Entries listed by [`BadLog::note`].
    pub notes: u64,
}

impl BadLog {
    pub(crate) fn new(policy: BadPolicy) -> Self {
        let report_path = policy.report.clone().unwrap_or_else(|| PathBuf::from("import.report"));
        BadLog {
            policy,
            report_path,
            report: None,
            count: 0,
            notes: 0,
        }
    }

    fn skips(&self, kind: BadKind) -> bool {
        self.policy.tolerance.is_some()
            || match kind {
                BadKind::DuplicateNode => self.policy.skip_duplicate_nodes,
                BadKind::BadRelationship => self.policy.skip_bad_relationships,
                BadKind::Malformed => false,
            }
    }

    /// Records a bad entry: Ok (skip it) or the error that stops the import.
    pub(crate) fn bad(
        &mut self,
        kind: BadKind,
        file: &Path,
        line: u64,
        column: Option<String>,
        reason: String,
    ) -> Result<()> {
        let err = ImportError::Bad {
            file: file.to_owned(),
            line,
            column: column.clone(),
            reason,
        };
        if !self.skips(kind) {
            return Err(err);
        }
        self.count += 1;
        self.write(&err)?;
        let tolerance = self.policy.tolerance.unwrap_or(1000);
        if self.count > tolerance {
            self.flush()?;
            let ImportError::Bad { reason, .. } = err else {
                return Err(err);
            };
            return Err(ImportError::TooManyBad {
                file: file.to_owned(),
                line,
                reason: match column {
                    Some(c) => format!("column {c}: {reason}"),
                    None => reason,
                },
                count: self.count,
                tolerance,
                report: self.report_path.clone(),
            });
        }
        Ok(())
    }

    /// Lists an entry that was loaded differently from how it was written (e.g. merged into
    /// an earlier one) in the report, without counting it as bad.
    pub(crate) fn note(&mut self, file: &Path, line: u64, what: String) -> Result<()> {
        self.notes += 1;
        self.write(&format!("{}:{line}: {what}", file.display()))
    }

    fn write(&mut self, entry: &dyn std::fmt::Display) -> Result<()> {
        if self.report.is_none() {
            let f = std::fs::File::create(&self.report_path).map_err(io(&self.report_path))?;
            self.report = Some(std::io::BufWriter::new(f));
        }
        if let Some(w) = self.report.as_mut() {
            writeln!(w, "{entry}").map_err(io(&self.report_path))?;
        }
        Ok(())
    }

    pub(crate) fn flush(&mut self) -> Result<()> {
        if let Some(w) = self.report.as_mut() {
            w.flush().map_err(io(&self.report_path))?;
        }
        Ok(())
    }

    pub(crate) fn report_path(&self) -> Option<&Path> {
        self.report.as_ref().map(|_| self.report_path.as_path())
    }
}
