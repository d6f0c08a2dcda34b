//! Ranged reads of the cold tier. A point read of a few nodes in a partition the query node
//! does not hold fetches only the row groups that can hold them: each generation file's footer
//! (its row groups' key ranges and byte offsets) is read once and kept, then one ranged read
//! per file fetches the groups whose key range covers a wanted key.
//!
//! What such a read decodes answers the wanted nodes only (all of their rows, since a node's
//! rows are contiguous and every group they touch is read), so it is never cached: a later
//! read of another node must not find it. When the wanted groups are every group, the result
//! is the whole partition and is treated as one.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex};

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use bytes::{Buf, Bytes};
use object_store::path::Path;
use object_store::{GetOptions, GetRange, ObjectStore};
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
use parquet::errors::ParquetError;
use parquet::file::metadata::ParquetMetaDataReader;
use parquet::file::reader::{ChunkReader, Length};

use crate::error::{self, ClusterError, Result};

/// Bytes read from a file's end to find its footer in one request (the footer of a partition
/// file with a few dozen row groups is a few KB; a larger one costs a second request).
const FOOTER_GUESS: u64 = 64 * 1024;

/// One Parquet file's footer: what a ranged read of it needs.
pub(crate) struct Footer {
    meta: ArrowReaderMetadata,
    size: u64,
    /// The bytes read to find it.
    pub read: u64,
}

impl Footer {
    /// Reads the footer of the Parquet object at `path`, checking its columns against `want`.
    pub async fn read(objects: &dyn ObjectStore, path: &Path, want: &SchemaRef) -> Result<Footer> {
        let (tail, size) = suffix(objects, path, FOOTER_GUESS).await?;
        let mut read = tail.len() as u64;
        let corrupt = |why: String| ClusterError::Corrupt {
            object: path.to_string(),
            why,
        };
        let mut reader = ParquetMetaDataReader::new();
        let parsed = match reader.try_parse_sized(&tail, size) {
            Err(ParquetError::NeedMoreData(n)) => {
                let tail = suffix(objects, path, n as u64).await?.0;
                read += tail.len() as u64;
                reader.try_parse_sized(&tail, size)
            }
            parsed => parsed,
        };
        parsed.map_err(|e| corrupt(e.to_string()))?;
        let meta = reader.finish().map_err(|e| corrupt(e.to_string()))?;
        let meta = ArrowReaderMetadata::try_new(Arc::new(meta), ArrowReaderOptions::default())
            .map_err(|e| corrupt(e.to_string()))?;
        crate::cold::same_columns(meta.schema(), want).map_err(corrupt)?;
        Ok(Footer { meta, size, read })
    }

    /// The memory the footer holds.
    pub fn memory(&self) -> usize {
        self.meta.metadata().memory_size()
    }

    /// Row groups in the file.
    pub fn groups(&self) -> usize {
        self.meta.metadata().num_row_groups()
    }

    /// The row groups whose range of the first column (the key the file is sorted by) covers
    /// one of `keys`. A group without statistics is always included; truncated statistics
    /// still bound the values (Parquet truncates a maximum upwards), so none is missed.
    pub fn groups_holding(&self, keys: &[&[u8]]) -> Vec<usize> {
        let meta = self.meta.metadata();
        (0..meta.num_row_groups())
            .filter(|&g| {
                let stats = meta.row_group(g).column(0).statistics();
                let bounds = stats.and_then(|s| Some((s.min_bytes_opt()?, s.max_bytes_opt()?)));
                match bounds {
                    Some((lo, hi)) => keys.iter().any(|k| lo <= *k && *k <= hi),
                    None => true,
                }
            })
            .collect()
    }

    /// The byte ranges of the column chunks of `groups`, adjacent ones merged.
    fn ranges(&self, groups: &[usize]) -> Vec<Range<u64>> {
        let meta = self.meta.metadata();
        let mut out: Vec<Range<u64>> = Vec::new();
        for &g in groups {
            for c in meta.row_group(g).columns() {
                let (start, len) = c.byte_range();
                match out.last_mut() {
                    Some(last) if last.end == start => last.end = start + len,
                    _ => out.push(start..start + len),
                }
            }
        }
        out
    }

