//! Bolt messages: request decoding into typed [`Request`]s, response encoding.
//!
//! Each message is one PackStream structure whose tag names the message.

use std::fmt;

use crate::error::{EncodeError, RequestError};
use crate::handshake::Version;
use crate::packstream::{self, DecodeLimits, Decoder, Encoder};
use crate::structs::StructFormat;
use crate::value::{map_get, Map, Value};

/// Message tag bytes.
pub mod msg {
    /// `HELLO`.
    pub const HELLO: u8 = 0x01;
    /// `GOODBYE`.
    pub const GOODBYE: u8 = 0x02;
    /// `RESET`.
    pub const RESET: u8 = 0x0F;
    /// `RUN`.
    pub const RUN: u8 = 0x10;
    /// `BEGIN`.
    pub const BEGIN: u8 = 0x11;
    /// `COMMIT`.
    pub const COMMIT: u8 = 0x12;
    /// `ROLLBACK`.
    pub const ROLLBACK: u8 = 0x13;
    /// `DISCARD`.
    pub const DISCARD: u8 = 0x2F;
    /// `PULL`.
    pub const PULL: u8 = 0x3F;
    /// `TELEMETRY` (5.4+).
    pub const TELEMETRY: u8 = 0x54;
    /// `ROUTE`.
    pub const ROUTE: u8 = 0x66;
    /// `LOGON` (5.1+).
    pub const LOGON: u8 = 0x6A;
    /// `LOGOFF` (5.1+).
    pub const LOGOFF: u8 = 0x6B;
    /// `SUCCESS`.
    pub const SUCCESS: u8 = 0x70;
    /// `RECORD`.
    pub const RECORD: u8 = 0x71;
    /// `IGNORED`.
    pub const IGNORED: u8 = 0x7E;
    /// `FAILURE`.
    pub const FAILURE: u8 = 0x7F;
}

/// A decoded request message.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// `HELLO`: opens the connection (and authenticates before 5.1).
    Hello(Hello),
    /// `LOGON` (5.1+): authenticates.
    Logon(AuthToken),
    /// `LOGOFF` (5.1+): forgets the authenticated user.
    Logoff,
    /// `RUN`: runs a query.
    Run(Run),
    /// `PULL`: streams records of a result.
    Pull(StreamRequest),
    /// `DISCARD`: throws records of a result away.
    Discard(StreamRequest),
    /// `BEGIN`: opens an explicit transaction.
    Begin(RunExtra),
    /// `COMMIT`: commits the explicit transaction.
    Commit,
    /// `ROLLBACK`: rolls the explicit transaction back.
    Rollback,
    /// `RESET`: back to a clean state.
    Reset,
    /// `GOODBYE`: the client is closing.
    Goodbye,
    /// `TELEMETRY` (5.4+): which driver API was used (0 managed transaction, 1 explicit
    /// transaction, 2 implicit transaction, 3 driver-level execute_query).
    Telemetry(i64),
    /// `ROUTE`: asks for the routing table.
    Route(Route),
}

impl Request {
    /// The message name (`"RUN"`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            Request::Hello(_) => "HELLO",
            Request::Logon(_) => "LOGON",
            Request::Logoff => "LOGOFF",
            Request::Run(_) => "RUN",
            Request::Pull(_) => "PULL",
            Request::Discard(_) => "DISCARD",
            Request::Begin(_) => "BEGIN",
            Request::Commit => "COMMIT",
            Request::Rollback => "ROLLBACK",
            Request::Reset => "RESET",
            Request::Goodbye => "GOODBYE",
            Request::Telemetry(_) => "TELEMETRY",
            Request::Route(_) => "ROUTE",
        }
    }
}

