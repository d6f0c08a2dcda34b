//! Authentication: the users file (names and argon2id password hashes) and the check of a
//! Bolt auth token against it.
//!
//! * [`Users`] is the file's content: load it, add or change a user
//!   ([`Users::set_password`], which hashes), remove one, and save it back atomically (a
//!   temporary file renamed over the old one, owner-only permissions). `hopdb user` edits it.
//! * [`AuthConfig`] tells the server whether to check credentials: with
//!   [`AuthConfig::Disabled`] every token is accepted (as Neo4j with `dbms.security.auth_enabled
//!   =false`); with [`AuthConfig::UsersFile`] only the `basic` scheme with a listed user and
//!   the right password is. The file is read again when it changes, so users added or removed
//!   while the server runs take effect at the next login.
//!
//! The file, `STORE.users.json` beside the store directory by default (not inside it: a new
//! store needs an empty directory, and rolling back an interrupted import clears the
//! directory of files that are not the store's):
//!
//! ```json
//! {
//!   "version": 1,
//!   "users": [
//!     { "user": "neo4j", "password_hash": "$argon2id$v=19$m=19456,t=2,p=1$...$..." }
//!   ]
//! }
//! ```
//!
//! Passwords are never stored, logged or kept after the check: only their argon2id hashes
//! (PHC strings, with their own salt and cost parameters) are.

use std::collections::HashMap;
use std::fmt;
use std::fs;
use std::hash::{BuildHasher, RandomState};
use std::io::{self, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use crate::lock;
use std::time::SystemTime;

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use hopdb_bolt::{AuthToken, BoltFailure};
use serde::{Deserialize, Serialize};

/// Appended to the store directory's name to name its default users file, beside it:
/// `data/mystore` has `data/mystore.users.json`.
pub const USERS_FILE_SUFFIX: &str = ".users.json";

/// The format version written in the file.
const FORMAT_VERSION: u32 = 1;

/// The longest user name accepted, in bytes.
const MAX_NAME_BYTES: usize = 256;

/// The message of every failed login, as Neo4j words it (the log says why, the client
/// learns nothing about which part was wrong).
const UNAUTHORIZED: &str = "The client is unauthorized due to authentication failure.";

/// How long a checked user and password are accepted again without their hash being checked
/// (Neo4j's `dbms.security.auth_cache_ttl` is 10 minutes too): the query API and the
/// explorer send credentials with every request, and an argon2id check takes milliseconds.
const VERIFIED_TTL: Duration = Duration::from_secs(600);

/// At most this many remembered logins (the oldest go when it is full).
const VERIFIED_MAX: usize = 1024;

/// The default users file of a store: `STORE.users.json`, beside the store directory (for a
/// path without a last component, such as `.`, the absolute path is used when it exists).
pub fn default_users_path(store: &Path) -> PathBuf {
    let named = match store.file_name() {
        Some(_) => Some(store.to_path_buf()),
        None => store.canonicalize().ok(),
    };
    match named.as_ref().and_then(|p| p.file_name().map(|n| (p, n))) {
        Some((p, name)) => {
            let mut file = name.to_os_string();
            file.push(USERS_FILE_SUFFIX);
            p.with_file_name(file)
        }
        None => store.join(format!("hopdb{USERS_FILE_SUFFIX}")),
    }
}

/// Whether the server checks credentials, and against what.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum AuthConfig {
    /// Every client is accepted, whatever its credentials (the server says so in its log).
    #[default]
    Disabled,
    /// Clients log on with the `basic` scheme as a user of this file (see [`Users`]); it
    /// must list at least one user when the server starts, and is read again when it
    /// changes.
    UsersFile(PathBuf),
}

