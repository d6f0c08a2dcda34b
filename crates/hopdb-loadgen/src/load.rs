//! The closed-loop run: N client threads, each on its own connection, cycling through the
//! operations from its own offset with no think time; a ramp, then the recorded window.

use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use crate::engines::{Client, Engine};
use crate::stats::{cpu_seconds, loadavg, Phase, Recorder, Window};
use crate::workload::{client_offset, Op};

pub struct Measured {
    pub rec: Recorder,
    /// This process's user + system CPU seconds between the window's start and end.
    pub cpu_s: f64,
    /// Wall seconds between those two CPU readings.
    pub wall_s: f64,
    pub loadavg_before: serde_json::Value,
    pub loadavg_after: serde_json::Value,
}

/// One client's loop: runs until an operation completes after the window.
pub fn client_loop(client: &mut dyn Client, ops: &[Op], start: usize, w: Window) -> Recorder {
    let mut rec = Recorder::default();
    let mut i = start;
    loop {
        let op = &ops[i];
        i = if i + 1 == ops.len() { 0 } else { i + 1 };
        let t = Instant::now();
        let r = client.run(op);
        let done = Instant::now();
        match w.phase(done) {
            Phase::Ramp => {}
            Phase::Inside => match r {
                Ok(_) => rec.ok(op.kind, done - t),
                Err(e) => rec.error(op.kind, &e.message()),
            },
            Phase::After => return rec,
        }
    }
}

pub fn measure(
    engine: &dyn Engine,
    ops: Arc<Vec<Op>>,
    clients: usize,
    ramp: Duration,
    window: Duration,
) -> Result<Measured> {
    let loadavg_before = loadavg();
    // Every connection is made (and its statements prepared) before the clock starts.
    let conns: Vec<Box<dyn Client>> = (0..clients)
        .map(|i| engine.connect().with_context(|| format!("client {i} of {clients}")))
        .collect::<Result<_>>()?;
    let go = Arc::new(Barrier::new(clients + 1));
    let handles: Vec<_> = conns
        .into_iter()
        .enumerate()
        .map(|(i, mut c)| {
            let (ops, go) = (ops.clone(), go.clone());
            let (tx, rx) = std::sync::mpsc::channel::<Window>();
            let h = thread::Builder::new()
                .name(format!("client-{i}"))
                .stack_size(1 << 20)
                .spawn(move || {
                    go.wait();
                    let w = rx.recv().ok()?;
                    Some(client_loop(&mut *c, &ops, client_offset(i, clients, ops.len()), w))
                })
                .context("cannot start a client thread")?;
            Ok((h, tx))
        })
        .collect::<Result<_>>()?;
    go.wait();
    let w = Window::after_ramp(Instant::now(), ramp, window);
    for (_, tx) in &handles {
        // A client that has gone cannot miss its window: it is reported by its join below.
        let _ = tx.send(w);
    }
    thread::sleep(w.start.saturating_duration_since(Instant::now()));
    let (cpu0, t0) = (cpu_seconds(), Instant::now());
    thread::sleep(w.end.saturating_duration_since(Instant::now()));
    let (cpu1, t1) = (cpu_seconds(), Instant::now());
    let mut rec = Recorder::default();
    for (i, (h, _)) in handles.into_iter().enumerate() {
        match h.join() {
            Ok(Some(r)) => rec.merge(&r),
            Ok(None) => anyhow::bail!("client {i} did not get its window"),
            Err(_) => anyhow::bail!("client {i} panicked"),
        }
    }
    Ok(Measured {
        rec,
        cpu_s: cpu1 - cpu0,
        wall_s: (t1 - t0).as_secs_f64(),
        loadavg_before,
        loadavg_after: loadavg(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::{Answer, QResult, QueryError};
    use crate::workload::Kind;

    /// A client whose every call takes `each` and fails on Q3.
    struct Sleepy {
        each: Duration,
        calls: Vec<String>,
    }

    impl Client for Sleepy {
        fn run(&mut self, op: &Op) -> QResult {
            thread::sleep(self.each);
            self.calls.push(op.id().to_string());
            if op.kind == Kind::Q3 {
                Err(QueryError::Failed("no".into()))
            } else {
                Ok(Answer::Ids(vec![]))
            }
        }
    }

    fn op(kind: Kind, id: &str) -> Op {
        Op {
            kind,
            ids: vec![id.into()],
            props: None,
        }
    }

    #[test]
    fn loop_cycles_from_its_offset_and_counts_only_the_window() {
        let ops = vec![op(Kind::Q1, "a"), op(Kind::Q3, "b"), op(Kind::Q2, "c")];
        let mut c = Sleepy {
            each: Duration::from_millis(20),
            calls: vec![],
        };
        let t0 = Instant::now();
        let w = Window::after_ramp(t0, Duration::from_millis(100), Duration::from_millis(200));
        let rec = client_loop(&mut c, &ops, 2, w);
        let done = Instant::now();
        assert_eq!(&c.calls[..5], ["c", "a", "b", "c", "a"]);
        // ~15 calls in all, ~10 of them completing inside the window, the last one after it.
        let inside = rec.overall().ok + rec.kinds[Kind::Q3.index()].errors;
        assert!(
            (7..=11).contains(&inside),
            "{inside} recorded of {} calls",
            c.calls.len()
        );
        assert!(inside < c.calls.len() as u64 - 3);
        assert!(done >= w.end);
        assert!(rec.kinds[Kind::Q3.index()].errors >= 2);
        assert_eq!(rec.samples[0], "q3: no");
    }
}
