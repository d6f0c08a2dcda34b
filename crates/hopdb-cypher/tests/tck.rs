#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The openCypher TCK (1.0.0-M23) conformance run.
//!
//! The feature files are fetched from Maven Central by `scripts/fetch-tck.sh` into
//! `~/.cache/hopdb/tck-1.0.0-M23` (or `$HOPDB_TCK_DIR`), never checked in. Every scenario
//! (outline example rows included) runs on a fresh in-memory database, in its own thread
//! with a timeout, two at a time. Results go to `$CARGO_TARGET_DIR/tck/report.md` and
//! `results.txt` (`report-filtered.md` / `results-filtered.txt` under a filter); the per-area
//! table is printed.
//!
//! The regression gate: `tests/tck-pass-list.txt` lists scenarios that passed before; the test
//! fails naming each one that no longer passes. `HOPDB_TCK_UPDATE=1` rewrites the list with
//! this run's passes.
//!
//! Environment: `HOPDB_TCK_FILTER=substring` (run only matching ids, print failures in
//! detail; with `HOPDB_TCK_VERBOSE=1` passes too), `HOPDB_TCK_TIMEOUT_SECS` (default 10),
//! `HOPDB_TCK_THREADS` (default 2), `HOPDB_TCK_DIR`, `CI=true` (a missing TCK fails instead
//! of skipping), `HOPDB_TCK_SIDE_EFFECTS=stats` (judge side effects by the engine's
//! `QueryStats` rather than, as the TCK does, by a difference of graph states read with
//! `MATCH (n) RETURN n` and `MATCH ()-[r]->() RETURN r` around the query).

#[path = "tck/compare.rs"]
mod compare;
#[path = "tck/gherkin.rs"]
mod gherkin;
#[path = "tck/report.rs"]
mod report;
#[path = "tck/runner.rs"]
mod runner;
#[path = "tck/values.rs"]
mod values;

use report::ScenarioResult;
use std::collections::{BTreeSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

const TCK_VERSION: &str = "1.0.0-M23";
const SKIP_TAGS: [&str; 1] = ["ignore"];

fn manifest_dir() -> PathBuf {
    PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string()))
}

fn tck_dir() -> PathBuf {
    match std::env::var_os("HOPDB_TCK_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => {
            let home = std::env::var_os("HOME")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from("."));
            home.join(".cache/hopdb").join(format!("tck-{TCK_VERSION}"))
        }
    }
}

/// The features directory, fetching the TCK when absent; `Err` with the reason when it cannot.
fn features_dir() -> Result<PathBuf, String> {
    let dir = tck_dir();
    let features = dir.join("features");
    if dir.join(".complete").exists() && features.is_dir() {
        return Ok(features);
    }
    let script = manifest_dir().join("../../scripts/fetch-tck.sh");
    println!(
        "tck: features not found in {}; running {}",
        dir.display(),
        script.display()
    );
    let out = std::process::Command::new("bash")
        .arg(&script)
        .env("HOPDB_TCK_DIR", &dir)
        .env("HOPDB_TCK_VERSION", TCK_VERSION)
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
    if !out.status.success() {
        return Err(format!("{} failed ({})", script.display(), out.status));
    }
    if features.is_dir() {
        Ok(features)
    } else {
        Err(format!(
            "{} ran but {} is missing",
            script.display(),
            features.display()
        ))
    }
}

fn report_dir() -> PathBuf {
    let target = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        // target/<profile>/deps/tck-<hash>
        _ => std::env::current_exe()
            .ok()
            .and_then(|p| Some(p.parent()?.parent()?.parent()?.to_path_buf()))
            .unwrap_or_else(|| manifest_dir().join("../../target")),
    };
    target.join("tck")
}

fn collect_features(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect_features(&p, out);
        } else if p.extension().is_some_and(|x| x == "feature") {
            out.push(p);
        }
    }
}

struct Job {
    id: String,
    area: String,
    scenario: gherkin::Scenario,
}

