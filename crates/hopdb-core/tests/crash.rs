//! Crash safety: a writer process is SIGKILLed at random points (mid-transaction, during
//! memtable flushes and compactions, even during its own recovery) over and over on the same
//! store. After every kill the store is reopened and must hold exactly the acknowledged
//! prefix of a deterministic operation sequence (plus, possibly, the one in-flight
//! transaction), and `check()` must find nothing wrong.
//!
//! No extra binary: the writer is this test binary re-executed with a filter selecting the
//! ignored test `crash_child_writer`, which does nothing unless its environment says so.
//!
//! Knobs (environment of the parent test): `HOPDB_CRASH_SEED` (operation sequence and kill
//! delays), `HOPDB_CRASH_KILLS` (default 120), `HOPDB_CRASH_DURABILITY` (`process`, the
//! default; `none` is a negative control that must fail), `HOPDB_TORN_WAL_KILLS` (default 40: the
//! kills of the torn-WAL test), `HOPDB_IO_FAULT_RUNS` (default 20: the writers run under each
//! kind of injected I/O fault).
//!
//! Injected I/O faults (a full disk, failing fsync, short writes) come from libfiu's POSIX
//! preload (Debian's `fiu-utils`), loaded into the writer only; the tests skip without it.

// Tests: a panic is the failure report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use hopdb_core::*;
use model::{compare, Model};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, IoSlice, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[path = "crash/model.rs"]
mod model;
#[path = "crash/workload.rs"]
mod workload;
use workload::{apply, apply_bulk, is_bulk, reached_op, steps};

/// Environment of the writer process.
const ENV_DIR: &str = "HOPDB_CRASH_CHILD_DIR";
const ENV_SEED: &str = "HOPDB_CRASH_CHILD_SEED";
const ENV_WRITE_BUFFER: &str = "HOPDB_CRASH_CHILD_WRITE_BUFFER_BYTES";
const ENV_TOTAL_WRITE_BUFFER: &str = "HOPDB_CRASH_CHILD_TOTAL_WRITE_BUFFER_BYTES";
const ENV_DURABILITY: &str = "HOPDB_CRASH_CHILD_DURABILITY";
/// Where the writer puts a backup of the store before it writes (one writer in `BACKUP_EVERY`).
const ENV_BACKUPS: &str = "HOPDB_CRASH_CHILD_BACKUPS";
const BACKUP_EVERY: u32 = 6;
/// The kill window of a writer that backs up first: long enough for most backups to finish.
const BACKUP_KILL_AFTER_MS: std::ops::RangeInclusive<u64> = 20..=1200;
/// Set when the writer runs under injected I/O faults (libfiu's POSIX preload).
const ENV_FAULTS: &str = "HOPDB_CRASH_CHILD_FAULTS";

/// Small memtables, so flushes and compactions run all the time.
const WRITE_BUFFER_BYTES: usize = 256 << 10;
const TOTAL_WRITE_BUFFER_BYTES: usize = 1 << 20;

const DEFAULT_SEED: u64 = 0x5EED_C0DE_2025;
const DEFAULT_KILLS: u32 = 120;
const DEFAULT_TORN_KILLS: u32 = 40;
const DEFAULT_IO_FAULT_RUNS: u32 = 20;
const KILL_AFTER_MS: std::ops::RangeInclusive<u64> = 20..=300;
/// Under injected I/O faults: long enough for most writers to meet one (they then exit).
const IO_FAULT_KILL_AFTER_MS: std::ops::RangeInclusive<u64> = 300..=3000;
/// Kills between the progress lines of a long loop.
const PROGRESS_EVERY: u32 = 100;
const MAX_REOPEN: Duration = Duration::from_secs(5);
/// The signal `Child::kill` sends on Unix.
const SIGKILL: i32 = 9;

fn crash_config(write_buffer_bytes: usize, total_write_buffer_bytes: usize, durability: Durability) -> Config {
    Config {
        write_buffer_bytes,
        total_write_buffer_bytes,
        durability,
        ..Config::default()
    }
}

