//! The run's results: per-area table, report files, and the pass list (the regression gate).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

/// One scenario's result.
#[derive(Debug, Clone)]
pub struct ScenarioResult {
    /// `<feature path>:<scenario name>[#example]`.
    pub id: String,
    /// The feature's area (`clauses/match`, ...).
    pub area: String,
    /// Whether it passed.
    pub pass: bool,
    /// Why it failed.
    pub reason: String,
    /// Expected and actual error detail codes, when a passing error scenario's detail differed.
    pub detail_mismatch: Option<(String, String)>,
    /// Whether the engine's query statistics disagreed with the TCK's side effects.
    pub stats_disagree: bool,
}

/// The area of a feature path relative to `features/`: its directory at depth 2
/// (`clauses/match/Match1.feature` → `clauses/match`).
pub fn area_of(feature_path: &str) -> String {
    let parts: Vec<&str> = feature_path.split('/').collect();
    let dirs = &parts[..parts.len().saturating_sub(1)];
    if dirs.is_empty() {
        "(top)".into()
    } else {
        dirs[..dirs.len().min(2)].join("/")
    }
}

/// A short category for a failure reason, for the histogram.
pub fn category(reason: &str) -> String {
    if let Some(rest) = reason.strip_prefix("query failed: ") {
        // "query failed: FeatureNotSupported (FeatureNotSupported) ..." → class and detail.
        let head: String = rest.split(" at ").next().unwrap_or(rest).chars().take(80).collect();
        return format!("query failed: {head}");
    }
    if let Some(rest) = reason.strip_prefix("setup query failed: ") {
        let head: String = rest.split(" at ").next().unwrap_or(rest).chars().take(80).collect();
        return format!("setup query failed: {head}");
    }
    if reason.starts_with("unsupported step") {
        let mut s: String = reason.chars().take(60).collect();
        if let Some(i) = s.find('(') {
            s.truncate(i);
        }
        return s.trim_end().to_owned();
    }
    for prefix in [
        "wrong result",
        "columns differ",
        "side effects differ",
        "timeout",
        "panic",
        "harness",
    ] {
        if reason.starts_with(prefix) {
            return prefix.to_owned();
        }
    }
    if reason.starts_with("expected ") {
        if reason.ends_with("but the query succeeded") {
            return "expected an error, query succeeded".into();
        }
        return "wrong error class or phase".into();
    }
    reason.chars().take(60).collect()
}

/// Per-area counts: (runnable, passed).
pub fn by_area(results: &[ScenarioResult]) -> BTreeMap<String, (usize, usize)> {
    let mut m: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for r in results {
        let e = m.entry(r.area.clone()).or_default();
        e.0 += 1;
        if r.pass {
            e.1 += 1;
        }
    }
    m
}

fn pct(passed: usize, total: usize) -> f64 {
    if total == 0 {
        0.0
    } else {
        100.0 * passed as f64 / total as f64
    }
}

/// The per-area table as plain text.
pub fn area_table(results: &[ScenarioResult]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{:<40} {:>9} {:>7} {:>7}", "area", "runnable", "passed", "%");
    let (mut t, mut p) = (0, 0);
    for (area, (n, ok)) in by_area(results) {
        t += n;
        p += ok;
        let _ = writeln!(out, "{area:<40} {n:>9} {ok:>7} {:>6.1}%", pct(ok, n));
    }
    let _ = writeln!(out, "{:<40} {t:>9} {p:>7} {:>6.1}%", "TOTAL", pct(p, t));
    out
}

