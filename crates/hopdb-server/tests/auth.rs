//! Authentication over real sockets: users from a users file, `basic` tokens in `LOGON`
//! (5.1+) and in `HELLO` (4.4, 5.0), wrong passwords failing with
//! `Neo.ClientError.Security.Unauthorized` and closing only that connection, `LOGOFF`, users
//! added and removed while the server runs, and the users file itself.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};
use std::thread;

use common::{hello, message, start_with, Client, Resp};
use hopdb_bolt::message::msg;
use hopdb_bolt::{Value, Version};
use hopdb_server::auth::{AuthError, Users};
use hopdb_server::{AuthConfig, ServerConfig, ServerError, ServerHandle};

const UNAUTHORIZED: &str = "Neo.ClientError.Security.Unauthorized";

fn write_users(path: &Path, users: &[(&str, &str)]) {
    let mut u = Users::default();
    for (name, password) in users {
        u.set_password(name, password).unwrap();
    }
    u.save(path).unwrap();
}

/// A server whose users file lists `users`; the directory holding the file.
fn server_with(users: &[(&str, &str)]) -> (ServerHandle, tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("users.json");
    write_users(&path, users);
    let server = start_with(ServerConfig {
        auth: AuthConfig::UsersFile(path.clone()),
        ..ServerConfig::default()
    });
    (server, dir, path)
}

fn token(scheme: &str, user: Option<&str>, password: Option<&str>) -> Vec<(&'static str, Value)> {
    let mut t = vec![("scheme", Value::from(scheme))];
    if let Some(u) = user {
        t.push(("principal", u.into()));
    }
    if let Some(p) = password {
        t.push(("credentials", p.into()));
    }
    t
}

fn logon_as(user: &str, password: &str) -> Vec<u8> {
    message(msg::LOGON, vec![Value::map(token("basic", Some(user), Some(password)))])
}

