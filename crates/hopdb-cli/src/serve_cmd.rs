//! `hopdb serve STORE`: serves the store's Cypher engine to Neo4j drivers over Bolt until
//! SIGINT (Ctrl-C) or SIGTERM, then stops accepting, closes the connections (open
//! transactions roll back) and closes the store. `hopdb serve --cluster CONFIG` serves a
//! cluster's graph instead, as one of its stateless query nodes.
//!
//! Authentication is on when the users file (`STORE.users.json`, or `--users FILE`) lists at
//! least one user; then any address may be served. With it off (no users, or `--no-auth`)
//! only loopback addresses are, unless `--allow-unauthenticated-network` says otherwise.

use crate::query_cmd::{open_store, StoreArgs};
use anyhow::{bail, Context, Result};
use hopdb_cypher::QueryEngine;
use hopdb_server::auth::default_users_path;
use hopdb_server::{serve, AuthConfig, ServerConfig, TlsConfig, Users};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// `hopdb serve`'s arguments.
#[derive(clap::Args)]
pub struct ServeArgs {
    /// The store directory.
    #[arg(required_unless_present = "cluster")]
    pub dir: Option<PathBuf>,
    /// Serve a cluster's graph instead of a store (docs/cluster.md): this process is one of
    /// its stateless query nodes, any number of which answer and write the same graph
    /// (writes commit through the cluster's metadata; a statement that meets a concurrent
    /// write is run again). No schema changes, multi-edge writes or algorithm procedures.
    /// The users file defaults to CONFIG.users.json.
    #[arg(long, value_name = "CONFIG", conflicts_with_all = ["dir", "create", "read_only", "no_projection"])]
    pub cluster: Option<PathBuf>,
    /// Create a new, empty store when the directory holds none.
    #[arg(long)]
    pub create: bool,
    /// Serve the store read-only, opened as a secondary: works while another process writes to
    /// it (a view as of the open); statements that write fail.
    #[arg(long)]
    pub read_only: bool,
    /// Where to listen for Bolt clients, HOST:PORT. Port 0 picks a free port (printed at start).
    /// Without authentication (no users), only loopback addresses are allowed unless
    /// --allow-unauthenticated-network is given.
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:7687")]
    pub bolt: String,
    /// The users file: clients must log on as one of its users (add them with `hopdb user
    /// add --users FILE`). Default: STORE.users.json beside the store directory, used when it lists anyone (else
    /// authentication is off); a FILE given here must list at least one user.
    #[arg(long, value_name = "FILE", conflicts_with = "no_auth")]
    pub users: Option<PathBuf>,
    /// Accept any credentials even if the store has users. Loopback addresses only, unless
    /// --allow-unauthenticated-network is given too.
    #[arg(long)]
    pub no_auth: bool,
    /// Listen on a non-loopback address with authentication off (anyone who can reach the port
    /// can read and write the store).
    #[arg(long)]
    pub allow_unauthenticated_network: bool,
    /// Serve over TLS with this certificate chain (PEM; the server's certificate first).
    /// Clients then connect with bolt+s:// or neo4j+s:// (bolt+ssc:// for a self-signed
    /// certificate); plain bolt:// is refused.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert (PEM: PKCS#8, PKCS#1 or SEC1).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Connections served at once; a connection over the limit is closed as
    /// soon as it is accepted. Drivers keep pools of connections: allow for them.
    #[arg(long, value_name = "N", default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_connections: u32,
    /// Worker threads that serve the plain-TCP connections (default: one per core). Any
    /// number of connections share them; while every worker is held by a long query, another
    /// is added, so short queries keep being answered. TLS connections get a thread each.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..1025))]
    pub workers: Option<u32>,
    /// The HOST:PORT clients should use to reach this server, sent in routing tables for
    /// neo4j:// URIs. Default: the address each client connected to.
    #[arg(long, value_name = "HOST:PORT")]
    pub advertised_address: Option<String>,
    /// On shutdown, how long to wait for running statements before exiting anyway.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    pub shutdown_grace: u64,
    /// Where to answer HTTP, HOST:PORT, or `off`: the graph explorer in a browser (GET
    /// /browser/: search, expand, Cypher, algorithms; it logs on as the users below), GET
    /// /health (/health/live, /health/ready; 503 while stopping), GET /metrics (Prometheus)
    /// and Neo4j's query API (POST /db/neo4j/query/v2, with HTTP Basic credentials when
    /// authentication is on). Default
    /// 127.0.0.1:7474, skipped with a warning when taken; an address given here must be free.
    /// Plain HTTP (no TLS).
    #[arg(long, value_name = "HOST:PORT|off", conflicts_with = "no_http")]
    pub http: Option<String>,
    /// No HTTP listener (as --http off).
    #[arg(long)]
    pub no_http: bool,
    /// Stop any statement that runs longer than this (clients may ask for less with a
    /// transaction timeout); 0: no server-side limit. A statement also stops when its client
    /// sends RESET or disconnects.
    #[arg(long, value_name = "SECONDS", default_value_t = 0.0)]
    pub statement_timeout: f64,
    /// How long a write waits for the store's one writer slot while another client's
    /// transaction holds it; then it fails with Neo.TransientError.Transaction.
    /// LockAcquisitionTimeout, which drivers retry. 0: wait as long as it takes.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    pub writer_wait: f64,
    /// Roll back an explicit transaction whose client has sent nothing for this long (its
    /// connection is closed), so a stalled client cannot keep the writer slot; 0: never.
    #[arg(long, value_name = "SECONDS", default_value_t = 120.0)]
    pub idle_transaction_timeout: f64,
    /// Do not build the in-memory adjacency projection. By default it is built in the
    /// background once the server listens, and again after writes (spaced out while writes
    /// keep coming); read queries list relationships from memory instead of the store while
    /// no write has landed since it was built (it costs memory proportional to the edges).
    #[arg(long)]
    pub no_projection: bool,
    /// Show the PNG charts under DIR (newest first, up to three folders deep; HopDB's
    /// bench/results keeps one folder per benchmark) on the explorer's store page, served
    /// with the same credentials as the page.
    #[arg(long, value_name = "DIR")]
    pub charts: Option<PathBuf>,
}