/// The fields of `HELLO`.
#[derive(Debug, Clone, PartialEq)]
pub struct Hello {
    /// The application's user agent (`"Name/Version"`).
    pub user_agent: String,
    /// The authentication token (Bolt 4.4 and 5.0 only; 5.1+ uses `LOGON`).
    pub auth: Option<AuthToken>,
    /// Routing context: `None` for no routing, `Some` (possibly empty) to route.
    pub routing: Option<Map>,
    /// Requested protocol patches (4.4: `"utc"`).
    pub patch_bolt: Vec<String>,
    /// Connection-wide notification filters (5.2+).
    pub notifications: NotificationConfig,
    /// The driver's identity (mandatory from 5.3).
    pub bolt_agent: Option<BoltAgent>,
}

/// An authentication token (`scheme` plus scheme-specific entries).
#[derive(Clone, PartialEq)]
pub struct AuthToken {
    /// `"none"`, `"basic"`, `"bearer"`, `"kerberos"` or a custom scheme.
    pub scheme: String,
    /// The user name (`basic`).
    pub principal: Option<String>,
    /// The password or token. Redacted from `Debug` output.
    pub credentials: Option<String>,
    /// The realm, if given.
    pub realm: Option<String>,
    /// Any other entries (custom schemes' `parameters`, ...).
    pub other: Map,
}

impl fmt::Debug for AuthToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuthToken")
            .field("scheme", &self.scheme)
            .field("principal", &self.principal)
            .field("credentials", &self.credentials.as_ref().map(|_| "<redacted>"))
            .field("realm", &self.realm)
            .field("other", &self.other.iter().map(|(k, _)| k).collect::<Vec<_>>())
            .finish()
    }
}

/// The driver's identity from `HELLO`'s `bolt_agent`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoltAgent {
    /// `"Name/Version"` of the driver.
    pub product: String,
    /// The platform, if given.
    pub platform: Option<String>,
    /// The language, if given.
    pub language: Option<String>,
    /// Language details, if given.
    pub language_details: Option<String>,
}

/// Notification filters (5.2+); `None` means the server's (or connection's) default.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NotificationConfig {
    /// Minimum severity to report (`"OFF"` disables all).
    pub minimum_severity: Option<String>,
    /// Classifications (categories before 5.6) not to report.
    pub disabled_classifications: Option<Vec<String>>,
}

/// Read or write access.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AccessMode {
    /// `"r"`.
    Read,
    /// `"w"` (the default).
    #[default]
    Write,
}

/// The `extra` of `RUN` (auto-commit) and `BEGIN`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunExtra {
    /// Bookmarks the transaction must see.
    pub bookmarks: Vec<String>,
    /// Transaction timeout in milliseconds.
    pub tx_timeout: Option<i64>,
    /// Transaction metadata (for logging).
    pub tx_metadata: Option<Map>,
    /// Access mode.
    pub mode: AccessMode,
    /// Database (`None` for the default; an empty string also means the default).
    pub db: Option<String>,
    /// User to impersonate.
    pub imp_user: Option<String>,
    /// Notification filters for this transaction.
    pub notifications: NotificationConfig,
}

/// The fields of `RUN`.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// The Cypher text.
    pub query: String,
    /// The parameters.
    pub parameters: Map,
    /// Transaction options (empty inside an explicit transaction).
    pub extra: RunExtra,
}

/// The `extra` of `PULL` and `DISCARD`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamRequest {
    /// How many records; -1 means all.
    pub n: i64,
    /// Which result; -1 means the last one opened.
    pub qid: i64,
}

/// The fields of `ROUTE`.
#[derive(Debug, Clone, PartialEq)]
pub struct Route {
    /// The routing context (`address` and URI query entries).
    pub routing: Map,
    /// Bookmarks.
    pub bookmarks: Vec<String>,
    /// Database (`None` for the default).
    pub db: Option<String>,
    /// User to impersonate (to resolve their home database).
    pub imp_user: Option<String>,
}

