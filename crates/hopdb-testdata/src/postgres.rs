//! A private PostgreSQL server for a test or benchmark: `initdb` into a fresh directory, started
//! on 127.0.0.1 at a free port with trust auth, stopped and removed on drop. As root the server
//! runs as the `postgres` user (PostgreSQL refuses root). Binaries come from `$PG_BIN`, Debian's
//! `/usr/lib/postgresql/*/bin`, or `pg_config --bindir`; `scripts/setup.sh` installs them.

use crate::unique;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// A running private server.
pub struct PrivateServer {
    bin: PathBuf,
    root: PathBuf,
    user: Option<String>,
    /// Its port on 127.0.0.1.
    pub port: u16,
}

/// The user PostgreSQL connections use.
pub const USER: &str = "hopdb";

impl PrivateServer {
    /// Starts one, or says why it cannot (the caller skips with that reason).
    pub fn start() -> Result<PrivateServer, String> {
        let bin = bindir().ok_or("no PostgreSQL server binaries (apt-get install postgresql, or set PG_BIN)")?;
        let as_root = Command::new("id")
            .arg("-u")
            .output()
            .map(|o| o.stdout == b"0\n")
            .unwrap_or(false);
        let user = as_root.then(|| "postgres".to_string());
        let base = if as_root {
            PathBuf::from("/var/tmp")
        } else {
            std::env::temp_dir()
        };
        let root = base.join(format!("hopdb-pg-{}-{}", std::process::id(), unique()));
        std::fs::create_dir_all(&root).map_err(|e| format!("creating {}: {e}", root.display()))?;
        let mut server = PrivateServer {
            bin,
            root,
            user,
            port: 0,
        };
        if let Some(u) = &server.user {
            run(Command::new("chown").arg(u).arg(&server.root))?;
        }
        let data = server.root.join("data");
        run(server.command("initdb").arg("-D").arg(&data).args([
            "-U",
            USER,
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--no-locale",
            "--no-sync",
        ]))?;
        server.port = free_port()?;
        let conf = format!(
            "\nport = {}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{}'\nfsync = off\nmax_connections = 50\n",
            server.port,
            server.root.display()
        );
        append(&data.join("postgresql.conf"), &conf)?;
        run(server
            .command("pg_ctl")
            .arg("-D")
            .arg(&data)
            .arg("-l")
            .arg(server.root.join("server.log"))
            .args(["-w", "-t", "60", "start"]))?;
        // pg_ctl -w returns once the server accepts connections; a short retry covers the rest.
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", server.port)).is_err() {
            if Instant::now() > deadline {
                return Err("the private PostgreSQL server does not accept connections".into());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(server)
    }

    /// A libpq connection string for database `postgres`.
    pub fn conn(&self) -> String {
        format!("host=127.0.0.1 port={} user={USER} dbname=postgres", self.port)
    }

    /// Creates a database and returns its connection string (one cluster per test).
    pub fn create_database(&self, name: &str) -> Result<String, String> {
        run(self
            .command("psql")
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-U",
                USER,
                "-d",
                "postgres",
                "-q",
                "-c",
            ])
            .arg(format!("CREATE DATABASE {name}")))?;
        Ok(format!("host=127.0.0.1 port={} user={USER} dbname={name}", self.port))
    }

    /// Restarts the server (`pg_ctl restart -m immediate`: every connection is cut, as in a
    /// crash or failover), waiting until it accepts connections again.
    pub fn restart(&self) -> Result<(), String> {
        run(self
            .command("pg_ctl")
            .arg("-D")
            .arg(self.root.join("data"))
            .arg("-l")
            .arg(self.root.join("server.log"))
            .args(["-m", "immediate", "-w", "-t", "60", "restart"]))?;
        Ok(())
    }

    fn command(&self, tool: &str) -> Command {
        let exe = self.bin.join(tool);
        let exe = if exe.exists() { exe } else { PathBuf::from(tool) };
        let mut c = match &self.user {
            Some(u) => {
                let mut c = Command::new("runuser");
                c.args(["-u", u, "--"]).arg(exe);
                c
            }
            None => Command::new(exe),
        };
        c.current_dir("/");
        c
    }
}

impl Drop for PrivateServer {
    fn drop(&mut self) {
        let data = self.root.join("data");
        let _ = self
            .command("pg_ctl")
            .arg("-D")
            .arg(&data)
            .args(["-m", "immediate", "-w", "stop"])
            .output();
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

fn bindir() -> Option<PathBuf> {
    let mut candidates: Vec<PathBuf> = std::env::var_os("PG_BIN").map(PathBuf::from).into_iter().collect();
    if let Ok(dirs) = std::fs::read_dir("/usr/lib/postgresql") {
        let mut versions: Vec<PathBuf> = dirs.flatten().map(|d| d.path().join("bin")).collect();
        versions.sort();
        candidates.extend(versions.into_iter().rev());
    }
    if let Ok(o) = Command::new("pg_config").arg("--bindir").output() {
        candidates.push(PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    }
    candidates.into_iter().find(|d| d.join("initdb").is_file())
}

fn run(c: &mut Command) -> Result<Output, String> {
    let o = c.output().map_err(|e| format!("running {c:?}: {e}"))?;
    if !o.status.success() {
        return Err(format!(
            "{c:?} failed: {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    Ok(o)
}

fn append(path: &Path, text: &str) -> Result<(), String> {
    use std::io::Write;
    std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(|e| format!("writing {}: {e}", path.display()))
}

fn free_port() -> Result<u16, String> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("finding a free port: {e}"))
}
