//! The syntax tree the parser produces and the planner consumes. Names are kept as written
//! (labels, types, properties and variables are case-sensitive; function names are not and
//! are compared lowercased by the executor).

/// One statement: a query, a schema command, or either under EXPLAIN / PROFILE.
#[derive(Debug, Clone, PartialEq)]
pub enum Statement {
    /// A read or write query.
    Query(Query),
    /// CREATE / DROP / SHOW of indexes and constraints.
    Schema(SchemaCommand),
    /// `EXPLAIN <statement>`: plan only, nothing runs.
    Explain(Box<Statement>),
    /// `PROFILE <statement>`: run and report rows and time per operator.
    Profile(Box<Statement>),
}

/// Single queries joined by UNION / UNION ALL.
#[derive(Debug, Clone, PartialEq)]
pub struct Query {
    /// The first single query.
    pub first: SingleQuery,
    /// Each following one, with `true` for UNION ALL and `false` for UNION.
    pub unions: Vec<(bool, SingleQuery)>,
}

/// A sequence of clauses.
#[derive(Debug, Clone, PartialEq)]
pub struct SingleQuery {
    /// The clauses in order.
    pub clauses: Vec<Clause>,
}

/// A clause.
#[derive(Debug, Clone, PartialEq)]
pub enum Clause {
    /// `[OPTIONAL] MATCH pattern [WHERE expr]`.
    Match {
        /// OPTIONAL MATCH.
        optional: bool,
        /// Comma-separated pattern parts.
        pattern: Vec<PatternPart>,
        /// The WHERE predicate.
        where_: Option<Expr>,
    },
    /// `UNWIND expr AS var`.
    Unwind {
        /// The list.
        expr: Expr,
        /// The variable each element is bound to.
        var: String,
    },
    /// `WITH ...`.
    With(Projection),
    /// `RETURN ...`.
    Return(Projection),
    /// `CREATE pattern`.
    Create(Vec<PatternPart>),
    /// `MERGE part [ON CREATE SET ...] [ON MATCH SET ...]`.
    Merge {
        /// The single pattern part merged.
        part: PatternPart,
        /// Items of all ON CREATE SET actions, in order.
        on_create: Vec<SetItem>,
        /// Items of all ON MATCH SET actions, in order.
        on_match: Vec<SetItem>,
    },
    /// `SET item, ...`.
    Set(Vec<SetItem>),
    /// `REMOVE item, ...`.
    Remove(Vec<RemoveItem>),
    /// `[DETACH] DELETE expr, ...`.
    Delete {
        /// DETACH DELETE.
        detach: bool,
        /// What to delete.
        exprs: Vec<Expr>,
    },
    /// `CALL proc(args) [YIELD ...]`, in-query or standalone.
    Call(ProcedureCall),
    /// `FOREACH (var IN list | clauses)`.
    Foreach {
        /// The loop variable.
        var: String,
        /// The list iterated.
        list: Expr,
        /// Update clauses run per element.
        clauses: Vec<Clause>,
    },
}

/// A procedure call.
#[derive(Debug, Clone, PartialEq)]
pub struct ProcedureCall {
    /// Dotted name as written, e.g. `db.labels`.
    pub name: String,
    /// Arguments; `None` when written without parentheses (standalone call taking its
    /// arguments from same-named parameters).
    pub args: Option<Vec<Expr>>,
    /// `YIELD a, b AS c`: (result field, variable). `None`: no YIELD clause.
    pub yields: Option<Vec<(String, String)>>,
    /// `YIELD *`.
    pub yield_all: bool,
    /// `YIELD ... WHERE expr`.
    pub where_: Option<Expr>,
}

/// The body of WITH and RETURN.
#[derive(Debug, Clone, PartialEq)]
pub struct Projection {
    /// DISTINCT.
    pub distinct: bool,
    /// `*` (all variables in scope), before any listed items.
    pub star: bool,
    /// Listed items.
    pub items: Vec<ProjectionItem>,
    /// ORDER BY items.
    pub order_by: Vec<SortItem>,
    /// SKIP expression.
    pub skip: Option<Expr>,
    /// LIMIT expression.
    pub limit: Option<Expr>,
    /// WITH ... WHERE (always `None` for RETURN).
    pub where_: Option<Expr>,
}