/// A users file could not be read, written or changed.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// Reading or writing the file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The file is not a users file this version understands.
    #[error("{}: not a valid HopDB users file: {message}", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The server was asked to check credentials against a file that lists nobody.
    #[error(
        "{}: no users (add one with `hopdb user add`), so nobody could log on",
        path.display()
    )]
    NoUsers {
        /// The file.
        path: PathBuf,
    },
    /// A user name that cannot be used.
    #[error("invalid user name {name:?}: {why}")]
    InvalidName {
        /// The name given.
        name: String,
        /// Why it is refused.
        why: &'static str,
    },
    /// An empty password.
    #[error("the password is empty")]
    EmptyPassword,
    /// Hashing failed (the system's random source, for the salt).
    #[error("hashing the password failed: {0}")]
    Hash(String),
}

/// One user: a name and the argon2id hash of the password (a PHC string).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserEntry {
    /// The name given as `principal` in the `basic` auth scheme (case-sensitive).
    pub user: String,
    /// `$argon2id$v=19$m=...,t=...,p=...$salt$hash`.
    pub password_hash: String,
}

impl fmt::Debug for UserEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UserEntry")
            .field("user", &self.user)
            .field("password_hash", &"<argon2id>")
            .finish()
    }
}

/// The file as stored. Unknown fields are refused (a file written by a later version with,
/// say, roles is not silently half-understood).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileFormat {
    version: u32,
    users: Vec<UserEntry>,
}

/// The users of a server: what its users file holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Users {
    entries: Vec<UserEntry>,
}

impl Users {
    /// Reads a users file; `None` when there is no file at `path`.
    pub fn load(path: &Path) -> Result<Option<Self>, AuthError> {
        let text = match fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(source) => {
                return Err(AuthError::Io {
                    path: path.to_owned(),
                    source,
                })
            }
        };
        Self::parse(&text, path).map(Some)
    }

    fn parse(text: &str, path: &Path) -> Result<Self, AuthError> {
        let bad = |message: String| AuthError::Format {
            path: path.to_owned(),
            message,
        };
        let file: FileFormat = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
        if file.version != FORMAT_VERSION {
            return Err(bad(format!(
                "format version {} (this HopDB reads version {FORMAT_VERSION})",
                file.version
            )));
        }
        let mut seen = std::collections::HashSet::new();
        for u in &file.users {
            check_name(&u.user).map_err(|e| bad(e.to_string()))?;
            if !seen.insert(u.user.as_str()) {
                return Err(bad(format!("user {:?} is listed twice", u.user)));
            }
            let hash = PasswordHash::new(&u.password_hash)
                .map_err(|e| bad(format!("user {:?}: the password hash is not a PHC string: {e}", u.user)))?;
            if !hash.algorithm.as_str().starts_with("argon2") {
                return Err(bad(format!(
                    "user {:?}: the password hash uses {}, not argon2",
                    u.user, hash.algorithm
                )));
            }
        }
        Ok(Self { entries: file.users })
    }

    /// Writes the file atomically: a temporary file in the same directory (readable and
    /// writable by its owner only), flushed to disk, then renamed over `path`. Creates the
    /// directory if needed.
    pub fn save(&self, path: &Path) -> Result<(), AuthError> {
        let io_err = |source: io::Error| AuthError::Io {
            path: path.to_owned(),
            source,
        };
        let file = FileFormat {
            version: FORMAT_VERSION,
            users: self.entries.clone(),
        };
        let mut text = serde_json::to_string_pretty(&file).map_err(|e| AuthError::Format {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
        text.push('\n');
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
            _ => PathBuf::from("."),
        };
        fs::create_dir_all(&dir).map_err(io_err)?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
        let written = (|| {
            let mut f = owner_only_file(&tmp)?;
            f.write_all(text.as_bytes())?;
            f.sync_all()?;
            drop(f);
            fs::rename(&tmp, path)
        })();
        if let Err(e) = written {
            let _ = fs::remove_file(&tmp);
            return Err(io_err(e));
        }
        // The rename itself is durable once the directory is flushed (best effort: not every
        // platform can open a directory).
        if let Ok(d) = fs::File::open(&dir) {
            let _ = d.sync_all();
        }
        Ok(())
    }

    /// The users, in the order they were added.
    pub fn entries(&self) -> &[UserEntry] {
        &self.entries
    }

    /// How many users there are.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there is nobody.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether `user` is listed.
    pub fn contains(&self, user: &str) -> bool {
        self.entries.iter().any(|e| e.user == user)
    }

    /// Adds `user`, or changes the password of an existing one; returns whether the user
    /// existed. The password is hashed with argon2id (a fresh random salt, the crate's default
    /// cost: 19 MiB, 2 passes) and then forgotten.
    pub fn set_password(&mut self, user: &str, password: &str) -> Result<bool, AuthError> {
        check_name(user)?;
        let hash = hash_password(password)?;
        match self.entries.iter_mut().find(|e| e.user == user) {
            Some(e) => {
                e.password_hash = hash;
                Ok(true)
            }
            None => {
                self.entries.push(UserEntry {
                    user: user.to_owned(),
                    password_hash: hash,
                });
                Ok(false)
            }
        }
    }

    /// Removes `user`; returns whether it was listed.
    pub fn remove(&mut self, user: &str) -> bool {
        let before = self.entries.len();
        self.entries.retain(|e| e.user != user);
        self.entries.len() != before
    }

    /// Whether `password` is `user`'s. An unknown user costs as much time as a known one
    /// (its password is checked against a dummy hash), so timing does not tell which names
    /// exist.
    pub fn verify(&self, user: &str, password: &str) -> bool {
        match self.entries.iter().find(|e| e.user == user) {
            Some(e) => verify_hash(&e.password_hash, password),
            None => {
                if let Some(dummy) = dummy_hash() {
                    let _ = verify_hash(dummy, password);
                }
                false
            }
        }
    }
}

