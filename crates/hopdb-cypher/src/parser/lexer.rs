//! The tokenizer: query text to a flat token list with byte spans, plus the index of each
//! bracket's partner (so the parser can look past a parenthesised group in O(1)).

use super::INVALID_SYNTAX;
use crate::error::{CypherError, Result};

/// The largest magnitude an integer literal may have: `2^63`, which is only valid directly
/// after a unary minus (`-9223372036854775808`).
pub(crate) const INT_LIMIT: u64 = 1 << 63;

/// A token's kind and value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok {
    /// An unquoted name or keyword, as written.
    Word(String),
    /// A backtick-quoted name, unescaped.
    Quoted(String),
    /// A string literal, escapes resolved.
    Str(String),
    /// An integer literal's magnitude (at most [`INT_LIMIT`]).
    Int(u64),
    /// A float literal.
    Float(f64),
    /// `$name`, `$0` or `` $`name` ``: the name.
    Param(String),
    /// Punctuation or an operator.
    Sym(&'static str),
    /// End of input.
    Eof,
}

/// A token with its byte span in the source.
#[derive(Debug, Clone)]
pub(crate) struct Token {
    /// Kind and value.
    pub tok: Tok,
    /// Byte offset of the first character.
    pub start: usize,
    /// Byte offset just past the last character.
    pub end: usize,
}

/// The tokens of a text (ending with [`Tok::Eof`]) and the bracket partners.
pub(crate) struct Lexed {
    /// The tokens.
    pub tokens: Vec<Token>,
    /// For an opening bracket token, the index of its closing partner; `usize::MAX` otherwise.
    pub partner: Vec<usize>,
}

/// Symbols, longest first so that the first match is the longest.
const SYMBOLS: &[&str] = &[
    "..", "+=", "=~", "<>", "<=", ">=", "(", ")", "[", "]", "{", "}", ",", ".", ":", ";", "|", "+", "-", "*", "/", "%",
    "^", "=", "<", ">",
];

struct Lexer<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

/// Tokenizes `src`.
pub(crate) fn lex(src: &str) -> Result<Lexed> {
    let mut lx = Lexer {
        src,
        bytes: src.as_bytes(),
        pos: 0,
    };
    let mut tokens = Vec::new();
    loop {
        lx.skip_trivia()?;
        let start = lx.pos;
        if start >= src.len() {
            tokens.push(Token {
                tok: Tok::Eof,
                start,
                end: start,
            });
            break;
        }
        let tok = lx.next_token()?;
        tokens.push(Token {
            tok,
            start,
            end: lx.pos,
        });
    }
    let partner = match_brackets(&tokens);
    Ok(Lexed { tokens, partner })
}

fn match_brackets(tokens: &[Token]) -> Vec<usize> {
    let mut partner = vec![usize::MAX; tokens.len()];
    let mut stack: Vec<(usize, &'static str)> = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        if let Tok::Sym(s) = t.tok {
            match s {
                "(" => stack.push((i, ")")),
                "[" => stack.push((i, "]")),
                "{" => stack.push((i, "}")),
                ")" | "]" | "}" => {
                    if let Some(&(j, close)) = stack.last() {
                        if close == s {
                            partner[j] = i;
                            stack.pop();
                        } else {
                            // Mismatched: leave everything open unmatched from here on.
                            stack.clear();
                        }
                    }
                }
                _ => {}
            }
        }
    }
    partner
}

fn is_ident_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