/// `expr [AS alias]`.
#[derive(Debug, Clone, PartialEq)]
pub struct ProjectionItem {
    /// The expression.
    pub expr: Expr,
    /// The alias, if given.
    pub alias: Option<String>,
    /// The expression's source text exactly as written (trimmed): the column name when no
    /// alias is given, as Neo4j names it.
    pub text: String,
}

impl ProjectionItem {
    /// The column name: the alias, or the expression as written.
    pub fn name(&self) -> &str {
        self.alias.as_deref().unwrap_or(&self.text)
    }
}

/// `expr [ASC|DESC]`.
#[derive(Debug, Clone, PartialEq)]
pub struct SortItem {
    /// The sort key.
    pub expr: Expr,
    /// DESC / DESCENDING.
    pub descending: bool,
}

/// A SET item.
#[derive(Debug, Clone, PartialEq)]
pub enum SetItem {
    /// `target.prop = value` (target may be any expression yielding a node or relationship,
    /// e.g. a variable or a parenthesised expression).
    Property {
        /// The entity.
        target: Expr,
        /// The property name.
        key: String,
        /// The new value (null removes the property).
        value: Expr,
    },
    /// `var = map` (replace all properties) or `var += map` (merge).
    Properties {
        /// The entity's variable.
        var: String,
        /// The map (or a node/relationship whose properties are copied).
        value: Expr,
        /// `+=`.
        merge: bool,
    },
    /// `var:Label:Other`, `var:$(expr)`.
    Labels {
        /// The node's variable.
        var: String,
        /// Labels to add.
        labels: Vec<String>,
        /// Dynamic labels (Neo4j 5.26's `:$(expr)`): each a string or a list of strings.
        dynamic: Vec<Expr>,
    },
}

/// A REMOVE item.
#[derive(Debug, Clone, PartialEq)]
pub enum RemoveItem {
    /// `target.prop`.
    Property {
        /// The entity.
        target: Expr,
        /// The property name.
        key: String,
    },
    /// `var:Label:Other`, `var:$(expr)`.
    Labels {
        /// The node's variable.
        var: String,
        /// Labels to remove.
        labels: Vec<String>,
        /// Dynamic labels: each a string or a list of strings.
        dynamic: Vec<Expr>,
    },
}

/// A comma-separated part of a pattern: `[p =] element`, possibly under shortestPath.
#[derive(Debug, Clone, PartialEq)]
pub struct PatternPart {
    /// The path variable, `p = ...`.
    pub var: Option<String>,
    /// Plain, shortestPath or allShortestPaths.
    pub kind: PathKind,
    /// The chain of nodes and relationships.
    pub element: PatternElement,
}

/// How a pattern part is matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathKind {
    /// Every match.
    Plain,
    /// `shortestPath(...)`: one shortest match per pair of end nodes.
    Shortest,
    /// `allShortestPaths(...)`: every shortest match per pair.
    AllShortest,
}

/// `(a)-[r]->(b)<-[s]-(c)...`.
#[derive(Debug, Clone, PartialEq)]
pub struct PatternElement {
    /// The first node.
    pub start: NodePattern,
    /// Each relationship with the node after it.
    pub chain: Vec<(RelPattern, NodePattern)>,
}

/// `(var:Label:Other {props})`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NodePattern {
    /// The variable, if named.
    pub var: Option<String>,
    /// Labels, all required.
    pub labels: Vec<String>,
    /// A map literal or a parameter.
    pub props: Option<Box<Expr>>,
}

/// Direction of a relationship pattern, as written left to right.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RelDirection {
    /// `-[]->`.
    Right,
    /// `<-[]-`.
    Left,
    /// `-[]-` (or `<-[]->`): either direction.
    Both,
}

/// `-[var:T1|T2*1..3 {props}]->`.
#[derive(Debug, Clone, PartialEq)]
pub struct RelPattern {
    /// The variable, if named.
    pub var: Option<String>,
    /// Alternative types; empty means any type.
    pub types: Vec<String>,
    /// Direction.
    pub direction: RelDirection,
    /// Variable length: `None` for a single hop; `Some((min, max))` for `*`, with `None`
    /// bounds where omitted (`*` is `(None, None)`, `*2` is `(Some(2), Some(2))`).
    pub length: Option<(Option<u64>, Option<u64>)>,
    /// A map literal or a parameter.
    pub props: Option<Box<Expr>>,
}

/// A literal value.
#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer (decimal, hex `0x`, octal `0o`).
    Int(i64),
    /// A float.
    Float(f64),
    /// A string, escapes resolved.
    String(String),
}

