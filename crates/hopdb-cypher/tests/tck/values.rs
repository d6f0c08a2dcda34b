//! The TCK's notation for expected values and parameters: `null`, `true`, integers, floats
//! (`1.0`, `1e-305`, `NaN`, `Infinity`, `-Infinity`), strings in single quotes (`\'` and `\\`
//! escapes), lists `[1, 'a']`, maps `{k: 1, `weird key`: 2}`, nodes `(:A:B {name: 'x'})`,
//! relationships `[:T {k: 1}]` and paths `<(:A)-[:T]->(:B)<-[:U]-()>`.

use hopdb_cypher::Value;

/// An expected node: labels (a set) and properties.
#[derive(Debug, Clone, PartialEq)]
pub struct ENode {
    /// Labels, as written.
    pub labels: Vec<String>,
    /// Properties.
    pub props: Vec<(String, Expected)>,
}

/// An expected relationship: type and properties.
#[derive(Debug, Clone, PartialEq)]
pub struct ERel {
    /// The type.
    pub ty: String,
    /// Properties.
    pub props: Vec<(String, Expected)>,
}

/// An expected value.
#[derive(Debug, Clone, PartialEq)]
pub enum Expected {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A float, with the text it was written as (for precision-aware comparison).
    Float(f64, String),
    /// A string.
    String(String),
    /// A list.
    List(Vec<Expected>),
    /// A map (keys unique).
    Map(Vec<(String, Expected)>),
    /// A node.
    Node(ENode),
    /// A relationship.
    Rel(ERel),
    /// A path: the start node and (relationship, forwards?, next node) steps.
    Path(ENode, Vec<(ERel, bool, ENode)>),
}

/// Parses one value; the whole text must be consumed (surrounding whitespace allowed).
pub fn parse_value(text: &str) -> Result<Expected, String> {
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        pos: 0,
    };
    let v = p.value()?;
    p.ws();
    if p.pos != p.s.len() {
        return Err(format!("trailing text at {} in {text:?}", p.pos));
    }
    Ok(v)
}