/// Decodes one request message of `version`. `format` normalises incoming legacy structures
/// (see [`Decoder::with_format`]); `limits` bound nesting and declared sizes.
pub fn decode_request(
    bytes: &[u8],
    version: Version,
    format: StructFormat,
    limits: &DecodeLimits,
) -> Result<Request, RequestError> {
    let mut d = Decoder::new(bytes, *limits).with_format(format);
    let Some((count, tag)) = d.read_struct_header()? else {
        return Err(RequestError::NotAStructure {
            marker: bytes.first().copied().unwrap_or(0),
        });
    };
    let (name, expected, since) = match tag {
        msg::HELLO => ("HELLO", 1, None),
        msg::LOGON => ("LOGON", 1, Some(Version::V5_1)),
        msg::LOGOFF => ("LOGOFF", 0, Some(Version::V5_1)),
        msg::RUN => ("RUN", 3, None),
        msg::PULL => ("PULL", 1, None),
        msg::DISCARD => ("DISCARD", 1, None),
        msg::BEGIN => ("BEGIN", 1, None),
        msg::COMMIT => ("COMMIT", 0, None),
        msg::ROLLBACK => ("ROLLBACK", 0, None),
        msg::RESET => ("RESET", 0, None),
        msg::GOODBYE => ("GOODBYE", 0, None),
        msg::TELEMETRY => ("TELEMETRY", 1, Some(Version::V5_4)),
        msg::ROUTE => ("ROUTE", 3, None),
        _ => return Err(RequestError::UnknownMessage { tag }),
    };
    if since.is_some_and(|s| version < s) {
        return Err(RequestError::NotInVersion { message: name, version });
    }
    let mut fields = Vec::with_capacity(count);
    for _ in 0..count {
        fields.push(d.read_value_at_depth(1)?);
    }
    d.finish()?;
    if count != expected {
        return Err(RequestError::FieldCount {
            message: name,
            expected,
            got: count,
        });
    }
    let f = Fields { message: name };
    let mut it = fields.into_iter();
    let mut next = || it.next().unwrap_or_default();
    Ok(match tag {
        msg::HELLO => Request::Hello(f.hello(f.map("extra", next())?, version)?),
        msg::LOGON => Request::Logon(f.auth(f.map("auth", next())?)?),
        msg::LOGOFF => Request::Logoff,
        msg::RUN => {
            let query = match next() {
                Value::String(s) => s,
                other => return Err(f.wrong("query", "a String", &other)),
            };
            let parameters = f.map_or_null("parameters", next())?.unwrap_or_default();
            let extra = f.run_extra(f.map_or_null("extra", next())?.unwrap_or_default())?;
            Request::Run(Run {
                query,
                parameters,
                extra,
            })
        }
        msg::PULL | msg::DISCARD => {
            let s = f.stream(f.map("extra", next())?)?;
            if tag == msg::PULL {
                Request::Pull(s)
            } else {
                Request::Discard(s)
            }
        }
        msg::BEGIN => Request::Begin(f.run_extra(f.map_or_null("extra", next())?.unwrap_or_default())?),
        msg::COMMIT => Request::Commit,
        msg::ROLLBACK => Request::Rollback,
        msg::RESET => Request::Reset,
        msg::GOODBYE => Request::Goodbye,
        msg::TELEMETRY => match next() {
            Value::Integer(api @ 0..=3) => Request::Telemetry(api),
            Value::Integer(api) => return Err(f.invalid("api", format!("{api} is not a known driver API (0..=3)"))),
            other => return Err(f.wrong("api", "an Integer", &other)),
        },
        _ => {
            let routing = f.map_or_null("routing", next())?.unwrap_or_default();
            let bookmarks = f.strings("bookmarks", next())?;
            let (db, imp_user) = match next() {
                Value::Map(extra) => (
                    f.opt_string(&extra, "db")?.filter(|s| !s.is_empty()),
                    f.opt_string(&extra, "imp_user")?,
                ),
                // The Bolt 4.3 form: the database name itself.
                Value::String(db) => (Some(db).filter(|s| !s.is_empty()), None),
                Value::Null => (None, None),
                other => return Err(f.wrong("extra", "a Map", &other)),
            };
            Request::Route(Route {
                routing,
                bookmarks,
                db,
                imp_user,
            })
        }
    })
}

