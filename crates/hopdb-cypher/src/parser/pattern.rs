//! Patterns: `p = (a:L {k: v})-[r:T|U *1..3]->(b)`, shortestPath and allShortestPaths.

use super::lexer::Tok;
use super::Parser;
use crate::ast::{Expr, NodePattern, PathKind, PatternElement, PatternPart, RelDirection, RelPattern};
use crate::error::Result;

impl Parser<'_> {
    /// Whether the `(` at token `i` starts a pattern with at least one relationship (rather
    /// than a parenthesised expression): its partner `)` is followed by `--`, `-[`, `<--` or `<-[`.
    pub(crate) fn paren_starts_pattern(&self, i: usize) -> bool {
        let Some(&j) = self.partner.get(i) else { return false };
        if j == usize::MAX {
            return false;
        }
        let rel_body = |k: usize| self.is_sym_at(k, "-") || self.is_sym_at(k, "[");
        (self.is_sym_at(j + 1, "-") && rel_body(j + 2))
            || (self.is_sym_at(j + 1, "<") && self.is_sym_at(j + 2, "-") && rel_body(j + 3))
    }

    /// Comma-separated pattern parts.
    pub(crate) fn pattern(&mut self) -> Result<Vec<PatternPart>> {
        let mut parts = vec![self.pattern_part()?];
        while self.eat_sym(",") {
            parts.push(self.pattern_part()?);
        }
        Ok(parts)
    }

    /// `[var =] element`, `[var =] shortestPath(element)`, `[var =] allShortestPaths(element)`.
    pub(crate) fn pattern_part(&mut self) -> Result<PatternPart> {
        let var = if self.is_var_at(self.pos) && self.is_sym_at(self.pos + 1, "=") {
            let v = self.variable()?;
            self.advance();
            Some(v)
        } else {
            None
        };
        let kind = if self.is_sym_at(self.pos + 1, "(") && self.is_kw("shortestPath") {
            PathKind::Shortest
        } else if self.is_sym_at(self.pos + 1, "(") && self.is_kw("allShortestPaths") {
            PathKind::AllShortest
        } else {
            PathKind::Plain
        };
        self.enter()?;
        let element = if kind == PathKind::Plain {
            self.pattern_element()
        } else {
            self.advance();
            self.advance();
            self.pattern_element().and_then(|el| {
                self.expect_sym(")")?;
                Ok(el)
            })
        };
        self.leave();
        Ok(PatternPart {
            var,
            kind,
            element: element?,
        })
    }

    /// A node followed by any number of (relationship, node) pairs. A parenthesised element
    /// `((a)-->(b))` is accepted too.
    pub(crate) fn pattern_element(&mut self) -> Result<PatternElement> {
        if self.is_sym("(") && self.is_sym_at(self.pos + 1, "(") {
            self.advance();
            self.enter()?;
            let el = self.pattern_element();
            self.leave();
            let el = el?;
            self.expect_sym(")")?;
            return Ok(el);
        }
        let start = self.node_pattern()?;
        let mut chain = Vec::new();
        while self.is_sym("-") || (self.is_sym("<") && self.is_sym_at(self.pos + 1, "-")) {
            let rel = self.rel_pattern()?;
            let node = self.node_pattern()?;
            chain.push((rel, node));
        }
        Ok(PatternElement { start, chain })
    }

    /// `(var:L1:L2 {props})` or `(var $param)`.
    pub(crate) fn node_pattern(&mut self) -> Result<NodePattern> {
        if !self.eat_sym("(") {
            return Err(self.unexpected("'('"));
        }
        let var = if self.is_var_at(self.pos) {
            Some(self.variable()?)
        } else {
            None
        };
        let labels = self.label_list()?;
        let props = self.pattern_props()?;
        if !self.eat_sym(")") {
            let what = match (&var, labels.is_empty(), &props) {
                (_, _, Some(_)) => "')'",
                (_, false, None) => "':', '{', a parameter or ')'",
                (Some(_), true, None) => "':', '{', a parameter or ')'",
                (None, true, None) => "a variable name, ':', '{', a parameter or ')'",
            };
            return Err(self.unexpected(what));
        }
        Ok(NodePattern { var, labels, props })
    }

    fn label_list(&mut self) -> Result<Vec<String>> {
        let mut labels = Vec::new();
        while self.eat_sym(":") {
            if !self.is_name_at(self.pos) {
                return Err(self.unexpected("a label name"));
            }
            labels.push(self.name()?);
        }
        Ok(labels)
    }

    /// `{...}` or `$param` in a node or relationship pattern.
    fn pattern_props(&mut self) -> Result<Option<Box<Expr>>> {
        match self.peek() {
            Tok::Sym("{") => {
                self.enter()?;
                let m = self.map_literal();
                self.leave();
                Ok(Some(Box::new(Expr::Map(m?))))
            }
            Tok::Param(p) => {
                let p = p.clone();
                self.advance();
                Ok(Some(Box::new(Expr::Parameter(p))))
            }
            _ => Ok(None),
        }
    }

    /// `-[...]->`, `<-[...]-`, `-[...]-`, `<-[...]->`, or the short forms without brackets.
    fn rel_pattern(&mut self) -> Result<RelPattern> {
        let left = self.eat_sym("<");
        self.expect_sym("-")?;
        let mut rel = RelPattern {
            var: None,
            types: Vec::new(),
            direction: RelDirection::Both,
            length: None,
            props: None,
        };
        if self.eat_sym("[") {
            if self.is_var_at(self.pos) {
                rel.var = Some(self.variable()?);
            }
            if self.eat_sym(":") {
                rel.types.push(self.rel_type()?);
                while self.eat_sym("|") {
                    self.eat_sym(":");
                    rel.types.push(self.rel_type()?);
                }
            }
            if self.eat_sym("*") {
                rel.length = Some(self.range()?);
            }
            rel.props = self.pattern_props()?;
            if self.is_sym("..") || self.is_sym("-") {
                let off = self.offset();
                return Err(self.syntax_at(
                    "InvalidRelationshipPattern",
                    "Invalid relationship pattern: a variable length is written '*', '*n', '*n..m', '*..m' or '*n..'",
                    off,
                ));
            }
            if !self.eat_sym("]") {
                let what = if rel.length.is_none() && rel.props.is_none() {
                    "':', '|', '*', '{', a parameter or ']'"
                } else {
                    "']'"
                };
                return Err(self.unexpected(what));
            }
        }
        self.expect_sym("-")?;
        let right = self.eat_sym(">");
        rel.direction = match (left, right) {
            (true, false) => RelDirection::Left,
            (false, true) => RelDirection::Right,
            _ => RelDirection::Both,
        };
        Ok(rel)
    }

    fn rel_type(&mut self) -> Result<String> {
        if !self.is_name_at(self.pos) {
            return Err(self.unexpected("a relationship type name"));
        }
        self.name()
    }

    /// After `*`: `[min][..[max]]`.
    fn range(&mut self) -> Result<(Option<u64>, Option<u64>)> {
        let min = self.range_bound()?;
        if self.eat_sym("..") {
            let max = self.range_bound()?;
            Ok((min, max))
        } else if min.is_some() {
            Ok((min, min))
        } else {
            Ok((None, None))
        }
    }

    fn range_bound(&mut self) -> Result<Option<u64>> {
        match self.peek() {
            Tok::Int(v) => {
                let v = *v;
                self.advance();
                Ok(Some(v))
            }
            _ => Ok(None),
        }
    }
}
