//! `hopdb user add|passwd|remove|list STORE`: the users `hopdb serve` lets log on, kept in
//! `STORE.users.json` beside the store directory (or `--users FILE`) as argon2id password
//! hashes.
//!
//! Passwords are read from the terminal (asked twice, not echoed) or, with
//! `--password-stdin`, from the first line of standard input; never from the command line,
//! where other users of the machine and the shell history would see them.

use anyhow::{bail, Context, Result};
use hopdb_server::auth::{default_users_path, Users};
use std::io::{BufRead, IsTerminal};
use std::path::{Path, PathBuf};

/// `hopdb user`'s subcommands.
#[derive(clap::Subcommand)]
pub enum UserCmd {
    /// Add a user (asks for the password, or reads it with --password-stdin).
    Add(PasswordArgs),
    /// Change a user's password.
    Passwd(PasswordArgs),
    /// Remove a user. Removing the last one turns authentication off at the next start of
    /// `hopdb serve` (which then serves loopback addresses only).
    Remove(NameArgs),
    /// List the users' names.
    List(FileArgs),
}

/// Where the users file is.
#[derive(clap::Args)]
pub struct FileArgs {
    /// The store directory (it need not exist yet); its users file is STORE.users.json, beside it.
    pub dir: PathBuf,
    /// Use this users file instead of STORE.users.json (give `hopdb serve` the same --users).
    #[arg(long, value_name = "FILE")]
    pub users: Option<PathBuf>,
}

/// A user, in a users file.
#[derive(clap::Args)]
pub struct NameArgs {
    #[command(flatten)]
    pub file: FileArgs,
    /// The user name (what clients give as the principal, e.g. auth=("NAME", password)).
    pub name: String,
}

/// A user and how to get the password.
#[derive(clap::Args)]
pub struct PasswordArgs {
    #[command(flatten)]
    pub user: NameArgs,
    /// Read the password from the first line of standard input (for scripts:
    /// `printf '%s\n' "$PW" | hopdb user add STORE NAME --password-stdin`). Without it the
    /// password is asked on the terminal.
    #[arg(long)]
    pub password_stdin: bool,
}

impl FileArgs {
    fn path(&self) -> PathBuf {
        self.users.clone().unwrap_or_else(|| default_users_path(&self.dir))
    }
}

/// Runs a `hopdb user` subcommand.
pub fn run(cmd: &UserCmd) -> Result<()> {
    match cmd {
        UserCmd::Add(a) => set_password(a, true),
        UserCmd::Passwd(a) => set_password(a, false),
        UserCmd::Remove(a) => remove(a),
        UserCmd::List(a) => list(a),
    }
}

fn load(path: &Path) -> Result<Users> {
    Ok(Users::load(path)?.unwrap_or_default())
}

fn set_password(a: &PasswordArgs, adding: bool) -> Result<()> {
    let path = a.user.file.path();
    let name = a.user.name.as_str();
    let mut users = load(&path)?;
    match (adding, users.contains(name)) {
        (true, true) => bail!(
            "user {name:?} already exists in {}: change the password with `hopdb user passwd`",
            path.display()
        ),
        (false, false) => bail!("no user {name:?} in {}: add it with `hopdb user add`", path.display()),
        _ => {}
    }
    let password = if a.password_stdin {
        read_password_line(std::io::stdin().lock())?
    } else {
        prompt_password(name)?
    };
    users.set_password(name, &password)?;
    let first = users.len() == 1 && adding;
    users.save(&path)?;
    let verb = if adding {
        "added user"
    } else {
        "changed the password of"
    };
    eprintln!(
        "hopdb: {verb} {name:?} in {} ({} user{}); a running `hopdb serve` with authentication on \
         picks it up at the next login",
        path.display(),
        users.len(),
        if users.len() == 1 { "" } else { "s" }
    );
    if first {
        eprintln!(
            "hopdb: authentication is now on: start (or restart) `hopdb serve` and log on as {name:?} \
             (scheme \"basic\")"
        );
    }
    Ok(())
}

fn remove(a: &NameArgs) -> Result<()> {
    let path = a.file.path();
    let mut users = load(&path)?;
    if !users.remove(&a.name) {
        bail!("no user {:?} in {}", a.name, path.display());
    }
    users.save(&path)?;
    eprintln!("hopdb: removed user {:?} from {}", a.name, path.display());
    if users.is_empty() {
        eprintln!(
            "hopdb: warning: no users left: a running `hopdb serve` now refuses every login, and \
             the next one starts with authentication off (loopback addresses only)"
        );
    }
    Ok(())
}

fn list(a: &FileArgs) -> Result<()> {
    let path = a.path();
    let Some(users) = Users::load(&path)? else {
        eprintln!("hopdb: no users file at {} (authentication is off)", path.display());
        return Ok(());
    };
    for u in users.entries() {
        println!("{}", u.user);
    }
    Ok(())
}

/// The first line of `input`, without its line ending.
fn read_password_line(mut input: impl BufRead) -> Result<String> {
    let mut line = String::new();
    input
        .read_line(&mut line)
        .context("reading the password from standard input")?;
    let password = line.strip_suffix('\n').unwrap_or(&line);
    let password = password.strip_suffix('\r').unwrap_or(password);
    if password.is_empty() {
        bail!("--password-stdin: the first line of standard input is empty");
    }
    Ok(password.to_owned())
}

/// Asks for the password twice on the terminal, without echoing it.
fn prompt_password(name: &str) -> Result<String> {
    if !std::io::stdin().is_terminal() {
        bail!("standard input is not a terminal: pass --password-stdin and write the password to it");
    }
    let first = rpassword::prompt_password(format!("Password for {name}: ")).context("reading the password")?;
    if first.is_empty() {
        bail!("the password is empty");
    }
    let again = rpassword::prompt_password("Again: ").context("reading the password")?;
    if first != again {
        bail!("the passwords differ; nothing was changed");
    }
    Ok(first)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::read_password_line;

    #[test]
    fn the_password_is_the_first_line_without_its_ending() {
        assert_eq!(read_password_line(&b"s3cret\nrest\n"[..]).unwrap(), "s3cret");
        assert_eq!(read_password_line(&b"s3cret\r\n"[..]).unwrap(), "s3cret");
        assert_eq!(read_password_line(&b"no newline"[..]).unwrap(), "no newline");
        assert_eq!(read_password_line(&b" spaces kept \n"[..]).unwrap(), " spaces kept ");
        assert!(read_password_line(&b"\n"[..]).is_err());
        assert!(read_password_line(&b""[..]).is_err());
    }
}
