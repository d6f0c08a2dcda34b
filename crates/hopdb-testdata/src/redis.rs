//! A private Redis Cluster for a test or benchmark: `masters` primaries, each with `replicas`
//! replicas, every instance a `redis-server` on 127.0.0.1 at a free port with its own directory,
//! no persistence, LFU eviction under `maxmemory`; killed and removed on drop. The slots are
//! split evenly over the primaries by hand (`CLUSTER ADDSLOTSRANGE`, which also works for one or
//! two primaries where `redis-cli --cluster create` wants three). Debian's `redis-server` and
//! `redis-cli` (`scripts/setup.sh` installs them).

use crate::unique;
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const SLOTS: u32 = 16384;

/// A running private Redis Cluster.
pub struct PrivateRedisCluster {
    root: PathBuf,
    instances: Vec<Instance>,
    masters: usize,
}

struct Instance {
    port: u16,
    child: Option<Child>,
}

impl PrivateRedisCluster {
    /// Starts one with `maxmemory_mb` per instance, or says why it cannot (the caller skips
    /// with that reason).
    pub fn start(masters: usize, replicas: usize, maxmemory_mb: u64) -> Result<PrivateRedisCluster, String> {
        if masters == 0 {
            return Err("a Redis Cluster needs at least one primary".into());
        }
        for tool in ["redis-server", "redis-cli"] {
            if Command::new(tool).arg("--version").output().is_err() {
                return Err(format!("no {tool} (apt-get install redis-server redis-tools)"));
            }
        }
        let root = std::env::temp_dir().join(format!("hopdb-redis-{}-{}", std::process::id(), unique()));
        std::fs::create_dir_all(&root).map_err(|e| format!("creating {}: {e}", root.display()))?;
        let mut cluster = PrivateRedisCluster {
            root,
            instances: Vec::new(),
            masters,
        };
        let total = masters * (1 + replicas);
        let mut taken = Vec::new();
        for _ in 0..total {
            let port = free_port_pair(&taken)?;
            taken.push(port);
            cluster.instances.push(Instance { port, child: None });
        }
        for i in 0..total {
            cluster.spawn(i, maxmemory_mb)?;
        }
        let p0 = cluster.instances[0].port;
        for i in 1..total {
            cluster.cli(i, &["cluster", "meet", "127.0.0.1", &p0.to_string()])?;
        }
        for m in 0..masters {
            let lo = m as u32 * SLOTS / masters as u32;
            let hi = (m as u32 + 1) * SLOTS / masters as u32 - 1;
            cluster.cli(m, &["cluster", "addslotsrange", &lo.to_string(), &hi.to_string()])?;
        }
        cluster.wait(Duration::from_secs(30), "every node to know every other", |c| {
            (0..total).all(|i| {
                c.cli(i, &["cluster", "nodes"])
                    .map(|o| o.lines().filter(|l| !l.trim().is_empty()).count() == total)
                    .unwrap_or(false)
            })
        })?;
        for r in masters..total {
            let master = (r - masters) % masters;
            let id = cluster.cli(master, &["cluster", "myid"])?;
            cluster.cli(r, &["cluster", "replicate", id.trim()])?;
        }
        cluster.wait_ok(Duration::from_secs(30))?;
        Ok(cluster)
    }

