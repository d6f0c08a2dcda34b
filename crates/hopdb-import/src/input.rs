//! Opening input files: gzip is recognised by its magic bytes, not the name, and every
//! reader counts the (compressed) bytes it has consumed so progress can show a rate and ETA.

use crate::error::{io, Result};
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Counts bytes read from the underlying file.
struct Counting<R> {
    inner: R,
    read: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Opens `path`, decompressing gzip transparently. `read` is advanced by the file bytes read.
pub fn open(path: &Path, read: Arc<AtomicU64>) -> Result<Box<dyn BufRead + Send>> {
    let mut f = std::fs::File::open(path).map_err(io(path))?;
    let mut magic = [0u8; 2];
    let n = f.read(&mut magic).map_err(io(path))?;
    let f = std::fs::File::open(path).map_err(io(path))?;
    let counted = Counting { inner: f, read };
    if n == 2 && magic == [0x1f, 0x8b] {
        Ok(Box::new(BufReader::with_capacity(
            1 << 20,
            flate2::read::MultiGzDecoder::new(BufReader::with_capacity(1 << 16, counted)),
        )))
    } else {
        Ok(Box::new(BufReader::with_capacity(1 << 20, counted)))
    }
}

/// Total size on disk of `paths` (for progress).
pub fn total_bytes<'a>(paths: impl IntoIterator<Item = &'a Path>) -> u64 {
    paths
        .into_iter()
        .map(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
        .sum()
}
