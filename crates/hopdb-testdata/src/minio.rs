//! A private distributed MinIO for a test or benchmark: `nodes` server processes on 127.0.0.1,
//! one drive each, forming one erasure set (4 nodes: 2 data and 2 parity shards per object,
//! so reads survive two nodes down and writes one), with one bucket; killed and removed on
//! drop. The binary is `$HOPDB_MINIO`, `~/.cache/hopdb/go/bin/minio` (scripts/setup.sh builds
//! it from the Go module proxy) or `minio` on the PATH. The bucket is made with boto3 from the
//! test venv (MinIO checks signatures; moto's package brings boto3).

use crate::unique;
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The root credentials of every private MinIO.
pub const ACCESS_KEY: &str = "hopdbtest";
/// The root secret.
pub const SECRET_KEY: &str = "hopdbtest-secret";

/// A running private MinIO.
pub struct PrivateMinio {
    bin: PathBuf,
    root: PathBuf,
    ports: Vec<u16>,
    children: Vec<Option<Child>>,
    bucket: String,
}

fn binary() -> Option<PathBuf> {
    let mut candidates: Vec<PathBuf> = std::env::var_os("HOPDB_MINIO").map(PathBuf::from).into_iter().collect();
    if let Some(home) = std::env::var_os("HOME") {
        candidates.push(PathBuf::from(home).join(".cache/hopdb/go/bin/minio"));
    }
    candidates.push(PathBuf::from("minio"));
    candidates.into_iter().find(|c| {
        Command::new(c)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

impl PrivateMinio {
    /// Starts `nodes` servers with the bucket `bucket`, or says why it cannot (the caller skips).
    pub fn start(nodes: usize, bucket: &str) -> Result<PrivateMinio, String> {
        let bin = binary().ok_or("no minio binary (scripts/setup.sh builds it; or set HOPDB_MINIO)")?;
        let root = std::env::temp_dir().join(format!("hopdb-minio-{}-{}", std::process::id(), unique()));
        let mut ports = Vec::new();
        for _ in 0..nodes {
            ports.push(free_port(&ports)?);
        }
        let mut m = PrivateMinio {
            bin,
            root,
            ports,
            children: (0..nodes).map(|_| None).collect(),
            bucket: bucket.to_string(),
        };
        for i in 0..nodes {
            std::fs::create_dir_all(m.drive(i)).map_err(|e| format!("creating a MinIO drive: {e}"))?;
        }
        for i in 0..nodes {
            m.spawn(i)?;
        }
        m.wait_healthy(Duration::from_secs(60))?;
        m.boto3(true)?;
        Ok(m)
    }

    fn drive(&self, i: usize) -> PathBuf {
        self.root.join(format!("drive{i}"))
    }

    fn spawn(&mut self, i: usize) -> Result<(), String> {
        let endpoints: Vec<String> = (0..self.ports.len())
            .map(|j| format!("http://127.0.0.1:{}{}", self.ports[j], self.drive(j).display()))
            .collect();
        let console = free_port(&self.ports)?;
        let log = std::fs::File::create(self.root.join(format!("node{i}.log"))).map_err(|e| e.to_string())?;
        let child = Command::new(&self.bin)
            .arg("server")
            .args(["--address", &format!("127.0.0.1:{}", self.ports[i])])
            .args(["--console-address", &format!("127.0.0.1:{console}")])
            .args(&endpoints)
            .env("MINIO_ROOT_USER", ACCESS_KEY)
            .env("MINIO_ROOT_PASSWORD", SECRET_KEY)
            .env("MINIO_CI_CD", "1")
            // Inside a container MinIO cannot tell which endpoint is its own without this.
            .env("_MINIO_SERVER_LOCAL", format!("127.0.0.1:{}", self.ports[i]))
            .stdin(Stdio::null())
            .stdout(log.try_clone().map_err(|e| e.to_string())?)
            .stderr(log)
            .spawn()
            .map_err(|e| format!("starting minio: {e}"))?;
        self.children[i] = Some(child);
        Ok(())
    }

    /// Waits until every running node reports the cluster healthy (`/minio/health/cluster`:
    /// write quorum), so a node just restarted has rejoined from every peer's point of view.
    pub fn wait_healthy(&self, limit: Duration) -> Result<(), String> {
        let deadline = Instant::now() + limit;
        loop {
            if self
                .running()
                .all(|i| http_status(self.ports[i], "/minio/health/cluster") == Some(200))
            {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "MinIO did not become healthy within {limit:?} (logs in {})",
                    self.root.display()
                ));
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Creates the bucket (`create`) and waits until every running node takes a write (a
    /// healthy cluster still answers 503 for a moment after it forms or a node rejoins).
    fn boto3(&self, create: bool) -> Result<(), String> {
        let python = std::env::var("HOPDB_VENV")
            .map(|v| format!("{v}/bin/python3"))
            .unwrap_or_else(|_| "python3".into());
        let endpoints: Vec<String> = self.running().map(|i| format!("'{}'", self.endpoint(i))).collect();
        let bucket = &self.bucket;
        let script = format!(
            "import time, boto3\n\
             c = lambda e: boto3.client('s3', endpoint_url=e, aws_access_key_id='{ACCESS_KEY}', \
             aws_secret_access_key='{SECRET_KEY}', region_name='us-east-1')\n\
             if {create}: c({first}).create_bucket(Bucket='{bucket}')\n\
             for e in [{list}]:\n\
             \x20   deadline = time.time() + 60\n\
             \x20   while True:\n\
             \x20       try:\n\
             \x20           c(e).put_object(Bucket='{bucket}', Key='.hopdb-probe', Body=b'x'); break\n\
             \x20       except Exception:\n\
             \x20           if time.time() > deadline: raise\n\
             \x20           time.sleep(0.2)\n",
            create = if create { "True" } else { "False" },
            first = endpoints.first().cloned().unwrap_or_default(),
            list = endpoints.join(", "),
        );
        let o = Command::new(&python)
            .args(["-c", &script])
            .output()
            .map_err(|e| format!("running {python}: {e}"))?;
        if !o.status.success() {
            return Err(format!(
                "preparing bucket {bucket} with boto3: {}",
                String::from_utf8_lossy(&o.stderr)
            ));
        }
        Ok(())
    }

    fn running(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.children.len()).filter(|&i| self.children[i].is_some())
    }

    /// The S3 endpoint of node `i`.
    pub fn endpoint(&self, i: usize) -> String {
        format!("http://127.0.0.1:{}", self.ports[i])
    }

    /// Kills node `i` with SIGKILL.
    pub fn kill(&mut self, i: usize) {
        if let Some(mut c) = self.children[i].take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Starts node `i` again on its port and drive, and waits for the cluster to be healthy
    /// and every running node to take writes.
    pub fn restart(&mut self, i: usize) -> Result<(), String> {
        if self.children[i].is_none() {
            self.spawn(i)?;
        }
        self.wait_healthy(Duration::from_secs(60))?;
        self.boto3(false)
    }
}

impl Drop for PrivateMinio {
    fn drop(&mut self) {
        for i in 0..self.children.len() {
            self.kill(i);
        }
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// The status of a GET, if the server answered.
fn http_status(port: u16, path: &str) -> Option<u16> {
    use std::io::{Read, Write};
    let mut s = TcpStream::connect_timeout(&([127, 0, 0, 1], port).into(), Duration::from_millis(500)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut head = [0u8; 12];
    s.read_exact(&mut head).ok()?;
    std::str::from_utf8(&head[9..12]).ok()?.parse().ok()
}

fn free_port(taken: &[u16]) -> Result<u16, String> {
    for _ in 0..100 {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .map_err(|e| format!("finding a free port: {e}"))?;
        if !taken.contains(&port) {
            return Ok(port);
        }
    }
    Err("no free port".into())
}