fn scenario_id(feature_rel: &str, sc: &gherkin::Scenario) -> String {
    match sc.example {
        Some(i) => format!("{feature_rel}:{}#{i}", sc.name),
        None => format!("{feature_rel}:{}", sc.name),
    }
}

/// Loads every scenario: (jobs, skipped by tag, feature count).
fn load_jobs(features: &Path, filter: Option<&str>) -> (Vec<Job>, usize, usize) {
    let mut files = Vec::new();
    collect_features(features, &mut files);
    files.sort();
    let mut jobs = Vec::new();
    let mut skipped = 0;
    let mut seen = BTreeSet::new();
    for f in &files {
        let rel = f
            .strip_prefix(features)
            .unwrap_or(f)
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(f).unwrap_or_else(|e| panic!("read {}: {e}", f.display()));
        let feature = gherkin::parse(&text).unwrap_or_else(|e| panic!("{rel}: {e}"));
        for sc in feature.scenarios {
            let mut id = scenario_id(&rel, &sc);
            if !seen.insert(id.clone()) {
                id = format!("{id}@line{}", sc.line);
                seen.insert(id.clone());
            }
            if filter.is_some_and(|f| !id.contains(f)) {
                continue;
            }
            if sc.tags.iter().any(|t| SKIP_TAGS.contains(&t.as_str())) {
                skipped += 1;
                continue;
            }
            jobs.push(Job {
                id,
                area: report::area_of(&rel),
                scenario: sc,
            });
        }
    }
    (jobs, skipped, files.len())
}

thread_local! {
    /// Where the last panic on this thread happened (the quiet panic hook fills it).
    static PANIC_AT: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

const SCENARIO_THREAD: &str = "tck-scenario";

/// Silences panics on scenario threads (they are reported as failures) while keeping the
/// default output for every other thread.
fn install_quiet_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if std::thread::current().name() == Some(SCENARIO_THREAD) {
                let at = info.location().map(|l| format!("{}:{}", l.file(), l.line()));
                PANIC_AT.with(|p| *p.borrow_mut() = at);
            } else {
                default(info);
            }
        }));
    });
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_owned()
    }
}