/// Builds the all-types adjacency projection on a background thread, logging what it took.
fn warm_projection(db: &hopdb_database::Database) {
    let db = db.clone();
    let spawned = std::thread::Builder::new().name("projection".into()).spawn(move || {
        let t = std::time::Instant::now();
        let spec = hopdb_database::ProjectionSpec::all();
        match db.analytics().projection(&spec, &hopdb_database::Control::default()) {
            Ok(p) => tracing::info!(
                nodes = p.projection.node_count(),
                ms = t.elapsed().as_millis() as u64,
                "built the adjacency projection: reads list relationships from memory until the next write"
            ),
            Err(e) => tracing::warn!(error = %e, "could not build the adjacency projection; reads use the store"),
        }
    });
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "could not start the projection thread");
    }
}

/// A duration option in seconds; 0 means none. Refuses negative and non-finite values.
fn seconds(name: &str, v: f64) -> Result<Option<std::time::Duration>> {
    if !v.is_finite() || v < 0.0 {
        anyhow::bail!("--{name}: expected a number of seconds >= 0, got {v}");
    }
    Ok((v > 0.0).then(|| std::time::Duration::from_secs_f64(v)))
}

/// `--http`'s default.
const DEFAULT_HTTP: &str = "127.0.0.1:7474";

/// Where to answer HTTP, and whether failing to is only a warning (the default address).
fn http_listen(a: &ServeArgs) -> (Option<String>, bool) {
    match &a.http {
        _ if a.no_http => (None, false),
        Some(h) if h.eq_ignore_ascii_case("off") => (None, false),
        Some(h) => (Some(h.clone()), false),
        None => (Some(DEFAULT_HTTP.to_owned()), true),
    }
}

/// What is served: the store directory, or the cluster's configuration file (which also
/// names the default users file).
fn served(a: &ServeArgs) -> &Path {
    a.cluster.as_deref().or(a.dir.as_deref()).unwrap_or(Path::new("."))
}