    fn spawn(&mut self, i: usize, maxmemory_mb: u64) -> Result<(), String> {
        let port = self.instances[i].port;
        let dir = self.root.join(format!("n{port}"));
        std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
        let conf = format!(
            "port {port}\nbind 127.0.0.1\nprotected-mode no\ncluster-enabled yes\n\
             cluster-config-file nodes.conf\ncluster-node-timeout 1000\n\
             cluster-replica-validity-factor 0\nappendonly no\nsave \"\"\ndir {dir}\n\
             maxmemory {maxmemory_mb}mb\nmaxmemory-policy allkeys-lfu\nlogfile {dir}/redis.log\n",
            dir = dir.display()
        );
        let conf_path = dir.join("redis.conf");
        std::fs::write(&conf_path, conf).map_err(|e| format!("writing {}: {e}", conf_path.display()))?;
        let child = Command::new("redis-server")
            .arg(&conf_path)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("starting redis-server: {e}"))?;
        self.instances[i].child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.cli(i, &["ping"]).map(|o| o.trim() != "PONG").unwrap_or(true) {
            if Instant::now() > deadline {
                return Err(format!("redis-server on port {port} does not answer"));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(())
    }

    /// Runs `redis-cli` against instance `i`; its output, or why it failed.
    pub fn cli(&self, i: usize, args: &[&str]) -> Result<String, String> {
        let o = Command::new("redis-cli")
            .args(["-h", "127.0.0.1", "-p", &self.instances[i].port.to_string()])
            .args(args)
            .output()
            .map_err(|e| format!("running redis-cli: {e}"))?;
        let out = String::from_utf8_lossy(&o.stdout).to_string();
        if !o.status.success() || out.starts_with("ERR") || out.starts_with("(error)") {
            return Err(format!(
                "redis-cli {args:?} on port {}: {out}{}",
                self.instances[i].port,
                String::from_utf8_lossy(&o.stderr)
            ));
        }
        Ok(out)
    }

    fn wait(&self, limit: Duration, what: &str, ok: impl Fn(&Self) -> bool) -> Result<(), String> {
        let deadline = Instant::now() + limit;
        while !ok(self) {
            if Instant::now() > deadline {
                return Err(format!("the Redis Cluster did not get {what} within {limit:?}"));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(())
    }

    /// Waits until every running instance reports `cluster_state:ok` and every slot is served.
    pub fn wait_ok(&self, limit: Duration) -> Result<(), String> {
        self.wait(limit, "to cluster_state:ok", |c| {
            c.alive().all(|i| {
                c.cli(i, &["cluster", "info"])
                    .map(|o| o.contains("cluster_state:ok") && o.contains("cluster_slots_ok:16384"))
                    .unwrap_or(false)
            })
        })
    }

    fn alive(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.instances.len()).filter(|&i| self.instances[i].child.is_some())
    }

    /// `redis://` URLs of every running instance.
    pub fn urls(&self) -> Vec<String> {
        self.alive()
            .map(|i| format!("redis://127.0.0.1:{}", self.instances[i].port))
            .collect()
    }

    /// The number of primaries it was started with.
    pub fn masters(&self) -> usize {
        self.masters
    }

    /// The indexes of the running instances that are primaries now.
    pub fn current_masters(&self) -> Vec<usize> {
        self.alive()
            .filter(|&i| self.cli(i, &["role"]).map(|o| o.starts_with("master")).unwrap_or(false))
            .collect()
    }

    /// Kills instance `i` with SIGKILL (a crashed server: no shutdown, no failover handshake).
    pub fn kill(&mut self, i: usize) {
        if let Some(mut c) = self.instances[i].child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Sums `used_memory` over the running primaries.
    pub fn used_memory(&self) -> u64 {
        self.current_masters()
            .into_iter()
            .filter_map(|i| self.cli(i, &["info", "memory"]).ok())
            .filter_map(|o| {
                o.lines()
                    .find_map(|l| l.strip_prefix("used_memory:"))
                    .and_then(|v| v.trim().parse::<u64>().ok())
            })
            .sum()
    }

    /// Sums `DBSIZE` over the running primaries.
    pub fn keys(&self) -> u64 {
        self.current_masters()
            .into_iter()
            .filter_map(|i| self.cli(i, &["dbsize"]).ok())
            .filter_map(|o| o.trim().parse::<u64>().ok())
            .sum()
    }
}

impl Drop for PrivateRedisCluster {
    fn drop(&mut self) {
        for i in 0..self.instances.len() {
            self.kill(i);
        }
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// A free port whose cluster bus port (+10000) is free too.
fn free_port_pair(taken: &[u16]) -> Result<u16, String> {
    for _ in 0..200 {
        let l = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("finding a free port: {e}"))?;
        let port = l.local_addr().map_err(|e| e.to_string())?.port();
        if port > 55000 || taken.contains(&port) {
            continue;
        }
        if TcpListener::bind(("127.0.0.1", port + 10000)).is_ok() {
            return Ok(port);
        }
    }
    Err("no free port pair (port and port + 10000) for a Redis Cluster node".into())
}