/// Runs one scenario on its own thread; a panic or a timeout is a failure.
fn supervise(job: &Job, graphs_dir: &Path, timeout: Duration, from_stats: bool, hung: &AtomicUsize) -> runner::Outcome {
    let (tx, rx) = mpsc::channel();
    let cancel = Arc::new(AtomicBool::new(false));
    let scenario = job.scenario.clone();
    let graphs = graphs_dir.to_path_buf();
    let flag = cancel.clone();
    let spawned = std::thread::Builder::new()
        .name(SCENARIO_THREAD.into())
        .stack_size(64 << 20)
        .spawn(move || {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let ctx = runner::Context {
                    graphs_dir: &graphs,
                    cancel: flag,
                    timeout,
                    side_effects_from_stats: from_stats,
                };
                runner::run_scenario(&scenario, &ctx)
            }));
            let r = r.map_err(|p| {
                let at = PANIC_AT.with(|a| a.borrow_mut().take()).unwrap_or_default();
                format!("{} at {at}", panic_message(p.as_ref()))
            });
            let _ = tx.send(r);
        });
    let handle = match spawned {
        Ok(h) => h,
        Err(e) => return runner::Outcome::fail(format!("harness: cannot spawn a thread: {e}")),
    };
    match rx.recv_timeout(timeout) {
        Ok(r) => {
            let _ = handle.join();
            match r {
                Ok(outcome) => outcome,
                Err(msg) => runner::Outcome::fail(format!("panic: {msg}")),
            }
        }
        Err(mpsc::RecvTimeoutError::Timeout) => {
            // Ask the engine to stop; the thread is left behind if it does not.
            cancel.store(true, Ordering::Relaxed);
            if rx.recv_timeout(Duration::from_secs(2)).is_ok() {
                let _ = handle.join();
            } else {
                hung.fetch_add(1, Ordering::Relaxed);
            }
            runner::Outcome::fail(format!("timeout after {} s", timeout.as_secs_f64()))
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => runner::Outcome::fail("panic: scenario thread died"),
    }
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[test]
fn tck() {
    let features = match features_dir() {
        Ok(f) => f,
        Err(why) => {
            let msg = format!(
                "the openCypher TCK is not available ({why}). Install Maven and run \
                 scripts/fetch-tck.sh, or set HOPDB_TCK_DIR to a directory holding features/."
            );
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("tck: FAILED: {msg} (CI=true, so this is an error)");
            }
            println!("tck: SKIPPED: {msg}");
            return;
        }
    };
    let graphs_dir = features.parent().map(|p| p.join("graphs")).unwrap_or_default();
    let filter = std::env::var("HOPDB_TCK_FILTER").ok().filter(|f| !f.is_empty());
    let update = std::env::var("HOPDB_TCK_UPDATE").is_ok_and(|v| v == "1" || v == "true");
    let timeout = Duration::from_secs(env_usize("HOPDB_TCK_TIMEOUT_SECS", 10) as u64);
    let threads = env_usize("HOPDB_TCK_THREADS", 2).max(1);
    let from_stats = std::env::var("HOPDB_TCK_SIDE_EFFECTS").is_ok_and(|v| v == "stats");

    let (jobs, skipped, n_features) = load_jobs(&features, filter.as_deref());
    println!(
        "tck: {n_features} feature files, {} scenarios to run ({skipped} skipped by tag){}, {threads} threads, {} s timeout",
        jobs.len(),
        filter.as_ref().map(|f| format!(" matching {f:?}")).unwrap_or_default(),
        timeout.as_secs()
    );
    install_quiet_panic_hook();

    let started = Instant::now();
    let total = jobs.len();
    let queue: Arc<Mutex<VecDeque<(usize, Job)>>> = Arc::new(Mutex::new(jobs.into_iter().enumerate().collect()));
    let results: Arc<Mutex<Vec<(usize, ScenarioResult, String)>>> = Arc::new(Mutex::new(Vec::new()));
    let done = Arc::new(AtomicUsize::new(0));
    let hung = Arc::new(AtomicUsize::new(0));
    std::thread::scope(|s| {
        for _ in 0..threads {
            let (queue, results, done, hung, graphs_dir) = (&queue, &results, &done, &hung, &graphs_dir);
            s.spawn(move || loop {
                let Some((i, job)) = queue.lock().unwrap().pop_front() else {
                    break;
                };
                let outcome = supervise(&job, graphs_dir, timeout, from_stats, hung);
                let r = ScenarioResult {
                    id: job.id.clone(),
                    area: job.area.clone(),
                    pass: outcome.pass,
                    reason: outcome.reason,
                    detail_mismatch: outcome.detail_mismatch,
                    stats_disagree: outcome.stats_disagree,
                };
                results.lock().unwrap().push((i, r, outcome.details));
                let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                if n % 500 == 0 {
                    println!(
                        "tck: {n}/{total} scenarios run ({:.0} s)",
                        started.elapsed().as_secs_f64()
                    );
                }
            });
        }
    });
    let secs = started.elapsed().as_secs_f64();
    let mut rows = std::mem::take(&mut *results.lock().unwrap());
    rows.sort_by_key(|r| r.0);
    if hung.load(Ordering::Relaxed) > 0 {
        println!(
            "tck: warning: {} scenario threads did not stop after their timeout and were left running",
            hung.load(Ordering::Relaxed)
        );
    }

    if filter.is_some() {
        let verbose = std::env::var("HOPDB_TCK_VERBOSE").is_ok_and(|v| v == "1");
        for (_, r, details) in rows.iter().filter(|(_, r, _)| verbose && r.pass) {
            println!("\nPASS {}\n{details}", r.id);
        }
        for (_, r, details) in rows.iter().filter(|(_, r, _)| !r.pass) {
            println!("\nFAIL {}\n  reason: {}\n{details}", r.id, r.reason);
        }
    }
    let results: Vec<ScenarioResult> = rows.into_iter().map(|(_, r, _)| r).collect();

    let table = report::area_table(&results);
    println!("\n{table}");
    let mismatches = results.iter().filter(|r| r.detail_mismatch.is_some()).count();
    println!("tck: {mismatches} passing error scenarios had a different detail code");
    let disagree = results.iter().filter(|r| r.stats_disagree).count();
    println!("tck: in {disagree} side-effect checks the engine's QueryStats differ from the TCK's side effects");

    let dir = report_dir();
    std::fs::create_dir_all(&dir).unwrap();
    // A filtered run leaves the full run's files alone.
    let suffix = if filter.is_some() { "-filtered" } else { "" };
    let report_md = dir.join(format!("report{suffix}.md"));
    let results_path = dir.join(format!("results{suffix}.txt"));
    std::fs::write(&report_md, report::markdown(&results, skipped, n_features, secs)).unwrap();
    std::fs::write(&results_path, report::results_txt(&results)).unwrap();
    println!(
        "tck: report in {}, per-scenario results in {}",
        report_md.display(),
        results_path.display()
    );

    let pass_list_path = manifest_dir().join("tests/tck-pass-list.txt");
    let pass_list = report::read_pass_list(&pass_list_path);
    if update {
        let mut ids: BTreeSet<String> = match &filter {
            // Under a filter, entries outside it are kept as they were.
            Some(f) => pass_list
                .iter()
                .filter(|id| !id.contains(f.as_str()))
                .cloned()
                .collect(),
            None => BTreeSet::new(),
        };
        ids.extend(results.iter().filter(|r| r.pass).map(|r| r.id.clone()));
        std::fs::write(&pass_list_path, report::pass_list_text(&ids)).unwrap();
        println!("tck: wrote {} ids to {}", ids.len(), pass_list_path.display());
        return;
    }
    let covered = |id: &str| filter.as_deref().is_none_or(|f| id.contains(f));
    let regressed = report::regressions(&pass_list, &results, Some(&covered));
    if !regressed.is_empty() {
        let list: Vec<String> = regressed.iter().map(|(id, why)| format!("  {id}: {why}")).collect();
        panic!(
            "tck: {} scenarios of tests/tck-pass-list.txt no longer pass:\n{}\n\
             (if intended, regenerate the list with HOPDB_TCK_UPDATE=1)",
            regressed.len(),
            list.join("\n")
        );
    }
    println!("tck: pass list holds ({} ids)", pass_list.len());
}

