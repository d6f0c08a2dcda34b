//! Schema commands: CREATE / DROP INDEX, CREATE / DROP CONSTRAINT, SHOW INDEXES / CONSTRAINTS.

use super::lexer::Tok;
use super::Parser;
use crate::ast::{SchemaCommand, SchemaTarget};
use crate::error::{CypherError, Result};

/// Index kinds Neo4j names in `CREATE <kind> INDEX`; RANGE and BTREE are HopDB's own kind.
const OTHER_INDEX_KINDS: &[&str] = &["TEXT", "POINT", "FULLTEXT", "LOOKUP", "VECTOR"];

impl Parser<'_> {
    /// A schema command, or `None` when the statement is a query (nothing consumed then).
    pub(crate) fn schema_command(&mut self) -> Result<Option<SchemaCommand>> {
        let start = self.position();
        if self.is_kw("CREATE") {
            let mut i = self.pos + 1;
            if self.is_kw_at(i, "OR") && self.is_kw_at(i + 1, "REPLACE") {
                return Err(CypherError::unsupported("CREATE OR REPLACE").at(start));
            }
            if self.is_kw_at(i, "RANGE") || self.is_kw_at(i, "BTREE") {
                i += 1;
            } else if OTHER_INDEX_KINDS.iter().any(|k| self.is_kw_at(i, k)) && self.is_kw_at(i + 1, "INDEX") {
                return Err(CypherError::unsupported(format!("{} indexes", self.word_upper(i))).at(start));
            }
            if self.is_kw_at(i, "INDEX") {
                self.pos = i + 1;
                return self.create_index().map(Some);
            }
            if self.is_kw_at(i, "CONSTRAINT") {
                self.pos = i + 1;
                return self.create_constraint().map(Some);
            }
            return Ok(None);
        }
        if self.is_kw("DROP") {
            self.advance();
            if self.eat_kw("INDEX") {
                return self.drop_index().map(Some);
            }
            if self.eat_kw("CONSTRAINT") {
                return self.drop_constraint().map(Some);
            }
            return Err(if self.is_name_at(self.pos) {
                CypherError::unsupported(format!("DROP {}", self.word_upper(self.pos))).at(start)
            } else {
                self.unexpected("INDEX or CONSTRAINT")
            });
        }
        if self.is_kw("SHOW") {
            self.advance();
            let _ = self.eat_kw("ALL") || self.eat_kw("RANGE") || self.eat_kw("BTREE");
            let cmd = if self.eat_kw("INDEX") || self.eat_kw("INDEXES") {
                SchemaCommand::ShowIndexes
            } else if self.eat_kw("CONSTRAINT") || self.eat_kw("CONSTRAINTS") {
                SchemaCommand::ShowConstraints
            } else if self.is_name_at(self.pos) {
                return Err(CypherError::unsupported(format!("SHOW {}", self.word_upper(self.pos))).at(start));
            } else {
                return Err(self.unexpected("INDEXES or CONSTRAINTS"));
            };
            if self.is_kw("YIELD") || self.is_kw("WHERE") {
                return Err(CypherError::unsupported("SHOW ... YIELD / WHERE").at(self.position()));
            }
            return Ok(Some(cmd));
        }
        Ok(None)
    }

    fn word_upper(&self, i: usize) -> String {
        match self.tok(i) {
            Tok::Word(w) | Tok::Quoted(w) => w.to_ascii_uppercase(),
            _ => String::new(),
        }
    }

    /// `[name] [IF NOT EXISTS]` before FOR / ON.
    fn schema_name_and_if_not_exists(&mut self) -> Result<(Option<String>, bool)> {
        let if_not = self.is_kw("IF") && self.is_kw_at(self.pos + 1, "NOT");
        let legacy_on = self.is_kw("ON") && matches!(self.peek_n(1), Tok::Sym(":" | "("));
        let name = if self.is_name_at(self.pos) && !if_not && !self.is_kw("FOR") && !legacy_on {
            Some(self.name()?)
        } else {
            None
        };
        let if_not_exists = if self.is_kw("IF") {
            self.advance();
            self.expect_kw("NOT")?;
            self.expect_kw("EXISTS")?;
            true
        } else {
            false
        };
        Ok((name, if_not_exists))
    }

    fn if_exists(&mut self) -> Result<bool> {
        if self.eat_kw("IF") {
            self.expect_kw("EXISTS")?;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    /// `(n:Label)`: the variable and the label.
    fn schema_node(&mut self) -> Result<(String, String)> {
        let start = self.position();
        if self.is_sym("(") && (self.is_sym_at(self.pos + 1, ")") || self.is_sym_at(self.pos + 1, "-")) {
            return Err(CypherError::unsupported("Relationship property indexes and constraints").at(start));
        }
        self.expect_sym("(")?;
        let var = self.variable()?;
        self.expect_sym(":")?;
        let label = self.name()?;
        if self.is_sym(":") || self.is_sym("|") {
            return Err(CypherError::unsupported("Indexes on several labels").at(self.position()));
        }
        self.expect_sym(")")?;
        if self.is_sym("-") || self.is_sym("<") {
            return Err(CypherError::unsupported("Relationship property indexes and constraints").at(start));
        }
        Ok((var, label))
    }

    /// `var.prop`, checking the variable.
    fn schema_property(&mut self, var: &str) -> Result<String> {
        let at = self.offset();
        let v = self.variable()?;
        if v != var {
            return Err(self.syntax_at(
                "UndefinedVariable",
                format!("Variable `{v}` not defined (the schema command names `{var}`)"),
                at,
            ));
        }
        self.expect_sym(".")?;
        self.name()
    }

    /// After `CREATE INDEX`.
    fn create_index(&mut self) -> Result<SchemaCommand> {
        let (name, if_not_exists) = self.schema_name_and_if_not_exists()?;
        if self.eat_kw("ON") {
            // Legacy `CREATE INDEX ON :Label(prop, ...)`.
            self.expect_sym(":")?;
            let label = self.name()?;
            self.expect_sym("(")?;
            let mut properties = vec![self.name()?];
            while self.eat_sym(",") {
                properties.push(self.name()?);
            }
            self.expect_sym(")")?;
            return Ok(SchemaCommand::CreateIndex {
                name,
                if_not_exists,
                label,
                properties,
            });
        }
        self.expect_kw("FOR")?;
        let (var, label) = self.schema_node()?;
        self.expect_kw("ON")?;
        if self.is_kw("EACH") {
            return Err(CypherError::unsupported("Full-text indexes").at(self.position()));
        }
        self.expect_sym("(")?;
        let mut properties = vec![self.schema_property(&var)?];
        while self.eat_sym(",") {
            properties.push(self.schema_property(&var)?);
        }
        self.expect_sym(")")?;
        if self.is_kw("OPTIONS") {
            return Err(CypherError::unsupported("Index OPTIONS").at(self.position()));
        }
        Ok(SchemaCommand::CreateIndex {
            name,
            if_not_exists,
            label,
            properties,
        })
    }

    /// After `DROP INDEX`.
    fn drop_index(&mut self) -> Result<SchemaCommand> {
        if self.is_kw("ON") && self.is_sym_at(self.pos + 1, ":") {
            self.advance();
            self.advance();
            let label = self.name()?;
            self.expect_sym("(")?;
            let prop = self.name()?;
            if self.is_sym(",") {
                return Err(CypherError::unsupported("Composite indexes").at(self.position()));
            }
            self.expect_sym(")")?;
            return Ok(SchemaCommand::DropIndex {
                target: SchemaTarget::LabelProperty(label, prop),
                if_exists: false,
            });
        }
        if !self.is_name_at(self.pos) {
            return Err(self.unexpected("an index name or ON"));
        }
        let name = self.name()?;
        let if_exists = self.if_exists()?;
        Ok(SchemaCommand::DropIndex {
            target: SchemaTarget::Name(name),
            if_exists,
        })
    }

    /// `n.p IS UNIQUE` (or `(n.p) IS UNIQUE`) after REQUIRE / ASSERT.
    fn unique_requirement(&mut self, var: &str) -> Result<String> {
        let start = self.position();
        let paren = self.eat_sym("(");
        let prop = self.schema_property(var)?;
        if paren {
            if self.is_sym(",") {
                return Err(CypherError::unsupported("Composite constraints").at(start));
            }
            self.expect_sym(")")?;
        }
        if !self.eat_kw("IS") {
            return Err(self.unexpected("IS"));
        }
        if self.eat_kw("UNIQUE") {
            if self.is_kw("OPTIONS") {
                return Err(CypherError::unsupported("Constraint OPTIONS").at(self.position()));
            }
            return Ok(prop);
        }
        Err(CypherError::unsupported("Constraints other than uniqueness").at(start))
    }

    /// After `CREATE CONSTRAINT`.
    fn create_constraint(&mut self) -> Result<SchemaCommand> {
        let (name, if_not_exists) = self.schema_name_and_if_not_exists()?;
        let legacy = if self.eat_kw("ON") {
            true
        } else if self.eat_kw("FOR") {
            false
        } else {
            return Err(self.unexpected("FOR or ON"));
        };
        let (var, label) = self.schema_node()?;
        if legacy {
            self.expect_kw("ASSERT")?;
        } else if !self.eat_kw("REQUIRE") {
            return Err(self.unexpected("REQUIRE"));
        }
        let property = self.unique_requirement(&var)?;
        Ok(SchemaCommand::CreateUniqueConstraint {
            name,
            if_not_exists,
            label,
            property,
        })
    }

    /// After `DROP CONSTRAINT`.
    fn drop_constraint(&mut self) -> Result<SchemaCommand> {
        if self.is_kw("ON") && self.is_sym_at(self.pos + 1, "(") {
            self.advance();
            let (var, label) = self.schema_node()?;
            self.expect_kw("ASSERT")?;
            let prop = self.unique_requirement(&var)?;
            return Ok(SchemaCommand::DropConstraint {
                target: SchemaTarget::LabelProperty(label, prop),
                if_exists: false,
            });
        }
        if !self.is_name_at(self.pos) {
            return Err(self.unexpected("a constraint name or ON"));
        }
        let name = self.name()?;
        let if_exists = self.if_exists()?;
        Ok(SchemaCommand::DropConstraint {
            target: SchemaTarget::Name(name),
            if_exists,
        })
    }
}