/// Converts an expected value to a query parameter (nodes, relationships and paths cannot be
/// parameters).
pub fn to_param(e: &Expected) -> Result<Value, String> {
    Ok(match e {
        Expected::Null => Value::Null,
        Expected::Bool(b) => Value::Bool(*b),
        Expected::Int(i) => Value::Int(*i),
        Expected::Float(f, _) => Value::Float(*f),
        Expected::String(s) => Value::String(s.clone()),
        Expected::List(l) => Value::List(l.iter().map(to_param).collect::<Result<_, _>>()?),
        Expected::Map(m) => Value::Map(
            m.iter()
                .map(|(k, v)| Ok((k.clone(), to_param(v)?)))
                .collect::<Result<_, String>>()?,
        ),
        Expected::Node(_) | Expected::Rel(_) | Expected::Path(..) => {
            return Err("a node, relationship or path cannot be a parameter".into())
        }
    })
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn err<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("{what} at byte {} in {:?}", self.pos, self.text))
    }
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }
    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }
    fn eat(&mut self, lit: &str) -> bool {
        if self.s[self.pos..].starts_with(lit.as_bytes()) {
            self.pos += lit.len();
            true
        } else {
            false
        }
    }
    fn expect(&mut self, lit: &str) -> Result<(), String> {
        self.ws();
        if self.eat(lit) {
            Ok(())
        } else {
            self.err(&format!("expected {lit:?}"))
        }
    }
    /// Whether the next bytes are `word` not followed by an identifier character.
    fn keyword(&mut self, word: &str) -> bool {
        let end = self.pos + word.len();
        if self.s[self.pos..].starts_with(word.as_bytes())
            && !self.s.get(end).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
        {
            self.pos = end;
            true
        } else {
            false
        }
    }

    fn value(&mut self) -> Result<Expected, String> {
        self.ws();
        let Some(c) = self.peek() else {
            return self.err("expected a value");
        };
        match c {
            b'\'' | b'"' => Ok(Expected::String(self.string()?)),
            b'{' => Ok(Expected::Map(self.map()?)),
            b'(' => Ok(Expected::Node(self.node()?)),
            b'<' => self.path(),
            b'[' => {
                // A relationship `[:T ...]` or a list.
                let save = self.pos;
                self.pos += 1;
                self.ws();
                if self.peek() == Some(b':') {
                    self.pos = save;
                    Ok(Expected::Rel(self.rel()?))
                } else {
                    self.pos = save;
                    self.list()
                }
            }
            _ => {
                if self.keyword("null") {
                    Ok(Expected::Null)
                } else if self.keyword("true") {
                    Ok(Expected::Bool(true))
                } else if self.keyword("false") {
                    Ok(Expected::Bool(false))
                } else if self.keyword("NaN") {
                    Ok(Expected::Float(f64::NAN, "NaN".into()))
                } else if self.keyword("Infinity") || self.keyword("Inf") {
                    Ok(Expected::Float(f64::INFINITY, "Infinity".into()))
                } else if self.keyword("-Infinity") || self.keyword("-Inf") {
                    Ok(Expected::Float(f64::NEG_INFINITY, "-Infinity".into()))
                } else {
                    self.number()
                }
            }
        }
    }

    fn number(&mut self) -> Result<Expected, String> {
        let start = self.pos;
        if matches!(self.peek(), Some(b'-' | b'+')) {
            self.pos += 1;
        }
        let mut float = false;
        while let Some(c) = self.peek() {
            match c {
                b'0'..=b'9' => {}
                b'.' => float = true,
                b'e' | b'E' => {
                    float = true;
                    if matches!(self.s.get(self.pos + 1), Some(b'-' | b'+')) {
                        self.pos += 1;
                    }
                }
                _ => break,
            }
            self.pos += 1;
        }
        let t = &self.text[start..self.pos];
        if t.is_empty() || t == "-" || t == "+" {
            self.pos = start;
            return self.err("expected a value");
        }
        if float {
            match t.parse::<f64>() {
                Ok(f) => Ok(Expected::Float(f, t.to_owned())),
                Err(_) => self.err(&format!("bad float {t:?}")),
            }
        } else {
            match t.parse::<i64>() {
                Ok(i) => Ok(Expected::Int(i)),
                Err(_) => self.err(&format!("bad integer {t:?}")),
            }
        }
    }

    fn string(&mut self) -> Result<String, String> {
        let Some(q) = self.peek() else {
            return self.err("expected a string");
        };
        self.pos += 1;
        let mut out = String::new();
        let start = self.pos;
        let mut chunk_start = start;
        loop {
            let Some(c) = self.peek() else {
                return self.err("unterminated string");
            };
            if c == q {
                out.push_str(&self.text[chunk_start..self.pos]);
                self.pos += 1;
                return Ok(out);
            }
            if c == b'\\' {
                out.push_str(&self.text[chunk_start..self.pos]);
                match self.s.get(self.pos + 1) {
                    Some(b'\\') => out.push('\\'),
                    Some(&n) if n == q => out.push(n as char),
                    // Any other escape stays as written.
                    _ => out.push('\\'),
                }
                self.pos += if matches!(self.s.get(self.pos + 1), Some(&n) if n == q || n == b'\\') {
                    2
                } else {
                    1
                };
                chunk_start = self.pos;
                continue;
            }
            self.pos += 1;
        }
    }

    fn ident(&mut self) -> Result<String, String> {
        self.ws();
        if self.peek() == Some(b'`') {
            self.pos += 1;
            let mut out = String::new();
            loop {
                match self.peek() {
                    None => return self.err("unterminated `name`"),
                    Some(b'`') => {
                        if self.s.get(self.pos + 1) == Some(&b'`') {
                            out.push('`');
                            self.pos += 2;
                        } else {
                            self.pos += 1;
                            return Ok(out);
                        }
                    }
                    Some(_) => {
                        // Copy one UTF-8 character.
                        let ch = self.text[self.pos..].chars().next().unwrap_or('?');
                        out.push(ch);
                        self.pos += ch.len_utf8();
                    }
                }
            }
        }
        let start = self.pos;
        while let Some(ch) = self.text[self.pos..].chars().next() {
            if ch.is_alphanumeric() || ch == '_' || ch == '$' {
                self.pos += ch.len_utf8();
            } else {
                break;
            }
        }
        if self.pos == start {
            return self.err("expected a name");
        }
        Ok(self.text[start..self.pos].to_owned())
    }

    fn list(&mut self) -> Result<Expected, String> {
        self.expect("[")?;
        let mut items = Vec::new();
        self.ws();
        if self.eat("]") {
            return Ok(Expected::List(items));
        }
        loop {
            items.push(self.value()?);
            self.ws();
            if self.eat(",") {
                continue;
            }
            self.expect("]")?;
            return Ok(Expected::List(items));
        }
    }

    fn map(&mut self) -> Result<Vec<(String, Expected)>, String> {
        self.expect("{")?;
        let mut entries: Vec<(String, Expected)> = Vec::new();
        self.ws();
        if self.eat("}") {
            return Ok(entries);
        }
        loop {
            self.ws();
            let key = if matches!(self.peek(), Some(b'\'' | b'"')) {
                self.string()?
            } else {
                self.ident()?
            };
            self.expect(":")?;
            let v = self.value()?;
            if entries.iter().any(|(k, _)| *k == key) {
                return self.err(&format!("duplicate key {key:?}"));
            }
            entries.push((key, v));
            self.ws();
            if self.eat(",") {
                continue;
            }
            self.expect("}")?;
            return Ok(entries);
        }
    }

    fn node(&mut self) -> Result<ENode, String> {
        self.expect("(")?;
        let mut labels = Vec::new();
        loop {
            self.ws();
            if self.eat(":") {
                labels.push(self.ident()?);
            } else {
                break;
            }
        }
        self.ws();
        let props = if self.peek() == Some(b'{') {
            self.map()?
        } else {
            Vec::new()
        };
        self.expect(")")?;
        Ok(ENode { labels, props })
    }

    /// `[:T {props}]`.
    fn rel(&mut self) -> Result<ERel, String> {
        self.expect("[")?;
        self.expect(":")?;
        let ty = self.ident()?;
        self.ws();
        let props = if self.peek() == Some(b'{') {
            self.map()?
        } else {
            Vec::new()
        };
        self.expect("]")?;
        Ok(ERel { ty, props })
    }

    fn path(&mut self) -> Result<Expected, String> {
        self.expect("<")?;
        let start = self.node()?;
        let mut steps = Vec::new();
        loop {
            self.ws();
            if self.eat(">") {
                return Ok(Expected::Path(start, steps));
            }
            let forwards = if self.eat("<-") {
                false
            } else if self.eat("-") {
                true
            } else {
                return self.err("expected a relationship or '>' in a path");
            };
            let rel = self.rel()?;
            if forwards {
                self.expect("->")?;
            } else {
                self.expect("-")?;
            }
            let next = self.node()?;
            steps.push((rel, forwards, next));
        }
    }
}