/// The argon2id PHC string of `password`, with a fresh random salt.
pub fn hash_password(password: &str) -> Result<String, AuthError> {
    if password.is_empty() {
        return Err(AuthError::EmptyPassword);
    }
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| AuthError::Hash(e.to_string()))
}

fn verify_hash(phc: &str, password: &str) -> bool {
    match PasswordHash::new(phc) {
        // The parameters (algorithm, cost, salt) come from the hash itself.
        Ok(hash) => Argon2::default().verify_password(password.as_bytes(), &hash).is_ok(),
        Err(_) => false,
    }
}

/// A hash to check unknown users' passwords against (made once, on first need).
fn dummy_hash() -> Option<&'static str> {
    static DUMMY: OnceLock<Option<String>> = OnceLock::new();
    DUMMY
        .get_or_init(|| hash_password("hopdb: no such user").ok())
        .as_deref()
}

fn check_name(name: &str) -> Result<(), AuthError> {
    let why = if name.is_empty() {
        Some("it is empty")
    } else if name.len() > MAX_NAME_BYTES {
        Some("it is longer than 256 bytes")
    } else if name.chars().any(char::is_control) {
        Some("it contains control characters")
    } else if name.trim() != name {
        Some("it starts or ends with white space")
    } else {
        None
    };
    match why {
        Some(why) => Err(AuthError::InvalidName {
            name: name.to_owned(),
            why,
        }),
        None => Ok(()),
    }
}

#[cfg(unix)]
fn owner_only_file(path: &Path) -> io::Result<fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
}

#[cfg(not(unix))]
fn owner_only_file(path: &Path) -> io::Result<fs::File> {
    fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)
}

/// What identifies a version of the users file, to notice it changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    modified: Option<SystemTime>,
    len: u64,
    inode: u64,
}

fn stamp(path: &Path) -> io::Result<Stamp> {
    let m = fs::metadata(path)?;
    #[cfg(unix)]
    let inode = std::os::unix::fs::MetadataExt::ino(&m);
    #[cfg(not(unix))]
    let inode = 0;
    Ok(Stamp {
        modified: m.modified().ok(),
        len: m.len(),
        inode,
    })
}

/// The users file as last read.
struct Loaded {
    stamp: Option<Stamp>,
    /// `None` when the file could not be read since it changed: every login is refused.
    users: Option<Arc<Users>>,
}

