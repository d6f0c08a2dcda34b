//! Compaction: a partition's pending writes folded into a new generation on the cold tier,
//! swapped in atomically in the metadata together with dropping the writes it holds
//! (decision 0043). Writes keep going meanwhile: those after the compaction's cut stay in the
//! delta and apply on top of the new generation. A compaction that finds its partition
//! replaced when it swaps (a load, or another compaction first) swaps nothing and deletes
//! what it wrote.

use std::time::Instant;

use crate::cold::{encode_partition, generation_prefix};
use crate::error::Result;
use crate::meta::Written;
use crate::Cluster;

/// What a compaction did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CompactReport {
    /// Partitions given a new generation.
    pub partitions: usize,
    /// Pending row operations folded in.
    pub operations: u64,
    /// Nodes in the partitions written.
    pub nodes: u64,
    /// Bytes of Parquet written.
    pub bytes: u64,
    /// Partitions left alone because they changed generation meanwhile.
    pub conflicts: usize,
    /// Wall time, seconds.
    pub seconds: f64,
}

impl Cluster {
    /// Folds the pending writes of `parts` (every partition with pending writes when `None`)
    /// into new generations.
    pub fn compact(&self, parts: Option<&[u32]>) -> Result<CompactReport> {
        let started = Instant::now();
        let status = self.status()?;
        let todo: Vec<u32> = status
            .iter()
            .filter(|s| s.delta_ops > 0 && parts.is_none_or(|ps| ps.contains(&s.partition)))
            .map(|s| s.partition)
            .collect();
        let mut report = CompactReport::default();
        for p in todo {
            self.compact_one(p, &mut report)?;
        }
        self.refresh()?;
        report.seconds = started.elapsed().as_secs_f64();
        if report.partitions > 0 {
            tracing::info!(
                partitions = report.partitions,
                operations = report.operations,
                seconds = report.seconds,
                "compacted pending writes"
            );
        }
        Ok(report)
    }

    fn compact_one(&self, p: u32, report: &mut CompactReport) -> Result<()> {
        let (live, delta) = self.meta()?.live_with_delta(&[p])?;
        let Some((_, l)) = live.into_iter().next().filter(|(_, l)| l.pending()) else {
            return Ok(());
        };
        let ops = delta.get(&p).map_or(0, Vec::len) as u64;
        let merged = self.fetch_partitions(vec![(p, l.clone())], &delta)?;
        let Some(part) = merged.get(&p) else { return Ok(()) };
        let (nodes, edges) = part.to_rows();
        let counted = edges.iter().filter(|e| e.counts_edge()).count() as u64;
        let enc = encode_partition(nodes, edges, self.cfg.cold.row_group_rows)?;
        let generation = self.meta()?.take_number()?;
        let prefix = generation_prefix(p, generation);
        let bytes = (enc.nodes.len() + enc.edges.len()) as u64;
        self.put(&format!("{prefix}/nodes.parquet"), enc.nodes)?;
        self.put(&format!("{prefix}/edges.parquet"), enc.edges)?;
        let written = Written {
            object_key: prefix.clone(),
            vertex_count: enc.node_count,
            edge_count: counted,
        };
        match self
            .meta()?
            .swap_compacted(p, l.generation, &written, generation, l.delta_seq)?
        {
            None => {
                self.delete_prefix(&prefix);
                report.conflicts += 1;
            }
            Some(old) => {
                if let Some(old) = old {
                    self.delete_prefix(&old);
                }
                report.partitions += 1;
                report.operations += ops;
                report.nodes += enc.node_count;
                report.bytes += bytes;
            }
        }
        Ok(())
    }
}
