//! Schema commands: CREATE / DROP INDEX, CREATE / DROP CONSTRAINT, SHOW INDEXES / CONSTRAINTS.

use super::lexer::Tok;
use super::Parser;
use crate::ast::{Expr, Literal, SchemaCommand, SchemaTarget};
use crate::error::{CypherError, Result};

/// Index kinds Neo4j names in `CREATE <kind> INDEX`; RANGE and BTREE are HopDB's own kind.
const OTHER_INDEX_KINDS: &[&str] = &["TEXT", "POINT", "FULLTEXT", "LOOKUP", "VECTOR"];

/// What `CREATE` / `DROP` administer in Neo4j's system database (one database and the
/// server's own users file here).
const ADMIN_OBJECTS: &[&str] = &["DATABASE", "COMPOSITE", "ALIAS", "USER", "ROLE", "SERVER"];

/// Administration commands by their first word.
const ADMIN_VERBS: &[&str] = &[
    "ALTER",
    "GRANT",
    "DENY",
    "REVOKE",
    "START",
    "STOP",
    "ENABLE",
    "DEALLOCATE",
    "REALLOCATE",
];

/// `SHOW` objects of the system database other than databases.
const ADMIN_SHOW: &[&str] = &[
    "USERS",
    "USER",
    "ROLES",
    "ROLE",
    "PRIVILEGES",
    "PRIVILEGE",
    "ALIASES",
    "ALIAS",
    "SERVERS",
    "SERVER",
    "CURRENT",
    "POPULATED",
    "SUPPORTED",
];

/// Neo4j's answer to an administration command on a server that does not support it
/// (`Neo.ClientError.Statement.UnsupportedAdministrationCommand`): clients such as LightRAG
/// fall back to the default database on this code.
/// The analyzer a full-text index's OPTIONS map names (`indexConfig`.`fulltext.analyzer`).
fn fulltext_analyzer(options: &Expr) -> Result<Option<String>> {
    let bad = |what: String| CypherError::unsupported(format!("Full-text index option {what}"));
    let Expr::Map(entries) = options else {
        return Err(bad("values other than a map literal".into()));
    };
    let mut analyzer = None;
    for (k, v) in entries {
        match (k.as_str(), v) {
            ("indexProvider", Expr::Literal(Literal::String(_))) => {}
            ("indexConfig", Expr::Map(config)) => {
                for (ck, cv) in config {
                    match (ck.as_str(), cv) {
                        ("fulltext.analyzer", Expr::Literal(Literal::String(a))) => {
                            if crate::fulltext::analyzer::Analyzer::named(a).is_none() {
                                return Err(bad(format!(
                                    "`fulltext.analyzer: '{a}'` (HopDB's analyzers: {})",
                                    crate::fulltext::analyzer::NAMES.join(", ")
                                )));
                            }
                            analyzer = Some(a.to_ascii_lowercase());
                        }
                        // Always consistent here: searches read the query's snapshot.
                        ("fulltext.eventually_consistent", Expr::Literal(Literal::Bool(_))) => {}
                        (other, _) => return Err(bad(format!("`{other}`"))),
                    }
                }
            }
            (other, _) => return Err(bad(format!("`{other}`"))),
        }
    }
    Ok(analyzer)
}

fn administration(what: String) -> CypherError {
    CypherError::compile(
        crate::error::ErrorClass::FeatureNotSupported,
        "UnsupportedAdministrationCommand",
        format!(
            "Unsupported administration command: {what}. HopDB serves one database (`neo4j`); its users are \
             managed with `hopdb user`"
        ),
    )
}