/// At most this many argon2 checks run at once (each takes 19 MiB and tens of ms of one
/// core): a burst of logins waits instead of exhausting memory.
struct Gate {
    free: Mutex<usize>,
    freed: Condvar,
}

struct Permit<'g>(&'g Gate);

impl Gate {
    fn new(n: usize) -> Self {
        Self {
            free: Mutex::new(n.max(1)),
            freed: Condvar::new(),
        }
    }

    fn enter(&self) -> Permit<'_> {
        let mut free = lock(&self.free);
        while *free == 0 {
            free = self.freed.wait(free).unwrap_or_else(PoisonError::into_inner);
        }
        *free -= 1;
        Permit(self)
    }
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        *lock(&self.0.free) += 1;
        self.0.freed.notify_one();
    }
}

enum Mode {
    Disabled,
    Users { path: PathBuf, loaded: Mutex<Loaded> },
}

/// The server's credential check, shared by every connection.
pub(crate) struct Authenticator {
    mode: Mode,
    gate: Gate,
    verified: Verified,
}

/// Logins checked lately: a keyed hash of the user and password (never the password) -> the
/// users file they were checked against and when. A changed users file (a new password, a
/// removed user) is a new `Arc`, so nothing checked against the old one is accepted.
#[derive(Default)]
struct Verified {
    key: RandomState,
    seen: Mutex<HashMap<u64, (Arc<Users>, Instant)>>,
}

impl Verified {
    fn id(&self, user: &str, password: &str) -> u64 {
        self.key.hash_one((user, password))
    }

    fn holds(&self, id: u64, users: &Arc<Users>) -> bool {
        lock(&self.seen)
            .get(&id)
            .is_some_and(|(u, at)| Arc::ptr_eq(u, users) && at.elapsed() < VERIFIED_TTL)
    }

    fn insert(&self, id: u64, users: &Arc<Users>) {
        let mut seen = lock(&self.seen);
        if seen.len() >= VERIFIED_MAX {
            seen.retain(|_, (u, at)| Arc::ptr_eq(u, users) && at.elapsed() < VERIFIED_TTL);
            if seen.len() >= VERIFIED_MAX {
                seen.clear();
            }
        }
        seen.insert(id, (users.clone(), Instant::now()));
    }
}

impl Authenticator {
    /// Reads the users file (when there is one to check against); fails if it cannot be read
    /// or lists nobody.
    pub(crate) fn new(config: &AuthConfig) -> Result<Self, AuthError> {
        let parallel = std::thread::available_parallelism().map_or(2, usize::from);
        let gate = Gate::new(parallel.max(2));
        let mode = match config {
            AuthConfig::Disabled => Mode::Disabled,
            AuthConfig::UsersFile(path) => {
                let st = stamp(path).ok();
                let users = Users::load(path)?.ok_or_else(|| AuthError::Io {
                    path: path.clone(),
                    source: io::Error::new(io::ErrorKind::NotFound, "no users file here"),
                })?;
                if users.is_empty() {
                    return Err(AuthError::NoUsers { path: path.clone() });
                }
                warn_if_readable_by_others(path);
                Mode::Users {
                    path: path.clone(),
                    loaded: Mutex::new(Loaded {
                        stamp: st,
                        users: Some(Arc::new(users)),
                    }),
                }
            }
        };
        Ok(Self {
            mode,
            gate,
            verified: Verified::default(),
        })
    }

    /// Whether credentials are checked.
    pub(crate) fn enabled(&self) -> bool {
        matches!(self.mode, Mode::Users { .. })
    }

    /// How many users the file lists now (0 when authentication is disabled).
    pub(crate) fn user_count(&self) -> usize {
        match &self.mode {
            Mode::Disabled => 0,
            Mode::Users { path, loaded } => self.current(path, loaded).map_or(0, |u| u.len()),
        }
    }

