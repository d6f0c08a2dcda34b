//! Timing: the measurement window, per-client latency histograms and their summary, and the
//! process's own CPU time, peak RSS and the machine's load average.

use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use serde_json::{json, Value};

use crate::workload::{Kind, KINDS};

/// The recorded window: a query counts if it completes in [start, end].
#[derive(Debug, Clone, Copy)]
pub struct Window {
    pub start: Instant,
    pub end: Instant,
}

#[derive(Debug, PartialEq, Eq)]
pub enum Phase {
    /// Completed during the ramp: run, not recorded.
    Ramp,
    Inside,
    /// Completed after the window: not recorded, and the client stops.
    After,
}

impl Window {
    pub fn after_ramp(t0: Instant, ramp: Duration, window: Duration) -> Window {
        let start = t0 + ramp;
        Window {
            start,
            end: start + window,
        }
    }

    pub fn phase(&self, completed: Instant) -> Phase {
        if completed < self.start {
            Phase::Ramp
        } else if completed <= self.end {
            Phase::Inside
        } else {
            Phase::After
        }
    }
}

/// Up to this many error messages are kept in the output.
pub const ERROR_SAMPLES: usize = 10;

/// Latencies in nanoseconds at 3 significant digits (0.1% resolution); u32 counts keep a
/// client's 12 histograms at about 60 KB each for queries up to 10 ms (they grow with the range).
type Hist = Histogram<u32>;

fn new_hist() -> Hist {
    // Auto-resizing from 1 ns: cannot fail for these arguments.
    Histogram::new(3).unwrap_or_else(|_| unreachable!("3 significant digits are valid"))
}

/// One kind's figures.
#[derive(Clone)]
pub struct KindStats {
    hist: Option<Hist>,
    pub ok: u64,
    pub errors: u64,
    sum_ns: u128,
    max_ns: u64,
}

impl KindStats {
    fn new() -> KindStats {
        KindStats {
            hist: None,
            ok: 0,
            errors: 0,
            sum_ns: 0,
            max_ns: 0,
        }
    }

    fn record(&mut self, ns: u64) {
        let h = self.hist.get_or_insert_with(new_hist);
        // `record` grows an auto-resizing histogram; `saturating_record` would clamp to its
        // current top instead. It fails only past u64 indexing, where clamping is right.
        if h.record(ns.max(1)).is_err() {
            h.saturating_record(ns.max(1));
        }
        self.ok += 1;
        self.sum_ns += ns as u128;
        self.max_ns = self.max_ns.max(ns);
    }

    fn merge(&mut self, o: &KindStats) {
        if let Some(oh) = &o.hist {
            let h = self.hist.get_or_insert_with(new_hist);
            // Same configuration and auto-resize: adding cannot fail.
            let _ = h.add(oh);
        }
        self.ok += o.ok;
        self.errors += o.errors;
        self.sum_ns += o.sum_ns;
        self.max_ns = self.max_ns.max(o.max_ns);
    }

    fn quantile_us(&self, q: f64) -> Value {
        match &self.hist {
            Some(h) if self.ok > 0 => json!(round3(h.value_at_quantile(q) as f64 / 1e3)),
            _ => Value::Null,
        }
    }

    pub fn summary(&self) -> Value {
        let mean = if self.ok > 0 {
            json!(round3(self.sum_ns as f64 / self.ok as f64 / 1e3))
        } else {
            Value::Null
        };
        json!({
            "n": self.ok,
            "errors": self.errors,
            "p50_us": self.quantile_us(0.50),
            "p95_us": self.quantile_us(0.95),
            "p99_us": self.quantile_us(0.99),
            "mean_us": mean,
            "max_us": if self.ok > 0 { json!(round3(self.max_ns as f64 / 1e3)) } else { Value::Null },
        })
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// What one client (or all, merged) recorded inside the window.
#[derive(Clone)]
pub struct Recorder {
    pub kinds: Vec<KindStats>,
    pub samples: Vec<String>,
}

impl Default for Recorder {
    fn default() -> Self {
        Recorder {
            kinds: vec![KindStats::new(); KINDS.len()],
            samples: Vec::new(),
        }
    }
}

impl Recorder {
    pub fn ok(&mut self, kind: Kind, took: Duration) {
        self.kinds[kind.index()].record(took.as_nanos().min(u64::MAX as u128) as u64);
    }

    pub fn error(&mut self, kind: Kind, message: &str) {
        self.kinds[kind.index()].errors += 1;
        if self.samples.len() < ERROR_SAMPLES {
            self.samples.push(format!("{}: {message}", kind.name()));
        }
    }

    pub fn merge(&mut self, o: &Recorder) {
        for (a, b) in self.kinds.iter_mut().zip(&o.kinds) {
            a.merge(b);
        }
        for s in &o.samples {
            if self.samples.len() < ERROR_SAMPLES {
                self.samples.push(s.clone());
            }
        }
    }

    /// Every kind merged into one.
    pub fn overall(&self) -> KindStats {
        let mut all = KindStats::new();
        for k in &self.kinds {
            all.merge(k);
        }
        all
    }

    /// {kind: summary} for the kinds that ran.
    pub fn per_kind(&self) -> serde_json::Map<String, Value> {
        KINDS
            .iter()
            .zip(&self.kinds)
            .filter(|(_, s)| s.ok + s.errors > 0)
            .map(|(k, s)| (k.name().to_string(), s.summary()))
            .collect()
    }
}

/// User + system CPU seconds of this process so far.
pub fn cpu_seconds() -> f64 {
    let u = rusage();
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    tv(u.ru_utime) + tv(u.ru_stime)
}

/// This process's peak resident set in KiB (VmHWM). Not getrusage's ru_maxrss: Linux carries the
/// parent's resident size at fork over an exec into it, so a load generator started by a big
/// Python harness reported the harness's peak.
pub fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or_else(|| rusage().ru_maxrss.max(0) as u64)
}

fn rusage() -> libc::rusage {
    // SAFETY: getrusage fills the zeroed struct it is given; RUSAGE_SELF cannot fail.
    #[allow(unsafe_code)]
    unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut u);
        u
    }
}