/// Field checks of one message, producing [`RequestError::InvalidField`]s that name it.
struct Fields {
    message: &'static str,
}

const HELLO_KEYS: &[&str] = &[
    "user_agent",
    "patch_bolt",
    "routing",
    "notifications_minimum_severity",
    "notifications_disabled_categories",
    "notifications_disabled_classifications",
    "bolt_agent",
];

impl Fields {
    fn invalid(&self, field: &str, problem: impl Into<String>) -> RequestError {
        RequestError::InvalidField {
            message: self.message,
            field: field.to_owned(),
            problem: problem.into(),
        }
    }

    fn wrong(&self, field: &str, expected: &str, got: &Value) -> RequestError {
        self.invalid(field, format!("must be {expected}, got {}", got.type_name()))
    }

    fn map(&self, field: &str, v: Value) -> Result<Map, RequestError> {
        match v {
            Value::Map(m) => Ok(m),
            other => Err(self.wrong(field, "a Map", &other)),
        }
    }

    fn map_or_null(&self, field: &str, v: Value) -> Result<Option<Map>, RequestError> {
        match v {
            Value::Null => Ok(None),
            other => self.map(field, other).map(Some),
        }
    }

    fn strings(&self, field: &str, v: Value) -> Result<Vec<String>, RequestError> {
        match v {
            Value::Null => Ok(Vec::new()),
            Value::List(items) => items
                .into_iter()
                .map(|i| match i {
                    Value::String(s) => Ok(s),
                    other => Err(self.wrong(field, "a List of Strings", &other)),
                })
                .collect(),
            other => Err(self.wrong(field, "a List of Strings", &other)),
        }
    }

    fn opt_string(&self, m: &Map, key: &str) -> Result<Option<String>, RequestError> {
        match map_get(m, key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(self.wrong(key, "a String", other)),
        }
    }