    /// The users, reading the file again if it changed since last time.
    fn current(&self, path: &Path, loaded: &Mutex<Loaded>) -> Option<Arc<Users>> {
        let mut l = lock(loaded);
        let now = stamp(path).ok();
        if now != l.stamp {
            l.stamp = now;
            l.users = match Users::load(path) {
                Ok(Some(u)) => {
                    tracing::info!(file = %path.display(), users = u.len(), "users file changed: reloaded");
                    Some(Arc::new(u))
                }
                Ok(None) => {
                    tracing::error!(file = %path.display(), "the users file is gone: every login is refused");
                    None
                }
                Err(e) => {
                    tracing::error!(error = %e, "the users file cannot be read: every login is refused until it is fixed");
                    None
                }
            };
        }
        l.users.clone()
    }

    /// Checks a Bolt auth token: returns the user name logged on (`None` when
    /// authentication is disabled), or the `Neo.ClientError.Security.Unauthorized` FAILURE.
    /// Failures are logged with the user name and the peer, never the credentials.
    pub(crate) fn authenticate(
        &self,
        token: &AuthToken,
        conn: u64,
        peer: SocketAddr,
    ) -> Result<Option<String>, BoltFailure> {
        let (path, loaded) = match &self.mode {
            Mode::Disabled => {
                tracing::debug!(
                    conn,
                    %peer,
                    scheme = %token.scheme,
                    principal = ?shorten(token.principal.as_deref().unwrap_or("")),
                    "authentication is disabled: credentials accepted without checking"
                );
                return Ok(None);
            }
            Mode::Users { path, loaded } => (path, loaded),
        };
        let principal = token.principal.as_deref().unwrap_or("");
        let refuse = |why: &str| -> Result<Option<String>, BoltFailure> {
            tracing::warn!(conn, %peer, user = ?shorten(principal), scheme = ?shorten(&token.scheme), reason = why, "authentication failed");
            Err(unauthorized())
        };
        match token.scheme.as_str() {
            "basic" => {}
            "none" => return refuse("no credentials (scheme \"none\") while authentication is enabled"),
            _ => return refuse("unsupported scheme: only \"basic\" is"),
        }
        let Some(password) = token.credentials.as_deref() else {
            return refuse("no password");
        };
        let Some(users) = self.current(path, loaded) else {
            return refuse("the users file cannot be read");
        };
        let id = self.verified.id(principal, password);
        if self.verified.holds(id, &users) {
            tracing::debug!(conn, %peer, user = ?shorten(principal), "user logged on (checked lately)");
            return Ok(Some(principal.to_owned()));
        }
        let ok = {
            let _permit = self.gate.enter();
            users.verify(principal, password)
        };
        if ok {
            self.verified.insert(id, &users);
        }
        if !ok {
            let why = if users.contains(principal) {
                "wrong password"
            } else {
                "no such user"
            };
            return refuse(why);
        }
        tracing::info!(conn, %peer, user = ?shorten(principal), "user logged on");
        Ok(Some(principal.to_owned()))
    }
}

fn unauthorized() -> BoltFailure {
    BoltFailure::unauthorized(UNAUTHORIZED).with_gql(
        "42NFF",
        "error: syntax error or access rule violation - permission/access denied. Access denied, see the security logs for details.",
    )
}

/// At most 64 characters of a client-supplied string, for logs.
fn shorten(s: &str) -> String {
    s.chars().take(64).collect()
}

#[cfg(unix)]
fn warn_if_readable_by_others(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    if let Ok(m) = fs::metadata(path) {
        let mode = m.permissions().mode();
        if mode & 0o077 != 0 {
            tracing::warn!(
                file = %path.display(),
                mode = %format!("{:o}", mode & 0o777),
                "the users file is readable by other users of this machine (it holds password hashes): chmod 600 it"
            );
        }
    }
}

