//! TLS over real sockets: a self-signed certificate made at test time (rcgen), a rustls
//! client that trusts it speaking Bolt inside TLS (with and without authentication), plain
//! Bolt and untrusting clients refused without disturbing the server, and bad certificate
//! files refused at start.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use common::{decode, hello, logon, message, pull, records, run, start_with, Resp};
use hopdb_bolt::chunk::chunk_into;
use hopdb_bolt::handshake::MAGIC;
use hopdb_bolt::message::msg;
use hopdb_bolt::{Dechunker, Value};
use hopdb_server::auth::Users;
use hopdb_server::{AuthConfig, ServerConfig, ServerError, ServerHandle, TlsConfig};
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, ClientConnection, RootCertStore, StreamOwned};

/// A self-signed certificate for `localhost` and 127.0.0.1, written as PEM files.
struct Cert {
    der: CertificateDer<'static>,
    tls: TlsConfig,
    _dir: tempfile::TempDir,
}

fn make_cert() -> Cert {
    let ck = rcgen::generate_simple_self_signed(vec!["localhost".to_owned(), "127.0.0.1".to_owned()]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cert_chain = dir.path().join("cert.pem");
    let private_key = dir.path().join("key.pem");
    std::fs::write(&cert_chain, ck.cert.pem()).unwrap();
    std::fs::write(&private_key, ck.signing_key.serialize_pem()).unwrap();
    Cert {
        der: ck.cert.der().clone(),
        tls: TlsConfig {
            cert_chain,
            private_key,
        },
        _dir: dir,
    }
}

fn tls_server(cert: &Cert, auth: AuthConfig) -> ServerHandle {
    start_with(ServerConfig {
        tls: Some(cert.tls.clone()),
        auth,
        ..ServerConfig::default()
    })
}

fn client_config(trusted: Option<&CertificateDer<'static>>) -> Arc<ClientConfig> {
    let mut roots = RootCertStore::empty();
    if let Some(c) = trusted {
        roots.add(c.clone()).unwrap();
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    Arc::new(config)
}

/// A Bolt client inside TLS.
struct TlsClient {
    stream: StreamOwned<ClientConnection, TcpStream>,
    dechunker: Dechunker,
}

impl TlsClient {
    /// TLS handshake, then the Bolt handshake (5.8 down to 5.0) inside it.
    fn connect(addr: SocketAddr, config: Arc<ClientConfig>) -> std::io::Result<Self> {
        let sock = TcpStream::connect(addr)?;
        sock.set_read_timeout(Some(Duration::from_secs(30)))?;
        let conn = ClientConnection::new(config, ServerName::try_from("localhost").unwrap()).unwrap();
        let mut stream = StreamOwned::new(conn, sock);
        let mut hs = MAGIC.to_vec();
        hs.extend_from_slice(&[0x00, 0x08, 0x08, 0x05]);
        hs.extend_from_slice(&[0; 12]);
        stream.write_all(&hs)?;
        stream.flush()?;
        let mut reply = [0u8; 4];
        stream.read_exact(&mut reply)?;
        assert_eq!(reply, [0, 0, 8, 5], "Bolt 5.8 inside TLS");
        Ok(Self {
            stream,
            dechunker: Dechunker::default(),
        })
    }

    fn recv(&mut self) -> Option<Resp> {
        loop {
            if let Some(m) = self.dechunker.next_message().unwrap() {
                return Some(decode(&m));
            }
            let mut buf = [0u8; 8192];
            match self.stream.read(&mut buf) {
                Ok(0) | Err(_) => return None,
                Ok(n) => self.dechunker.push(&buf[..n]),
            }
        }
    }

    fn request(&mut self, messages: &[Vec<u8>]) -> Vec<Resp> {
        let mut out = Vec::new();
        for m in messages {
            chunk_into(m, &mut out);
        }
        self.stream.write_all(&out).unwrap();
        self.stream.flush().unwrap();
        let mut replies = Vec::new();
        let mut summaries = 0;
        while summaries < messages.len() {
            let r = self
                .recv()
                .unwrap_or_else(|| panic!("connection closed after {replies:?}"));
            if !matches!(r, Resp::Record(_)) {
                summaries += 1;
            }
            replies.push(r);
        }
        replies
    }

    fn closed_by_server(&mut self) -> bool {
        self.recv().is_none()
    }
}

#[test]
fn bolt_inside_tls() {
    let cert = make_cert();
    let server = tls_server(&cert, AuthConfig::Disabled);
    let mut c = TlsClient::connect(server.local_addr(), client_config(Some(&cert.der))).unwrap();
    let r = c.request(&[hello(), logon()]);
    assert!(r.iter().all(Resp::is_success), "{r:?}");
    let r = c.request(&[run("CREATE (n:Secret {v: 42}) RETURN n.v AS v"), pull(-1)]);
    assert_eq!(records(&r), vec![vec![Value::Integer(42)]]);
    // A result larger than TLS records and rustls' buffers.
    let r = c.request(&[
        run("UNWIND range(1, 20000) AS x RETURN x, 'padding padding padding' AS p"),
        pull(-1),
    ]);
    let rows = records(&r);
    assert_eq!(rows.len(), 20_000);
    assert_eq!(rows[19_999][0], Value::Integer(20_000));
    assert!(r.last().unwrap().is_success(), "{:?}", r.last());
}

#[test]
fn tls_with_authentication() {
    let cert = make_cert();
    let dir = tempfile::tempdir().unwrap();
    let users = dir.path().join("users.json");
    let mut u = Users::default();
    u.set_password("ada", "s3cret").unwrap();
    u.save(&users).unwrap();
    let server = tls_server(&cert, AuthConfig::UsersFile(users));
    let config = client_config(Some(&cert.der));

    let mut bad = TlsClient::connect(server.local_addr(), config.clone()).unwrap();
    let wrong = message(
        msg::LOGON,
        vec![Value::map([
            ("scheme", "basic"),
            ("principal", "ada"),
            ("credentials", "nope"),
        ])],
    );
    let r = bad.request(&[hello(), wrong]);
    assert!(r[0].is_success(), "{r:?}");
    assert_eq!(r[1].code(), "Neo.ClientError.Security.Unauthorized", "{r:?}");
    assert!(bad.closed_by_server());

    let mut good = TlsClient::connect(server.local_addr(), config).unwrap();
    let right = message(
        msg::LOGON,
        vec![Value::map([
            ("scheme", "basic"),
            ("principal", "ada"),
            ("credentials", "s3cret"),
        ])],
    );
    let r = good.request(&[hello(), right, run("RETURN 'over tls' AS s"), pull(-1)]);
    assert_eq!(records(&r), vec![vec![Value::from("over tls")]], "{r:?}");
}

#[test]
fn plain_and_untrusting_clients_are_refused_and_the_server_goes_on() {
    let cert = make_cert();
    let server = tls_server(&cert, AuthConfig::Disabled);

    // Plain Bolt on the TLS port: closed without a Bolt answer.
    let mut plain = TcpStream::connect(server.local_addr()).unwrap();
    plain.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut hs = MAGIC.to_vec();
    hs.extend_from_slice(&[0x00, 0x08, 0x08, 0x05]);
    hs.extend_from_slice(&[0; 12]);
    plain.write_all(&hs).unwrap();
    let mut buf = [0u8; 16];
    match plain.read(&mut buf) {
        Ok(0) => {}
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {}
        other => panic!("a plain client got {other:?}"),
    }

    // A client that does not trust the self-signed certificate fails its handshake.
    assert!(TlsClient::connect(server.local_addr(), client_config(None)).is_err());

    // Garbage instead of a ClientHello.
    let mut junk = TcpStream::connect(server.local_addr()).unwrap();
    junk.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    junk.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    let _ = junk.read(&mut buf);

    let mut c = TlsClient::connect(server.local_addr(), client_config(Some(&cert.der))).unwrap();
    let r = c.request(&[hello(), logon(), run("RETURN 1"), pull(-1)]);
    assert_eq!(records(&r), vec![vec![Value::Integer(1)]]);
}

fn start_err(tls: TlsConfig) -> ServerError {
    let engine = hopdb_cypher::QueryEngine::new(hopdb_database::Database::in_memory());
    hopdb_server::serve(
        engine,
        ServerConfig {
            bolt_listen: "127.0.0.1:0".into(),
            tls: Some(tls),
            ..ServerConfig::default()
        },
    )
    .expect_err("the server should refuse this TLS setup")
}

#[test]
fn unusable_certificates_are_refused_at_start() {
    let cert = make_cert();
    let other = make_cert();
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.pem");
    std::fs::write(&empty, "").unwrap();
    let missing = dir.path().join("missing.pem");
    let cases = [
        (missing.as_path(), cert.tls.private_key.as_path(), "cannot read"),
        (empty.as_path(), cert.tls.private_key.as_path(), "no PEM certificate"),
        (cert.tls.cert_chain.as_path(), empty.as_path(), "private key"),
        (
            cert.tls.cert_chain.as_path(),
            other.tls.private_key.as_path(),
            "cannot be used together",
        ),
    ];
    for (chain, key, expected) in cases {
        let tls = TlsConfig {
            cert_chain: chain.to_owned(),
            private_key: key.to_owned(),
        };
        let check = tls.check().unwrap_err().to_string();
        assert!(check.contains(expected), "{chain:?} {key:?}: {check}");
        match start_err(tls) {
            ServerError::Tls(e) => assert!(e.to_string().contains(expected), "{e}"),
            other => panic!("{other:?}"),
        }
    }
    assert!(cert.tls.check().is_ok());
}