/// `Process` (the default) is the level whose promise is "survives kill -9". `none` is a
/// negative control: without a WAL, acknowledged writes are lost and the test must fail.
fn parse_durability(s: &str) -> Durability {
    match s {
        "process" => Durability::Process,
        "sync" => Durability::Sync,
        "none" => Durability::None,
        other => panic!("unknown durability {other:?} (process, sync or none)"),
    }
}

// ---------------------------------------------------------------------------------------
// The writer process.
// ---------------------------------------------------------------------------------------

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).map_or(default, |v| {
        v.parse().unwrap_or_else(|_| panic!("{name}={v} is not a number"))
    })
}

/// The writer: runs only when re-executed by the tests below. Continues the operation
/// sequence from where the store says it stopped, printing `ACK i` after each commit
/// returns, until it is killed. Under injected I/O faults (`ENV_FAULTS` set) an error is
/// expected: it prints `FAULT i KIND: message` (i = 0: the open failed), closes the store and
/// exits; any other error, and any panic, is a bug.
#[test]
#[ignore = "the writer process of the crash tests"]
fn crash_child_writer() {
    let Some(dir) = std::env::var_os(ENV_DIR) else {
        return;
    };
    let seed: u64 = std::env::var(ENV_SEED).expect("seed").parse().expect("numeric seed");
    let faults = std::env::var_os(ENV_FAULTS).is_some();
    let cfg = crash_config(
        env_usize(ENV_WRITE_BUFFER, WRITE_BUFFER_BYTES),
        env_usize(ENV_TOTAL_WRITE_BUFFER, TOTAL_WRITE_BUFFER_BYTES),
        parse_durability(&std::env::var(ENV_DURABILITY).unwrap_or_else(|_| "process".into())),
    );
    // Lines go out with writev(2) on a descriptor of our own: libfiu fails write(2) calls at
    // random, and an acknowledgement must not be lost to a fault meant for the store.
    let mut out = std::fs::File::from(std::io::stdout().as_fd().try_clone_to_owned().expect("stdout"));
    let mut say = |line: String| {
        let line = format!("{line}\n");
        matches!(out.write_vectored(&[IoSlice::new(line.as_bytes())]), Ok(n) if n == line.len())
    };
    let fault = |say: &mut dyn FnMut(String) -> bool, i: u64, e: Error| -> ! {
        assert!(faults, "writer: op {i} failed: {e}");
        say(format!("FAULT {i} {}: {e}", fault_kind(&e)));
        std::process::exit(0)
    };
    let g = match Graph::open_with(&dir, cfg) {
        Ok(g) => g,
        Err(e) => fault(&mut say, 0, e),
    };
    let backups = std::env::var_os(ENV_BACKUPS).map(PathBuf::from);
    let start = reached_op(&g);
    if !say(format!("START {start}")) {
        return;
    }
    if let Some(dir) = &backups {
        // A backup of op `start` first (nothing else writes meanwhile). A fault here is
        // reported against the next op: nothing is in flight.
        if let Err(e) = g.backup(dir.join(format!("b-{start}"))) {
            drop(g);
            fault(&mut say, start + 1, e);
        }
    }
    // Never outlive a parent that died without killing us.
    let deadline = Instant::now() + Duration::from_secs(60);
    for i in start + 1.. {
        let committed = if is_bulk(seed, i) {
            apply_bulk(&g, &steps(seed, i))
        } else {
            g.write().and_then(|mut tx| {
                for s in steps(seed, i) {
                    apply(&mut tx, &s)?;
                }
                tx.commit()
            })
        };
        if let Err(e) = committed {
            // Closing a store in an error state must not panic either.
            drop(g);
            fault(&mut say, i, e);
        }
        if !say(format!("ACK {i}")) || Instant::now() > deadline {
            return;
        }
    }
}

/// How the writer names an error it met under injected faults: its kind, or `no_space` for
/// the full-disk error.
fn fault_kind(e: &Error) -> &'static str {
    match e.root() {
        Error::NoSpace { .. } => "no_space",
        e => e.kind().as_str(),
    }
}

