//! `hopdb user` and how `hopdb serve` chooses authentication, run as the built binary:
//! users added with the password on standard input, listed, changed and removed; the file
//! owner-only; a server with users may listen on any address, one without may not.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

struct Out {
    ok: bool,
    stdout: String,
    stderr: String,
}

fn hopdb(args: &[&str], stdin: &str) -> Out {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hopdb"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The command may exit before reading (a refused request): ignore a broken pipe.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    let o = child.wait_with_output().unwrap();
    Out {
        ok: o.status.success(),
        stdout: String::from_utf8(o.stdout).unwrap(),
        stderr: String::from_utf8(o.stderr).unwrap(),
    }
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn add_list_passwd_remove() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let st = s(&store);

    let o = hopdb(&["user", "add", st, "ada", "--password-stdin"], "s3cret\n");
    assert!(o.ok, "{}", o.stderr);
    assert!(o.stderr.contains("added user \"ada\""), "{}", o.stderr);
    let file = dir.path().join("store.users.json");
    assert!(
        !store.exists(),
        "the store directory is left alone (a new store needs it empty)"
    );
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("$argon2id$") && !text.contains("s3cret"), "{text}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
    }

    let o = hopdb(&["user", "add", st, "bob", "--password-stdin"], "hunter2\n");
    assert!(o.ok, "{}", o.stderr);
    let o = hopdb(&["user", "list", st], "");
    assert!(o.ok, "{}", o.stderr);
    assert_eq!(o.stdout, "ada\nbob\n");

    let o = hopdb(&["user", "add", st, "ada", "--password-stdin"], "again\n");
    assert!(!o.ok && o.stderr.contains("already exists"), "{}", o.stderr);
    let o = hopdb(&["user", "passwd", st, "carol", "--password-stdin"], "x\n");
    assert!(!o.ok && o.stderr.contains("no user \"carol\""), "{}", o.stderr);
    let o = hopdb(&["user", "passwd", st, "ada", "--password-stdin"], "new one\n");
    assert!(o.ok, "{}", o.stderr);
    let users = hopdb_server::Users::load(&file).unwrap().unwrap();
    assert!(users.verify("ada", "new one") && !users.verify("ada", "s3cret"));

    // No terminal and no --password-stdin: refused, nothing changed.
    let o = hopdb(&["user", "add", st, "carol"], "pw\n");
    assert!(!o.ok && o.stderr.contains("--password-stdin"), "{}", o.stderr);
    let o = hopdb(&["user", "add", st, "dave", "--password-stdin"], "\n");
    assert!(!o.ok && o.stderr.contains("empty"), "{}", o.stderr);

    let o = hopdb(&["user", "remove", st, "bob"], "");
    assert!(o.ok, "{}", o.stderr);
    let o = hopdb(&["user", "remove", st, "bob"], "");
    assert!(!o.ok, "{}", o.stderr);
    let o = hopdb(&["user", "remove", st, "ada"], "");
    assert!(o.ok && o.stderr.contains("no users left"), "{}", o.stderr);
    let o = hopdb(&["user", "list", st], "");
    assert!(o.ok && o.stdout.is_empty(), "{}", o.stdout);

    // Another file with --users.
    let other = dir.path().join("elsewhere.json");
    let o = hopdb(
        &["user", "add", st, "eve", "--users", s(&other), "--password-stdin"],
        "pw\n",
    );
    assert!(o.ok, "{}", o.stderr);
    let o = hopdb(&["user", "list", st, "--users", s(&other)], "");
    assert_eq!(o.stdout, "eve\n");
}

#[cfg(unix)]
#[test]
fn serve_chooses_authentication_from_the_users_file() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let st = s(&store);

    // --users naming a file without users is an error, before anything is created.
    let missing = dir.path().join("missing.json");
    let o = hopdb(&["serve", st, "--create", "--users", s(&missing)], "");
    assert!(!o.ok && o.stderr.contains("no such file"), "{}", o.stderr);
    assert!(!store.exists());

    let o = hopdb(&["user", "add", st, "ada", "--password-stdin"], "s3cret\n");
    assert!(o.ok, "{}", o.stderr);

    // Authentication forced off: a non-loopback address is refused again.
    let o = hopdb(&["serve", st, "--create", "--no-auth", "--bolt", "0.0.0.0:0"], "");
    assert!(!o.ok, "{}", o.stderr);
    assert!(
        o.stderr.contains("refusing to listen on 0.0.0.0:0") && o.stderr.contains("--no-auth"),
        "{}",
        o.stderr
    );

    // With a user, any address may be served.
    let mut child = Command::new(env!("CARGO_BIN_EXE_hopdb"))
        .args(["serve", st, "--create", "--bolt", "0.0.0.0:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut seen = String::new();
    let banner = loop {
        match lines.next() {
            Some(Ok(line)) => {
                seen.push_str(&line);
                seen.push('\n');
                if line.contains("hopdb: serving") {
                    break line;
                }
            }
            _ => panic!("hopdb serve ended before serving:\n{seen}"),
        }
    };
    assert!(banner.contains("authentication on: 1 user in"), "{banner}");
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    for line in lines.map_while(Result::ok) {
        seen.push_str(&line);
        seen.push('\n');
    }
    let status = child.wait().unwrap();
    assert!(status.success(), "{seen}");
}