/// The engine for a cluster's query node.
fn cluster_engine(config: &Path) -> Result<QueryEngine> {
    let cfg = hopdb_cluster::ClusterConfig::from_file(config)?;
    let cluster =
        hopdb_cluster::Cluster::open(cfg).with_context(|| format!("opening the cluster of {}", config.display()))?;
    let graph = hopdb_cluster::ClusterGraph::new(Arc::new(cluster));
    Ok(QueryEngine::over(Arc::new(graph)))
}

/// Opens the store (or the cluster), serves it until SIGINT or SIGTERM, then shuts down and
/// closes it.
pub fn run(a: &ServeArgs) -> Result<()> {
    let auth = choose_auth(a)?;
    let (http, http_best_effort) = http_listen(a);
    let auth_note = match &auth.config {
        AuthConfig::UsersFile(path) => format!(
            "authentication on: {} user{} in {}",
            auth.users,
            if auth.users == 1 { "" } else { "s" },
            path.display()
        ),
        AuthConfig::Disabled => {
            refuse_open_network(&a.bolt, a.allow_unauthenticated_network, &auth.why_off)?;
            if let Some(h) = &http {
                refuse_open_network(h, a.allow_unauthenticated_network, &auth.why_off).context("--http")?;
            }
            format!("authentication off ({}): any credentials are accepted", auth.why_off)
        }
    };
    if a.no_auth && auth.ignored_users > 0 {
        eprintln!(
            "hopdb: warning: --no-auth: the {} user(s) in {} are ignored",
            auth.ignored_users,
            default_users_path(served(a)).display()
        );
    }
    let tls = match (&a.tls_cert, &a.tls_key) {
        (Some(cert), Some(key)) => Some(TlsConfig {
            cert_chain: cert.clone(),
            private_key: key.clone(),
        }),
        _ => None,
    };
    if let Some(t) = &tls {
        t.check().context("--tls-cert/--tls-key")?;
    }
    if let Some(dir) = &a.charts {
        if !dir.is_dir() {
            bail!("--charts {}: not a directory", dir.display());
        }
    }
    let scheme = if tls.is_some() { "bolt+s" } else { "bolt" };
    // Before anything starts, so a signal is never lost (nor kills the process mid-write).
    let mut signals = signals::install()?;
    let (engine, db) = match (&a.cluster, &a.dir) {
        (Some(config), _) => (cluster_engine(config)?, None),
        (None, dir) => {
            let db = open_store(
                &StoreArgs {
                    dir: dir.clone().unwrap_or_default(),
                    create: a.create,
                    read_only: a.read_only,
                    param: Vec::new(),
                    params: None,
                    timeout: None,
                },
                !a.no_projection,
                // A server reports cache hit rates on /metrics; counting them costs 3-7% of
                // a sub-microsecond read, nothing next to a request (decision 0052).
                true,
            )?;
            (QueryEngine::new(db.clone()), Some(db))
        }
    };
    let config = ServerConfig {
        bolt_listen: a.bolt.clone(),
        max_connections: a.max_connections as usize,
        advertised_address: a.advertised_address.clone(),
        shutdown_grace: std::time::Duration::from_secs(a.shutdown_grace),
        auth: auth.config,
        tls,
        http_listen: http.clone(),
        http_best_effort,
        statement_timeout: seconds("statement-timeout", a.statement_timeout)?,
        writer_wait: seconds("writer-wait", a.writer_wait)?,
        idle_transaction_timeout: seconds("idle-transaction-timeout", a.idle_transaction_timeout)?,
        workers: a.workers.map_or(ServerConfig::default().workers, |n| n as usize),
        charts_dir: a.charts.clone(),
    };
    let server = serve(engine, config).context("starting the Bolt server")?;
    if let Some(db) = db.as_ref().filter(|_| !a.no_projection) {
        warm_projection(db);
    }
    eprintln!(
        "hopdb: serving {}{} on {scheme}://{} (database \"neo4j\"; {auth_note}){}; Ctrl-C or SIGTERM stops",
        if a.cluster.is_some() { "the cluster of " } else { "" },
        served(a).display(),
        server.local_addr(),
        if a.read_only { "; read-only" } else { "" }
    );
    match (server.http_addr(), &http) {
        (Some(addr), _) => eprintln!(
            "hopdb: HTTP on http://{addr}: the explorer at http://{addr}/browser/, /health, /metrics, POST /db/neo4j/query/v2{}",
            if scheme == "bolt+s" {
                " (plain HTTP: no TLS)"
            } else {
                ""
            }
        ),
        (None, Some(h)) => {
            eprintln!("hopdb: warning: HTTP is off: cannot listen on {h} (--http HOST:PORT picks another)")
        }
        (None, None) => {}
    }
    let signal = signals.wait();
    eprintln!("hopdb: {signal}: stopping (a second signal exits at once)");
    signals.exit_on_next();
    let clean = server.shutdown();
    if !clean {
        eprintln!(
            "hopdb: warning: some connections were still running statements after {} s; exiting without waiting for them",
            a.shutdown_grace
        );
        return Ok(());
    }
    // Every connection has let go of the store: dropping the last handle closes it.
    let had_store = db.is_some();
    drop(db);
    eprintln!("hopdb: stopped{}", if had_store { "; store closed" } else { "" });
    Ok(())
}