// ---------------------------------------------------------------------------------------
// The parent: spawn, kill, reopen, verify, repeat.
// ---------------------------------------------------------------------------------------

/// What the writer printed before it died.
#[derive(Default)]
struct ChildOutput {
    start: Option<u64>,
    last_ack: Option<u64>,
    acks: u64,
    /// The operation whose error the writer reported (0: the open), the error's kind and
    /// message.
    fault: Option<(u64, String, String)>,
    problems: Vec<String>,
}

fn read_child_output(stdout: impl Read) -> ChildOutput {
    let mut o = ChildOutput::default();
    let mut r = BufReader::new(stdout);
    let mut line = String::new();
    loop {
        line.clear();
        match r.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        // A line cut short by the kill is not an acknowledgement.
        let Some(l) = line.strip_suffix('\n') else {
            break;
        };
        // libtest's "test crash_child_writer ... " precedes START on its line.
        if let Some((_, n)) = l.split_once("START ") {
            o.start = n.parse().ok();
            if o.start.is_none() || o.acks > 0 {
                o.problems.push(format!("unexpected line {l:?}"));
            }
        } else if let Some(n) = l.strip_prefix("ACK ") {
            let n: Option<u64> = n.parse().ok();
            let expected = o.last_ack.or(o.start).map(|p| p + 1);
            if n.is_none() || n != expected {
                o.problems
                    .push(format!("ACK out of sequence: {l:?} (expected {expected:?})"));
            }
            o.last_ack = n;
            o.acks += 1;
        } else if let Some(f) = l.strip_prefix("FAULT ") {
            let parsed = f.split_once(' ').and_then(|(i, rest)| {
                let (kind, msg) = rest.split_once(": ")?;
                Some((i.parse().ok()?, kind.to_string(), msg.to_string()))
            });
            match parsed {
                Some(p) if o.fault.is_none() => o.fault = Some(p),
                _ => o.problems.push(format!("unexpected line {l:?}")),
            }
        }
    }
    o
}

fn sst_files(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".sst"))
                .collect()
        })
        .unwrap_or_default()
}

/// Keeps the store directory if the test fails, for post-mortem inspection.
struct KeepOnPanic(Option<tempfile::TempDir>);

impl Drop for KeepOnPanic {
    fn drop(&mut self) {
        if std::thread::panicking() {
            if let Some(d) = self.0.take() {
                eprintln!("crash test: the store is kept for inspection in {}", d.keep().display());
            }
        }
    }
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().map(|v| {
        let v = v.trim();
        let parsed = match v.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16),
            None => v.parse(),
        };
        parsed.unwrap_or_else(|_| panic!("{name}={v} is not a number"))
    })
}

/// The command that runs `crash_child_writer` on `store` in a child process.
fn writer_command(exe: &Path, store: &Path, seed: u64) -> Command {
    let mut c = Command::new(exe);
    c.args([
        "--ignored",
        "--exact",
        "crash_child_writer",
        "--nocapture",
        "--test-threads=1",
    ])
    .env(ENV_DIR, store)
    .env(ENV_SEED, seed.to_string())
    .stdin(Stdio::null());
    c
}

#[test]
fn kill9_writer_recovers_every_acknowledged_write() {
    let seed = env_u64("HOPDB_CRASH_SEED").unwrap_or(DEFAULT_SEED);
    let kills = env_u64("HOPDB_CRASH_KILLS").map_or(DEFAULT_KILLS, |k| k as u32);
    crash_loop(seed, kills, Fault::Kill);
}

/// A power loss drops the WAL's unsynced tail: after each kill the newest WAL file is cut at a
/// random offset (possibly mid-record) before the reopen. Acknowledged writes of the default
/// durability may then be lost (they were only in the OS's buffers), but the store must open
/// and hold exactly the operations up to some point: no half-applied transaction, nothing
/// that was not acknowledged beyond the one in flight, and `check()` clean.
#[test]
fn a_torn_wal_tail_recovers_a_consistent_prefix() {
    let seed = env_u64("HOPDB_CRASH_SEED").unwrap_or(DEFAULT_SEED) ^ 0x7042_4E57;
    let kills = env_u64("HOPDB_TORN_WAL_KILLS").map_or(DEFAULT_TORN_KILLS, |k| k as u32);
    crash_loop(seed, kills, Fault::TornWal);
}

