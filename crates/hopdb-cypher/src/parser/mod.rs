//! The openCypher parser: text to [`crate::ast::Statement`], with line and column in every error.
//!
//! A hand-written lexer ([`lexer`]) feeds a recursive-descent parser: statements and clauses
//! (`clause`), patterns (`pattern`), expressions by precedence (`expr`) and schema commands
//! (`schema`). Nesting is bounded ([`MAX_DEPTH`]) so that hostile input gives a syntax error,
//! never a stack overflow.

mod clause;
mod expr;
mod lexer;
mod pattern;
mod schema;

use crate::ast::Statement;
use crate::error::{CypherError, Position, Result};
use lexer::{Tok, Token};

/// The detail code of a plain syntax error (the TCK names it `UnexpectedSyntax`). More
/// specific codes are used where the parser knows them: `IntegerOverflow`,
/// `InvalidNumberLiteral`, `FloatingPointOverflow`, `InvalidUnicodeLiteral`,
/// `InvalidUnicodeCharacter`, `InvalidRelationshipPattern`.
pub const INVALID_SYNTAX: &str = "UnexpectedSyntax";

/// How deeply expressions, patterns and clauses may nest (parentheses, brackets, subqueries,
/// FOREACH) before the parser gives up with a syntax error.
pub const MAX_DEPTH: usize = 500;

/// How many bytes of stack the parser may use: the nesting limit in practice (a level takes
/// about 3 KiB in an optimised build, several times that unoptimised), so that parsing in a
/// thread with the default 2 MiB stack is safe whatever the text.
const STACK_BUDGET: usize = 1024 * 1024;

/// The address of a local: how far down the stack the current call is.
#[inline(never)]
fn stack_address() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// A bound on the depth of the expression trees the parser builds (so that code walking
/// them recursively cannot overflow the stack): about this many operators may be stacked,
/// e.g. a chain `a + b + ...` of that length is refused.
pub const MAX_TREE_DEPTH: usize = 1000;

/// A bound on the expression nodes that chained comparisons add by copying their middle
/// operands (`a < b < c` is `a < b AND b < c`). A copied operand may hold chains of its own,
/// so nested chains grow the tree exponentially: a 2.4 KB query found by fuzzing took 21 s
/// and over 1 GB to parse before this bound.
pub const MAX_COPIED_NODES: usize = 100_000;

/// Parses one statement (a trailing `;` is allowed).
pub fn parse(text: &str) -> Result<Statement> {
    let lexed = lexer::lex(text)?;
    let mut p = Parser {
        src: text,
        toks: lexed.tokens,
        partner: lexed.partner,
        pos: 0,
        depth: 0,
        wraps: 0,
        child_max: 0,
        copied: 0,
        stack_base: stack_address(),
    };
    let st = p.statement()?;
    p.eat_sym(";");
    if !p.at_eof() {
        return Err(p.unexpected("a clause, UNION, ';' or end of input"));
    }
    Ok(st)
}

/// The position of byte `offset` in `src` (1-based line and column in characters).
pub(crate) fn position_of(src: &str, offset: usize) -> Position {
    let offset = offset.min(src.len());
    let mut line = 1u32;
    let mut column = 1u32;
    for (i, c) in src.char_indices() {
        if i >= offset {
            break;
        }
        if c == '\n' {
            line += 1;
            column = 1;
        } else {
            column += 1;
        }
    }
    Position { line, column, offset }
}

/// Words that cannot be used as variable names unquoted: operators, literals and the words
/// that start or delimit clauses (openCypher reserves a few more, e.g. END, DESC, ALL, EXISTS;
/// like Neo4j 5, HopDB accepts those as names). Labels, relationship types, property keys and
/// map keys may be any word.
const RESERVED: &[&str] = &[
    "AND", "AS", "CALL", "CASE", "CONTAINS", "CREATE", "DELETE", "DETACH", "DISTINCT", "ENDS", "FALSE", "FOREACH",
    "IN", "IS", "LIMIT", "MATCH", "MERGE", "NOT", "NULL", "OPTIONAL", "OR", "ORDER", "REMOVE", "RETURN", "SET", "SKIP",
    "STARTS", "TRUE", "UNION", "UNWIND", "WHERE", "WITH", "XOR", "YIELD",
];

/// The recursive-descent parser over a token list.
pub(crate) struct Parser<'a> {
    src: &'a str,
    toks: Vec<Token>,
    partner: Vec<usize>,
    pos: usize,
    depth: usize,
    /// Composite nodes built so far by the innermost [`Parser::expr`] call, not counting
    /// those inside its nested `expr` calls.
    wraps: usize,
    /// The largest tree-depth bound of the nested `expr` calls of the innermost one.
    child_max: usize,
    /// Expression nodes added by copies so far (bounded by [`MAX_COPIED_NODES`]); a parsed
    /// expression holds at most its tokens plus the copies made while parsing it.
    copied: usize,
    /// [`stack_address`] when parsing started.
    stack_base: usize,
}

impl<'a> Parser<'a> {
    // ----- token access -----

    fn tok(&self, i: usize) -> &Tok {
        match self.toks.get(i) {
            Some(t) => &t.tok,
            None => &Tok::Eof,
        }
    }

