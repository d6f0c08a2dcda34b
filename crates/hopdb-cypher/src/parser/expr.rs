//! Expressions, by precedence: OR < XOR < AND < NOT < comparison < string/list/null
//! predicates < + - < * / % < ^ < unary + - < postfix (property, index, slice, labels) < atoms.

use super::lexer::{Tok, INT_LIMIT};
use super::{Parser, INVALID_SYNTAX, MAX_COPIED_NODES};
use crate::ast::{BinaryOp, Expr, Literal, MapProjectionItem, Quantifier, Subquery, UnaryOp};
use crate::error::{CypherError, Result};

const OR: u8 = 1;
const XOR: u8 = 2;
const AND: u8 = 3;
const NOT: u8 = 4;
const CMP: u8 = 5;
const PRED: u8 = 6;
const ADD: u8 = 7;
const MUL: u8 = 8;
const POW: u8 = 9;

fn bin(op: BinaryOp, l: Expr, r: Expr) -> Expr {
    Expr::Binary(op, Box::new(l), Box::new(r))
}

impl Parser<'_> {
    /// A full expression.
    pub(crate) fn expr(&mut self) -> Result<Expr> {
        self.enter()?;
        let saved = (self.wraps, self.child_max);
        self.wraps = 0;
        self.child_max = 0;
        let r = self.binary(0);
        let bound = 1 + self.wraps + self.child_max;
        self.wraps = saved.0;
        self.child_max = saved.1.max(bound);
        self.leave();
        let e = r?;
        self.check_tree_depth()?;
        Ok(e)
    }

    /// The binary operator at the current token, with its precedence.
    fn binary_op(&self) -> Option<(BinaryOp, u8)> {
        let op = match self.peek() {
            Tok::Word(w) => match w.to_ascii_uppercase().as_str() {
                "OR" => BinaryOp::Or,
                "XOR" => BinaryOp::Xor,
                "AND" => BinaryOp::And,
                "CONTAINS" => BinaryOp::Contains,
                "IN" => BinaryOp::In,
                "STARTS" if self.is_kw_at(self.pos + 1, "WITH") => BinaryOp::StartsWith,
                "ENDS" if self.is_kw_at(self.pos + 1, "WITH") => BinaryOp::EndsWith,
                _ => return None,
            },
            Tok::Sym(s) => match *s {
                "=" => BinaryOp::Eq,
                "<>" => BinaryOp::Ne,
                "<" => BinaryOp::Lt,
                "<=" => BinaryOp::Le,
                ">" => BinaryOp::Gt,
                ">=" => BinaryOp::Ge,
                "=~" => BinaryOp::RegexMatch,
                "+" => BinaryOp::Add,
                "-" => BinaryOp::Sub,
                "*" => BinaryOp::Mul,
                "/" => BinaryOp::Div,
                "%" => BinaryOp::Mod,
                "^" => BinaryOp::Pow,
                _ => return None,
            },
            _ => return None,
        };
        let prec = match op {
            BinaryOp::Or => OR,
            BinaryOp::Xor => XOR,
            BinaryOp::And => AND,
            BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => CMP,
            BinaryOp::In | BinaryOp::StartsWith | BinaryOp::EndsWith | BinaryOp::Contains | BinaryOp::RegexMatch => {
                PRED
            }
            BinaryOp::Add | BinaryOp::Sub => ADD,
            BinaryOp::Mul | BinaryOp::Div | BinaryOp::Mod => MUL,
            BinaryOp::Pow => POW,
        };
        Some((op, prec))
    }

    /// Precedence climbing: operators binding at least as tightly as `min`, left-associative.
    fn binary(&mut self, min: u8) -> Result<Expr> {
        let mut l = self.prefix(min)?;
        loop {
            if min <= PRED && self.is_kw("IS") {
                self.advance();
                let negated = self.eat_kw("NOT");
                self.expect_kw("NULL")?;
                self.wrap(1)?;
                l = Expr::IsNull(Box::new(l), negated);
                continue;
            }
            let Some((op, prec)) = self.binary_op() else {
                return Ok(l);
            };
            if prec < min {
                return Ok(l);
            }
            if prec == CMP {
                l = self.comparison_chain(l)?;
                continue;
            }
            if matches!(op, BinaryOp::StartsWith | BinaryOp::EndsWith) {
                self.advance();
            }
            self.advance();
            let r = self.binary(prec + 1)?;
            self.wrap(1)?;
            l = bin(op, l, r);
        }
    }

    /// `a < b <= c ...` (at the first comparison operator): `a < b AND b <= c`.
    #[inline(never)]
    fn comparison_chain(&mut self, first: Expr) -> Result<Expr> {
        let mut pairs: Vec<(BinaryOp, Expr)> = Vec::new();
        while let Some((op, CMP)) = self.binary_op() {
            self.advance();
            let (pos, copied) = (self.pos, self.copied);
            pairs.push((op, self.binary(PRED)?));
            self.wrap(2)?;
            // Every operand but the last is copied below; its size is at most the tokens it
            // was parsed from plus the copies made inside it.
            if matches!(self.binary_op(), Some((_, CMP))) {
                self.copied += (self.pos - pos) + (self.copied - copied);
                if self.copied > MAX_COPIED_NODES {
                    return Err(CypherError::syntax(
                        INVALID_SYNTAX,
                        format!(
                            "The expression is too large: its chained comparisons (a < b < c) copy more than {} operators and operands",
                            MAX_COPIED_NODES
                        ),
                        self.position(),
                    ));
                }
            }
        }
        let mut left = first;
        let mut acc: Option<Expr> = None;
        let last = pairs.len().saturating_sub(1);
        for (i, (op, right)) in pairs.into_iter().enumerate() {
            let next = if i < last {
                right.clone()
            } else {
                Expr::Literal(Literal::Null)
            };
            let cmp = bin(op, std::mem::replace(&mut left, next), right);
            acc = Some(match acc {
                None => cmp,
                Some(a) => bin(BinaryOp::And, a, cmp),
            });
        }
        Ok(acc.unwrap_or(left))
    }

    /// NOT (where `min` allows it), unary + and -, then a postfix expression.
    fn prefix(&mut self, min: u8) -> Result<Expr> {
        if min <= NOT && self.is_kw("NOT") {
            let mut nots = 0usize;
            while self.eat_kw("NOT") {
                nots += 1;
            }
            let mut e = self.binary(CMP)?;
            self.wrap(nots)?;
            for _ in 0..nots {
                e = Expr::Unary(UnaryOp::Not, Box::new(e));
            }
            return Ok(e);
        }
        let mut ops = Vec::new();
        loop {
            match self.peek() {
                Tok::Sym("-") => ops.push(UnaryOp::Neg),
                Tok::Sym("+") => ops.push(UnaryOp::Pos),
                _ => break,
            }
            self.advance();
        }
        let mut e = if ops.last() == Some(&UnaryOp::Neg) && self.is_number_literal_alone() {
            // Fold `-literal` so that `-9223372036854775808` is representable.
            ops.pop();
            let e = match self.peek() {
                Tok::Int(v) => Expr::Literal(Literal::Int(if *v == INT_LIMIT { i64::MIN } else { -(*v as i64) })),
                Tok::Float(f) => Expr::Literal(Literal::Float(-*f)),
                _ => return Err(self.unexpected("a number")),
            };
            self.advance();
            e
        } else {
            self.postfix(true)?
        };
        self.wrap(ops.len())?;
        while let Some(op) = ops.pop() {
            e = Expr::Unary(op, Box::new(e));
        }
        Ok(e)
    }

    /// A number literal not followed by a postfix operator (which would bind tighter than
    /// the minus).
    fn is_number_literal_alone(&self) -> bool {
        matches!(self.peek(), Tok::Int(_) | Tok::Float(_)) && !matches!(self.peek_n(1), Tok::Sym("." | "[" | ":"))
    }

    /// An atom with property lookups, index/slice and (when `labels`) a label predicate.
    pub(crate) fn postfix(&mut self, labels: bool) -> Result<Expr> {
        let mut e = self.atom()?;
        loop {
            if self.is_sym(".") || self.is_sym("[") {
                self.wrap(1)?;
            }
            if self.is_sym(".") {
                self.advance();
                let key = self.name()?;
                e = Expr::Property(Box::new(e), key);
            } else if self.is_sym("[") {
                self.advance();
                let from = if self.is_sym("..") { None } else { Some(self.expr()?) };
                if self.eat_sym("..") {
                    let to = if self.is_sym("]") {
                        None
                    } else {
                        Some(Box::new(self.expr()?))
                    };
                    self.expect_sym("]")?;
                    e = Expr::Slice(Box::new(e), from.map(Box::new), to);
                } else {
                    self.expect_sym("]")?;
                    match from {
                        Some(i) => e = Expr::Index(Box::new(e), Box::new(i)),
                        None => return Err(self.unexpected("an expression")),
                    }
                }
            } else {
                break;
            }
        }
        if labels && self.is_sym(":") {
            let mut ls = Vec::new();
            while self.eat_sym(":") {
                ls.push(self.name()?);
            }
            self.wrap(1)?;
            e = Expr::HasLabels(Box::new(e), ls);
        }
        Ok(e)
    }

    fn atom(&mut self) -> Result<Expr> {
        let e = self.atom_inner()?;
        let n = match &e {
            Expr::Literal(_) | Expr::Parameter(_) | Expr::Variable(_) | Expr::CountStar => 0,
            Expr::Pattern(_) => 3,
            Expr::Exists(_) | Expr::CountSubquery(_) => 6,
            _ => 1,
        };
        self.wrap(n)?;
        Ok(e)
    }

    fn atom_inner(&mut self) -> Result<Expr> {
        let tok = self.peek().clone();
        match tok {
            Tok::Int(v) => {
                if v >= INT_LIMIT {
                    let off = self.offset();
                    let t = self.toks.get(self.pos).map_or("", |t| &self.src[t.start..t.end]);
                    return Err(self.syntax_at(
                        "IntegerOverflow",
                        format!("Invalid input '{t}': integer is too large"),
                        off,
                    ));
                }
                self.advance();
                Ok(Expr::Literal(Literal::Int(v as i64)))
            }
            Tok::Float(f) => {
                self.advance();
                Ok(Expr::Literal(Literal::Float(f)))
            }
            Tok::Str(s) => {
                self.advance();
                Ok(Expr::Literal(Literal::String(s)))
            }
            Tok::Param(p) => {
                self.advance();
                Ok(Expr::Parameter(p))
            }
            Tok::Sym("(") => {
                if self.paren_starts_pattern(self.pos) {
                    self.enter()?;
                    let el = self.pattern_element();
                    self.leave();
                    return Ok(Expr::Pattern(el?));
                }
                self.advance();
                let e = self.expr()?;
                self.expect_sym(")")?;
                Ok(e)
            }
            Tok::Sym("[") => self.bracket_atom(),
            Tok::Sym("{") => Ok(Expr::Map(self.map_literal()?)),
            Tok::Word(w) => self.word_atom(&w),
            Tok::Quoted(q) => {
                if self.is_sym_at(self.pos + 1, "(") {
                    return self.function_call();
                }
                self.advance();
                if self.is_sym("{") {
                    return self.map_projection(q);
                }
                Ok(Expr::Variable(q))
            }
            _ => Err(self.unexpected("an expression")),
        }
    }

    #[inline(never)]
    fn word_atom(&mut self, w: &str) -> Result<Expr> {
        let upper = w.to_ascii_uppercase();
        let next_paren = self.is_sym_at(self.pos + 1, "(");
        let next_brace = self.is_sym_at(self.pos + 1, "{");
        match upper.as_str() {
            "TRUE" => {
                self.advance();
                return Ok(Expr::Literal(Literal::Bool(true)));
            }
            "FALSE" => {
                self.advance();
                return Ok(Expr::Literal(Literal::Bool(false)));
            }
            "NULL" => {
                self.advance();
                return Ok(Expr::Literal(Literal::Null));
            }
            "CASE" => return self.case_expr(),
            "COUNT" if next_paren && self.is_sym_at(self.pos + 2, "*") && self.is_sym_at(self.pos + 3, ")") => {
                self.pos += 4;
                return Ok(Expr::CountStar);
            }
            "COUNT" | "EXISTS" if next_brace => {
                self.advance();
                let sub = self.subquery()?;
                return Ok(if upper == "COUNT" {
                    Expr::CountSubquery(Box::new(sub))
                } else {
                    Expr::Exists(Box::new(sub))
                });
            }
            "ALL" | "ANY" | "NONE" | "SINGLE"
                if next_paren && self.is_var_at(self.pos + 2) && self.is_kw_at(self.pos + 3, "IN") =>
            {
                return self.quantified(&upper);
            }
            "REDUCE" if next_paren && self.is_var_at(self.pos + 2) && self.is_sym_at(self.pos + 3, "=") => {
                return self.reduce();
            }
            "SHORTESTPATH" | "ALLSHORTESTPATHS" if next_paren => {
                let name = w.to_string();
                self.advance();
                self.expect_sym("(")?;
                self.enter()?;
                let el = self.pattern_element();
                self.leave();
                let el = el?;
                self.expect_sym(")")?;
                return Ok(Expr::Function {
                    name,
                    distinct: false,
                    args: vec![Expr::Pattern(el)],
                });
            }
            _ => {}
        }
        if self.function_ahead() {
            return self.function_call();
        }
        let var = self.variable()?;
        if self.is_sym("{") {
            return self.map_projection(var);
        }
        Ok(Expr::Variable(var))
    }

    /// Whether a (possibly dotted) function name followed by `(` starts here.
    fn function_ahead(&self) -> bool {
        let first_ok = match self.peek() {
            Tok::Word(w) => !super::is_reserved(w) || w.eq_ignore_ascii_case("EXISTS"),
            Tok::Quoted(_) => true,
            _ => false,
        };
        if !first_ok {
            return false;
        }
        let mut i = self.pos + 1;
        loop {
            if self.is_sym_at(i, "(") {
                return true;
            }
            if self.is_sym_at(i, ".") && self.is_name_at(i + 1) {
                i += 2;
            } else {
                return false;
            }
        }
    }

    #[inline(never)]
    fn function_call(&mut self) -> Result<Expr> {
        let mut name = self.name()?;
        while self.eat_sym(".") {
            name.push('.');
            name.push_str(&self.name()?);
        }
        self.expect_sym("(")?;
        let distinct = self.eat_kw("DISTINCT");
        let mut args = Vec::new();
        if !self.is_sym(")") {
            loop {
                args.push(self.expr()?);
                if !self.eat_sym(",") {
                    break;
                }
            }
        }
        self.expect_sym(")")?;
        Ok(Expr::Function { name, distinct, args })
    }

    #[inline(never)]
    fn case_expr(&mut self) -> Result<Expr> {
        self.expect_kw("CASE")?;
        let operand = if self.is_kw("WHEN") {
            None
        } else {
            Some(Box::new(self.expr()?))
        };
        let mut whens = Vec::new();
        while self.eat_kw("WHEN") {
            let w = self.expr()?;
            self.expect_kw("THEN")?;
            let t = self.expr()?;
            whens.push((w, t));
        }
        if whens.is_empty() {
            return Err(self.unexpected("WHEN"));
        }
        let else_ = if self.eat_kw("ELSE") {
            Some(Box::new(self.expr()?))
        } else {
            None
        };
        if !self.eat_kw("END") {
            return Err(self.unexpected("WHEN, ELSE or END"));
        }
        Ok(Expr::Case { operand, whens, else_ })
    }

    #[inline(never)]
    fn quantified(&mut self, upper: &str) -> Result<Expr> {
        let quantifier = match upper {
            "ALL" => Quantifier::All,
            "ANY" => Quantifier::Any,
            "NONE" => Quantifier::None,
            _ => Quantifier::Single,
        };
        self.advance();
        self.expect_sym("(")?;
        let var = self.variable()?;
        self.expect_kw("IN")?;
        let list = Box::new(self.expr()?);
        let filter = if self.eat_kw("WHERE") {
            Some(Box::new(self.expr()?))
        } else {
            None
        };
        self.expect_sym(")")?;
        Ok(Expr::Quantified {
            quantifier,
            var,
            list,
            filter,
        })
    }

    #[inline(never)]
    fn reduce(&mut self) -> Result<Expr> {
        self.advance();
        self.expect_sym("(")?;
        let acc = self.variable()?;
        self.expect_sym("=")?;
        let init = Box::new(self.expr()?);
        self.expect_sym(",")?;
        let var = self.variable()?;
        self.expect_kw("IN")?;
        let list = Box::new(self.expr()?);
        self.expect_sym("|")?;
        let expr = Box::new(self.expr()?);
        self.expect_sym(")")?;
        Ok(Expr::Reduce {
            acc,
            init,
            var,
            list,
            expr,
        })
    }

    /// `[...]`: a list literal, a list comprehension or a pattern comprehension.
    #[inline(never)]
    fn bracket_atom(&mut self) -> Result<Expr> {
        let i = self.pos;
        let pattern_comp = (self.is_sym_at(i + 1, "(") && self.paren_starts_pattern(i + 1))
            || (self.is_var_at(i + 1)
                && self.is_sym_at(i + 2, "=")
                && self.is_sym_at(i + 3, "(")
                && self.paren_starts_pattern(i + 3));
        self.expect_sym("[")?;
        if pattern_comp {
            self.enter()?;
            let r = self.pattern_comprehension();
            self.leave();
            return r;
        }
        if self.is_var_at(self.pos) && self.is_kw_at(self.pos + 1, "IN") {
            let var = self.variable()?;
            self.expect_kw("IN")?;
            let list = Box::new(self.expr()?);
            let filter = if self.eat_kw("WHERE") {
                Some(Box::new(self.expr()?))
            } else {
                None
            };
            let map = if self.eat_sym("|") {
                Some(Box::new(self.expr()?))
            } else {
                None
            };
            if !self.eat_sym("]") {
                return Err(self.unexpected("WHERE, '|' or ']'"));
            }
            return Ok(Expr::ListComprehension { var, list, filter, map });
        }
        let mut items = Vec::new();
        if !self.eat_sym("]") {
            loop {
                items.push(self.expr()?);
                if self.eat_sym("]") {
                    break;
                }
                if !self.eat_sym(",") {
                    return Err(self.unexpected("',' or ']'"));
                }
            }
        }
        Ok(Expr::List(items))
    }

    #[inline(never)]
    fn pattern_comprehension(&mut self) -> Result<Expr> {
        let var = if self.is_sym_at(self.pos + 1, "=") {
            let v = self.variable()?;
            self.expect_sym("=")?;
            Some(v)
        } else {
            None
        };
        let pattern = self.pattern_element()?;
        let filter = if self.eat_kw("WHERE") {
            Some(Box::new(self.expr()?))
        } else {
            None
        };
        if !self.eat_sym("|") {
            return Err(self.unexpected("WHERE or '|'"));
        }
        let map = Box::new(self.expr()?);
        self.expect_sym("]")?;
        Ok(Expr::PatternComprehension {
            var,
            pattern,
            filter,
            map,
        })
    }

    /// `{key: expr, ...}`.
    #[inline(never)]
    pub(crate) fn map_literal(&mut self) -> Result<Vec<(String, Expr)>> {
        self.expect_sym("{")?;
        let mut entries = Vec::new();
        if self.eat_sym("}") {
            return Ok(entries);
        }
        loop {
            if !self.is_name_at(self.pos) {
                return Err(self.unexpected("a property key name"));
            }
            let k = self.name()?;
            self.expect_sym(":")?;
            let v = self.expr()?;
            entries.push((k, v));
            if self.eat_sym("}") {
                return Ok(entries);
            }
            if !self.eat_sym(",") {
                return Err(self.unexpected("',' or '}'"));
            }
        }
    }

    #[inline(never)]
    fn map_projection(&mut self, var: String) -> Result<Expr> {
        self.expect_sym("{")?;
        let mut items = Vec::new();
        if !self.eat_sym("}") {
            loop {
                if self.eat_sym(".") {
                    if self.eat_sym("*") {
                        items.push(MapProjectionItem::AllProperties);
                    } else {
                        items.push(MapProjectionItem::Property(self.name()?));
                    }
                } else if self.is_name_at(self.pos) && self.is_sym_at(self.pos + 1, ":") {
                    let k = self.name()?;
                    self.advance();
                    items.push(MapProjectionItem::Literal(k, self.expr()?));
                } else {
                    items.push(MapProjectionItem::Variable(self.variable()?));
                }
                if self.eat_sym("}") {
                    break;
                }
                if !self.eat_sym(",") {
                    return Err(self.unexpected("',' or '}'"));
                }
            }
        }
        Ok(Expr::MapProjection { var, items })
    }

    /// The body of `EXISTS { ... }` / `COUNT { ... }` (at the `{`).
    fn subquery(&mut self) -> Result<Subquery> {
        self.enter()?;
        let r = self.subquery_inner();
        self.leave();
        r
    }

    #[inline(never)]
    fn subquery_inner(&mut self) -> Result<Subquery> {
        self.expect_sym("{")?;
        let is_query = ["MATCH", "OPTIONAL", "WITH", "UNWIND", "CALL", "RETURN", "USE"]
            .iter()
            .any(|k| self.is_kw(k));
        let sub = if is_query {
            Subquery::Query(Box::new(self.query()?))
        } else {
            let pattern = self.pattern()?;
            let where_ = if self.eat_kw("WHERE") {
                Some(Box::new(self.expr()?))
            } else {
                None
            };
            Subquery::Pattern { pattern, where_ }
        };
        if !self.eat_sym("}") {
            return Err(self.unexpected("'}'"));
        }
        Ok(sub)
    }
}