/// A full disk at random moments: `write(2)` and `pwrite(2)` fail with `ENOSPC` (in the WAL,
/// a flush, a compaction, the manifest, or the store's own files). The writer must get
/// `Error::NoSpace` and nothing acknowledged may be lost.
#[test]
fn enospc_at_random_writes_loses_nothing_acknowledged() {
    io_fault_loop(
        0xE05B_C0DE,
        IoFault {
            points: "enable_random name=posix/io/rw/write,probability=0.003,failinfo=28\n\
                     enable_random name=posix/io/rw/pwrite,probability=0.003,failinfo=28",
            durability: "process",
            expect: &["no_space"],
        },
    );
}

/// Failing `fsync(2)`/`fdatasync(2)` (`EIO`) with every commit synced: the commit whose sync
/// failed is not acknowledged (it may still be kept, like any op in flight), and nothing
/// acknowledged is lost.
#[test]
fn failing_fsync_loses_nothing_acknowledged() {
    io_fault_loop(
        0xF5_C0DE,
        IoFault {
            points: "enable_random name=posix/io/sync/fdatasync,probability=0.01,failinfo=5\n\
                     enable_random name=posix/io/sync/fsync,probability=0.01,failinfo=5",
            durability: "sync",
            expect: &["storage"],
        },
    );
}

/// Short writes (a `write(2)` that writes fewer bytes than asked, which the caller must
/// complete) everywhere, and some writes failing with `EIO`.
#[test]
fn short_and_failing_writes_lose_nothing_acknowledged() {
    io_fault_loop(
        0x5_4087,
        IoFault {
            points: "enable_random name=posix/io/rw/write/reduce,probability=0.05\n\
                     enable_random name=posix/io/rw/pwrite/reduce,probability=0.05\n\
                     enable_random name=posix/io/rw/write,probability=0.002,failinfo=5\n\
                     enable_random name=posix/io/rw/pwrite,probability=0.002,failinfo=5",
            durability: "process",
            expect: &["storage"],
        },
    );
}

/// Runs `HOPDB_IO_FAULT_RUNS` (default 20) writers under `fault`; skips, saying why, without
/// libfiu.
fn io_fault_loop(seed: u64, fault: IoFault) {
    if let Some(missing) = LIBFIU_PRELOAD.iter().find(|p| !Path::new(p).exists()) {
        eprintln!("skipped: {missing} is missing (libfiu's preload: apt-get install fiu-utils)");
        return;
    }
    let seed = env_u64("HOPDB_CRASH_SEED").map_or(seed, |s| s ^ seed);
    let runs = env_u64("HOPDB_IO_FAULT_RUNS").map_or(DEFAULT_IO_FAULT_RUNS, |k| k as u32);
    crash_loop(seed, runs, Fault::Io(fault));
}

/// Verifies and removes the backups the writer finished (each must hold exactly the store
/// of its op and pass `check()`) and the leftovers of those a kill interrupted (only their
/// hidden temporary directory); returns how many of each. `at_start`: the model the writer
/// started from, when it was to back up first (its backup is of that op).
fn verify_backups(dir: &Path, at_start: Option<&Model>, ctx: &dyn Fn(&str) -> String) -> (u32, u32) {
    let (mut verified, mut cut) = (0, 0);
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if let Some(op) = name.strip_prefix("b-").and_then(|n| n.parse::<u64>().ok()) {
            let g =
                Graph::open(&path).unwrap_or_else(|e| panic!("{}", ctx(&format!("backup {name} does not open: {e}"))));
            let reached = reached_op(&g);
            assert_eq!(reached, op, "{}", ctx(&format!("backup {name} holds op {reached}")));
            // Compared with the model kept for it, not one replayed from op 0: a replay per
            // backup made a long run's cost grow with the square of its kills.
            let m = at_start
                .unwrap_or_else(|| panic!("{}", ctx(&format!("backup {name} from a writer not asked for one"))));
            assert_eq!(
                op,
                m.op,
                "{}",
                ctx(&format!("backup {name}: the writer started at op {}", m.op))
            );
            let diffs = compare(&g, m).unwrap();
            assert!(
                diffs.is_empty(),
                "{}",
                ctx(&format!("backup {name} differs: {diffs:?}"))
            );
            assert!(
                g.check().unwrap().is_ok(),
                "{}",
                ctx(&format!("backup {name} fails check()"))
            );
            verified += 1;
        } else {
            assert!(
                name.starts_with('.') && name.contains(".hopdb-backup-"),
                "{}",
                ctx(&format!("unexpected {name} among the backups"))
            );
            cut += 1;
        }
        std::fs::remove_dir_all(&path).unwrap();
    }
    (verified, cut)
}