impl Parser<'_> {
    /// A schema command, or `None` when the statement is a query (nothing consumed then).
    pub(crate) fn schema_command(&mut self) -> Result<Option<SchemaCommand>> {
        let start = self.position();
        if (self.is_kw("CREATE") || self.is_kw("DROP")) && self.admin_object_at(self.pos + 1) {
            let what = format!("{} {}", self.word_upper(self.pos), self.word_upper(self.pos + 1));
            return Err(administration(what).at(start));
        }
        if self.is_kw("CREATE") {
            let mut i = self.pos + 1;
            if self.is_kw_at(i, "OR") && self.is_kw_at(i + 1, "REPLACE") {
                return Err(CypherError::unsupported("CREATE OR REPLACE").at(start));
            }
            if self.is_kw_at(i, "FULLTEXT") && self.is_kw_at(i + 1, "INDEX") {
                self.pos = i + 2;
                return self.create_fulltext_index().map(Some);
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
            if self.is_kw("DATABASE") || self.is_kw("DATABASES") {
                self.advance();
                // `SHOW DATABASE name`: only `neo4j` exists; the engine answers for it.
                if self.is_name_at(self.pos) && !self.is_kw("YIELD") && !self.is_kw("WHERE") {
                    self.name()?;
                }
                return self.show_end(SchemaCommand::ShowDatabases).map(Some);
            }
            if (self.is_kw("DEFAULT") || self.is_kw("HOME")) && self.is_kw_at(self.pos + 1, "DATABASE") {
                self.pos += 2;
                return self.show_end(SchemaCommand::ShowDatabases).map(Some);
            }
            let kind = OTHER_INDEX_KINDS.iter().find(|k| {
                self.is_kw(k) && (self.is_kw_at(self.pos + 1, "INDEX") || self.is_kw_at(self.pos + 1, "INDEXES"))
            });
            if let Some(kind) = kind {
                self.pos += 2;
                return self
                    .show_end(SchemaCommand::ShowIndexesOfKind(kind.to_string()))
                    .map(Some);
            }
            let _ = self.eat_kw("ALL") || self.eat_kw("RANGE") || self.eat_kw("BTREE");
            let cmd = if self.eat_kw("INDEX") || self.eat_kw("INDEXES") {
                SchemaCommand::ShowIndexes
            } else if self.eat_kw("CONSTRAINT") || self.eat_kw("CONSTRAINTS") {
                SchemaCommand::ShowConstraints
            } else if ADMIN_SHOW.iter().any(|w| self.is_kw(w)) {
                return Err(administration(format!("SHOW {}", self.word_upper(self.pos))).at(start));
            } else if self.is_name_at(self.pos) {
                return Err(CypherError::unsupported(format!("SHOW {}", self.word_upper(self.pos))).at(start));
            } else {
                return Err(self.unexpected("INDEXES or CONSTRAINTS"));
            };
            return self.show_end(cmd).map(Some);
        }
        if ADMIN_VERBS.iter().any(|v| self.is_kw(v)) {
            return Err(administration(self.word_upper(self.pos)).at(start));
        }
        Ok(None)
    }

    /// Whether the word at `i` starts an administration object (`CREATE DATABASE`,
    /// `DROP USER`, `CREATE OR REPLACE DATABASE`, ...).
    fn admin_object_at(&self, i: usize) -> bool {
        let i = if self.is_kw_at(i, "OR") && self.is_kw_at(i + 1, "REPLACE") {
            i + 2
        } else {
            i
        };
        ADMIN_OBJECTS.iter().any(|w| self.is_kw_at(i, w))
    }

    /// The end of a SHOW command (YIELD / WHERE are not supported).
    fn show_end(&mut self, cmd: SchemaCommand) -> Result<SchemaCommand> {
        if self.is_kw("YIELD") || self.is_kw("WHERE") {
            return Err(CypherError::unsupported("SHOW ... YIELD / WHERE").at(self.position()));
        }
        Ok(cmd)
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

    /// After `CREATE FULLTEXT INDEX`: `[name] [IF NOT EXISTS] FOR (n:A|B) ON EACH [n.p, ...]
    /// [OPTIONS {indexConfig: {`fulltext.analyzer`: '...', `fulltext.eventually_consistent`: b}}]`.
    fn create_fulltext_index(&mut self) -> Result<SchemaCommand> {
        let (name, if_not_exists) = self.schema_name_and_if_not_exists()?;
        self.expect_kw("FOR")?;
        let start = self.position();
        if self.is_sym("(") && self.is_sym_at(self.pos + 1, ")") {
            return Err(CypherError::unsupported("Relationship full-text indexes").at(start));
        }
        self.expect_sym("(")?;
        let var = self.variable()?;
        self.expect_sym(":")?;
        let mut labels = vec![self.name()?];
        while self.eat_sym("|") {
            labels.push(self.name()?);
        }
        self.expect_sym(")")?;
        self.expect_kw("ON")?;
        self.expect_kw("EACH")?;
        self.expect_sym("[")?;
        let mut properties = vec![self.schema_property(&var)?];
        while self.eat_sym(",") {
            properties.push(self.schema_property(&var)?);
        }
        self.expect_sym("]")?;
        let analyzer = if self.is_kw("OPTIONS") {
            let at = self.position();
            self.advance();
            let options = self.expr()?;
            fulltext_analyzer(&options).map_err(|e| e.at(at))?
        } else {
            None
        };
        Ok(SchemaCommand::CreateFulltextIndex {
            name,
            if_not_exists,
            labels,
            properties,
            analyzer,
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