/// Unary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOp {
    /// `NOT`.
    Not,
    /// `-`.
    Neg,
    /// `+`.
    Pos,
}

/// Binary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOp {
    /// `OR`.
    Or,
    /// `XOR`.
    Xor,
    /// `AND`.
    And,
    /// `=`.
    Eq,
    /// `<>`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
    /// `/`.
    Div,
    /// `%`.
    Mod,
    /// `^`.
    Pow,
    /// `IN`.
    In,
    /// `STARTS WITH`.
    StartsWith,
    /// `ENDS WITH`.
    EndsWith,
    /// `CONTAINS`.
    Contains,
    /// `=~`.
    RegexMatch,
}

/// List predicate quantifiers: `all(x IN list WHERE pred)` and friends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantifier {
    /// `all`.
    All,
    /// `any`.
    Any,
    /// `none`.
    None,
    /// `single`.
    Single,
}

/// An item of a map projection `n { .name, .*, key: expr, var }`.
#[derive(Debug, Clone, PartialEq)]
pub enum MapProjectionItem {
    /// `.name`.
    Property(String),
    /// `.*`.
    AllProperties,
    /// `key: expr`.
    Literal(String, Expr),
    /// `var` (the variable's value under its own name).
    Variable(String),
}

/// The body of `EXISTS { ... }` and `COUNT { ... }`.
#[derive(Debug, Clone, PartialEq)]
pub enum Subquery {
    /// A pattern with an optional WHERE.
    Pattern {
        /// The pattern parts.
        pattern: Vec<PatternPart>,
        /// The predicate.
        where_: Option<Box<Expr>>,
    },
    /// A full query (MATCH ... RETURN ...).
    Query(Box<Query>),
}

/// An expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// A literal.
    Literal(Literal),
    /// `$name` (or `$0`).
    Parameter(String),
    /// A variable.
    Variable(String),
    /// `expr.key`.
    Property(Box<Expr>, String),
    /// `[a, b]`.
    List(Vec<Expr>),
    /// `{k: v}`, keys in written order.
    Map(Vec<(String, Expr)>),
    /// `var { ... }`.
    MapProjection {
        /// The variable projected.
        var: String,
        /// The items.
        items: Vec<MapProjectionItem>,
    },
    /// `list[index]` / `map[key]`.
    Index(Box<Expr>, Box<Expr>),
    /// `list[from..to]`.
    Slice(Box<Expr>, Option<Box<Expr>>, Option<Box<Expr>>),
    /// A unary operation.
    Unary(UnaryOp, Box<Expr>),
    /// A binary operation. Chained comparisons `a < b < c` are parsed as
    /// `a < b AND b < c`.
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `expr IS NULL` (false) / `expr IS NOT NULL` (true).
    IsNull(Box<Expr>, bool),
    /// `expr:Label:Other` (label predicate).
    HasLabels(Box<Expr>, Vec<String>),
    /// `name(args)` / `name(DISTINCT args)`; dotted names as written (`date.truncate`).
    Function {
        /// The name as written.
        name: String,
        /// DISTINCT (aggregates).
        distinct: bool,
        /// Arguments.
        args: Vec<Expr>,
    },
    /// `count(*)`.
    CountStar,
    /// `CASE [operand] WHEN .. THEN .. [ELSE ..] END`.
    Case {
        /// The simple form's operand.
        operand: Option<Box<Expr>>,
        /// (when, then) pairs.
        whens: Vec<(Expr, Expr)>,
        /// ELSE.
        else_: Option<Box<Expr>>,
    },
    /// `[x IN list WHERE pred | expr]`.
    ListComprehension {
        /// The element variable.
        var: String,
        /// The list.
        list: Box<Expr>,
        /// WHERE.
        filter: Option<Box<Expr>>,
        /// `| expr`.
        map: Option<Box<Expr>>,
    },
    /// `[p = (a)-->(b) WHERE pred | expr]`.
    PatternComprehension {
        /// The path variable.
        var: Option<String>,
        /// The pattern.
        pattern: PatternElement,
        /// WHERE.
        filter: Option<Box<Expr>>,
        /// The projected expression.
        map: Box<Expr>,
    },
    /// `all/any/none/single(x IN list WHERE pred)`.
    Quantified {
        /// Which quantifier.
        quantifier: Quantifier,
        /// The element variable.
        var: String,
        /// The list.
        list: Box<Expr>,
        /// The predicate (`None` is allowed by the grammar: the element itself is tested).
        filter: Option<Box<Expr>>,
    },
    /// `reduce(acc = init, x IN list | expr)`.
    Reduce {
        /// The accumulator variable.
        acc: String,
        /// Its initial value.
        init: Box<Expr>,
        /// The element variable.
        var: String,
        /// The list.
        list: Box<Expr>,
        /// The step expression.
        expr: Box<Expr>,
    },
    /// A pattern used as an expression: `(a)-->(:B)` in WHERE (true when it matches).
    Pattern(PatternElement),
    /// `EXISTS { ... }`.
    Exists(Box<Subquery>),
    /// `COUNT { ... }`.
    CountSubquery(Box<Subquery>),
}