    /// Fetches the column chunks of `groups` from the object at `path`.
    pub async fn fetch(&self, objects: &dyn ObjectStore, path: &Path, groups: &[usize]) -> Result<Chunks> {
        let ranges = self.ranges(groups);
        let bytes = if ranges.is_empty() {
            Vec::new()
        } else {
            objects
                .get_ranges(path, &ranges)
                .await
                .map_err(error::objects(format!("reading {path}")))?
        };
        Ok(Chunks {
            size: self.size,
            pieces: ranges.into_iter().map(|r| r.start).zip(bytes).collect(),
        })
    }

    /// Decodes `groups` of the file (`object` names it in errors) from their fetched chunks.
    pub fn decode(&self, object: &str, groups: Vec<usize>, chunks: Chunks) -> Result<RecordBatch> {
        let corrupt = |e: ParquetError| ClusterError::Corrupt {
            object: object.to_string(),
            why: e.to_string(),
        };
        let meta = self.meta.metadata();
        let rows: i64 = groups.iter().map(|&g| meta.row_group(g).num_rows()).sum();
        let reader = ParquetRecordBatchReaderBuilder::new_with_metadata(chunks, self.meta.clone())
            .with_row_groups(groups)
            .with_batch_size(usize::try_from(rows).unwrap_or(0).max(1))
            .build()
            .map_err(corrupt)?;
        let mut batches = reader
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| corrupt(e.into()))?;
        crate::cold::one_batch(self.meta.schema(), &mut batches).map_err(|e| corrupt(e.into()))
    }
}

/// The last `n` bytes of an object and the object's size.
async fn suffix(objects: &dyn ObjectStore, path: &Path, n: u64) -> Result<(Bytes, u64)> {
    let err = || error::objects(format!("reading the footer of {path}"));
    let options = GetOptions {
        range: Some(GetRange::Suffix(n)),
        ..GetOptions::default()
    };
    let got = objects.get_opts(path, options).await.map_err(err())?;
    let size = got.meta.size;
    Ok((got.bytes().await.map_err(err())?, size))
}

/// Fetched byte ranges of one file, served to the Parquet reader as if it were the file.
pub(crate) struct Chunks {
    size: u64,
    /// Each range's start offset and bytes, in file order.
    pieces: Vec<(u64, Bytes)>,
}

impl Chunks {
    /// The bytes fetched.
    pub fn bytes(&self) -> u64 {
        self.pieces.iter().map(|(_, b)| b.len() as u64).sum()
    }

    /// The fetched range holding offset `start`, and where `start` is in it.
    fn piece(&self, start: u64) -> parquet::errors::Result<(&Bytes, usize)> {
        let i = self.pieces.partition_point(|(s, _)| *s <= start);
        let missing = || ParquetError::General(format!("byte {start} was not fetched"));
        let (s, b) = i.checked_sub(1).map(|i| &self.pieces[i]).ok_or_else(missing)?;
        let from = usize::try_from(start - s).map_err(|_| missing())?;
        if from >= b.len() {
            return Err(missing());
        }
        Ok((b, from))
    }
}

impl Length for Chunks {
    fn len(&self) -> u64 {
        self.size
    }
}

impl ChunkReader for Chunks {
    type T = bytes::buf::Reader<Bytes>;

    fn get_read(&self, start: u64) -> parquet::errors::Result<Self::T> {
        let (b, from) = self.piece(start)?;
        Ok(b.slice(from..).reader())
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<Bytes> {
        let (b, from) = self.piece(start)?;
        match from.checked_add(length).filter(|&to| to <= b.len()) {
            Some(to) => Ok(b.slice(from..to)),
            None => Err(ParquetError::General(format!(
                "bytes {start}..{} were not fetched",
                start + length as u64
            ))),
        }
    }
}

/// Both footers of a partition generation.
pub(crate) struct Footers {
    pub nodes: Footer,
    pub edges: Footer,
}

/// The footers of each partition's live generation, as last read (one entry per partition, so
/// it stays as small as the partition count). A generation's objects are written once and
/// never replaced (new contents get a new generation), so a footer held stays true.
#[derive(Default)]
pub(crate) struct FooterCache {
    held: Mutex<HashMap<u32, (String, Arc<Footers>)>>,
}

impl FooterCache {
    /// Partition `p`'s footers, if those of generation `prefix` are held.
    pub fn get(&self, p: u32, prefix: &str) -> Option<Arc<Footers>> {
        let held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        held.get(&p).filter(|(pre, _)| pre == prefix).map(|(_, f)| f.clone())
    }

    pub fn put(&self, p: u32, prefix: &str, footers: Arc<Footers>) {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        held.insert(p, (prefix.to_string(), footers));
    }