#[cfg(not(unix))]
fn warn_if_readable_by_others(_path: &Path) {}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn hashes_are_argon2id_phc_strings_and_verify() {
        let mut users = Users::default();
        assert!(!users.set_password("ada", "s3cret").unwrap());
        let hash = &users.entries()[0].password_hash;
        assert!(hash.starts_with("$argon2id$v=19$"), "{hash}");
        assert!(!hash.contains("s3cret"));
        assert!(users.verify("ada", "s3cret"));
        assert!(!users.verify("ada", "s3cret "));
        assert!(!users.verify("bob", "s3cret"));
        assert!(users.set_password("ada", "other").unwrap());
        assert!(users.verify("ada", "other"));
        assert!(!users.verify("ada", "s3cret"));
        assert_eq!(users.len(), 1);
    }

    #[test]
    fn names_and_passwords_are_checked() {
        let mut users = Users::default();
        assert!(matches!(
            users.set_password("", "x"),
            Err(AuthError::InvalidName { .. })
        ));
        assert!(matches!(
            users.set_password(" ada", "x"),
            Err(AuthError::InvalidName { .. })
        ));
        assert!(matches!(
            users.set_password("a\nb", "x"),
            Err(AuthError::InvalidName { .. })
        ));
        assert!(matches!(users.set_password("ada", ""), Err(AuthError::EmptyPassword)));
        assert!(users.is_empty());
    }

    #[test]
    fn bad_files_are_refused() {
        let p = Path::new("users.json");
        let bad = [
            "",
            "[]",
            r#"{"version": 2, "users": []}"#,
            r#"{"version": 1, "users": [{"user": "a", "password_hash": "plain"}]}"#,
            r#"{"version": 1, "users": [{"user": "a", "password_hash": "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA", "roles": []}]}"#,
        ];
        for text in bad {
            assert!(Users::parse(text, p).is_err(), "{text}");
        }
        let good = r#"{"version": 1, "users": []}"#;
        assert!(Users::parse(good, p).unwrap().is_empty());
    }

    #[test]
    fn the_default_file_is_beside_the_store() {
        assert_eq!(
            default_users_path(Path::new("data/mystore")),
            Path::new("data/mystore.users.json")
        );
        assert_eq!(
            default_users_path(Path::new("data/mystore/")),
            Path::new("data/mystore.users.json")
        );
        assert_eq!(default_users_path(Path::new("s")), Path::new("s.users.json"));
        let cwd = std::env::current_dir().unwrap();
        let name = cwd.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(
            default_users_path(Path::new(".")),
            cwd.with_file_name(format!("{name}.users.json"))
        );
    }

    #[test]
    fn a_checked_login_is_remembered_until_the_users_file_changes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("users.json");
        let mut users = Users::default();
        users.set_password("ada", "s3cret").unwrap();
        users.save(&path).unwrap();
        let auth = Authenticator::new(&AuthConfig::UsersFile(path.clone())).unwrap();
        let peer = SocketAddr::from(([127, 0, 0, 1], 1));
        let login = |user: &str, password: &str| {
            let token = AuthToken {
                scheme: "basic".into(),
                principal: Some(user.into()),
                credentials: Some(password.into()),
                realm: None,
                other: Vec::new(),
            };
            auth.authenticate(&token, 0, peer).is_ok()
        };
        let remembered = || lock(&auth.verified.seen).len();
        assert!(login("ada", "s3cret"));
        assert_eq!(remembered(), 1);
        assert!(login("ada", "s3cret"), "answered from what was remembered");
        assert_eq!(remembered(), 1);
        assert!(!login("ada", "wrong"), "only the password checked is remembered");
        assert!(!login("bob", "s3cret"));
        assert_eq!(remembered(), 1, "failures are never remembered");
        // A new password: the file changes, the old one is refused at once.
        std::thread::sleep(Duration::from_millis(20));
        users.set_password("ada", "other").unwrap();
        users.save(&path).unwrap();
        assert!(!login("ada", "s3cret"));
        assert!(login("ada", "other"));
    }

    #[test]
    fn debug_output_hides_hashes() {
        let mut users = Users::default();
        users.set_password("ada", "pw").unwrap();
        let shown = format!("{users:?}");
        assert!(shown.contains("ada") && !shown.contains("$argon2"), "{shown}");
    }
}