fn is_ident_continue(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

impl Lexer<'_> {
    fn peek_char(&self) -> Option<char> {
        self.src[self.pos..].chars().next()
    }

    fn char_at(&self, off: usize) -> Option<char> {
        self.src.get(off..).and_then(|s| s.chars().next())
    }

    fn err(&self, detail: &'static str, message: impl Into<String>, offset: usize) -> CypherError {
        CypherError::syntax(detail, message, super::position_of(self.src, offset))
    }

    fn skip_trivia(&mut self) -> Result<()> {
        loop {
            let Some(c) = self.peek_char() else { return Ok(()) };
            if c.is_whitespace() {
                self.pos += c.len_utf8();
            } else if self.src[self.pos..].starts_with("//") {
                match self.src[self.pos..].find('\n') {
                    Some(n) => self.pos += n + 1,
                    None => self.pos = self.src.len(),
                }
            } else if self.src[self.pos..].starts_with("/*") {
                match self.src[self.pos + 2..].find("*/") {
                    Some(n) => self.pos += n + 4,
                    None => {
                        return Err(self.err(
                            INVALID_SYNTAX,
                            "Failed to parse comment: '/*' is never closed by '*/'",
                            self.pos,
                        ))
                    }
                }
            } else {
                return Ok(());
            }
        }
    }

    fn next_token(&mut self) -> Result<Tok> {
        let start = self.pos;
        let Some(c) = self.peek_char() else {
            return Ok(Tok::Eof);
        };
        if c.is_ascii_digit() || (c == '.' && self.char_at(start + 1).is_some_and(|d| d.is_ascii_digit())) {
            return self.number();
        }
        if is_ident_start(c) {
            return Ok(Tok::Word(self.word().to_string()));
        }
        match c {
            '`' => return Ok(Tok::Quoted(self.quoted()?)),
            '\'' | '"' => return Ok(Tok::Str(self.string(c)?)),
            '$' => {
                self.pos += 1;
                return match self.peek_char() {
                    Some('`') => Ok(Tok::Param(self.quoted()?)),
                    // `:$(expr)`, a dynamic label (Neo4j 5.26).
                    Some('(') => {
                        self.pos += 1;
                        Ok(Tok::Sym("$("))
                    }
                    Some(d) if is_ident_continue(d) => {
                        let s = self.pos;
                        while self.peek_char().is_some_and(is_ident_continue) {
                            self.pos += self.peek_char().map_or(1, char::len_utf8);
                        }
                        Ok(Tok::Param(self.src[s..self.pos].to_string()))
                    }
                    _ => Err(self.err(INVALID_SYNTAX, "Invalid input '$': expected a parameter name", start)),
                };
            }
            _ => {}
        }
        for s in SYMBOLS {
            if self.src[self.pos..].starts_with(s) {
                self.pos += s.len();
                return Ok(Tok::Sym(s));
            }
        }
        let detail = if c.is_ascii() {
            INVALID_SYNTAX
        } else {
            "InvalidUnicodeCharacter"
        };
        Err(self.err(
            detail,
            format!("Invalid input '{c}': unexpected character (U+{:04X})", c as u32),
            start,
        ))
    }

    fn word(&mut self) -> &str {
        let s = self.pos;
        while let Some(c) = self.peek_char() {
            if !is_ident_continue(c) {
                break;
            }
            self.pos += c.len_utf8();
        }
        &self.src[s..self.pos]
    }

    /// A backtick-quoted name; a doubled backtick stands for one.
    fn quoted(&mut self) -> Result<String> {
        let start = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            match self.src[self.pos..].find('`') {
                None => {
                    return Err(self.err(
                        INVALID_SYNTAX,
                        "Failed to parse quoted name: '`' is never closed",
                        start,
                    ))
                }
                Some(n) => {
                    out.push_str(&self.src[self.pos..self.pos + n]);
                    self.pos += n + 1;
                    if self.bytes.get(self.pos) == Some(&b'`') {
                        out.push('`');
                        self.pos += 1;
                    } else {
                        return Ok(out);
                    }
                }
            }
        }
    }

    fn string(&mut self, quote: char) -> Result<String> {
        let start = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            let Some(c) = self.peek_char() else {
                return Err(self.err(
                    INVALID_SYNTAX,
                    format!("Failed to parse string literal: {quote} is never closed"),
                    start,
                ));
            };
            let at = self.pos;
            self.pos += c.len_utf8();
            if c == quote {
                return Ok(out);
            }
            if c != '\\' {
                out.push(c);
                continue;
            }
            let Some(e) = self.peek_char() else { continue };
            self.pos += e.len_utf8();
            match e {
                '\\' => out.push('\\'),
                '\'' => out.push('\''),
                '"' => out.push('"'),
                'b' | 'B' => out.push('\u{8}'),
                'f' | 'F' => out.push('\u{c}'),
                'n' | 'N' => out.push('\n'),
                'r' | 'R' => out.push('\r'),
                't' | 'T' => out.push('\t'),
                'u' | 'U' => {
                    let n = if e == 'u' { 4 } else { 8 };
                    let cp = self.hex_digits(n, at)?;
                    if (0xD800..0xDC00).contains(&cp) && self.src[self.pos..].starts_with("\\u") {
                        // A UTF-16 surrogate pair written as two escapes.
                        let save = self.pos;
                        self.pos += 2;
                        let lo = self.hex_digits(4, save)?;
                        if (0xDC00..0xE000).contains(&lo) {
                            let full = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                            out.push(char::from_u32(full).unwrap_or('\u{FFFD}'));
                            continue;
                        }
                        return Err(self.bad_unicode(at));
                    }
                    match char::from_u32(cp) {
                        Some(ch) => out.push(ch),
                        None => return Err(self.bad_unicode(at)),
                    }
                }
                other => {
                    // Unknown escapes are kept as written.
                    out.push('\\');
                    out.push(other);
                }
            }
        }
    }

    fn bad_unicode(&self, at: usize) -> CypherError {
        let end = (at + 10).min(self.src.len());
        let text = self.src.get(at..end).unwrap_or("\\u");
        self.err(
            "InvalidUnicodeLiteral",
            format!("Invalid input '{text}': invalid unicode escape (expected \\uXXXX or \\UXXXXXXXX)"),
            at,
        )
    }

    fn hex_digits(&mut self, n: usize, at: usize) -> Result<u32> {
        let mut v: u32 = 0;
        for _ in 0..n {
            match self.peek_char().and_then(|c| c.to_digit(16)) {
                Some(d) => {
                    v = v.wrapping_mul(16).wrapping_add(d);
                    self.pos += 1;
                }
                None => return Err(self.bad_unicode(at)),
            }
        }
        Ok(v)
    }

    fn number(&mut self) -> Result<Tok> {
        let start = self.pos;
        let b = self.bytes;
        let radix = if b.get(start) == Some(&b'0') && matches!(b.get(start + 1), Some(b'x' | b'X')) {
            16
        } else if b.get(start) == Some(&b'0') && matches!(b.get(start + 1), Some(b'o' | b'O')) {
            8
        } else {
            10
        };
        if radix != 10 {
            self.pos += 2;
            let ds = self.pos;
            while self.peek_char().is_some_and(is_ident_continue) {
                self.pos += self.peek_char().map_or(1, char::len_utf8);
            }
            let digits = &self.src[ds..self.pos];
            let text = &self.src[start..self.pos];
            if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
                return Err(self.err(
                    "InvalidNumberLiteral",
                    format!("Invalid input '{text}': invalid number literal"),
                    start,
                ));
            }
            return self.int_value(digits, radix, start);
        }
        let mut is_float = false;
        while self.bytes.get(self.pos).is_some_and(u8::is_ascii_digit) {
            self.pos += 1;
        }
        if self.bytes.get(self.pos) == Some(&b'.') && self.bytes.get(self.pos + 1).is_some_and(u8::is_ascii_digit) {
            is_float = true;
            self.pos += 1;
            while self.bytes.get(self.pos).is_some_and(u8::is_ascii_digit) {
                self.pos += 1;
            }
        }
        if matches!(self.bytes.get(self.pos), Some(b'e' | b'E')) {
            let mut p = self.pos + 1;
            if matches!(self.bytes.get(p), Some(b'+' | b'-')) {
                p += 1;
            }
            if self.bytes.get(p).is_some_and(u8::is_ascii_digit) {
                is_float = true;
                self.pos = p;
                while self.bytes.get(self.pos).is_some_and(u8::is_ascii_digit) {
                    self.pos += 1;
                }
            }
        }
        if self.peek_char().is_some_and(is_ident_continue) {
            while self.peek_char().is_some_and(is_ident_continue) {
                self.pos += self.peek_char().map_or(1, char::len_utf8);
            }
            let text = &self.src[start..self.pos];
            return Err(self.err(
                "InvalidNumberLiteral",
                format!("Invalid input '{text}': invalid number literal"),
                start,
            ));
        }
        let text = &self.src[start..self.pos];
        if is_float {
            let v: f64 = text.parse().map_err(|_| {
                self.err(
                    "InvalidNumberLiteral",
                    format!("Invalid input '{text}': invalid number literal"),
                    start,
                )
            })?;
            if v.is_infinite() {
                return Err(self.err(
                    "FloatingPointOverflow",
                    format!("Invalid input '{text}': floating point number is too large"),
                    start,
                ));
            }
            return Ok(Tok::Float(v));
        }
        self.int_value(text, 10, start)
    }

    fn int_value(&self, digits: &str, radix: u32, start: usize) -> Result<Tok> {
        let mut v: u64 = 0;
        for c in digits.chars() {
            let d = u64::from(c.to_digit(radix).unwrap_or(0));
            v = match v.checked_mul(u64::from(radix)).and_then(|x| x.checked_add(d)) {
                Some(x) if x <= INT_LIMIT => x,
                _ => {
                    return Err(self.err(
                        "IntegerOverflow",
                        format!(
                            "Invalid input '{}': integer is too large",
                            &self.src[start..start + digits.len() + if radix == 10 { 0 } else { 2 }]
                        ),
                        start,
                    ))
                }
            };
        }
        Ok(Tok::Int(v))
    }
}