// ---- the harness's own tests ----------------------------------------------------------------

#[cfg(test)]
mod harness_tests {
    use super::compare::{matches, multiset_match, render, rows_match, ListOrder};
    use super::gherkin;
    use super::values::{parse_value, to_param, ENode, ERel, Expected};
    use hopdb_cypher::{Map, Value};

    fn s(x: &str) -> Expected {
        Expected::String(x.into())
    }

    #[test]
    fn parses_scalars() {
        assert_eq!(parse_value("null").unwrap(), Expected::Null);
        assert_eq!(parse_value(" true ").unwrap(), Expected::Bool(true));
        assert_eq!(parse_value("-9223372036854775808").unwrap(), Expected::Int(i64::MIN));
        assert_eq!(parse_value("1e-305").unwrap(), Expected::Float(1e-305, "1e-305".into()));
        assert_eq!(parse_value("-0.5").unwrap(), Expected::Float(-0.5, "-0.5".into()));
        assert!(matches!(parse_value("NaN").unwrap(), Expected::Float(f, _) if f.is_nan()));
        assert!(matches!(parse_value("-Infinity").unwrap(), Expected::Float(f, _) if f == f64::NEG_INFINITY));
        assert_eq!(parse_value("''").unwrap(), s(""));
        assert_eq!(parse_value(r"'Jerry O\'Connell'").unwrap(), s("Jerry O'Connell"));
        // Literals6 [5]: the cell (after Gherkin unescaping) and the value it stands for.
        assert_eq!(
            parse_value(r#"'a\\bcn5t\'"\\//\\"\''"#).unwrap(),
            s(r#"a\bcn5t'"\//\"'"#)
        );
        assert_eq!(parse_value("'🧐🍌❖⋙⚐'").unwrap(), s("🧐🍌❖⋙⚐"));
        assert!(parse_value("1 2").is_err());
        assert!(parse_value("'open").is_err());
    }

    #[test]
    fn parses_structures() {
        assert_eq!(parse_value("[]").unwrap(), Expected::List(vec![]));
        assert_eq!(
            parse_value("[1, [2, 'x'], {}]").unwrap(),
            Expected::List(vec![
                Expected::Int(1),
                Expected::List(vec![Expected::Int(2), s("x")]),
                Expected::Map(vec![])
            ])
        );
        assert_eq!(
            parse_value("{``: null, `a b`: 1, name: 'x'}").unwrap(),
            Expected::Map(vec![
                ("".into(), Expected::Null),
                ("a b".into(), Expected::Int(1)),
                ("name".into(), s("x"))
            ])
        );
        assert_eq!(
            parse_value("(:A:B {name: 'x'})").unwrap(),
            Expected::Node(ENode {
                labels: vec!["A".into(), "B".into()],
                props: vec![("name".into(), s("x"))]
            })
        );
        assert_eq!(
            parse_value("()").unwrap(),
            Expected::Node(ENode {
                labels: vec![],
                props: vec![]
            })
        );
        assert_eq!(
            parse_value("[:T {k: 1}]").unwrap(),
            Expected::Rel(ERel {
                ty: "T".into(),
                props: vec![("k".into(), Expected::Int(1))]
            })
        );
        let Expected::Path(start, steps) =
            parse_value("<({time: 20})<-[:T]-({time: 10})-[:U {w: 1.5}]->(:B)>").unwrap()
        else {
            panic!("not a path")
        };
        assert_eq!(start.props, vec![("time".into(), Expected::Int(20))]);
        assert_eq!(steps.len(), 2);
        assert!(!steps[0].1 && steps[1].1);
        assert_eq!(steps[1].0.ty, "U");
        assert_eq!(steps[1].2.labels, vec!["B".to_owned()]);
        // A list of paths, and an empty path.
        assert!(matches!(parse_value("[<(:A)-[:T]->(:B)>]").unwrap(), Expected::List(l) if l.len() == 1));
        assert!(matches!(parse_value("<()>").unwrap(), Expected::Path(_, s) if s.is_empty()));
        assert!(parse_value("{a: 1, a: 2}").is_err());
    }

    #[test]
    fn params_convert() {
        let v = to_param(&parse_value("{name: 'Alice', tags: [1, 2.5, null]}").unwrap()).unwrap();
        let mut m = Map::new();
        m.insert("name".into(), Value::from("Alice"));
        m.insert(
            "tags".into(),
            Value::List(vec![Value::Int(1), Value::Float(2.5), Value::Null]),
        );
        assert_eq!(v, Value::Map(m));
        assert!(to_param(&parse_value("(:A)").unwrap()).is_err());
    }

    #[test]
    fn compares_values() {
        let strict = ListOrder::Strict;
        let e = |t: &str| parse_value(t).unwrap();
        assert!(matches(&e("1"), &Value::Int(1), strict));
        assert!(!matches(&e("1"), &Value::Float(1.0), strict));
        assert!(!matches(&e("1.0"), &Value::Int(1), strict));
        assert!(matches(&e("0.1"), &Value::Float(0.1), strict));
        assert!(matches(
            &e("3985764.3405892686"),
            &Value::Float(3_985_764.340_589_268_7),
            strict
        ));
        assert!(matches(&e("NaN"), &Value::Float(f64::NAN), strict));
        assert!(!matches(&e("NaN"), &Value::Float(1.0), strict));
        // Printed with fewer digits than the value has.
        assert!(matches(&e("0.3333333333"), &Value::Float(1.0 / 3.0), strict));
        assert!(!matches(&e("0.3333333334"), &Value::Float(1.0 / 3.0), strict));
        assert!(!matches(&e("0.1"), &Value::Float(0.30000000000000004), strict));
        assert!(matches(&e("null"), &Value::Null, strict));
        assert!(!matches(&e("null"), &Value::Int(0), strict));
        assert!(matches(&e("'a'"), &Value::from("a"), strict));
        let list = Value::List(vec![Value::Int(2), Value::Int(1)]);
        assert!(!matches(&e("[1, 2]"), &list, strict));
        assert!(matches(&e("[1, 2]"), &list, ListOrder::Ignore));
        assert!(!matches(&e("[1, 1]"), &list, ListOrder::Ignore));
        let mut m = Map::new();
        m.insert("a".into(), Value::Int(1));
        assert!(matches(&e("{a: 1}"), &Value::Map(m.clone()), strict));
        assert!(!matches(&e("{a: 1, b: null}"), &Value::Map(m.clone()), strict));
        m.insert("b".into(), Value::Null);
        assert!(matches(&e("{a: 1, b: null}"), &Value::Map(m), strict));
        assert_eq!(render(&Value::Float(1.0)), "1.0");
        assert_eq!(render(&Value::from("it's")), r"'it\'s'");
    }

    #[test]
    fn compares_rows() {
        let e: Vec<Vec<Expected>> = vec![vec![Expected::Int(1)], vec![Expected::Int(2)]];
        let a = vec![vec![Value::Int(2)], vec![Value::Int(1)]];
        assert!(rows_match(&e, &a, false, ListOrder::Strict));
        assert!(!rows_match(&e, &a, true, ListOrder::Strict));
        assert!(!rows_match(&e, &a[..1], false, ListOrder::Strict));
        // Bipartite matching, not greedy: x matches {0, 1}, y matches {0} only.
        assert!(multiset_match(&["x", "y"], &[0, 1], |e, a| *e == "x" || *a == 0));
    }

    #[test]
    fn gherkin_outlines_tables_and_docs() {
        let text = r#"
Feature: F
  Background:
    Given an empty graph

  @ignore
  Scenario: [1] plain
    When executing query:
      """
      MATCH (n)
        RETURN n
      """
    Then the result should be, in any order:
      | n |
      | 'a\|b' |
      | '\nx\\' |

  Scenario Outline: [2] outline <v>
    # a comment
    When executing query:
      """
      RETURN <v> AS v
      """
    Then the result should be, in order:
      | v   |
      | <r> |

    Examples:
      | v | r |
      | 1 | 1 |
      | 2 | 2 |

    Examples:
      | v   | r   |
      | 'x' | 'x' |
"#;
        let f = gherkin::parse(text).unwrap();
        assert_eq!(f.name, "F");
        assert_eq!(f.scenarios.len(), 4);
        let first = &f.scenarios[0];
        assert_eq!(first.tags, vec!["ignore".to_owned()]);
        assert_eq!(first.steps.len(), 3);
        assert_eq!(first.steps[0].text, "an empty graph");
        assert_eq!(first.steps[1].doc.as_deref(), Some("MATCH (n)\n  RETURN n"));
        let table = first.steps[2].table.as_ref().unwrap();
        assert_eq!(table[1], vec!["'a|b'".to_owned()]);
        assert_eq!(table[2], vec!["'\nx\\'".to_owned()]);
        let third = &f.scenarios[3];
        assert_eq!(third.example, Some(3));
        assert_eq!(third.name, "[2] outline 'x'");
        assert_eq!(third.steps[1].doc.as_deref(), Some("RETURN 'x' AS v"));
        assert_eq!(third.steps[2].table.as_ref().unwrap()[1], vec!["'x'".to_owned()]);
        assert_eq!(
            super::scenario_id("a/b/F.feature", third),
            "a/b/F.feature:[2] outline 'x'#3"
        );
        assert_eq!(super::report::area_of("clauses/match/Match1.feature"), "clauses/match");
        assert_eq!(super::report::area_of("useCases/Top.feature"), "useCases");
    }
}