/// Cuts the newest WAL file of `store` at a random offset; returns the bytes cut off.
fn tear_wal_tail(store: &Path, rng: &mut ChaCha8Rng) -> u64 {
    let newest = std::fs::read_dir(store)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let number: u64 = name.strip_suffix(".log")?.parse().ok()?;
            Some((number, e.path()))
        })
        .max();
    let Some((_, path)) = newest else { return 0 };
    let len = std::fs::metadata(&path).unwrap().len();
    let keep = rng.random_range(0..=len);
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(keep)
        .unwrap();
    len - keep
}

/// What is done to the writer besides the SIGKILL at a random time.
#[derive(Clone, Copy)]
enum Fault {
    /// The kill alone.
    Kill,
    /// After the kill the newest WAL file loses a random tail, as in a power loss.
    TornWal,
    /// The writer runs under libfiu's POSIX preload, which fails some of its I/O calls.
    Io(IoFault),
}

/// A kind of injected I/O fault.
#[derive(Clone, Copy)]
struct IoFault {
    /// libfiu failure points, one `enable_random` command a line (its `FIU_ENABLE`). libfiu
    /// draws the failures from its own generator: the seed fixes the workload and the kill
    /// times, not which call fails.
    points: &'static str,
    durability: &'static str,
    /// The error kinds (`fault_kind`) the writer may meet.
    expect: &'static [&'static str],
}

/// libfiu (Debian's fiu-utils): the preload that reads `FIU_ENABLE`, and the one that wraps
/// the POSIX calls.
const LIBFIU_PRELOAD: [&str; 2] = ["/usr/lib/fiu/fiu_run_preload.so", "/usr/lib/fiu/fiu_posix_preload.so"];

