//! Statements, queries (with UNION) and clauses.

use super::lexer::Tok;
use super::Parser;
use crate::ast::{
    Clause, Expr, ProcedureCall, Projection, ProjectionItem, Query, RemoveItem, SetItem, SingleQuery, SortItem,
    Statement,
};
use crate::error::{CypherError, Result};

/// The clause keywords, for "expected ..." messages.
const CLAUSES: &str =
    "CALL, CREATE, DELETE, DETACH, FOREACH, MATCH, MERGE, OPTIONAL, REMOVE, RETURN, SET, UNWIND or WITH";

impl Parser<'_> {
    /// `[EXPLAIN|PROFILE] (schema command | query)`.
    pub(crate) fn statement(&mut self) -> Result<Statement> {
        if self.is_kw("EXPLAIN") || self.is_kw("PROFILE") {
            let explain = self.is_kw("EXPLAIN");
            self.advance();
            self.enter()?;
            let inner = self.statement();
            self.leave();
            let inner = Box::new(inner?);
            return Ok(if explain {
                Statement::Explain(inner)
            } else {
                Statement::Profile(inner)
            });
        }
        if let Some(cmd) = self.schema_command()? {
            return Ok(Statement::Schema(cmd));
        }
        if self.at_eof() || self.is_sym(";") {
            return Err(self.unexpected(&format!("{CLAUSES}, DROP, EXPLAIN, PROFILE or SHOW")));
        }
        Ok(Statement::Query(self.query()?))
    }

    /// Single queries joined by UNION [ALL].
    pub(crate) fn query(&mut self) -> Result<Query> {
        let first = self.single_query()?;
        let mut unions = Vec::new();
        while self.eat_kw("UNION") {
            let all = self.eat_kw("ALL");
            unions.push((all, self.single_query()?));
        }
        Ok(Query { first, unions })
    }

    fn single_query(&mut self) -> Result<SingleQuery> {
        let mut clauses = Vec::new();
        while let Some(c) = self.clause()? {
            clauses.push(c);
        }
        if clauses.is_empty() {
            return Err(self.unexpected(CLAUSES));
        }
        Ok(SingleQuery { clauses })
    }

    /// One clause, or `None` when the next token starts none.
    fn clause(&mut self) -> Result<Option<Clause>> {
        let Tok::Word(w) = self.peek() else { return Ok(None) };
        let upper = w.to_ascii_uppercase();
        let start = self.offset();
        let c = match upper.as_str() {
            "MATCH" => {
                self.advance();
                self.match_clause(false)?
            }
            "OPTIONAL" => {
                self.advance();
                self.expect_kw("MATCH")?;
                self.match_clause(true)?
            }
            "UNWIND" => {
                self.advance();
                let expr = self.expr()?;
                self.expect_kw("AS")?;
                let var = self.variable()?;
                Clause::Unwind { expr, var }
            }
            "WITH" => {
                self.advance();
                let mut p = self.projection()?;
                if self.eat_kw("WHERE") {
                    p.where_ = Some(self.expr()?);
                }
                Clause::With(p)
            }
            "RETURN" => {
                self.advance();
                Clause::Return(self.projection()?)
            }
            "CREATE" => {
                self.advance();
                Clause::Create(self.pattern()?)
            }
            "MERGE" => {
                self.advance();
                self.merge_clause()?
            }
            "SET" => {
                self.advance();
                Clause::Set(self.set_items()?)
            }
            "REMOVE" => {
                self.advance();
                let mut items = vec![self.remove_item()?];
                while self.eat_sym(",") {
                    items.push(self.remove_item()?);
                }
                Clause::Remove(items)
            }
            "DELETE" | "DETACH" => {
                self.advance();
                let detach = upper == "DETACH";
                if detach {
                    self.expect_kw("DELETE")?;
                }
                let mut exprs = vec![self.expr()?];
                while self.eat_sym(",") {
                    exprs.push(self.expr()?);
                }
                Clause::Delete { detach, exprs }
            }
            "CALL" => {
                self.advance();
                if self.is_sym("{") || self.is_sym("(") {
                    return Err(CypherError::unsupported("CALL subqueries").at(super::position_of(self.src, start)));
                }
                Clause::Call(self.call_clause()?)
            }
            "FOREACH" => {
                self.advance();
                self.enter()?;
                let r = self.foreach_clause();
                self.leave();
                r?
            }
            "LOAD" | "USE" | "FINISH" | "INSERT" => {
                return Err(CypherError::unsupported(format!("The {upper} clause")).at(self.position()));
            }
            _ => return Ok(None),
        };
        Ok(Some(c))
    }

    fn match_clause(&mut self, optional: bool) -> Result<Clause> {
        let pattern = self.pattern()?;
        let where_ = if self.eat_kw("WHERE") { Some(self.expr()?) } else { None };
        Ok(Clause::Match {
            optional,
            pattern,
            where_,
        })
    }

    fn merge_clause(&mut self) -> Result<Clause> {
        let part = self.pattern_part()?;
        let mut on_create = Vec::new();
        let mut on_match = Vec::new();
        while self.is_kw("ON") {
            self.advance();
            let create = if self.eat_kw("CREATE") {
                true
            } else if self.eat_kw("MATCH") {
                false
            } else {
                return Err(self.unexpected("CREATE or MATCH"));
            };
            self.expect_kw("SET")?;
            let items = self.set_items()?;
            if create {
                on_create.extend(items);
            } else {
                on_match.extend(items);
            }
        }
        Ok(Clause::Merge {
            part,
            on_create,
            on_match,
        })
    }

    fn set_items(&mut self) -> Result<Vec<SetItem>> {
        let mut items = vec![self.set_item()?];
        while self.eat_sym(",") {
            items.push(self.set_item()?);
        }
        Ok(items)
    }

    fn set_item(&mut self) -> Result<SetItem> {
        if self.is_var_at(self.pos) {
            match self.peek_n(1) {
                Tok::Sym("=") | Tok::Sym("+=") => {
                    let var = self.variable()?;
                    let merge = self.is_sym("+=");
                    self.advance();
                    let value = self.expr()?;
                    return Ok(SetItem::Properties { var, value, merge });
                }
                Tok::Sym(":") => {
                    let var = self.variable()?;
                    let (labels, dynamic) = self.labels_after_var()?;
                    return Ok(SetItem::Labels { var, labels, dynamic });
                }
                _ => {}
            }
        }
        let (target, key) = self.property_target("SET")?;
        if !self.eat_sym("=") {
            return Err(self.unexpected("'='"));
        }
        let value = self.expr()?;
        Ok(SetItem::Property { target, key, value })
    }

    fn remove_item(&mut self) -> Result<RemoveItem> {
        if self.is_var_at(self.pos) && self.is_sym_at(self.pos + 1, ":") {
            let var = self.variable()?;
            let (labels, dynamic) = self.labels_after_var()?;
            return Ok(RemoveItem::Labels { var, labels, dynamic });
        }
        let (target, key) = self.property_target("REMOVE")?;
        Ok(RemoveItem::Property { target, key })
    }

    /// `:A:B:$(expr)`: the static labels and the dynamic label expressions.
    fn labels_after_var(&mut self) -> Result<(Vec<String>, Vec<Expr>)> {
        let mut labels = Vec::new();
        let mut dynamic = Vec::new();
        while self.eat_sym(":") {
            if self.eat_sym("$(") {
                dynamic.push(self.expr()?);
                self.expect_sym(")")?;
                continue;
            }
            if !self.is_name_at(self.pos) {
                return Err(self.unexpected("a label name"));
            }
            labels.push(self.name()?);
        }
        Ok((labels, dynamic))
    }

    /// `expr.key` as the target of SET / REMOVE.
    fn property_target(&mut self, clause: &str) -> Result<(Expr, String)> {
        let start = self.pos;
        let e = self.postfix(false)?;
        match e {
            Expr::Property(target, key) => Ok((*target, key)),
            _ => {
                let saved = self.pos;
                self.pos = start;
                let err = self.unexpected(&format!("a property ({clause} n.key ...), a variable or labels"));
                self.pos = saved;
                Err(err)
            }
        }
    }

    /// The body of WITH / RETURN (WITH's WHERE is parsed by the caller).
    fn projection(&mut self) -> Result<Projection> {
        let distinct = self.eat_kw("DISTINCT");
        let mut star = false;
        let mut items = Vec::new();
        if self.eat_sym("*") {
            star = true;
            while self.eat_sym(",") {
                items.push(self.projection_item()?);
            }
        } else {
            items.push(self.projection_item()?);
            while self.eat_sym(",") {
                items.push(self.projection_item()?);
            }
        }
        let mut order_by = Vec::new();
        if self.is_kw("ORDER") {
            self.advance();
            self.expect_kw("BY")?;
            loop {
                let expr = self.expr()?;
                let descending = if self.eat_kw("DESC") || self.eat_kw("DESCENDING") {
                    true
                } else {
                    let _ = self.eat_kw("ASC") || self.eat_kw("ASCENDING");
                    false
                };
                order_by.push(SortItem { expr, descending });
                if !self.eat_sym(",") {
                    break;
                }
            }
        }
        let skip = if self.eat_kw("SKIP") || self.eat_kw("OFFSET") {
            Some(self.expr()?)
        } else {
            None
        };
        let limit = if self.eat_kw("LIMIT") { Some(self.expr()?) } else { None };
        Ok(Projection {
            distinct,
            star,
            items,
            order_by,
            skip,
            limit,
            where_: None,
        })
    }

    fn projection_item(&mut self) -> Result<ProjectionItem> {
        let start = self.offset();
        let expr = self.expr()?;
        let text = self.src[start..self.prev_end().max(start)].trim().to_string();
        let alias = if self.eat_kw("AS") {
            Some(self.variable()?)
        } else {
            None
        };
        Ok(ProjectionItem { expr, alias, text })
    }

    fn call_clause(&mut self) -> Result<ProcedureCall> {
        if !self.is_name_at(self.pos) {
            return Err(self.unexpected("a procedure name"));
        }
        let mut name = self.name()?;
        while self.eat_sym(".") {
            name.push('.');
            name.push_str(&self.name()?);
        }
        let args = if self.eat_sym("(") {
            let mut args = Vec::new();
            if !self.eat_sym(")") {
                loop {
                    args.push(self.expr()?);
                    if self.eat_sym(")") {
                        break;
                    }
                    if !self.eat_sym(",") {
                        return Err(self.unexpected("',' or ')'"));
                    }
                }
            }
            Some(args)
        } else {
            None
        };
        let mut call = ProcedureCall {
            name,
            args,
            yields: None,
            yield_all: false,
            where_: None,
        };
        if self.eat_kw("YIELD") {
            if self.eat_sym("*") {
                call.yield_all = true;
            } else {
                let mut ys = Vec::new();
                loop {
                    if !self.is_name_at(self.pos) {
                        return Err(self.unexpected("a procedure result field name or '*'"));
                    }
                    let field = self.name()?;
                    let var = if self.eat_kw("AS") {
                        self.variable()?
                    } else {
                        field.clone()
                    };
                    ys.push((field, var));
                    if !self.eat_sym(",") {
                        break;
                    }
                }
                call.yields = Some(ys);
            }
            if self.eat_kw("WHERE") {
                call.where_ = Some(self.expr()?);
            }
        }
        Ok(call)
    }

    fn foreach_clause(&mut self) -> Result<Clause> {
        self.expect_sym("(")?;
        let var = self.variable()?;
        self.expect_kw("IN")?;
        let list = self.expr()?;
        self.expect_sym("|")?;
        let mut clauses = Vec::new();
        while let Some(c) = self.clause()? {
            clauses.push(c);
        }
        if clauses.is_empty() {
            return Err(self.unexpected("CREATE, MERGE, SET, REMOVE, DELETE or FOREACH"));
        }
        if !self.eat_sym(")") {
            return Err(self.unexpected(&format!("{CLAUSES} or ')'")));
        }
        Ok(Clause::Foreach { var, list, clauses })
    }
}