/// HELLO with the auth token inside, as 4.4 and 5.0 send it.
fn hello_with(auth: Vec<(&'static str, Value)>) -> Vec<u8> {
    let mut extra = vec![("user_agent", Value::from("hopdb-test/1.0"))];
    extra.extend(auth);
    message(msg::HELLO, vec![Value::map(extra)])
}

/// Connects over 5.8, sends HELLO and a LOGON; returns the client and LOGON's reply.
fn try_logon(server: &ServerHandle, logon: Vec<u8>) -> (Client, Resp) {
    let mut c = Client::handshake(server.local_addr(), None);
    assert_eq!(c.version, Version::V5_8);
    let r = c.request(&[hello()]);
    assert!(r[0].is_success(), "{r:?}");
    let r = c.request(&[logon]);
    (c, r[0].clone())
}

fn assert_refused(mut c: Client, r: &Resp) {
    assert!(r.is_failure(), "{r:?}");
    assert_eq!(r.code(), UNAUTHORIZED, "{r:?}");
    assert_eq!(
        r.str("message"),
        "The client is unauthorized due to authentication failure."
    );
    assert!(c.closed_by_server(), "a failed login closes the connection");
}

#[test]
fn right_password_logs_on_and_wrong_ones_fail_alone() {
    let (server, _dir, _) = server_with(&[("ada", "s3cret"), ("bob", "hunter2")]);

    let (mut ada, r) = try_logon(&server, logon_as("ada", "s3cret"));
    assert!(r.is_success(), "{r:?}");
    assert_eq!(ada.scalar("RETURN 1 + 1"), Value::Integer(2));

    // Wrong password, unknown user, no password, the `none` scheme and other schemes: each
    // fails and closes only its own connection.
    let bad = [
        logon_as("ada", "wrong"),
        logon_as("ada", "S3CRET"),
        logon_as("ADA", "s3cret"),
        logon_as("nobody", "s3cret"),
        logon_as("bob", "s3cret"),
        message(msg::LOGON, vec![Value::map(token("basic", Some("ada"), None))]),
        message(msg::LOGON, vec![Value::map(token("none", None, None))]),
        message(msg::LOGON, vec![Value::map(token("bearer", None, Some("s3cret")))]),
    ];
    for logon in bad {
        let (c, r) = try_logon(&server, logon);
        assert_refused(c, &r);
    }

    // The logged-on connection never noticed; another user logs on too.
    assert_eq!(ada.scalar("RETURN 'still here'"), Value::from("still here"));
    let (mut bob, r) = try_logon(&server, logon_as("bob", "hunter2"));
    assert!(r.is_success(), "{r:?}");
    bob.query("CREATE (:Written {by: 'bob'})", Vec::new());
    assert_eq!(ada.scalar("MATCH (n:Written) RETURN n.by"), Value::from("bob"));
}

#[test]
fn nothing_runs_before_logon() {
    let (server, _dir, _) = server_with(&[("ada", "s3cret")]);
    let mut c = Client::handshake(server.local_addr(), None);
    let r = c.request(&[hello()]);
    assert!(r[0].is_success(), "{r:?}");
    // RUN in the AUTHENTICATION state is a protocol violation: FAILURE, then closed.
    let r = c.request(&[common::run("RETURN 1")]);
    assert!(r[0].is_failure(), "{r:?}");
    assert!(c.closed_by_server());
}

#[test]
fn bolt_4_4_and_5_0_authenticate_in_hello() {
    let (server, _dir, _) = server_with(&[("ada", "s3cret")]);
    for version in [Version::V4_4, Version::V5_0] {
        let mut c = Client::handshake(server.local_addr(), Some(version));
        assert_eq!(c.version, version);
        let r = c.request(&[hello_with(token("basic", Some("ada"), Some("s3cret")))]);
        assert!(r[0].is_success(), "{version}: {r:?}");
        assert_eq!(c.scalar("RETURN 7"), Value::Integer(7));

        let mut c = Client::handshake(server.local_addr(), Some(version));
        let r = c.request(&[hello_with(token("basic", Some("ada"), Some("nope")))]);
        assert_refused(c, &r[0]);

        // No token at all is the `none` scheme.
        let mut c = Client::handshake(server.local_addr(), Some(version));
        let r = c.request(&[hello_with(Vec::new())]);
        assert_refused(c, &r[0]);
    }
}

#[test]
fn logoff_then_logon_as_someone_else() {
    let (server, _dir, _) = server_with(&[("ada", "s3cret"), ("bob", "hunter2")]);
    let (mut c, r) = try_logon(&server, logon_as("ada", "s3cret"));
    assert!(r.is_success(), "{r:?}");
    let r = c.request(&[message(msg::LOGOFF, Vec::new())]);
    assert!(r[0].is_success(), "{r:?}");
    let r = c.request(&[logon_as("bob", "hunter2")]);
    assert!(r[0].is_success(), "{r:?}");
    assert_eq!(c.scalar("RETURN 'bob'"), Value::from("bob"));
    let r = c.request(&[message(msg::LOGOFF, Vec::new())]);
    assert!(r[0].is_success(), "{r:?}");
    let r = c.request(&[logon_as("bob", "wrong")]);
    assert_refused(c, &r[0]);
}

#[test]
fn users_added_or_removed_while_serving_count_at_the_next_login() {
    let (server, _dir, path) = server_with(&[("ada", "s3cret")]);
    let (c, r) = try_logon(&server, logon_as("carol", "pw"));
    assert_refused(c, &r);

    let mut users = Users::load(&path).unwrap().unwrap();
    users.set_password("carol", "pw").unwrap();
    users.remove("ada");
    users.save(&path).unwrap();

    let (mut carol, r) = try_logon(&server, logon_as("carol", "pw"));
    assert!(r.is_success(), "{r:?}");
    assert_eq!(carol.scalar("RETURN 1"), Value::Integer(1));
    let (c, r) = try_logon(&server, logon_as("ada", "s3cret"));
    assert_refused(c, &r);

    // A file that cannot be read refuses everyone (it never falls back to no authentication).
    std::fs::write(&path, "{ not json").unwrap();
    let (c, r) = try_logon(&server, logon_as("carol", "pw"));
    assert_refused(c, &r);
    // Fixed again, logins work again; the connection logged on earlier was never disturbed.
    users.save(&path).unwrap();
    let (_c, r) = try_logon(&server, logon_as("carol", "pw"));
    assert!(r.is_success(), "{r:?}");
    assert_eq!(carol.scalar("RETURN 2"), Value::Integer(2));
}

#[test]
fn many_logins_at_once() {
    let (server, _dir, _) = server_with(&[("ada", "s3cret")]);
    let addr = server.local_addr();
    let threads: Vec<_> = (0..12)
        .map(|i| {
            thread::spawn(move || {
                let mut c = Client::handshake(addr, None);
                let r = c.request(&[hello()]);
                assert!(r[0].is_success());
                let password = if i % 3 == 0 { "wrong" } else { "s3cret" };
                let r = c.request(&[logon_as("ada", password)]);
                if i % 3 == 0 {
                    assert_eq!(r[0].code(), UNAUTHORIZED, "{r:?}");
                } else {
                    assert!(r[0].is_success(), "{r:?}");
                    assert_eq!(c.scalar(&format!("RETURN {i}")), Value::Integer(i));
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn disabled_authentication_accepts_any_token() {
    let server = start_with(ServerConfig::default());
    for logon in [
        logon_as("anyone", "anything"),
        message(msg::LOGON, vec![Value::map(token("none", None, None))]),
        message(msg::LOGON, vec![Value::map(token("bearer", None, Some("t")))]),
    ] {
        let (mut c, r) = try_logon(&server, logon);
        assert!(r.is_success(), "{r:?}");
        assert_eq!(c.scalar("RETURN 1"), Value::Integer(1));
    }
}

#[test]
fn a_users_file_must_list_someone() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.json");
    let empty = dir.path().join("empty.json");
    Users::default().save(&empty).unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(
        &bad,
        r#"{"version": 1, "users": [{"user": "a", "password_hash": "plain"}]}"#,
    )
    .unwrap();
    for (path, what) in [(missing, "missing"), (empty, "empty"), (bad, "bad")] {
        let engine = hopdb_cypher::QueryEngine::new(hopdb_database::Database::in_memory());
        let started = hopdb_server::serve(
            engine,
            ServerConfig {
                bolt_listen: "127.0.0.1:0".into(),
                auth: AuthConfig::UsersFile(path),
                ..ServerConfig::default()
            },
        );
        match (what, started) {
            ("missing", Err(ServerError::Auth(AuthError::Io { .. }))) => {}
            ("empty", Err(ServerError::Auth(AuthError::NoUsers { .. }))) => {}
            ("bad", Err(ServerError::Auth(AuthError::Format { .. }))) => {}
            (what, other) => panic!("{what}: {other:?}"),
        }
    }
}

#[test]
fn the_users_file_is_written_atomically_for_its_owner_only() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sub").join("users.json");
    write_users(&path, &[("ada", "s3cret")]);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.contains("\"version\": 1") && text.contains("\"user\": \"ada\""),
        "{text}"
    );
    assert!(text.contains("$argon2id$v=19$") && !text.contains("s3cret"), "{text}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{mode:o}");
    }
    // Rewriting leaves no temporary file behind.
    write_users(&path, &[("ada", "other"), ("bob", "x")]);
    let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names, vec!["users.json".to_owned()]);
    let users = Users::load(&path).unwrap().unwrap();
    assert!(users.verify("ada", "other") && users.verify("bob", "x") && !users.verify("ada", "s3cret"));
    assert_eq!(Users::load(&dir.path().join("none.json")).unwrap(), None);
}