/// The markdown report.
pub fn markdown(results: &[ScenarioResult], skipped: usize, features: usize, secs: f64) -> String {
    let mut out = String::new();
    let total = results.len();
    let passed = results.iter().filter(|r| r.pass).count();
    let _ = writeln!(out, "# openCypher TCK conformance\n");
    let _ = writeln!(
        out,
        "{features} feature files, {total} runnable scenarios ({skipped} skipped by tag), \
         **{passed} passed ({:.1}%)**, in {secs:.1} s.\n",
        pct(passed, total)
    );
    let _ = writeln!(out, "| area | runnable | passed | % |\n|---|---:|---:|---:|");
    for (area, (n, ok)) in by_area(results) {
        let _ = writeln!(out, "| {area} | {n} | {ok} | {:.1} |", pct(ok, n));
    }
    let _ = writeln!(out, "| **total** | {total} | {passed} | {:.1} |\n", pct(passed, total));

    let mut cats: BTreeMap<String, usize> = BTreeMap::new();
    for r in results.iter().filter(|r| !r.pass) {
        *cats.entry(category(&r.reason)).or_default() += 1;
    }
    let mut cats: Vec<_> = cats.into_iter().collect();
    cats.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let _ = writeln!(out, "## Failures by reason\n\n| reason | scenarios |\n|---|---:|");
    for (c, n) in &cats {
        let _ = writeln!(out, "| {} | {n} |", c.replace('|', "\\|"));
    }

    let mismatches: Vec<_> = results
        .iter()
        .filter_map(|r| Some((r, r.detail_mismatch.as_ref()?)))
        .collect();
    let _ = writeln!(
        out,
        "\n## Error detail codes\n\n{} passing error scenarios raised the right class and phase \
         with a different detail code:\n",
        mismatches.len()
    );
    for (r, (want, got)) in mismatches {
        let _ = writeln!(out, "- `{}`: expected {want}, got {got}", r.id);
    }

    let disagree: Vec<_> = results.iter().filter(|r| r.stats_disagree).collect();
    let _ = writeln!(
        out,
        "\n## Query statistics\n\nSide effects are judged as the TCK defines them (a difference of \
         graph states). In {} scenarios the engine's `QueryStats` counters differ from the \
         expected side effects (informational):\n",
        disagree.len()
    );
    for r in disagree {
        let _ = writeln!(out, "- `{}`{}", r.id, if r.pass { "" } else { " (failing)" });
    }
    out
}

/// `results.txt`: one line per scenario, sorted by id: `PASS <id>` or `FAIL <id>\t<reason>`.
pub fn results_txt(results: &[ScenarioResult]) -> String {
    let mut sorted: Vec<&ScenarioResult> = results.iter().collect();
    sorted.sort_by(|a, b| a.id.cmp(&b.id));
    let mut out = String::new();
    for r in sorted {
        if r.pass {
            let _ = writeln!(out, "PASS {}", r.id);
        } else {
            let _ = writeln!(out, "FAIL {}\t{}", r.id, r.reason);
        }
    }
    out
}

/// Reads the pass list: one id a line; blank lines and `#` comments ignored.
pub fn read_pass_list(path: &Path) -> BTreeSet<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

/// The pass list file's text for these ids.
pub fn pass_list_text(ids: &BTreeSet<String>) -> String {
    let mut out = String::from(
        "# openCypher TCK scenarios that passed (the regression gate of tests/tck.rs: each must keep passing).\n\
         # Regenerate: HOPDB_TCK_UPDATE=1 cargo test --release -p hopdb-cypher --test tck -- --nocapture\n",
    );
    for id in ids {
        out.push_str(id);
        out.push('\n');
    }
    out
}

/// Ids of the pass list that did not pass in this run (only those the run covered when
/// `covered` is given, i.e. under a filter).
pub fn regressions<'a>(
    pass_list: &'a BTreeSet<String>,
    results: &[ScenarioResult],
    covered: Option<&dyn Fn(&str) -> bool>,
) -> Vec<(&'a str, String)> {
    let by_id: BTreeMap<&str, &ScenarioResult> = results.iter().map(|r| (r.id.as_str(), r)).collect();
    pass_list
        .iter()
        .filter(|id| covered.is_none_or(|c| c(id)))
        .filter_map(|id| match by_id.get(id.as_str()) {
            Some(r) if r.pass => None,
            Some(r) => Some((id.as_str(), r.reason.clone())),
            None => Some((
                id.as_str(),
                "not found in this TCK run (renamed, removed or skipped)".to_owned(),
            )),
        })
        .collect()
}
