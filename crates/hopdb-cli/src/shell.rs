//! `hopdb shell STORE`: an interactive Cypher shell. Statements may span lines and run when a
//! line ends one with `;`; lines starting with `:` are shell commands (`:help`). With a
//! terminal it edits lines with rustyline and keeps a history in `~/.hopdb_history` (or
//! `$HOPDB_HISTORY`); with piped input it reads plain lines, prints no prompts, and exits 1
//! when a statement failed.

use crate::cypher_format as fmt;
use crate::query_cmd::{self, StoreArgs};
use anyhow::{anyhow, Result};
use hopdb_cypher::{Params, QueryEngine, QueryOptions, Value};
use rustyline::error::ReadlineError;
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;

/// `hopdb shell`'s arguments.
#[derive(clap::Args)]
pub struct ShellArgs {
    #[command(flatten)]
    pub store: StoreArgs,
}

const HELP: &str = "\
Enter Cypher statements; a statement may span lines and runs when a line ends it with ';'.
Commands:
  :help                    this help
  :quit, :exit             leave the shell (or Ctrl-D)
  :params                  show the parameters
  :params {JSON}           replace every parameter, e.g. :params {\"name\": \"Ada\"} (:params {} clears)
  :param NAME => VALUE     set one parameter: VALUE is JSON (42, \"Ada\", [1, 2], {\"a\": 1})
                           or else a Cypher expression, evaluated (e.g. :param d => date('2024-01-01'))
Ctrl-C discards the statement being typed.";

/// Where lines come from: the line editor on a terminal, else plain stdin.
enum Input {
    Editor {
        ed: Box<rustyline::DefaultEditor>,
        history: Option<PathBuf>,
    },
    Plain(std::io::StdinLock<'static>),
}

enum Line {
    Text(String),
    Interrupted,
    Eof,
}

impl Input {
    fn read(&mut self, prompt: &str) -> Result<Line> {
        match self {
            Input::Editor { ed, .. } => match ed.readline(prompt) {
                Ok(l) => Ok(Line::Text(l)),
                Err(ReadlineError::Interrupted) => Ok(Line::Interrupted),
                Err(ReadlineError::Eof) => Ok(Line::Eof),
                Err(e) => Err(e.into()),
            },
            Input::Plain(stdin) => {
                let mut l = String::new();
                if stdin.read_line(&mut l)? == 0 {
                    return Ok(Line::Eof);
                }
                let trimmed = l.trim_end_matches(['\n', '\r']).len();
                l.truncate(trimmed);
                Ok(Line::Text(l))
            }
        }
    }

    fn remember(&mut self, entry: &str) {
        if let Input::Editor { ed, history } = self {
            let _ = ed.add_history_entry(entry);
            if let Some(h) = history {
                // History is a convenience: a file that cannot be written loses it, nothing more.
                let _ = ed.save_history(h);
            }
        }
    }
}

fn history_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("HOPDB_HISTORY") {
        return Some(PathBuf::from(p));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".hopdb_history"))
}

/// The shell's state: the engine, the parameters and whether a statement failed.
struct Shell {
    engine: QueryEngine,
    params: Params,
    opts: QueryOptions,
    failed: bool,
}

impl Shell {
    fn run_statement(&mut self, stmt: &str) -> Result<()> {
        let stdout = std::io::stdout();
        let mut out = stdout.lock();
        match query_cmd::execute(&self.engine, stmt, &self.params, &self.opts) {
            Ok(x) => query_cmd::print_table(&mut out, &x)?,
            Err(e) => {
                self.failed = true;
                out.flush()?;
                eprintln!("error: {}", fmt::error(&e, stmt));
            }
        }
        out.flush()?;
        Ok(())
    }

    /// Runs a `:command`; false to leave the shell.
    fn command(&mut self, line: &str) -> Result<bool> {
        let line = line.trim();
        let (cmd, arg) = match line.find(char::is_whitespace) {
            Some(i) => (&line[..i], line[i..].trim()),
            None => (line, ""),
        };
        match cmd {
            ":help" | ":h" | ":?" => println!("{HELP}"),
            ":quit" | ":exit" | ":q" => return Ok(false),
            ":params" if arg.is_empty() => println!("{}", self.params_json()),
            ":params" => match query_cmd::params_object(arg) {
                Ok(p) => self.params = p,
                Err(e) => self.complain(&format!("{e:#}")),
            },
            ":param" => match self.set_param(arg) {
                Ok(()) => {}
                Err(e) => self.complain(&format!("{e:#}")),
            },
            other => self.complain(&format!("unknown command {other}; :help lists the commands")),
        }
        Ok(true)
    }

    fn complain(&mut self, msg: &str) {
        self.failed = true;
        let _ = std::io::stdout().flush();
        eprintln!("error: {msg}");
    }

    fn params_json(&self) -> String {
        let mut names: Vec<&String> = self.params.keys().collect();
        names.sort();
        let obj: serde_json::Map<String, serde_json::Value> = names
            .into_iter()
            .map(|n| (n.clone(), fmt::to_json(&self.params[n])))
            .collect();
        serde_json::Value::Object(obj).to_string()
    }

    /// `:param NAME => VALUE`.
    fn set_param(&mut self, arg: &str) -> Result<()> {
        let (name, value) = arg
            .split_once("=>")
            .ok_or_else(|| anyhow!(":param takes NAME => VALUE"))?;
        let name = name.trim().trim_start_matches('$').trim_matches('`');
        let value = value.trim().trim_end_matches(';').trim();
        if name.is_empty() || value.is_empty() {
            return Err(anyhow!(":param takes NAME => VALUE"));
        }
        let v = match serde_json::from_str::<serde_json::Value>(value) {
            Ok(j) => fmt::from_json(&j),
            Err(_) => self.evaluate(value)?,
        };
        self.params.insert(name.to_owned(), v);
        Ok(())
    }

    /// A Cypher expression's value (it may use the parameters set so far).
    fn evaluate(&self, expr: &str) -> Result<Value> {
        let text = format!("RETURN {expr} AS value");
        let x = query_cmd::execute(&self.engine, &text, &self.params, &self.opts)
            .map_err(|e| anyhow!("{}", fmt::error(&e, &text)))?;
        x.rows
            .into_iter()
            .next()
            .and_then(|r| r.into_iter().next())
            .ok_or_else(|| anyhow!("the expression gave no value"))
    }
}

/// `hopdb shell`.
pub fn run(a: &ShellArgs) -> Result<()> {
    let params = query_cmd::initial_params(&a.store)?;
    let opts = query_cmd::options(a.store.timeout)?;
    let db = query_cmd::open_store(&a.store, true, false)?;
    let mut shell = Shell {
        engine: QueryEngine::new(db),
        params,
        opts,
        failed: false,
    };
    let interactive = std::io::stdin().is_terminal();
    let mut input = if interactive {
        let config = rustyline::Config::builder()
            .auto_add_history(false)
            .max_history_size(2000)?
            .build();
        let mut ed = rustyline::DefaultEditor::with_config(config)?;
        let history = history_path();
        if let Some(h) = &history {
            let _ = ed.load_history(h);
        }
        println!(
            "HopDB shell on {}{}. End statements with ';'; :help lists the commands, :quit leaves.",
            a.store.dir.display(),
            if a.store.read_only { " (read-only)" } else { "" }
        );
        Input::Editor {
            ed: Box::new(ed),
            history,
        }
    } else {
        Input::Plain(std::io::stdin().lock())
    };
    let mut buf = String::new();
    loop {
        let prompt = if buf.is_empty() { "hopdb> " } else { "  ...> " };
        let line = match input.read(prompt)? {
            Line::Text(l) => l,
            Line::Interrupted => {
                buf.clear();
                continue;
            }
            Line::Eof => break,
        };
        if buf.is_empty() {
            if line.trim().is_empty() {
                continue;
            }
            if line.trim_start().starts_with(':') {
                input.remember(line.trim());
                if !shell.command(&line)? {
                    break;
                }
                continue;
            }
        }
        buf.push_str(&line);
        buf.push('\n');
        let (stmts, rest) = query_cmd::split_statements(&buf);
        if rest.is_empty() || query_cmd::is_blank(&rest) {
            input.remember(buf.trim_end());
            for s in stmts.iter().filter(|s| !query_cmd::is_blank(s)) {
                shell.run_statement(s)?;
            }
            buf.clear();
        }
    }
    // Piped input may end with a statement without its ';'.
    let (stmts, rest) = query_cmd::split_statements(&buf);
    for s in stmts.iter().chain([&rest]).filter(|s| !query_cmd::is_blank(s)) {
        shell.run_statement(s)?;
    }
    if interactive {
        println!();
    } else if shell.failed {
        std::process::exit(1);
    }
    Ok(())
}
