//! The in-memory engine: one persistent ordered map per column family. A snapshot is an
//! `Arc` clone of the maps (O(1), structural sharing); a write batch is applied to a private
//! copy and published at once, so readers see all of a batch or none of it.

use super::{BulkFile, BulkPart, Cf, Durability, Engine, KvRead, Op, StorageStats};
use crate::counters::{merge_count, merge_deg};
use crate::error::{Error, Result};
use imbl::OrdMap;
use parking_lot::{Mutex, RwLock};
use std::ops::Bound;
use std::path::Path;
use std::sync::Arc;

type Map = OrdMap<Vec<u8>, Vec<u8>>;

#[derive(Clone, Default)]
struct State {
    cfs: [Map; Cf::ALL.len()],
}

impl KvRead for State {
    fn get(&self, cf: Cf, key: &[u8]) -> Result<Option<Vec<u8>>> {
        Ok(self.cfs[cf as usize].get(key).cloned())
    }

    fn scan(&self, cf: Cf, prefix: &[u8], start: &[u8], f: &mut dyn FnMut(&[u8], &[u8]) -> bool) -> Result<()> {
        let from = if start > prefix { start } else { prefix };
        for (k, v) in self.cfs[cf as usize].range::<_, [u8]>((Bound::Included(from), Bound::Unbounded)) {
            if !k.starts_with(prefix) || !f(k, v) {
                break;
            }
        }
        Ok(())
    }
}

/// A snapshot of the in-memory engine.
struct MemSnapshot(Arc<State>);

impl KvRead for MemSnapshot {
    fn get(&self, cf: Cf, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.0.get(cf, key)
    }
    fn scan(&self, cf: Cf, prefix: &[u8], start: &[u8], f: &mut dyn FnMut(&[u8], &[u8]) -> bool) -> Result<()> {
        self.0.scan(cf, prefix, start, f)
    }
}

#[derive(Default)]
pub(crate) struct MemEngine {
    state: RwLock<Arc<State>>,
    /// Serialises writers so each builds on the latest state.
    write_lock: Mutex<()>,
}

impl MemEngine {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    fn current(&self) -> Arc<State> {
        self.state.read().clone()
    }
}

impl KvRead for MemEngine {
    fn get(&self, cf: Cf, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.current().get(cf, key)
    }
    fn scan(&self, cf: Cf, prefix: &[u8], start: &[u8], f: &mut dyn FnMut(&[u8], &[u8]) -> bool) -> Result<()> {
        // No lock is held while `f` runs, so callers may read again from inside it.
        self.current().scan(cf, prefix, start, f)
    }
}

impl Engine for MemEngine {
    fn snapshot(&self) -> Arc<dyn KvRead> {
        Arc::new(MemSnapshot(self.current()))
    }

    fn write(&self, ops: Vec<Op>, _durability: Durability) -> Result<()> {
        let _w = self.write_lock.lock();
        let mut next: State = (*self.current()).clone();
        for op in ops {
            match op {
                Op::Put(cf, k, v) => {
                    next.cfs[cf as usize].insert(k, v);
                }
                Op::Delete(cf, k) => {
                    next.cfs[cf as usize].remove(&k);
                }
                Op::Merge(cf, k, operand) => {
                    let map = &mut next.cfs[cf as usize];
                    let base = map.get(&k).map(Vec::as_slice);
                    let ops = std::iter::once(operand.as_slice());
                    let merged = match cf {
                        Cf::Deg => merge_deg(base, ops),
                        Cf::Counts => merge_count(base, ops),
                        _ => None,
                    }
                    .ok_or_else(|| {
                        Error::malformed(
                            format!("counter operand in column family {}", cf.name()),
                            "in-memory merge",
                        )
                    })?;
                    map.insert(k, merged);
                }
            }
        }
        *self.state.write() = Arc::new(next);
        Ok(())
    }

    fn flush(&self) -> Result<()> {
        Ok(())
    }
    fn compact(&self) -> Result<()> {
        Ok(())
    }
    fn stats(&self) -> StorageStats {
        StorageStats::default()
    }
    fn checkpoint(&self, dir: &Path) -> Result<()> {
        Err(Error::invalid(
            "backup target",
            format!("{}: an in-memory store has no files to back up", dir.display()),
        ))
    }

    fn bulk_file<'e>(&'e self, cf: Cf, _scratch: &Path, _name: &str) -> Result<Box<dyn BulkFile + 'e>> {
        Ok(Box::new(MemRun { cf, ops: Vec::new() }))
    }

    // Nothing to mark: a dead process takes an in-memory store with it.
    fn begin_bulk(&self) -> Result<()> {
        Ok(())
    }

    fn ingest(&self, parts: Vec<BulkPart>) -> Result<()> {
        let mut ops = Vec::new();
        for p in parts {
            match p {
                BulkPart::Ops(o) => ops.extend(o),
                BulkPart::Sst { path, .. } => {
                    return Err(Error::invalid("bulk part", format!("{}: an SST file", path.display())))
                }
            }
        }
        self.write(ops, Durability::None)
    }

    fn end_bulk(&self) -> Result<()> {
        Ok(())
    }
}

/// A bulk run of the in-memory engine: buffered operations.
struct MemRun {
    cf: Cf,
    ops: Vec<Op>,
}

impl BulkFile for MemRun {
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.ops.push(Op::Put(self.cf, key.to_vec(), value.to_vec()));
        Ok(())
    }
    fn finish(self: Box<Self>) -> Result<Option<BulkPart>> {
        Ok((!self.ops.is_empty()).then_some(BulkPart::Ops(self.ops)))
    }
}