    /// The memory the footers held take.
    pub fn memory(&self) -> usize {
        let held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        held.values().map(|(_, f)| f.nodes.memory() + f.edges.memory()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cold::{edge_schema, encode_partition, node_schema, EdgeRow, NodeRow, Partition, RowDir};
    use hopdb_core::{codec, NodeKey};
    use object_store::memory::InMemory;

    /// A footer larger than the first suffix request is read with a second one.
    #[test]
    fn a_footer_beyond_the_first_request_is_read_whole() {
        let key = |i: usize| codec::encode_key(&NodeKey::Int(i as i64));
        let edges: Vec<EdgeRow> = (0..3000)
            .map(|i| EdgeRow {
                node: key(i / 3),
                dir: RowDir::Out,
                ty: Arc::from("T"),
                other: key(i),
                id: 0,
                weight: None,
                props: codec::EMPTY_PROPS.to_vec(),
            })
            .collect();
        let enc = encode_partition(Vec::new(), edges, 1).unwrap();
        let store = InMemory::new();
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let path = Path::from("t/edges.parquet");
        rt.block_on(store.put(&path, enc.edges.into())).unwrap();
        let footer = rt.block_on(Footer::read(&store, &path, &edge_schema())).unwrap();
        assert!(footer.read > FOOTER_GUESS, "{} bytes read", footer.read);
        assert_eq!(footer.groups(), 3000);
        assert_eq!(footer.groups_holding(&[&key(7)]), vec![21, 22, 23]);
    }

    /// Keys sharing a prefix longer than the 64 bytes Parquet keeps of a statistic by default
    /// are found in the groups that hold their rows, and only those: the key column's
    /// statistics are written whole.
    #[test]
    fn keys_with_long_shared_prefixes_are_found_in_their_groups_only() {
        let key = |i: usize| codec::encode_key(&NodeKey::Str(format!("{}{i:03}{}", "p".repeat(70), "x".repeat(27))));
        let nodes: Vec<NodeRow> = (0..30)
            .map(|i| NodeRow {
                key: key(i),
                labels: Vec::new(),
                props: codec::EMPTY_PROPS.to_vec(),
            })
            .collect();
        let edges: Vec<EdgeRow> = (0..30)
            .flat_map(|i| {
                (0..i % 4).map(move |n| EdgeRow {
                    node: key(i),
                    dir: RowDir::Out,
                    ty: Arc::from("T"),
                    other: key((i + n + 1) % 30),
                    id: 0,
                    weight: None,
                    props: codec::EMPTY_PROPS.to_vec(),
                })
            })
            .collect();
        let enc = encode_partition(nodes, edges, 3).unwrap();
        let whole = Partition::decode("t", 1, enc.nodes.clone(), enc.edges.clone()).unwrap();
        let store = InMemory::new();
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let (npath, epath) = (Path::from("t/nodes.parquet"), Path::from("t/edges.parquet"));
        rt.block_on(async {
            store.put(&npath, enc.nodes.into()).await.unwrap();
            store.put(&epath, enc.edges.into()).await.unwrap();
        });
        let nodes = rt.block_on(Footer::read(&store, &npath, &node_schema())).unwrap();
        let edges = rt.block_on(Footer::read(&store, &epath, &edge_schema())).unwrap();
        assert!(edges.groups() > 10, "{} groups", edges.groups());
        for i in 0..31 {
            let k = if i < 30 { key(i) } else { key(999) }; // the last one is absent
            let (ng, eg) = (nodes.groups_holding(&[&k]), edges.groups_holding(&[&k]));
            assert!(eg.len() <= 2 && ng.len() <= 1, "key {i}: groups {ng:?} and {eg:?}");
            let (nc, ec) = rt.block_on(async {
                (
                    nodes.fetch(&store, &npath, &ng).await.unwrap(),
                    edges.fetch(&store, &epath, &eg).await.unwrap(),
                )
            });
            let n = nodes.decode("t/nodes.parquet", ng, nc).unwrap();
            let e = edges.decode("t/edges.parquet", eg, ec).unwrap();
            let part = Partition::from_groups("t", 1, &n, &e, false).unwrap();
            assert_eq!(part.node_row(&k).is_some(), i < 30, "key {i}");
            let got: Vec<Vec<u8>> = part.rows_of(&k).into_iter().map(|r| r.other).collect();
            let want: Vec<Vec<u8>> = whole.rows_of(&k).into_iter().map(|r| r.other).collect();
            assert_eq!(got, want, "rows of key {i}");
        }
    }
}