    fn opt_int(&self, m: &Map, key: &str) -> Result<Option<i64>, RequestError> {
        match map_get(m, key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Integer(i)) => Ok(Some(*i)),
            Some(other) => Err(self.wrong(key, "an Integer", other)),
        }
    }

    fn opt_strings(&self, m: &Map, key: &str) -> Result<Option<Vec<String>>, RequestError> {
        match map_get(m, key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => self.strings(key, v.clone()).map(Some),
        }
    }

    fn notifications(&self, m: &Map) -> Result<NotificationConfig, RequestError> {
        let disabled = match self.opt_strings(m, "notifications_disabled_classifications")? {
            Some(d) => Some(d),
            None => self.opt_strings(m, "notifications_disabled_categories")?,
        };
        Ok(NotificationConfig {
            minimum_severity: self.opt_string(m, "notifications_minimum_severity")?,
            disabled_classifications: disabled,
        })
    }

    fn hello(&self, extra: Map, version: Version) -> Result<Hello, RequestError> {
        let user_agent = self
            .opt_string(&extra, "user_agent")?
            .ok_or_else(|| self.invalid("user_agent", "is missing"))?;
        let routing = match map_get(&extra, "routing") {
            None | Some(Value::Null) => None,
            Some(v) => Some(self.map("routing", v.clone())?),
        };
        let bolt_agent = match map_get(&extra, "bolt_agent") {
            None | Some(Value::Null) => None,
            Some(Value::Map(a)) => Some(BoltAgent {
                product: self
                    .opt_string(a, "product")?
                    .ok_or_else(|| self.invalid("bolt_agent.product", "is missing"))?,
                platform: self.opt_string(a, "platform")?,
                language: self.opt_string(a, "language")?,
                language_details: self.opt_string(a, "language_details")?,
            }),
            Some(other) => return Err(self.wrong("bolt_agent", "a Map", other)),
        };
        if bolt_agent.is_none() && version >= Version::V5_3 {
            return Err(self.invalid("bolt_agent", "is mandatory from Bolt 5.3"));
        }
        let auth = if version < Version::V5_1 {
            let token: Map = extra
                .iter()
                .filter(|(k, _)| !HELLO_KEYS.contains(&k.as_str()))
                .cloned()
                .collect();
            Some(self.auth(token)?)
        } else {
            None
        };
        Ok(Hello {
            user_agent,
            auth,
            routing,
            patch_bolt: self.opt_strings(&extra, "patch_bolt")?.unwrap_or_default(),
            notifications: self.notifications(&extra)?,
            bolt_agent,
        })
    }

    /// An auth token; a missing `scheme` means `"none"` (as Neo4j reads it: the Python driver
    /// sends `LOGON {}` for `auth=None`), which the backend accepts or refuses.
    fn auth(&self, token: Map) -> Result<AuthToken, RequestError> {
        let scheme = self.opt_string(&token, "scheme")?.unwrap_or_else(|| "none".to_owned());
        Ok(AuthToken {
            scheme,
            principal: self.opt_string(&token, "principal")?,
            credentials: self.opt_string(&token, "credentials")?,
            realm: self.opt_string(&token, "realm")?,
            other: token
                .into_iter()
                .filter(|(k, _)| !matches!(k.as_str(), "scheme" | "principal" | "credentials" | "realm"))
                .collect(),
        })
    }

    fn run_extra(&self, m: Map) -> Result<RunExtra, RequestError> {
        let mode = match self.opt_string(&m, "mode")?.as_deref() {
            None | Some("w") => AccessMode::Write,
            Some("r") => AccessMode::Read,
            Some(other) => return Err(self.invalid("mode", format!("must be \"r\" or \"w\", got {other:?}"))),
        };
        let tx_metadata = match map_get(&m, "tx_metadata") {
            None | Some(Value::Null) => None,
            Some(v) => Some(self.map("tx_metadata", v.clone())?),
        };
        let bookmarks = match map_get(&m, "bookmarks") {
            None => Vec::new(),
            Some(v) => self.strings("bookmarks", v.clone())?,
        };
        Ok(RunExtra {
            bookmarks,
            tx_timeout: self.opt_int(&m, "tx_timeout")?,
            tx_metadata,
            mode,
            db: self.opt_string(&m, "db")?.filter(|s| !s.is_empty()),
            imp_user: self.opt_string(&m, "imp_user")?,
            notifications: self.notifications(&m)?,
        })
    }

    fn stream(&self, m: Map) -> Result<StreamRequest, RequestError> {
        let n = match self.opt_int(&m, "n")? {
            Some(n) if n == -1 || n > 0 => n,
            Some(n) => return Err(self.invalid("n", format!("must be -1 or positive, got {n}"))),
            None => return Err(self.invalid("n", "is missing")),
        };
        let qid = match self.opt_int(&m, "qid")?.unwrap_or(-1) {
            q if q >= -1 => q,
            q => return Err(self.invalid("qid", format!("must be -1 or a query id, got {q}"))),
        };
        Ok(StreamRequest { n, qid })
    }
}

/// A failure reported to the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoltFailure {
    /// The Neo4j status code (`Neo.ClientError.Statement.SyntaxError`).
    pub code: String,
    /// A human-readable message.
    pub message: String,
    /// GQLSTATUS code (5.7+ FAILUREs); `None` sends `50N42`, "unexpected error".
    pub gql_status: Option<String>,
    /// Description of the GQLSTATUS (5.7+); derived from the status when `None`.
    pub description: Option<String>,
}

