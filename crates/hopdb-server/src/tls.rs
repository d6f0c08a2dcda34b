//! TLS for Bolt (`bolt+s://`, `bolt+ssc://`, `neo4j+s://`): rustls (with the *ring* crypto
//! provider) over the connection's blocking socket. The TLS handshake comes first, then the
//! Bolt handshake inside it, as Neo4j does; a server with TLS configured accepts only TLS.

use std::io::{self, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::{ServerConnection, StreamOwned};

/// A certificate chain and its private key, both PEM files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsConfig {
    /// The server's certificate, followed by any intermediate certificates (PEM).
    pub cert_chain: PathBuf,
    /// The certificate's private key (PEM: PKCS#8, PKCS#1 RSA or SEC1 EC).
    pub private_key: PathBuf,
}

impl TlsConfig {
    /// Loads the certificate chain and the key and checks they make a usable TLS setup, as
    /// [`serve`](crate::serve) will (to fail before opening a store, say).
    pub fn check(&self) -> Result<(), TlsError> {
        server_config(self).map(drop)
    }
}

/// The TLS setup could not be loaded.
#[derive(Debug, thiserror::Error)]
#[error("{}: {message}", path.display())]
pub struct TlsError {
    /// The file at fault (the certificate when the pair does not match).
    pub path: PathBuf,
    /// What is wrong.
    pub message: String,
}

fn tls_error(path: &Path, message: impl Into<String>) -> TlsError {
    TlsError {
        path: path.to_owned(),
        message: message.into(),
    }
}

/// How long a client has to finish the TLS handshake.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(30);

/// A TLS connection over its socket.
pub(crate) type TlsStream = StreamOwned<ServerConnection, TcpStream>;

/// Loads the certificate chain and key and builds the rustls configuration (TLS 1.2 and
/// 1.3, rustls' safe defaults, no client certificates).
pub(crate) fn server_config(config: &TlsConfig) -> Result<Arc<rustls::ServerConfig>, TlsError> {
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(&config.cert_chain)
        .map_err(|e| tls_error(&config.cert_chain, format!("cannot read the certificate chain: {e}")))?
        .collect::<Result<_, _>>()
        .map_err(|e| tls_error(&config.cert_chain, format!("cannot read the certificate chain: {e}")))?;
    if certs.is_empty() {
        return Err(tls_error(&config.cert_chain, "no PEM certificate in this file"));
    }
    let key = PrivateKeyDer::from_pem_file(&config.private_key)
        .map_err(|e| tls_error(&config.private_key, format!("cannot read the private key: {e}")))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let built = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| tls_error(&config.cert_chain, e.to_string()))?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| {
            tls_error(
                &config.cert_chain,
                format!("the certificate and the key cannot be used together: {e}"),
            )
        })?;
    Ok(Arc::new(built))
}

/// Runs the TLS handshake on an accepted socket. A client that starts with the plain Bolt
/// magic instead is refused with an error saying so.
pub(crate) fn accept(config: &Arc<rustls::ServerConfig>, mut tcp: TcpStream) -> io::Result<TlsStream> {
    tcp.set_read_timeout(Some(HANDSHAKE_TIMEOUT))?;
    let mut first = [0u8; 4];
    if tcp.peek(&mut first)? == first.len() && first == hopdb_bolt::handshake::MAGIC {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "the client spoke plain Bolt to a TLS-only server: it should connect with bolt+s:// \
             (or bolt+ssc:// to accept a self-signed certificate)",
        ));
    }
    let mut conn = ServerConnection::new(config.clone()).map_err(io::Error::other)?;
    while conn.is_handshaking() {
        let (read, written) = conn.complete_io(&mut tcp)?;
        if read == 0 && written == 0 && conn.is_handshaking() {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the client closed the connection during the TLS handshake",
            ));
        }
    }
    tcp.set_read_timeout(None)?;
    Ok(StreamOwned::new(conn, tcp))
}

/// Ends a TLS connection politely (`close_notify`) and closes the socket.
pub(crate) fn close(mut stream: TlsStream) {
    stream.conn.send_close_notify();
    let _ = stream.flush();
    let _ = stream.sock.shutdown(std::net::Shutdown::Both);
}