/// A schema command.
#[derive(Debug, Clone, PartialEq)]
pub enum SchemaCommand {
    /// `CREATE INDEX [name] [IF NOT EXISTS] FOR (n:L) ON (n.p)` or `CREATE INDEX ON :L(p)`.
    CreateIndex {
        /// The index name, if given.
        name: Option<String>,
        /// IF NOT EXISTS.
        if_not_exists: bool,
        /// The label.
        label: String,
        /// The properties (HopDB indexes exactly one).
        properties: Vec<String>,
    },
    /// `CREATE FULLTEXT INDEX [name] [IF NOT EXISTS] FOR (n:A|B) ON EACH [n.p, ...] [OPTIONS
    /// {...}]`.
    CreateFulltextIndex {
        /// The index name, if given.
        name: Option<String>,
        /// IF NOT EXISTS.
        if_not_exists: bool,
        /// The labels (a node with any of them is indexed).
        labels: Vec<String>,
        /// The properties.
        properties: Vec<String>,
        /// `fulltext.analyzer` from OPTIONS (lower case), if given.
        analyzer: Option<String>,
    },
    /// `DROP INDEX name [IF EXISTS]` or `DROP INDEX ON :L(p)`.
    DropIndex {
        /// By name, or by (label, property).
        target: SchemaTarget,
        /// IF EXISTS.
        if_exists: bool,
    },
    /// `CREATE CONSTRAINT [name] [IF NOT EXISTS] FOR (n:L) REQUIRE n.p IS UNIQUE` or
    /// `CREATE CONSTRAINT ON (n:L) ASSERT n.p IS UNIQUE`.
    CreateUniqueConstraint {
        /// The constraint name, if given.
        name: Option<String>,
        /// IF NOT EXISTS.
        if_not_exists: bool,
        /// The label.
        label: String,
        /// The property.
        property: String,
    },
    /// `DROP CONSTRAINT name [IF EXISTS]` or `DROP CONSTRAINT ON (n:L) ASSERT n.p IS UNIQUE`.
    DropConstraint {
        /// By name, or by (label, property).
        target: SchemaTarget,
        /// IF EXISTS.
        if_exists: bool,
    },
    /// `SHOW INDEXES` / `SHOW INDEX` (also `SHOW ALL|RANGE|BTREE INDEXES`).
    ShowIndexes,
    /// `SHOW FULLTEXT|TEXT|POINT|VECTOR|LOOKUP INDEXES`: a kind HopDB does not build, so no rows
    /// (the kind, upper case).
    ShowIndexesOfKind(String),
    /// `SHOW CONSTRAINTS`.
    ShowConstraints,
    /// `SHOW DATABASES`, `SHOW DATABASE name`, `SHOW DEFAULT|HOME DATABASE`: the one database.
    ShowDatabases,
}

impl SchemaCommand {
    /// Whether the command only reads (the SHOW commands).
    pub fn reads_only(&self) -> bool {
        matches!(
            self,
            SchemaCommand::ShowIndexes
                | SchemaCommand::ShowIndexesOfKind(_)
                | SchemaCommand::ShowConstraints
                | SchemaCommand::ShowDatabases
        )
    }
}

/// What a DROP names.
#[derive(Debug, Clone, PartialEq)]
pub enum SchemaTarget {
    /// A name.
    Name(String),
    /// A (label, property) pair.
    LabelProperty(String, String),
}