impl fmt::Display for BoltFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl BoltFailure {
    /// A failure with a status code and a message.
    pub fn new(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            message: message.into(),
            gql_status: None,
            description: None,
        }
    }

    /// Sets the GQLSTATUS code and its description.
    pub fn with_gql(mut self, status: impl Into<String>, description: impl Into<String>) -> Self {
        self.gql_status = Some(status.into());
        self.description = Some(description.into());
        self
    }

    /// `Neo.ClientError.Request.Invalid` (GQLSTATUS `08N06`, protocol error): a request that
    /// breaks the protocol.
    pub fn request_invalid(message: impl Into<String>) -> Self {
        Self::new("Neo.ClientError.Request.Invalid", message).with_gql(
            "08N06",
            "error: connection exception - protocol error. General network protocol error.",
        )
    }

    /// `Neo.ClientError.Security.Unauthorized`: authentication failed.
    pub fn unauthorized(message: impl Into<String>) -> Self {
        Self::new("Neo.ClientError.Security.Unauthorized", message)
    }

    /// `Neo.DatabaseError.General.UnknownError`: a server-side fault.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new("Neo.DatabaseError.General.UnknownError", message)
    }

    /// The GQL classification derived from the code: `CLIENT_ERROR`, `TRANSIENT_ERROR` or
    /// `DATABASE_ERROR`.
    pub fn classification(&self) -> &'static str {
        if self.code.starts_with("Neo.ClientError.") {
            "CLIENT_ERROR"
        } else if self.code.starts_with("Neo.TransientError.") {
            "TRANSIENT_ERROR"
        } else {
            "DATABASE_ERROR"
        }
    }

    /// The FAILURE metadata for `version`: `code` and `message` before 5.7; from 5.7
    /// `neo4j_code`, `message`, `gql_status`, `description` and `diagnostic_record`.
    pub fn metadata(&self, version: Version) -> Map {
        if version < Version::V5_7 {
            return vec![
                ("code".into(), self.code.clone().into()),
                ("message".into(), self.message.clone().into()),
            ];
        }
        let status = self.gql_status.clone().unwrap_or_else(|| "50N42".into());
        let description = self.description.clone().unwrap_or_else(|| {
            if self.gql_status.is_none() {
                format!(
                    "error: general processing exception - unexpected error. {}",
                    self.message
                )
            } else {
                self.message.clone()
            }
        });
        vec![
            ("neo4j_code".into(), self.code.clone().into()),
            ("message".into(), self.message.clone().into()),
            ("gql_status".into(), status.into()),
            ("description".into(), description.into()),
            (
                "diagnostic_record".into(),
                Value::map([("_classification", self.classification())]),
            ),
        ]
    }
}

/// A response message.
#[derive(Debug, Clone, PartialEq)]
pub enum Response {
    /// `SUCCESS {metadata}`.
    Success(Map),
    /// `RECORD [values]`.
    Record(Vec<Value>),
    /// `IGNORED`.
    Ignored,
    /// `FAILURE {metadata}` (rendered for the version by [`BoltFailure::metadata`]).
    Failure(BoltFailure),
}

impl Response {
    /// Whether this is a summary (anything but `RECORD`).
    pub fn is_summary(&self) -> bool {
        !matches!(self, Response::Record(_))
    }

    /// Appends the message's PackStream bytes (not chunked). Values are written by `encoder`
    /// (so in the wire form of its [`StructFormat`]). On error `out` may hold a partial message.
    pub fn encode(&self, version: Version, encoder: &Encoder, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        match self {
            Response::Success(meta) => {
                packstream::write_struct_header(out, msg::SUCCESS, 1)?;
                write_map(encoder, meta, out)
            }
            Response::Record(values) => {
                packstream::write_struct_header(out, msg::RECORD, 1)?;
                packstream::write_list_header(out, values.len())?;
                for v in values {
                    encoder.encode_at_depth(v, out, 2)?;
                }
                Ok(())
            }
            Response::Ignored => packstream::write_struct_header(out, msg::IGNORED, 0),
            Response::Failure(f) => {
                packstream::write_struct_header(out, msg::FAILURE, 1)?;
                write_map(encoder, &f.metadata(version), out)
            }
        }
    }
}

fn write_map(encoder: &Encoder, map: &Map, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    packstream::write_map_header(out, map.len())?;
    for (k, v) in map {
        packstream::write_string(out, k)?;
        encoder.encode_at_depth(v, out, 2)?;
    }
    Ok(())
}
