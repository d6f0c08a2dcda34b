//! `hopdb serve STORE`: serves the store's Cypher engine to Neo4j drivers over Bolt until
//! SIGINT (Ctrl-C) or SIGTERM, then stops accepting, closes the connections (open
//! transactions roll back) and closes the store.

use crate::query_cmd::{open_store, StoreArgs};
use anyhow::{Context, Result};
use hopdb_cypher::QueryEngine;
use hopdb_server::{serve, ServerConfig};
use std::path::PathBuf;

/// `hopdb serve`'s arguments.
#[derive(clap::Args)]
pub struct ServeArgs {
    /// The store directory.
    pub dir: PathBuf,
    /// Create a new, empty store when the directory holds none.
    #[arg(long)]
    pub create: bool,
    /// Serve the store read-only, opened as a secondary: works while another process writes to
    /// it (a view as of the open); statements that write fail.
    #[arg(long)]
    pub read_only: bool,
    /// Where to listen for Bolt clients, HOST:PORT. Port 0 picks a free port (printed at start).
    /// Only loopback addresses are allowed unless --allow-unauthenticated-network is given:
    /// there is no authentication yet.
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:7687")]
    pub bolt: String,
    /// Listen on a non-loopback address although any credentials are accepted (anyone who can
    /// reach the port can read and write the store).
    #[arg(long)]
    pub allow_unauthenticated_network: bool,
    /// Connections served at once (one thread each); a connection over the limit is closed as
    /// soon as it is accepted. Drivers keep pools of connections: allow for them.
    #[arg(long, value_name = "N", default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_connections: u32,
    /// The HOST:PORT clients should use to reach this server, sent in routing tables for
    /// neo4j:// URIs. Default: the address each client connected to.
    #[arg(long, value_name = "HOST:PORT")]
    pub advertised_address: Option<String>,
    /// On shutdown, how long to wait for running statements before exiting anyway.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    pub shutdown_grace: u64,
}

/// Opens the store, serves it until SIGINT or SIGTERM, then shuts down and closes it.
pub fn run(a: &ServeArgs) -> Result<()> {
    refuse_open_network(&a.bolt, a.allow_unauthenticated_network)?;
    // Before anything starts, so a signal is never lost (nor kills the process mid-write).
    let mut signals = signals::install()?;
    let db = open_store(&StoreArgs {
        dir: a.dir.clone(),
        create: a.create,
        read_only: a.read_only,
        param: Vec::new(),
        params: None,
        timeout: None,
    })?;
    let config = ServerConfig {
        bolt_listen: a.bolt.clone(),
        max_connections: a.max_connections as usize,
        advertised_address: a.advertised_address.clone(),
        shutdown_grace: std::time::Duration::from_secs(a.shutdown_grace),
    };
    let server = serve(QueryEngine::new(db.clone()), config).context("starting the Bolt server")?;
    eprintln!(
        "hopdb: serving {} on bolt://{} (database \"neo4j\"; authentication disabled: any credentials are accepted){}; Ctrl-C or SIGTERM stops",
        a.dir.display(),
        server.local_addr(),
        if a.read_only { "; read-only" } else { "" }
    );
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
    drop(db);
    eprintln!("hopdb: stopped; store closed");
    Ok(())
}

/// Without authentication, only loopback addresses are served unless the user says otherwise.
fn refuse_open_network(listen: &str, allowed: bool) -> Result<()> {
    use std::net::ToSocketAddrs;
    let addrs: Vec<std::net::SocketAddr> = listen
        .to_socket_addrs()
        .with_context(|| format!("--bolt {listen}: not a HOST:PORT address"))?
        .collect();
    if allowed || addrs.iter().all(|a| a.ip().is_loopback()) {
        return Ok(());
    }
    anyhow::bail!(
        "refusing to listen on {listen}: it is reachable from other machines and hopdb serve has no \
         authentication yet (any credentials are accepted); listen on 127.0.0.1, or pass \
         --allow-unauthenticated-network to serve it anyway"
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