impl Expr {
    /// Rebuilds the expression with each direct child expression mapped by `f` (subqueries
    /// and patterns are kept as they are).
    pub fn map_children(&self, f: &mut dyn FnMut(&Expr) -> Expr) -> Expr {
        let e = self;
        let b = |x: &Expr, f: &mut dyn FnMut(&Expr) -> Expr| Box::new(f(x));
        match e {
            Expr::Property(x, k) => Expr::Property(b(x, f), k.clone()),
            Expr::List(items) => Expr::List(items.iter().map(&mut *f).collect()),
            Expr::Map(es) => Expr::Map(es.iter().map(|(k, x)| (k.clone(), f(x))).collect()),
            Expr::Index(x, i) => Expr::Index(b(x, f), b(i, f)),
            Expr::Slice(x, s, t) => Expr::Slice(
                b(x, f),
                s.as_ref().map(|y| Box::new(f(y))),
                t.as_ref().map(|y| Box::new(f(y))),
            ),
            Expr::Unary(op, x) => Expr::Unary(*op, b(x, f)),
            Expr::Binary(op, x, y) => Expr::Binary(*op, b(x, f), b(y, f)),
            Expr::IsNull(x, n) => Expr::IsNull(b(x, f), *n),
            Expr::HasLabels(x, l) => Expr::HasLabels(b(x, f), l.clone()),
            Expr::Function { name, distinct, args } => Expr::Function {
                name: name.clone(),
                distinct: *distinct,
                args: args.iter().map(&mut *f).collect(),
            },
            Expr::Case { operand, whens, else_ } => Expr::Case {
                operand: operand.as_ref().map(|y| Box::new(f(y))),
                whens: whens.iter().map(|(w, t)| (f(w), f(t))).collect(),
                else_: else_.as_ref().map(|y| Box::new(f(y))),
            },
            Expr::ListComprehension { var, list, filter, map } => Expr::ListComprehension {
                var: var.clone(),
                list: b(list, f),
                filter: filter.as_ref().map(|y| Box::new(f(y))),
                map: map.as_ref().map(|y| Box::new(f(y))),
            },
            Expr::Quantified {
                quantifier,
                var,
                list,
                filter,
            } => Expr::Quantified {
                quantifier: *quantifier,
                var: var.clone(),
                list: b(list, f),
                filter: filter.as_ref().map(|y| Box::new(f(y))),
            },
            Expr::Reduce {
                acc,
                init,
                var,
                list,
                expr,
            } => Expr::Reduce {
                acc: acc.clone(),
                init: b(init, f),
                var: var.clone(),
                list: b(list, f),
                expr: b(expr, f),
            },
            other => other.clone(),
        }
    }

    /// Replaces every sub-expression equal to a projected item's expression with a
    /// reference to that item's column (ORDER BY after WITH / RETURN reads projected values).
    pub fn substitute_items(&self, items: &[ProjectionItem]) -> Expr {
        for it in items {
            if it.expr == *self {
                return Expr::Variable(it.name().to_string());
            }
        }
        self.map_children(&mut |c| c.substitute_items(items))
    }

    /// Whether the expression reads no variable but those `known` accepts (a conservative
    /// whitelist of forms: anything else, a subquery or a comprehension, says no).
    pub fn reads_only(&self, known: &dyn Fn(&str) -> bool) -> bool {
        let all = |xs: &mut dyn Iterator<Item = &Expr>| {
            let mut ok = true;
            for x in xs {
                ok = ok && x.reads_only(known);
            }
            ok
        };
        match self {
            Expr::Literal(_) | Expr::Parameter(_) | Expr::CountStar => true,
            Expr::Variable(v) => known(v),
            Expr::Property(x, _) | Expr::Unary(_, x) | Expr::IsNull(x, _) | Expr::HasLabels(x, _) => {
                x.reads_only(known)
            }
            Expr::Binary(_, a, b) | Expr::Index(a, b) => a.reads_only(known) && b.reads_only(known),
            Expr::List(xs) => all(&mut xs.iter()),
            Expr::Map(es) => all(&mut es.iter().map(|(_, x)| x)),
            Expr::Function { args, .. } => all(&mut args.iter()),
            Expr::Slice(a, b, c) => a.reads_only(known) && all(&mut b.iter().chain(c.iter()).map(|x| &**x)),
            Expr::Case { operand, whens, else_ } => {
                all(&mut operand.iter().chain(else_.iter()).map(|x| &**x))
                    && whens.iter().all(|(w, t)| w.reads_only(known) && t.reads_only(known))
            }
            _ => false,
        }
    }
}
