//! Benchmark charts for the explorer's store page: the PNG files under the directory given
//! by `hopdb serve --charts DIR` (HopDB's `bench/results` keeps one folder per benchmark),
//! newest first. Only files found by the listing are served, and only from inside `DIR`.

use std::io;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{json, Value as Json};

/// At most this many charts are listed (the newest).
const MAX_CHARTS: usize = 24;
/// How deep below `DIR` the listing looks (`bench/results/<benchmark>/<chart>.png` is 1).
const MAX_DEPTH: usize = 3;
/// A larger file is not a chart the page should load.
const MAX_BYTES: u64 = 16 << 20;

/// One chart: its path below the directory (`/`-separated) and when it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Chart {
    pub path: String,
    pub modified: SystemTime,
    pub bytes: u64,
}

/// Why a chart was not served.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ChartError {
    #[error("{0}: not a chart this server lists (PNG files under its --charts directory)")]
    NotListed(String),
    #[error("{path}: cannot be read: {source}")]
    Io {
        path: String,
        #[source]
        source: io::Error,
    },
}

/// Whether a path segment is one the listing offers: plain names (no escaping needed in a
/// URL), so a request names a file exactly as the listing spelled it.
fn plain(segment: &str) -> bool {
    !segment.is_empty()
        && segment != "."
        && segment != ".."
        && segment
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
}

fn is_png(name: &str) -> bool {
    name.len() > 4 && name[name.len() - 4..].eq_ignore_ascii_case(".png")
}

/// The charts under `dir`, newest first, at most [`MAX_CHARTS`].
pub(crate) fn list(dir: &Path) -> io::Result<Vec<Chart>> {
    let mut found = Vec::new();
    walk(dir, "", 0, &mut found)?;
    found.sort_by(|a, b| b.modified.cmp(&a.modified).then_with(|| a.path.cmp(&b.path)));
    found.truncate(MAX_CHARTS);
    Ok(found)
}

fn walk(dir: &Path, prefix: &str, depth: usize, out: &mut Vec<Chart>) -> io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        if !plain(&name) {
            continue;
        }
        let path = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}/{name}")
        };
        // Not following symbolic links keeps every listed file inside `dir`.
        let kind = entry.file_type()?;
        if kind.is_dir() && depth < MAX_DEPTH {
            walk(&entry.path(), &path, depth + 1, out)?;
        } else if kind.is_file() && is_png(&name) {
            let meta = entry.metadata()?;
            if meta.len() <= MAX_BYTES {
                let modified = meta.modified().unwrap_or(UNIX_EPOCH);
                out.push(Chart {
                    path,
                    modified,
                    bytes: meta.len(),
                });
            }
        }
    }
    Ok(())
}

/// The listing as the page reads it: `{"charts": [{"path", "title", "modified", "bytes"}]}`
/// (`modified` in Unix seconds), or, without a directory, no charts and the reason.
pub(crate) fn index(dir: Option<&Path>) -> Result<Json, ChartError> {
    let Some(dir) = dir else {
        return Ok(json!({
            "charts": [],
            "reason": "no chart directory: start hopdb serve with --charts DIR to show the PNG charts under DIR (for example HopDB's bench/results)",
        }));
    };
    let charts = list(dir).map_err(|source| ChartError::Io {
        path: dir.display().to_string(),
        source,
    })?;
    let charts: Vec<Json> = charts
        .iter()
        .map(|c| {
            let secs = c.modified.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
            json!({"path": c.path, "title": title(&c.path), "modified": secs, "bytes": c.bytes})
        })
        .collect();
    Ok(json!({ "charts": charts }))
}

/// `issue24-buckets/buckets.png` -> `issue24-buckets: buckets`.
fn title(path: &str) -> String {
    let stem = path
        .strip_suffix(".png")
        .or_else(|| path.strip_suffix(".PNG"))
        .unwrap_or(path);
    match stem.rsplit_once('/') {
        Some((dir, file)) => format!("{}: {file}", dir.replace('/', " / ")),
        None => stem.to_owned(),
    }
}

/// The bytes of the chart at `rel` (as the listing spelled it) under `dir`.
pub(crate) fn read(dir: &Path, rel: &str) -> Result<Vec<u8>, ChartError> {
    let not_listed = || ChartError::NotListed(rel.to_owned());
    let segments: Vec<&str> = rel.split('/').collect();
    if segments.len() > MAX_DEPTH + 1 || !segments.iter().all(|s| plain(s)) || !is_png(rel) {
        return Err(not_listed());
    }
    let path: PathBuf = segments.iter().fold(dir.to_path_buf(), |p, s| p.join(s));
    // As the listing does: no symbolic link anywhere below `dir`.
    let mut at = dir.to_path_buf();
    for s in &segments {
        at.push(s);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => return Err(not_listed()),
            Ok(_) => {}
            Err(_) => return Err(not_listed()),
        }
    }
    let meta = std::fs::metadata(&path).map_err(|_| not_listed())?;
    if !meta.is_file() || meta.len() > MAX_BYTES {
        return Err(not_listed());
    }
    std::fs::read(&path).map_err(|source| ChartError::Io {
        path: rel.to_owned(),
        source,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use std::time::Duration;

    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n";

    fn write(dir: &Path, rel: &str, age: u64) {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, PNG).unwrap();
        let f = std::fs::File::options().write(true).open(&p).unwrap();
        f.set_modified(SystemTime::now() - Duration::from_secs(age)).unwrap();
    }

    #[test]
    fn lists_png_files_newest_first_and_serves_only_those() {
        let d = tempfile::tempdir().unwrap();
        write(d.path(), "issue1/old.png", 300);
        write(d.path(), "issue2/new.png", 10);
        write(d.path(), "top.PNG", 100);
        write(d.path(), "issue2/figures.csv", 1);
        write(d.path(), "a/b/c/d/too-deep.png", 1);
        write(d.path(), "issue3/with space.png", 1);
        let got: Vec<String> = list(d.path()).unwrap().into_iter().map(|c| c.path).collect();
        assert_eq!(got, ["issue2/new.png", "top.PNG", "issue1/old.png"]);
        let ix = index(Some(d.path())).unwrap();
        assert_eq!(ix["charts"][0]["title"], "issue2: new");
        assert_eq!(ix["charts"][0]["bytes"], PNG.len());

        assert_eq!(read(d.path(), "issue2/new.png").unwrap(), PNG);
        for bad in [
            "../x.png",
            "issue2/../issue1/old.png",
            "/etc/x.png",
            "issue2/figures.csv",
            "issue3/with space.png",
            "nope.png",
            "",
            "issue2",
        ] {
            assert!(matches!(read(d.path(), bad), Err(ChartError::NotListed(_))), "{bad}");
        }
        assert!(index(None).unwrap()["charts"].as_array().unwrap().is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_is_neither_listed_nor_served() {
        let outside = tempfile::tempdir().unwrap();
        write(outside.path(), "secret.png", 1);
        let d = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), d.path().join("linked")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.png"), d.path().join("file.png")).unwrap();
        assert!(list(d.path()).unwrap().is_empty());
        assert!(read(d.path(), "linked/secret.png").is_err());
        assert!(read(d.path(), "file.png").is_err());
    }
}