/// What `hopdb serve` decided about authentication.
struct AuthChoice {
    config: AuthConfig,
    /// Users in the file, when authentication is on.
    users: usize,
    /// Why authentication is off, for messages.
    why_off: String,
    /// Users of the store's file that --no-auth ignores.
    ignored_users: usize,
}

/// Authentication is on when the users file lists anyone; `--users FILE` must; `--no-auth`
/// turns it off. Reads the file only: nothing is created.
fn choose_auth(a: &ServeArgs) -> Result<AuthChoice> {
    let default_path = default_users_path(served(a));
    if a.no_auth {
        // A broken file must not stop a server asked to ignore it.
        let ignored = Users::load(&default_path).ok().flatten().map_or(0, |u| u.len());
        return Ok(AuthChoice {
            config: AuthConfig::Disabled,
            users: 0,
            why_off: "--no-auth".into(),
            ignored_users: ignored,
        });
    }
    let path = a.users.clone().unwrap_or(default_path);
    let users = Users::load(&path)?;
    let count = users.as_ref().map_or(0, Users::len);
    if count > 0 {
        return Ok(AuthChoice {
            config: AuthConfig::UsersFile(path),
            users: count,
            why_off: String::new(),
            ignored_users: 0,
        });
    }
    if a.users.is_some() {
        bail!(
            "--users {}: {}; add one with `hopdb user add {} NAME --users {}`",
            path.display(),
            if users.is_some() {
                "no users in this file"
            } else {
                "no such file"
            },
            served(a).display(),
            path.display()
        );
    }
    Ok(AuthChoice {
        config: AuthConfig::Disabled,
        users: 0,
        why_off: format!("no users in {}", path.display()),
        ignored_users: 0,
    })
}

/// Without authentication, only loopback addresses are served unless the user says otherwise.
fn refuse_open_network(listen: &str, allowed: bool, why_off: &str) -> Result<()> {
    use std::net::ToSocketAddrs;
    let addrs: Vec<std::net::SocketAddr> = listen
        .to_socket_addrs()
        .with_context(|| format!("--bolt {listen}: not a HOST:PORT address"))?
        .collect();
    if allowed || addrs.iter().all(|a| a.ip().is_loopback()) {
        return Ok(());
    }
    bail!(
        "refusing to listen on {listen}: it is reachable from other machines and authentication is \
         off ({why_off}: any credentials would be accepted); add a user with `hopdb user add STORE \
         NAME`, listen on 127.0.0.1, or pass --allow-unauthenticated-network to serve it anyway"
    )
}

#[cfg(unix)]
mod signals {
    use anyhow::{Context, Result};
    use signal_hook::consts::signal::{SIGINT, SIGTERM};
    use signal_hook::iterator::Signals;

    /// SIGINT and SIGTERM, delivered to a waiting thread instead of killing the process.
    pub struct Stop(Signals);