/// The 1, 5 and 15 minute load averages, or null where /proc/loadavg cannot be read.
pub fn loadavg() -> Value {
    let parsed: Option<Vec<f64>> = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().take(3).map(|x| x.parse().ok()).collect());
    parsed.map_or(Value::Null, |v| json!(v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Rng;

    /// Nearest-rank percentile of a sorted vector.
    fn nearest_rank(sorted: &[u64], q: f64) -> u64 {
        let rank = ((q * sorted.len() as f64).ceil() as usize).max(1);
        sorted[rank - 1]
    }

    #[test]
    fn percentiles_match_a_sorted_vector() {
        let mut rng = Rng::new(7);
        // A latency-like spread: mostly microseconds, a tail of milliseconds.
        let mut v: Vec<u64> = (0..20_000)
            .map(|_| {
                let base = 2_000 + rng.below(50_000);
                if rng.below(100) == 0 {
                    base * 100
                } else {
                    base
                }
            })
            .collect();
        let mut rec = Recorder::default();
        for &ns in &v {
            rec.ok(Kind::Q2, Duration::from_nanos(ns));
        }
        v.sort_unstable();
        let s = rec.kinds[Kind::Q2.index()].summary();
        for (q, key) in [(0.50, "p50_us"), (0.95, "p95_us"), (0.99, "p99_us")] {
            let want = nearest_rank(&v, q) as f64 / 1e3;
            let got = s[key].as_f64().unwrap();
            assert!((got - want).abs() <= want * 0.002, "{key}: {got} vs {want}");
        }
        let mean = v.iter().sum::<u64>() as f64 / v.len() as f64 / 1e3;
        assert!((s["mean_us"].as_f64().unwrap() - mean).abs() < 0.001);
        assert_eq!(s["max_us"].as_f64().unwrap(), *v.last().unwrap() as f64 / 1e3);
        assert_eq!(s["n"], 20_000);
    }

    #[test]
    fn merged_clients_equal_one_recorder() {
        let (mut a, mut b, mut one) = (Recorder::default(), Recorder::default(), Recorder::default());
        for i in 1..=1000u64 {
            let (k, d) = (if i % 3 == 0 { Kind::Q1 } else { Kind::Q6 }, Duration::from_micros(i));
            if i % 2 == 0 { &mut a } else { &mut b }.ok(k, d);
            one.ok(k, d);
        }
        for i in 0..15 {
            a.error(Kind::Q4, &format!("boom {i}"));
        }
        one.kinds[Kind::Q4.index()].errors = 15;
        let mut m = Recorder::default();
        m.merge(&a);
        m.merge(&b);
        assert_eq!(m.per_kind(), one.per_kind());
        assert_eq!(m.samples.len(), ERROR_SAMPLES);
        assert_eq!(m.overall().ok, 1000);
        assert_eq!(m.per_kind()["q4"]["errors"], 15);
    }

    #[test]
    fn window_counts_what_completes_inside() {
        let t0 = Instant::now();
        let w = Window::after_ramp(t0, Duration::from_secs(3), Duration::from_secs(10));
        assert_eq!(w.phase(t0 + Duration::from_secs(2)), Phase::Ramp);
        assert_eq!(w.phase(t0 + Duration::from_secs(3)), Phase::Inside);
        assert_eq!(w.phase(t0 + Duration::from_millis(12_999)), Phase::Inside);
        assert_eq!(w.phase(t0 + Duration::from_secs(13)), Phase::Inside);
        // Started inside, finished a microsecond late: not counted.
        assert_eq!(
            w.phase(t0 + Duration::from_secs(13) + Duration::from_micros(1)),
            Phase::After
        );
    }
}
