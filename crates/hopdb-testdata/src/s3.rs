//! A private S3-compatible server for a test: moto's server (PyPI `moto[server]`, pinned in
//! scripts/requirements-test.txt and installed by scripts/setup.sh) on 127.0.0.1 at a free
//! port, with one bucket; killed on drop. moto keeps objects in its process memory.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running private server.
pub struct PrivateS3 {
    child: Child,
    /// Its port on 127.0.0.1.
    pub port: u16,
}

impl PrivateS3 {
    /// Starts one with the bucket `bucket`, or says why it cannot (the caller skips).
    pub fn start(bucket: &str) -> Result<PrivateS3, String> {
        let python = std::env::var("HOPDB_VENV")
            .map(|v| format!("{v}/bin/python3"))
            .unwrap_or_else(|_| "python3".into());
        let probe = Command::new(&python).args(["-c", "import moto.server"]).output();
        if !probe.is_ok_and(|o| o.status.success()) {
            return Err(format!(
                "{python} cannot import moto.server (scripts/setup.sh installs moto[server])"
            ));
        }
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .map_err(|e| format!("finding a free port: {e}"))?;
        let child = Command::new(&python)
            .args(["-m", "moto.server", "-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("starting moto: {e}"))?;
        let server = PrivateS3 { child, port };
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if Instant::now() > deadline {
                return Err("moto's server does not accept connections".into());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let (status, body) = server.request("PUT", &format!("/{bucket}"))?;
        if status != 200 {
            return Err(format!("creating bucket {bucket}: HTTP {status}: {body}"));
        }
        Ok(server)
    }

    /// Its endpoint URL.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The object keys in `bucket` (one listing page: up to 1,000).
    pub fn keys(&self, bucket: &str) -> Result<Vec<String>, String> {
        let (status, body) = self.request("GET", &format!("/{bucket}?list-type=2"))?;
        if status != 200 {
            return Err(format!("listing {bucket}: HTTP {status}: {body}"));
        }
        Ok(body
            .split("<Key>")
            .skip(1)
            .filter_map(|s| s.split("</Key>").next())
            .map(str::to_string)
            .collect())
    }

    /// One unsigned HTTP/1.1 request (moto does not check signatures): status and body.
    fn request(&self, method: &str, path: &str) -> Result<(u16, String), String> {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).map_err(|e| e.to_string())?;
        write!(
            s,
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            self.port
        )
        .map_err(|e| e.to_string())?;
        let mut out = String::new();
        s.read_to_string(&mut out).map_err(|e| e.to_string())?;
        let status = out
            .split(' ')
            .nth(1)
            .and_then(|c| c.parse().ok())
            .ok_or_else(|| format!("not HTTP: {out:.200}"))?;
        Ok((
            status,
            out.split_once("\r\n\r\n").map_or(String::new(), |(_, b)| b.to_string()),
        ))
    }
}

impl Drop for PrivateS3 {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