/// Kills the writer `kills` times and verifies the store after each kill (see the module
/// comment), with `fault` injected too.
fn crash_loop(seed: u64, kills: u32, fault: Fault) {
    let tear = matches!(fault, Fault::TornWal);
    let io = match fault {
        Fault::Io(f) => Some(f),
        Fault::Kill | Fault::TornWal => None,
    };
    let tmp = KeepOnPanic(Some(tempfile::Builder::new().prefix("hopdb-crash-").tempdir().unwrap()));
    let store: PathBuf = tmp.0.as_ref().unwrap().path().join("store");
    let backups: PathBuf = tmp.0.as_ref().unwrap().path().join("backups");
    std::fs::create_dir(&backups).unwrap();
    let exe = std::env::current_exe().unwrap();
    let durability = match io {
        Some(f) => f.durability.to_string(),
        None => std::env::var("HOPDB_CRASH_DURABILITY").unwrap_or_else(|_| "process".into()),
    };
    let cfg = crash_config(
        WRITE_BUFFER_BYTES,
        TOTAL_WRITE_BUFFER_BYTES,
        parse_durability(&durability),
    );
    let mut rng = ChaCha8Rng::seed_from_u64(seed.rotate_left(17) ^ 0xC4A5_11ED);
    let mut model = Model::default();
    let started = Instant::now();
    let (mut acked, mut in_flight_kept, mut before_start, mut no_ack, mut orphaned) = (0u64, 0u32, 0u32, 0u32, 0u32);
    let (mut torn_bytes, mut acks_lost, mut kills_losing_acks) = (0u64, 0u64, 0u32);
    let (mut max_open, mut compare_time, mut check_time) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    let (mut backups_verified, mut backups_cut) = (0u32, 0u32);
    // Injected I/O faults the writer met, by error kind; at open; runs ended by the test
    // harness's own output failing before the writer started.
    let (mut faults, mut open_faults, mut harness_exits) = (BTreeMap::<String, u32>::new(), 0u32, 0u32);

    for kill in 1..=kills {
        let verified = model.op;
        let ctx = |what: &str| format!("seed {seed:#x}, kill {kill}/{kills}, last verified op {verified}: {what}");
        let mut command = writer_command(&exe, &store, seed);
        command
            .env(ENV_WRITE_BUFFER, WRITE_BUFFER_BYTES.to_string())
            .env(ENV_TOTAL_WRITE_BUFFER, TOTAL_WRITE_BUFFER_BYTES.to_string())
            .env(ENV_DURABILITY, &durability)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let backup_first = kill.is_multiple_of(BACKUP_EVERY);
        if backup_first {
            command.env(ENV_BACKUPS, &backups);
        }
        if let Some(f) = io {
            command
                .env(ENV_FAULTS, "1")
                .env("LD_PRELOAD", LIBFIU_PRELOAD.join(" "))
                .env("FIU_ENABLE", f.points);
        }
        let mut child = command.spawn().expect("spawning the writer");
        let out = child.stdout.take().unwrap();
        let mut err = child.stderr.take().unwrap();
        let out_thread = std::thread::spawn(move || read_child_output(out));
        let err_thread = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = err.read_to_string(&mut s);
            s
        });
        let window = match (io, backup_first) {
            (Some(_), _) => IO_FAULT_KILL_AFTER_MS,
            (None, true) => BACKUP_KILL_AFTER_MS,
            (None, false) => KILL_AFTER_MS,
        };
        let kill_at = Instant::now() + Duration::from_millis(rng.random_range(window));
        let mut exited_early = child.try_wait().unwrap();
        // A writer that meets an injected fault exits by itself: no need to wait for it.
        while io.is_some() && exited_early.is_none() && Instant::now() < kill_at {
            std::thread::sleep(Duration::from_millis(2));
            exited_early = child.try_wait().unwrap();
        }
        std::thread::sleep(kill_at.saturating_duration_since(Instant::now()));
        child.kill().unwrap(); // SIGKILL (a no-op if it has exited)
        let status = child.wait().unwrap();
        let output = out_thread.join().unwrap();
        let stderr = err_thread.join().unwrap();
        assert!(
            output.problems.is_empty(),
            "{}",
            ctx(&format!("bad writer output: {:?}", output.problems))
        );
        if let Some(f) = io {
            // Under faults the writer may stop by itself, but never by a panic or an abort.
            assert!(
                !stderr.contains("panicked") && status.signal().is_none_or(|s| s == SIGKILL),
                "{}\nstderr:\n{stderr}",
                ctx(&format!("the writer crashed under injected faults: {status}"))
            );
            if let Some((op, kind, msg)) = &output.fault {
                assert!(
                    f.expect.contains(&kind.as_str()),
                    "{}",
                    ctx(&format!(
                        "op {op} failed with a {kind} error, expected {:?}: {msg}",
                        f.expect
                    ))
                );
                let next = output.last_ack.or(output.start).map_or(0, |a| a + 1);
                assert!(
                    *op == 0 || *op == next,
                    "{}",
                    ctx(&format!("the writer reported a fault at op {op}, in flight was {next}"))
                );
                *faults.entry(kind.clone()).or_default() += 1;
                open_faults += u32::from(*op == 0);
            } else if exited_early.is_some() && output.start.is_none() {
                // libtest's own output ("running 1 test") met a failing write(2).
                harness_exits += 1;
            } else if exited_early.is_some() {
                panic!(
                    "{}\nstderr:\n{stderr}",
                    ctx(&format!("the writer exited without reporting a fault: {status}"))
                );
            }
        } else if exited_early.is_some() || status.signal() != Some(SIGKILL) {
            panic!(
                "{}\nstderr:\n{stderr}",
                ctx(&format!("the writer was not killed but exited by itself: {status}"))
            );
        }
        match output.start {
            None => before_start += 1,
            Some(s) => assert_eq!(
                s,
                model.op,
                "{}",
                ctx("the writer resumed from another op than the last verified state")
            ),
        }
        acked += output.acks;
        if output.acks == 0 {
            no_ack += 1;
        }
        let at_start = backup_first.then(|| model.clone());
        // Every acknowledged op, and at most the one in flight after it.
        let last_ack = output.last_ack.unwrap_or(model.op);
        let ssts_before = sst_files(&store);
        if tear {
            torn_bytes += tear_wal_tail(&store, &mut rng);
        }

        let t = Instant::now();
        let g =
            Graph::open_with(&store, cfg.clone()).unwrap_or_else(|e| panic!("{}", ctx(&format!("reopen failed: {e}"))));
        let open_time = t.elapsed();
        max_open = max_open.max(open_time);
        assert!(open_time < MAX_REOPEN, "{}", ctx(&format!("reopen took {open_time:?}")));
        if ssts_before.difference(&sst_files(&store)).next().is_some() {
            // Table files the recovery threw away (never installed, or obsolete and not yet
            // deleted): the kill hit a flush or compaction. Cross-checked once against a
            // secondary open's live-file count: the same numbers.
            orphaned += 1;
        }

        let t = Instant::now();
        let reached = reached_op(&g);
        if tear && reached < last_ack {
            // The cut took acknowledged writes with it: the model starts again from op 0.
            acks_lost += last_ack - reached;
            kills_losing_acks += 1;
            model = Model::default();
        }
        assert!(
            tear || reached >= last_ack,
            "{}",
            ctx(&format!(
                "LOST ACKNOWLEDGED WRITES: op {last_ack} was acknowledged, the store has only up to op {reached}"
            ))
        );
        assert!(
            reached <= last_ack + 1,
            "{}",
            ctx(&format!(
                "the store has op {reached}, but only op {last_ack} was acknowledged (one may be in flight)"
            ))
        );
        if reached > last_ack {
            in_flight_kept += 1;
        }
        model.advance_to(seed, reached);
        // check() runs beside the comparison: both only read.
        let (diffs, (report, check_took)) = std::thread::scope(|s| {
            let checker = s.spawn(|| {
                let t = Instant::now();
                (g.check(), t.elapsed())
            });
            (compare(&g, &model), checker.join().unwrap())
        });
        compare_time += t.elapsed();
        check_time += check_took;
        let diffs = diffs.unwrap_or_else(|e| panic!("{}", ctx(&format!("reading the store failed: {e}"))));
        assert!(
            diffs.is_empty(),
            "{}",
            ctx(&format!(
                "the store differs from the model of ops 1..={reached} (last ack {last_ack}):\n  {}",
                diffs.join("\n  ")
            ))
        );
        let report = report.unwrap_or_else(|e| panic!("{}", ctx(&format!("check failed to run: {e}"))));
        assert!(
            report.is_ok(),
            "{}",
            ctx(&format!(
                "check found {} problems: {:?}",
                report.problem_count, report.problems
            ))
        );
        drop(g);
        let (done, cut) = verify_backups(&backups, at_start.as_ref(), &ctx);
        (backups_verified, backups_cut) = (backups_verified + done, backups_cut + cut);
        // A bulk load's scratch space dies with the writer that made it: the next writable
        // open removes it.
        let leftovers: Vec<_> = std::fs::read_dir(&store)
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("hopdb-bulk-"))
            .collect();
        assert!(
            leftovers.is_empty(),
            "{}",
            ctx(&format!("bulk scratch left after a reopen: {leftovers:?}"))
        );
        // Long runs (scripts/reliability.sh) keep their figures even when cut short.
        if kill.is_multiple_of(PROGRESS_EVERY) && kill < kills {
            println!(
                "crash progress: seed {seed:#x}: {kill}/{kills} kills, {acked} ops acknowledged (store at op {}), \
                 in-flight op durable after {in_flight_kept}, {orphaned} hit a flush/compaction, {backups_verified} backups verified, \
                 {acks_lost} acknowledged ops cut with the WAL, {} injected faults met; reopen max {max_open:.1?}; {:.0?}",
                model.op,
                faults.values().sum::<u32>(),
                started.elapsed(),
            );
        }
    }

    let g = Graph::open_with(&store, cfg).unwrap();
    let storage = g.stats().unwrap().storage;
    println!(
        "crash test: seed {seed:#x}: {kills} kills, {acked} ops acknowledged (store at op {}, {} nodes, {} edges, {} sst files), \
         in-flight op durable after {in_flight_kept} kills, {before_start} kills before the writer was up, {no_ack} kills with no ack, \
         {orphaned} kills hit a flush/compaction (left table files the reopen discarded); \
         {} edge deletes and {} node deletes (with {} edges) took effect; reopen max {max_open:.1?}, compare avg {:.1?}, check avg {:.1?}; total {:.1?}",
        model.op,
        model.nodes.len(),
        model.edges.len(),
        storage.sst_files,
        model.edge_deletes_hit,
        model.node_deletes_hit,
        model.edges_deleted_with_nodes,
        compare_time / kills.max(1),
        check_time / kills.max(1),
        started.elapsed(),
    );
    let bulk_ops = (1..=model.op).filter(|&i| is_bulk(seed, i)).count();
    println!(
        "mixed work: {bulk_ops} of the ops were bulk loads; {backups_verified} online backups verified \
         (each exactly its op's store), {backups_cut} interrupted by a kill (left only their hidden temporary)"
    );
    assert!(acked > 0, "the writer never acknowledged anything");
    if let Some(f) = io {
        let met: u32 = faults.values().sum();
        println!(
            "injected I/O faults ({:?}): {met} writers met one ({open_faults} while opening the store), by error kind {faults:?}; \
             {harness_exits} runs ended by the test harness's own output failing first",
            f.points.replace('\n', "; ")
        );
        assert!(
            met > kills / 4,
            "only {met} of {kills} writers met an injected fault: the test tested little"
        );
    }
    if tear {
        println!(
            "torn WAL: {torn_bytes} bytes cut over {kills} kills; {kills_losing_acks} kills lost acknowledged ops \
             ({acks_lost} ops, each time a consistent prefix)"
        );
        assert!(
            kills_losing_acks > 0,
            "no cut reached an acknowledged write: the test tested nothing"
        );
    }
}