    fn peek(&self) -> &Tok {
        self.tok(self.pos)
    }

    fn peek_n(&self, n: usize) -> &Tok {
        self.tok(self.pos + n)
    }

    fn at_eof(&self) -> bool {
        matches!(self.peek(), Tok::Eof)
    }

    fn advance(&mut self) {
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
    }

    /// Byte offset where the current token starts.
    fn offset(&self) -> usize {
        self.toks.get(self.pos).map_or(self.src.len(), |t| t.start)
    }

    /// Byte offset just past the last consumed token.
    fn prev_end(&self) -> usize {
        if self.pos == 0 {
            0
        } else {
            self.toks.get(self.pos - 1).map_or(0, |t| t.end)
        }
    }

    fn position(&self) -> Position {
        position_of(self.src, self.offset())
    }

    fn is_kw_at(&self, i: usize, kw: &str) -> bool {
        matches!(self.tok(i), Tok::Word(w) if w.eq_ignore_ascii_case(kw))
    }

    fn is_kw(&self, kw: &str) -> bool {
        self.is_kw_at(self.pos, kw)
    }

    fn eat_kw(&mut self, kw: &str) -> bool {
        if self.is_kw(kw) {
            self.advance();
            true
        } else {
            false
        }
    }

    fn expect_kw(&mut self, kw: &str) -> Result<()> {
        if self.eat_kw(kw) {
            Ok(())
        } else {
            Err(self.unexpected(kw))
        }
    }

    fn is_sym_at(&self, i: usize, s: &str) -> bool {
        matches!(self.tok(i), Tok::Sym(t) if *t == s)
    }

    fn is_sym(&self, s: &str) -> bool {
        self.is_sym_at(self.pos, s)
    }

    fn eat_sym(&mut self, s: &str) -> bool {
        if self.is_sym(s) {
            self.advance();
            true
        } else {
            false
        }
    }

    fn expect_sym(&mut self, s: &str) -> Result<()> {
        if self.eat_sym(s) {
            Ok(())
        } else {
            Err(self.unexpected(&format!("'{s}'")))
        }
    }

    // ----- names -----

    /// Whether token `i` is a name usable as a variable.
    fn is_var_at(&self, i: usize) -> bool {
        match self.tok(i) {
            Tok::Word(w) => !is_reserved(w),
            Tok::Quoted(_) => true,
            _ => false,
        }
    }

    /// Whether token `i` is any name (keywords included).
    fn is_name_at(&self, i: usize) -> bool {
        matches!(self.tok(i), Tok::Word(_) | Tok::Quoted(_))
    }

    /// A variable name (not a reserved word, unless backtick-quoted).
    fn variable(&mut self) -> Result<String> {
        if self.is_var_at(self.pos) {
            self.name()
        } else {
            Err(self.unexpected("a variable name"))
        }
    }

    /// Any name: a label, type, property key, map key or namespace part.
    fn name(&mut self) -> Result<String> {
        match self.peek() {
            Tok::Word(w) | Tok::Quoted(w) => {
                let w = w.clone();
                self.advance();
                Ok(w)
            }
            _ => Err(self.unexpected("a name")),
        }
    }

    // ----- errors and nesting -----

    /// "Invalid input 'X': expected `what`" at the current token.
    fn unexpected(&self, what: &str) -> CypherError {
        let pos = self.position();
        let msg = match self.toks.get(self.pos) {
            Some(t) if !matches!(t.tok, Tok::Eof) => {
                let text = &self.src[t.start..t.end];
                format!("Invalid input '{text}': expected {what}")
            }
            _ => format!("Unexpected end of input: expected {what}"),
        };
        CypherError::syntax(INVALID_SYNTAX, msg, pos)
    }

    fn syntax_at(&self, detail: &'static str, msg: impl Into<String>, offset: usize) -> CypherError {
        CypherError::syntax(detail, msg, position_of(self.src, offset))
    }

    /// Enters one level of nesting; fails past [`MAX_DEPTH`].
    fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH || stack_address().abs_diff(self.stack_base) > STACK_BUDGET {
            return Err(CypherError::syntax(
                INVALID_SYNTAX,
                format!("The query nests too deeply (at most {MAX_DEPTH} levels, fewer when the stack runs short)"),
                self.position(),
            ));
        }
        Ok(())
    }

    /// Counts `n` composite expression nodes built at the current level; fails when the tree
    /// would get deeper than [`MAX_TREE_DEPTH`].
    fn wrap(&mut self, n: usize) -> Result<()> {
        self.wraps += n;
        self.check_tree_depth()
    }

    fn check_tree_depth(&self) -> Result<()> {
        if 1 + self.wraps + self.child_max > MAX_TREE_DEPTH {
            return Err(CypherError::syntax(
                INVALID_SYNTAX,
                format!("The expression is too deeply nested (more than {MAX_TREE_DEPTH} operators deep)"),
                self.position(),
            ));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }
}

fn is_reserved(w: &str) -> bool {
    RESERVED.iter().any(|r| r.eq_ignore_ascii_case(w))
}