    pub fn install() -> Result<Stop> {
        Signals::new([SIGINT, SIGTERM])
            .map(Stop)
            .context("installing the SIGINT/SIGTERM handlers")
    }

    impl Stop {
        /// Blocks until SIGINT or SIGTERM; names it.
        pub fn wait(&mut self) -> &'static str {
            match self.0.forever().next() {
                Some(SIGTERM) => "SIGTERM",
                Some(SIGINT) => "SIGINT",
                _ => "signal",
            }
        }

        /// From now on another signal ends the process at once (exit status 130).
        pub fn exit_on_next(mut self) {
            std::thread::spawn(move || {
                if self.0.forever().next().is_some() {
                    eprintln!("hopdb: second signal: exiting now");
                    std::process::exit(130);
                }
            });
        }
    }
}

#[cfg(not(unix))]
mod signals {
    use anyhow::Result;

    /// Without Unix signals the server runs until the process is killed.
    pub struct Stop;

    pub fn install() -> Result<Stop> {
        Ok(Stop)
    }

    impl Stop {
        pub fn wait(&mut self) -> &'static str {
            loop {
                std::thread::park();
            }
        }

        pub fn exit_on_next(self) {}
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        serve: ServeArgs,
    }

    fn args(v: &[&str]) -> ServeArgs {
        Cli::try_parse_from(std::iter::once("serve").chain(v.iter().copied()))
            .unwrap()
            .serve
    }

    #[test]
    fn authentication_is_on_when_the_store_has_users() {
        let dir = tempfile::tempdir().unwrap();
        let store_dir = dir.path().join("store");
        let store = store_dir.to_str().unwrap();
        let off = choose_auth(&args(&[store])).unwrap();
        assert_eq!(off.config, AuthConfig::Disabled);
        assert!(off.why_off.contains("no users"), "{}", off.why_off);

        let mut users = Users::default();
        users.set_password("ada", "pw").unwrap();
        users.save(&default_users_path(&store_dir)).unwrap();
        let on = choose_auth(&args(&[store])).unwrap();
        assert_eq!(on.config, AuthConfig::UsersFile(default_users_path(&store_dir)));
        assert_eq!(on.users, 1);

        let forced = choose_auth(&args(&[store, "--no-auth"])).unwrap();
        assert_eq!(forced.config, AuthConfig::Disabled);
        assert_eq!(forced.ignored_users, 1);

        let missing = dir.path().join("other.json");
        let e = choose_auth(&args(&[store, "--users", missing.to_str().unwrap()]))
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("no such file"), "{e}");
        Users::default().save(&missing).unwrap();
        let e = choose_auth(&args(&[store, "--users", missing.to_str().unwrap()]))
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("no users in this file"), "{e}");
        assert!(Cli::try_parse_from(["serve", store, "--users", "f", "--no-auth"]).is_err());
        assert!(Cli::try_parse_from(["serve", store, "--tls-cert", "c.pem"]).is_err());
    }

    #[test]
    fn only_loopback_without_authentication() {
        assert!(refuse_open_network("127.0.0.1:0", false, "x").is_ok());
        assert!(refuse_open_network("[::1]:0", false, "x").is_ok());
        assert!(refuse_open_network("localhost:0", false, "x").is_ok());
        let e = refuse_open_network("0.0.0.0:0", false, "no users in u.json")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("refusing to listen on 0.0.0.0:0") && e.contains("no users in u.json"),
            "{e}"
        );
        assert!(refuse_open_network("0.0.0.0:0", true, "x").is_ok());
    }

    #[test]
    fn http_is_on_by_default_and_can_be_turned_off() {
        assert_eq!(http_listen(&args(&["s"])), (Some(DEFAULT_HTTP.into()), true));
        let given = http_listen(&args(&["s", "--http", "127.0.0.1:0"]));
        assert_eq!(given, (Some("127.0.0.1:0".into()), false));
        assert_eq!(http_listen(&args(&["s", "--http", "off"])), (None, false));
        assert_eq!(http_listen(&args(&["s", "--no-http"])), (None, false));
        assert!(Cli::try_parse_from(["serve", "s", "--http", "off", "--no-http"]).is_err());
    }
}