/// A writer killed while it creates a store (the first milliseconds of its life) must never
/// leave a directory that HopDB refuses to open: creation is atomic.
#[test]
fn kill9_during_store_creation_leaves_an_openable_store() {
    let tmp = tempfile::Builder::new().prefix("hopdb-create-").tempdir().unwrap();
    let exe = std::env::current_exe().unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(0xC7EA7E);
    for trial in 0..40 {
        let store = tmp.path().join(format!("store-{trial}"));
        let mut child = writer_command(&exe, &store, 1)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawning the writer");
        // Spread the kills over process start-up and store creation.
        std::thread::sleep(Duration::from_micros(rng.random_range(0..15_000)));
        child.kill().unwrap();
        child.wait().unwrap();
        let g = Graph::open(&store)
            .unwrap_or_else(|e| panic!("trial {trial}: the store cannot be opened after a kill during creation: {e}"));
        assert!(g.check().unwrap().is_ok(), "trial {trial}");
        g.upsert_node("after", &[], Props::new(), WriteMode::Merge).unwrap();
    }
    // Leftovers of interrupted creations are hidden siblings, never the store itself.
    for e in std::fs::read_dir(tmp.path()).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().to_string();
        assert!(
            name.starts_with("store-") || name.contains(".hopdb-creating-"),
            "unexpected {name}"
        );
    }
}
