//! Parser tests: a table of queries that must parse, the syntax tree of representative ones,
//! error positions, deep nesting, and a bounded mutation fuzz that must never panic.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use hopdb_cypher::ast::*;
use hopdb_cypher::parser::parse;
use hopdb_cypher::{CypherError, ErrorClass};

const VALID: &[&str] = &[
    // LightRAG-style
    "MERGE (n:base {entity_id: $entity_id}) SET n += $properties SET n:`Person`",
    "MATCH (n:base) WHERE toLower(n.entity_id) CONTAINS toLower($q) RETURN n ORDER BY n.entity_id LIMIT $limit",
    "MATCH (a {entity_id: $s})-[r]-(b {entity_id: $t}) RETURN properties(r) AS edge_properties",
    "UNWIND $nodes AS node MATCH (n:base {entity_id: node.id}) OPTIONAL MATCH (n)-[r]-() RETURN node.id AS id, count(r) AS degree",
    "MATCH (n) RETURN n, count { (n)--() } AS degree",
    "MATCH (n)-[r]->() RETURN collect(DISTINCT r)",
    "MATCH (n:base {entity_id: $id}) RETURN n{.*, degree: 3}",
    "MATCH (n:Person) RETURN n{.name, .age, friends: [(n)-[:KNOWS]->(f) | f.name], x}",
    "MATCH (source:base {entity_id: $source_entity_id}) MATCH (target:base {entity_id: $target_entity_id}) \
     MERGE (source)-[r:DIRECTED]-(target) SET r += $properties RETURN r, source, target",
    "MATCH (n:base {entity_id: $entity_id}) DETACH DELETE n",
    "MATCH (n:base) WHERE n.entity_id IS NOT NULL RETURN DISTINCT n.entity_id AS label ORDER BY label",
    "MATCH (n) WHERE n.entity_id IN $ids RETURN n.entity_id AS id, n",
    "CALL db.labels() YIELD label RETURN label",
    "CALL db.labels",
    "CALL db.index.fulltext.queryNodes('idx', $q) YIELD node, score WHERE score > 0.5 RETURN node",
    "CALL dbms.components() YIELD *",
    // clauses
    "MATCH (n) RETURN n;",
    "match (n) return n",
    "OPTIONAL MATCH (a)-->(b) WHERE a.x = 1 RETURN a, b",
    "MATCH (a), (b) WITH a, b WHERE a <> b RETURN a",
    "MATCH (n) WITH DISTINCT n.x AS x ORDER BY x DESC SKIP 1 LIMIT 2 WHERE x > 0 RETURN *",
    "MATCH (n) WITH *, n.x AS y RETURN *",
    "UNWIND [1, 2, 3] AS x RETURN x",
    "CREATE (a:A:B {x: 1})-[:T {w: 2.5}]->(b), (c)",
    "MERGE (a:A {id: 1}) ON CREATE SET a.created = timestamp() ON MATCH SET a.seen = true, a.n = a.n + 1 ON CREATE SET a:New",
    "MATCH (n) SET n.x = 1, n = {a: 1}, n += {b: 2}, n:L:M, (n).y = 2",
    "MATCH (n) REMOVE n.x, n:L:M",
    "MATCH (n) DELETE n",
    "MATCH p = (a)-[*]->(b) DELETE p",
    "FOREACH (x IN [1, 2] | CREATE (:N {v: x}) SET x.y = 1)",
    "MATCH p = (a)-[:T*1..3]->(b) FOREACH (n IN nodes(p) | SET n.marked = true)",
    "RETURN 1 AS x UNION RETURN 2 AS x",
    "RETURN 1 AS x UNION ALL RETURN 2 AS x UNION RETURN 3 AS x",
    "EXPLAIN MATCH (n) RETURN n",
    "PROFILE MATCH (n) RETURN n",
    "CALL proc.name($a, 1) YIELD a, b AS c WHERE c > 1 RETURN a, c",
    // patterns
    "MATCH (n $props) RETURN n",
    "MATCH ()-[r:T1|T2|:T3 *1..3 {k: 1}]->() RETURN r",
    "MATCH (a)<-[r]-(b) RETURN r",
    "MATCH (a)<-->(b) RETURN a",
    "MATCH (a)-[*]-(b) RETURN a",
    "MATCH (a)-[*2]-(b) RETURN a",
    "MATCH (a)-[*..3]-(b) RETURN a",
    "MATCH (a)-[*2..]-(b) RETURN a",
    "MATCH (a)-[r*]-(b) RETURN a",
    "MATCH (a)-[r $p]-(b) RETURN a",
    "MATCH p = shortestPath((a)-[*]-(b)) RETURN p",
    "MATCH p = allShortestPaths((a)-[:T*..5]->(b)) RETURN p",
    "MATCH (a)-->(b)<--(c), (d)--(e) RETURN a",
    "MATCH (`weird name`:`Label With Space`) RETURN `weird name`",
    // expressions
    "RETURN 1 + 2 * 3 - 4 / 5 % 6 ^ 7",
    "RETURN -9223372036854775808",
    "RETURN 9223372036854775807",
    "RETURN 0x7FFFFFFFFFFFFFFF, -0x8000000000000000, 0o17, -0o1000000000000000000000",
    "RETURN 1e9, 1.5E-3, .5, 3.14, 1e+2",
    "RETURN 'it\\'s', \"say \\\"hi\\\"\", '\\u00e9\\n\\t\\\\', '\\U0001F600'",
    "RETURN $param, $0, $`odd name`",
    "RETURN a < b <= c",
    "RETURN NOT a = b AND c OR d XOR e",
    "RETURN n.name STARTS WITH 'A' AND n.name ENDS WITH 'z' OR n.name CONTAINS 'x' OR n.name =~ '.*'",
    "RETURN x IS NULL, x IS NOT NULL",
    "RETURN [1, 2, 3][0], [1, 2, 3][1..2], [1, 2][..1], [1, 2][1..]",
    "MATCH (n) WHERE n:Person:Admin RETURN n",
    "RETURN count(*), count( * ), count(DISTINCT x)",
    "RETURN date.truncate('month', date()), datetime({year: 2020})",
    "RETURN CASE x WHEN 1 THEN 'a' WHEN 2 THEN 'b' ELSE 'c' END",
    "RETURN CASE WHEN x > 1 THEN 'a' END",
    "RETURN [], [1, [2, 3]], {}, {a: 1, `b c`: 2, match: 3, RETURN: 4}",
    "RETURN [x IN range(1, 10) WHERE x % 2 = 0 | x * x], [x IN l], [x IN l | x], [x IN l WHERE x]",
    "MATCH (a) RETURN [p = (a)-->(b) WHERE b.x > 1 | length(p)]",
    "RETURN all(x IN l WHERE x > 0), any(x IN l WHERE x), none(x IN l WHERE x), single(x IN l WHERE x)",
    "RETURN reduce(acc = 0, x IN [1, 2, 3] | acc + x)",
    "MATCH (n) WHERE (n)-[:T]->(:B) AND NOT (n)<--() RETURN n",
    "MATCH (n) WHERE exists((n)-->()) RETURN n",
    "MATCH (n) WHERE exists(n.prop) RETURN n",
    "MATCH (n) WHERE EXISTS { (n)-->(m) WHERE m.x = 1 } RETURN n",
    "MATCH (n) WHERE EXISTS { MATCH (n)-->(m) RETURN m } RETURN n",
    "MATCH (n) WHERE COUNT { MATCH (n)-->(m) WHERE m.y RETURN m } > 2 RETURN n",
    "MATCH (n) RETURN COUNT { (n)-->() }",
    "RETURN ((1 + 2)) * (3)",
    "RETURN -x, +x, - -x, -(-x)",
    "RETURN 2 ^ 3 ^ 2",
    "RETURN {a: 1}.a, [1][0], (n).x",
    "MATCH (n) RETURN n.x AS `the x`, n.y AS y ORDER BY n.x ASC, y DESCENDING",
    "WITH 1 AS x RETURN x // comment\n",
    "/* block\ncomment */ RETURN 1",
    "RETURN 1 /* inline */ + 2",
    "MATCH (n) RETURN shortestPath((n)-[*]->(m))",
    "RETURN size([1,2]) > 1 = true",
    "RETURN 'a' + 'b' IN ['ab']",
    "RETURN n.name =~ 'A.*' AND x IN [1]",
    "MATCH (a:A) RETURN a.list[0].x[1..2]",
    "RETURN 1.0e10, 0.0, -0.0, -1.5",
    "RETURN [x IN [1,2] | [y IN [x] | y]]",
    "MATCH (n) RETURN n:A AS isA",
    "RETURN {a: {b: {c: [1, {d: 2}]}}}",
    "UNWIND [[1,2],[3]] AS l UNWIND l AS x RETURN x",
    "MATCH (n) WITH n, count(*) AS c WHERE c > 1 RETURN n",
    "RETURN coalesce(null, 1), toInteger('3'), `toUpper`('x')",
    "MATCH (n) RETURN n ORDER BY n.x SKIP $s LIMIT $l",
    "MATCH (n) RETURN n OFFSET 2",
    "CREATE (n {list: [1, 2], map: {x: 'y'}, neg: -1})",
    "MATCH (n)-[r]->(m) WITH n, type(r) AS t RETURN n, t",
    "MATCH (n) WITH n LIMIT 1 RETURN n",
    "RETURN 1 = 1 = true",
    "RETURN NOT NOT true",
    "MATCH (n) RETURN count {(n)-->()}, exists {(n)-->()}",
    "RETURN `a``b`",
    "MATCH (n) RETURN n.`weird key`",
    "MATCH (a) MERGE (a)-[:T]->(b:B {x: 1}) RETURN b",
    "MERGE p = (a)-[:T]->(b) RETURN p",
    "RETURN 1 AS a, 2 AS b;",
    "WITH 1 AS end, 2 AS desc, 3 AS all, 4 AS exists RETURN end, desc, all, exists ORDER BY desc DESC",
    "RETURN CASE WHEN end THEN end ELSE end END",
    // schema
    "CREATE INDEX FOR (n:Person) ON (n.name)",
    "CREATE INDEX person_name IF NOT EXISTS FOR (n:Person) ON (n.name, n.age)",
    "CREATE INDEX IF NOT EXISTS FOR (n:Person) ON (n.name)",
    "CREATE RANGE INDEX idx FOR (n:Person) ON (n.name)",
    "CREATE INDEX ON :Person(name)",
    "DROP INDEX person_name",
    "DROP INDEX person_name IF EXISTS",
    "DROP INDEX ON :Person(name)",
    "CREATE CONSTRAINT FOR (n:Person) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT uniq IF NOT EXISTS FOR (n:Person) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT ON (n:Person) ASSERT n.id IS UNIQUE",
    "DROP CONSTRAINT uniq",
    "DROP CONSTRAINT uniq IF EXISTS",
    "DROP CONSTRAINT ON (n:Person) ASSERT n.id IS UNIQUE",
    "SHOW INDEXES",
    "SHOW INDEX",
    "SHOW CONSTRAINTS",
    "show constraint;",
];

fn ok(q: &str) -> Statement {
    match parse(q) {
        Ok(s) => s,
        Err(e) => panic!("failed to parse {q:?}: {e}"),
    }
}

fn err(q: &str) -> CypherError {
    match parse(q) {
        Ok(s) => panic!("expected an error for {q:?}, got {s:?}"),
        Err(e) => e,
    }
}

fn single(q: &str) -> Vec<Clause> {
    match ok(q) {
        Statement::Query(Query { first, unions }) => {
            assert!(unions.is_empty());
            first.clauses
        }
        other => panic!("not a query: {other:?}"),
    }
}

fn ret_items(q: &str) -> Vec<ProjectionItem> {
    match single(q).pop() {
        Some(Clause::Return(p)) => p.items,
        other => panic!("last clause is not RETURN: {other:?}"),
    }
}

fn ret_expr(q: &str) -> Expr {
    ret_items(q).remove(0).expr
}

fn var(n: &str) -> Expr {
    Expr::Variable(n.into())
}

fn int(i: i64) -> Expr {
    Expr::Literal(Literal::Int(i))
}

fn b(op: BinaryOp, l: Expr, r: Expr) -> Expr {
    Expr::Binary(op, Box::new(l), Box::new(r))
}

fn prop(e: Expr, k: &str) -> Expr {
    Expr::Property(Box::new(e), k.into())
}

#[test]
fn valid_queries_parse() {
    let mut failures = Vec::new();
    for q in VALID {
        if let Err(e) = parse(q) {
            failures.push(format!("{q}\n    {e}"));
        }
    }
    assert!(failures.is_empty(), "failed to parse:\n{}", failures.join("\n"));
}

#[test]
fn column_text_is_source_slice() {
    let items = ret_items("MATCH (n) RETURN n.name, count( * ) ,  n.x   +1 AS y, `n` ");
    let texts: Vec<_> = items.iter().map(|i| i.text.as_str()).collect();
    assert_eq!(texts, ["n.name", "count( * )", "n.x   +1", "`n`"]);
    assert_eq!(items[2].name(), "y");
    assert_eq!(items[0].name(), "n.name");
    assert_eq!(items[1].expr, Expr::CountStar);
}

#[test]
fn precedence() {
    // 1 + 2 * 3
    assert_eq!(
        ret_expr("RETURN 1 + 2 * 3"),
        b(BinaryOp::Add, int(1), b(BinaryOp::Mul, int(2), int(3)))
    );
    // left-assoc power
    assert_eq!(
        ret_expr("RETURN 2 ^ 3 ^ 2"),
        b(BinaryOp::Pow, b(BinaryOp::Pow, int(2), int(3)), int(2))
    );
    // unary minus binds tighter than ^
    assert_eq!(
        ret_expr("RETURN -x ^ 2"),
        b(BinaryOp::Pow, Expr::Unary(UnaryOp::Neg, Box::new(var("x"))), int(2))
    );
    // NOT below comparison
    assert_eq!(
        ret_expr("RETURN NOT a = b"),
        Expr::Unary(UnaryOp::Not, Box::new(b(BinaryOp::Eq, var("a"), var("b"))))
    );
    // OR < XOR < AND
    assert_eq!(
        ret_expr("RETURN a OR b XOR c AND d"),
        b(
            BinaryOp::Or,
            var("a"),
            b(BinaryOp::Xor, var("b"), b(BinaryOp::And, var("c"), var("d")))
        )
    );
    // chained comparison
    assert_eq!(
        ret_expr("RETURN a < b <= c"),
        b(
            BinaryOp::And,
            b(BinaryOp::Lt, var("a"), var("b")),
            b(BinaryOp::Le, var("b"), var("c"))
        )
    );
    // IN binds tighter than comparison, looser than +
    assert_eq!(
        ret_expr("RETURN a + 1 IN l = true"),
        b(
            BinaryOp::Eq,
            b(BinaryOp::In, b(BinaryOp::Add, var("a"), int(1)), var("l")),
            Expr::Literal(Literal::Bool(true))
        )
    );
    assert_eq!(
        ret_expr("RETURN a.x IS NOT NULL AND b STARTS WITH 'x'"),
        b(
            BinaryOp::And,
            Expr::IsNull(Box::new(prop(var("a"), "x")), true),
            b(
                BinaryOp::StartsWith,
                var("b"),
                Expr::Literal(Literal::String("x".into()))
            )
        )
    );
    assert_eq!(
        ret_expr("RETURN n:A:B"),
        Expr::HasLabels(Box::new(var("n")), vec!["A".into(), "B".into()])
    );
    assert_eq!(
        ret_expr("RETURN l[1..]"),
        Expr::Slice(Box::new(var("l")), Some(Box::new(int(1))), None)
    );
    assert_eq!(
        ret_expr("RETURN l[0]"),
        Expr::Index(Box::new(var("l")), Box::new(int(0)))
    );
}

#[test]
fn literals() {
    assert_eq!(ret_expr("RETURN -9223372036854775808"), int(i64::MIN));
    assert_eq!(ret_expr("RETURN -0x8000000000000000"), int(i64::MIN));
    assert_eq!(ret_expr("RETURN 0x1F"), int(31));
    assert_eq!(ret_expr("RETURN 0o17"), int(15));
    assert_eq!(ret_expr("RETURN -5"), int(-5));
    assert_eq!(ret_expr("RETURN .5"), Expr::Literal(Literal::Float(0.5)));
    assert_eq!(ret_expr("RETURN 1e3"), Expr::Literal(Literal::Float(1000.0)));
    assert_eq!(
        ret_expr(r"RETURN '\u00e9\n\'\\x\U0001F600'"),
        Expr::Literal(Literal::String("é\n'\\x😀".into()))
    );
    assert_eq!(ret_expr("RETURN \"a'b\""), Expr::Literal(Literal::String("a'b".into())));
    assert_eq!(ret_expr("RETURN nUlL"), Expr::Literal(Literal::Null));
    assert_eq!(ret_expr("RETURN TRUE"), Expr::Literal(Literal::Bool(true)));
    assert_eq!(ret_expr("RETURN $`a b`"), Expr::Parameter("a b".into()));
    assert_eq!(ret_expr("RETURN $0"), Expr::Parameter("0".into()));
    assert_eq!(ret_expr("RETURN `a``b`"), var("a`b"));
}

#[test]
fn lightrag_merge_shape() {
    let clauses = single("MERGE (n:base {entity_id: $entity_id}) SET n += $properties SET n:`Person`");
    assert_eq!(clauses.len(), 3);
    match &clauses[0] {
        Clause::Merge {
            part,
            on_create,
            on_match,
        } => {
            assert!(on_create.is_empty() && on_match.is_empty());
            assert_eq!(part.var, None);
            assert_eq!(part.kind, PathKind::Plain);
            assert_eq!(
                part.element.start,
                NodePattern {
                    var: Some("n".into()),
                    labels: vec!["base".into()],
                    props: Some(Box::new(Expr::Map(vec![(
                        "entity_id".into(),
                        Expr::Parameter("entity_id".into())
                    )]))),
                }
            );
            assert!(part.element.chain.is_empty());
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        clauses[1],
        Clause::Set(vec![SetItem::Properties {
            var: "n".into(),
            value: Expr::Parameter("properties".into()),
            merge: true
        }])
    );
    assert_eq!(
        clauses[2],
        Clause::Set(vec![SetItem::Labels {
            var: "n".into(),
            labels: vec!["Person".into()],
            dynamic: vec![]
        }])
    );
}

#[test]
fn lightrag_search_shape() {
    let clauses = single(
        "MATCH (n:base) WHERE toLower(n.entity_id) CONTAINS toLower($q) RETURN n ORDER BY n.entity_id LIMIT $limit",
    );
    match &clauses[0] {
        Clause::Match {
            optional: false,
            where_: Some(w),
            ..
        } => assert_eq!(
            *w,
            b(
                BinaryOp::Contains,
                Expr::Function {
                    name: "toLower".into(),
                    distinct: false,
                    args: vec![prop(var("n"), "entity_id")]
                },
                Expr::Function {
                    name: "toLower".into(),
                    distinct: false,
                    args: vec![Expr::Parameter("q".into())]
                }
            )
        ),
        other => panic!("{other:?}"),
    }
    match &clauses[1] {
        Clause::Return(p) => {
            assert_eq!(p.items.len(), 1);
            assert_eq!(p.order_by.len(), 1);
            assert!(!p.order_by[0].descending);
            assert_eq!(p.limit, Some(Expr::Parameter("limit".into())));
            assert_eq!(p.skip, None);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn relationship_patterns() {
    let clauses = single("MATCH (a {entity_id: $s})-[r:T1|T2|:T3 *1..3]-(b)<-[:X*]-(c)-[*..2]->(d)-[*2]-(e) RETURN a");
    let Clause::Match { pattern, .. } = &clauses[0] else {
        panic!()
    };
    let chain = &pattern[0].element.chain;
    assert_eq!(chain.len(), 4);
    let r = &chain[0].0;
    assert_eq!(r.var.as_deref(), Some("r"));
    assert_eq!(r.types, ["T1", "T2", "T3"]);
    assert_eq!(r.direction, RelDirection::Both);
    assert_eq!(r.length, Some((Some(1), Some(3))));
    assert_eq!(chain[1].0.direction, RelDirection::Left);
    assert_eq!(chain[1].0.length, Some((None, None)));
    assert_eq!(chain[2].0.direction, RelDirection::Right);
    assert_eq!(chain[2].0.length, Some((None, Some(2))));
    assert_eq!(chain[3].0.length, Some((Some(2), Some(2))));
    let clauses = single("MATCH (a)<-->(b), p = shortestPath((a)-[*]->(b)) RETURN p");
    let Clause::Match { pattern, .. } = &clauses[0] else {
        panic!()
    };
    assert_eq!(pattern[0].element.chain[0].0.direction, RelDirection::Both);
    assert_eq!(pattern[1].var.as_deref(), Some("p"));
    assert_eq!(pattern[1].kind, PathKind::Shortest);
}

#[test]
fn pattern_expressions_and_subqueries() {
    let e = ret_expr("MATCH (n) RETURN n, count { (n)--() } AS degree");
    assert_eq!(e, var("n"));
    let items = ret_items("MATCH (n) RETURN n, count { (n)--() } AS degree");
    match &items[1].expr {
        Expr::CountSubquery(s) => match &**s {
            Subquery::Pattern { pattern, where_: None } => assert_eq!(pattern[0].element.chain.len(), 1),
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
    assert_eq!(items[1].alias.as_deref(), Some("degree"));
    let clauses = single("MATCH (n) WHERE (n)-[:T]->() AND (n.x) = 1 RETURN n");
    let Clause::Match {
        where_: Some(Expr::Binary(BinaryOp::And, l, r)),
        ..
    } = &clauses[1 - 1]
    else {
        panic!()
    };
    assert!(matches!(&**l, Expr::Pattern(p) if p.chain[0].0.types == ["T"]));
    assert_eq!(**r, b(BinaryOp::Eq, prop(var("n"), "x"), int(1)));
    let e = ret_expr("MATCH (n) RETURN EXISTS { MATCH (n)-->(m) RETURN m }");
    assert!(matches!(e, Expr::Exists(s) if matches!(*s, Subquery::Query(_))));
    let e = ret_expr("MATCH (n) RETURN [p = (n)-->(m) WHERE m.x | m.y]");
    assert!(matches!(e, Expr::PatternComprehension { var: Some(ref v), filter: Some(_), .. } if v == "p"));
    let e = ret_expr("RETURN [x IN l WHERE x > 1]");
    assert!(matches!(
        e,
        Expr::ListComprehension {
            filter: Some(_),
            map: None,
            ..
        }
    ));
    let e = ret_expr("RETURN exists(n.prop)");
    assert_eq!(
        e,
        Expr::Function {
            name: "exists".into(),
            distinct: false,
            args: vec![prop(var("n"), "prop")]
        }
    );
}

#[test]
fn map_projection_and_functions() {
    let e = ret_expr("RETURN n{.a, .*, k: 1, v}");
    assert_eq!(
        e,
        Expr::MapProjection {
            var: "n".into(),
            items: vec![
                MapProjectionItem::Property("a".into()),
                MapProjectionItem::AllProperties,
                MapProjectionItem::Literal("k".into(), int(1)),
                MapProjectionItem::Variable("v".into()),
            ]
        }
    );
    assert_eq!(
        ret_expr("RETURN collect(DISTINCT r)"),
        Expr::Function {
            name: "collect".into(),
            distinct: true,
            args: vec![var("r")]
        }
    );
    assert!(
        matches!(ret_expr("RETURN date.truncate('day', d)"), Expr::Function { name, .. } if name == "date.truncate")
    );
    assert!(matches!(
        ret_expr("RETURN reduce(s = 0, x IN l | s + x)"),
        Expr::Reduce { ref acc, ref var, .. } if acc == "s" && var == "x"
    ));
    assert!(matches!(
        ret_expr("RETURN none(x IN l WHERE x)"),
        Expr::Quantified {
            quantifier: Quantifier::None,
            ..
        }
    ));
    assert!(
        matches!(ret_expr("RETURN CASE WHEN a THEN 1 ELSE 2 END"), Expr::Case { operand: None, ref whens, else_: Some(_) } if whens.len() == 1)
    );
    assert!(matches!(
        ret_expr("RETURN CASE a WHEN 1 THEN 2 END"),
        Expr::Case {
            operand: Some(_),
            else_: None,
            ..
        }
    ));
}

#[test]
fn clause_shapes() {
    let c = single(
        "MERGE (a:A) ON CREATE SET a.x = 1 ON MATCH SET a.y = 2 ON CREATE SET a:B, (a).z = 3 \
         WITH DISTINCT a ORDER BY a.x DESC SKIP 1 LIMIT 2 WHERE a.x > 0 \
         REMOVE a.x, a:B DETACH DELETE a",
    );
    let Clause::Merge {
        on_create, on_match, ..
    } = &c[0]
    else {
        panic!()
    };
    assert_eq!(on_create.len(), 3);
    assert_eq!(on_match.len(), 1);
    assert_eq!(
        on_create[2],
        SetItem::Property {
            target: var("a"),
            key: "z".into(),
            value: int(3)
        }
    );
    let Clause::With(p) = &c[1] else { panic!() };
    assert!(p.distinct && p.order_by[0].descending && p.skip.is_some() && p.limit.is_some() && p.where_.is_some());
    assert_eq!(
        c[2],
        Clause::Remove(vec![
            RemoveItem::Property {
                target: var("a"),
                key: "x".into()
            },
            RemoveItem::Labels {
                var: "a".into(),
                labels: vec!["B".into()],
                dynamic: vec![]
            }
        ])
    );
    assert_eq!(
        c[3],
        Clause::Delete {
            detach: true,
            exprs: vec![var("a")]
        }
    );
    let c = single("CALL db.proc(1, $x) YIELD a, b AS c WHERE c > 1 RETURN a");
    assert_eq!(
        c[0],
        Clause::Call(ProcedureCall {
            name: "db.proc".into(),
            args: Some(vec![int(1), Expr::Parameter("x".into())]),
            yields: Some(vec![("a".into(), "a".into()), ("b".into(), "c".into())]),
            yield_all: false,
            where_: Some(b(BinaryOp::Gt, var("c"), int(1))),
        })
    );
    let c = single("CALL db.labels");
    assert!(matches!(
        &c[0],
        Clause::Call(ProcedureCall {
            args: None,
            yields: None,
            ..
        })
    ));
    let c = single("FOREACH (x IN [1] | CREATE (n {v: x}) SET n.w = x)");
    assert!(matches!(&c[0], Clause::Foreach { var, clauses, .. } if var == "x" && clauses.len() == 2));
    let c = single("UNWIND $nodes AS node RETURN *");
    assert_eq!(
        c[0],
        Clause::Unwind {
            expr: Expr::Parameter("nodes".into()),
            var: "node".into()
        }
    );
    assert!(matches!(&c[1], Clause::Return(p) if p.star && p.items.is_empty()));
}

#[test]
fn statements() {
    match ok("RETURN 1 AS x UNION ALL RETURN 2 AS x UNION RETURN 3 AS x;") {
        Statement::Query(q) => {
            assert_eq!(q.unions.len(), 2);
            assert!(q.unions[0].0);
            assert!(!q.unions[1].0);
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(ok("EXPLAIN RETURN 1"), Statement::Explain(s) if matches!(*s, Statement::Query(_))));
    assert!(matches!(ok("profile RETURN 1"), Statement::Profile(_)));
    assert_eq!(
        ok("CREATE INDEX idx IF NOT EXISTS FOR (n:Person) ON (n.name)"),
        Statement::Schema(SchemaCommand::CreateIndex {
            name: Some("idx".into()),
            if_not_exists: true,
            label: "Person".into(),
            properties: vec!["name".into()]
        })
    );
    assert_eq!(
        ok("CREATE INDEX ON :Person(name)"),
        Statement::Schema(SchemaCommand::CreateIndex {
            name: None,
            if_not_exists: false,
            label: "Person".into(),
            properties: vec!["name".into()]
        })
    );
    assert_eq!(
        ok("DROP INDEX ON :Person(name)"),
        Statement::Schema(SchemaCommand::DropIndex {
            target: SchemaTarget::LabelProperty("Person".into(), "name".into()),
            if_exists: false
        })
    );
    assert_eq!(
        ok("DROP INDEX idx IF EXISTS"),
        Statement::Schema(SchemaCommand::DropIndex {
            target: SchemaTarget::Name("idx".into()),
            if_exists: true
        })
    );
    assert_eq!(
        ok("CREATE CONSTRAINT c FOR (n:P) REQUIRE n.id IS UNIQUE"),
        Statement::Schema(SchemaCommand::CreateUniqueConstraint {
            name: Some("c".into()),
            if_not_exists: false,
            label: "P".into(),
            property: "id".into()
        })
    );
    assert_eq!(
        ok("CREATE CONSTRAINT ON (n:P) ASSERT n.id IS UNIQUE"),
        Statement::Schema(SchemaCommand::CreateUniqueConstraint {
            name: None,
            if_not_exists: false,
            label: "P".into(),
            property: "id".into()
        })
    );
    assert_eq!(ok("SHOW INDEXES"), Statement::Schema(SchemaCommand::ShowIndexes));
    assert_eq!(
        ok("SHOW CONSTRAINTS"),
        Statement::Schema(SchemaCommand::ShowConstraints)
    );
    // CREATE that is not schema stays a query
    assert!(matches!(ok("CREATE (n:Index)"), Statement::Query(_)));
}

#[test]
fn unsupported_schema_forms() {
    for q in [
        "CREATE FULLTEXT INDEX ft FOR ()-[r:T]-() ON EACH [r.p]",
        "CREATE TEXT INDEX t FOR (n:L) ON (n.p)",
        "CREATE INDEX FOR ()-[r:T]-() ON (r.p)",
        "CREATE CONSTRAINT FOR (n:L) REQUIRE n.p IS NOT NULL",
        "CREATE CONSTRAINT FOR (n:L) REQUIRE n.p IS NODE KEY",
        "SHOW FUNCTIONS",
        "DROP DATABASE x",
    ] {
        let e = err(q);
        assert_eq!(e.class, ErrorClass::FeatureNotSupported, "{q}: {e}");
        assert!(e.position.is_some(), "{q}");
    }
}

fn assert_syntax(q: &str, detail: &str, line: u32, column: u32) -> CypherError {
    let e = err(q);
    assert_eq!(e.class, ErrorClass::SyntaxError, "{q}: {e}");
    assert_eq!(e.detail, detail, "{q}: {e}");
    let p = e.position.expect("position");
    assert_eq!((p.line, p.column), (line, column), "{q}: {e}");
    e
}

#[test]
fn error_positions() {
    let e = assert_syntax("MATCH (n)\nRETRUN n", "UnexpectedSyntax", 2, 1);
    assert!(
        e.message.contains("'RETRUN'") && e.message.contains("expected"),
        "{}",
        e.message
    );
    assert_eq!(e.position.unwrap().offset, 10);
    let e = assert_syntax("RETRUN 1", "UnexpectedSyntax", 1, 1);
    assert!(
        e.message.contains("MATCH") && e.message.contains("RETURN"),
        "{}",
        e.message
    );
    assert_syntax("MATCH (n RETURN n", "UnexpectedSyntax", 1, 10);
    assert_syntax("MATCH (n)\n  WHERE n.x = \nRETURN n", "UnexpectedSyntax", 3, 1);
    assert_syntax("RETURN 'é' + ", "UnexpectedSyntax", 1, 14);
    assert_syntax("RETURN 'abc", "UnexpectedSyntax", 1, 8);
    assert_syntax("RETURN 1 /* never closed", "UnexpectedSyntax", 1, 10);
    assert_syntax("RETURN [1, 2", "UnexpectedSyntax", 1, 13);
    assert_syntax("RETURN {a 1}", "UnexpectedSyntax", 1, 11);
    assert_syntax("MATCH (n) RETURN n n", "UnexpectedSyntax", 1, 20);
    assert_syntax("", "UnexpectedSyntax", 1, 1);
    assert_syntax("   ;", "UnexpectedSyntax", 1, 4);
    assert_syntax("RETURN 1; RETURN 2", "UnexpectedSyntax", 1, 11);
    assert_syntax("RETURN CASE WHEN 1 THEN 2", "UnexpectedSyntax", 1, 26);
    assert_syntax("MATCH (n)-[r:]->(m) RETURN n", "UnexpectedSyntax", 1, 14);
    assert_syntax(
        "MATCH (a)-[:LIKES..]->(c) RETURN c",
        "InvalidRelationshipPattern",
        1,
        18,
    );
    assert_syntax(
        "MATCH (a)-[:LIKES*-2]->(c) RETURN c",
        "InvalidRelationshipPattern",
        1,
        19,
    );
    // literal errors
    assert_syntax("RETURN 9223372036854775808", "IntegerOverflow", 1, 8);
    assert_syntax("RETURN -9223372036854775809", "IntegerOverflow", 1, 9);
    assert_syntax("RETURN 0x8000000000000000", "IntegerOverflow", 1, 8);
    assert_syntax("RETURN -0o1000000000000000000001", "IntegerOverflow", 1, 9);
    assert_syntax("RETURN 0x", "InvalidNumberLiteral", 1, 8);
    assert_syntax("RETURN 0x1A2b3j4D5E6f7", "InvalidNumberLiteral", 1, 8);
    assert_syntax("RETURN 9223372h54775808", "InvalidNumberLiteral", 1, 8);
    assert_syntax("RETURN 1.34E999", "FloatingPointOverflow", 1, 8);
    assert_syntax("RETURN '\\uH'", "InvalidUnicodeLiteral", 1, 9);
    assert_syntax("RETURN 42 — 41", "InvalidUnicodeCharacter", 1, 11);
    assert_syntax("RETURN 1 #", "UnexpectedSyntax", 1, 10);
    // reserved words are not variables
    assert_syntax("MATCH (n) RETURN WHERE", "UnexpectedSyntax", 1, 18);
    assert_syntax("RETURN 1 AS return", "UnexpectedSyntax", 1, 13);
}

fn in_small_thread<F: FnOnce() + Send + 'static>(f: F) {
    std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

/// `x = [inner] = x` nested `depth` times: each level copies its middle operand, the whole
/// level below (`a < b < c` is `a < b AND b < c`), so the tree doubles per level.
fn nested_chains(depth: usize) -> String {
    (0..depth).fold("x".to_string(), |inner, _| format!("x = [{inner}] = x"))
}

/// Found by the long fuzz run (2026-12-01): a 2.4 KB query of nested chained comparisons took
/// 21 s and over 1 GB to parse. Copies are bounded now; shallow chains still parse.
#[test]
fn nested_comparison_chains_are_bounded() {
    let q = format!("WITH 1 AS x RETURN {}", nested_chains(10));
    ok(&q);
    let e = err(&format!("WITH 1 AS x RETURN {}", nested_chains(18)));
    assert_eq!(e.class, ErrorClass::SyntaxError);
    assert!(e.message.contains("too large"), "{e}");
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    in_small_thread(|| {
        let n = 100_000;
        for (open, close) in [("(", ")"), ("[", "]"), ("{a:", "}"), ("-(", ")"), ("[x IN ", "]")] {
            let q = format!("RETURN {}1{}", open.repeat(n), close.repeat(n));
            let e = err(&q);
            assert_eq!(e.class, ErrorClass::SyntaxError);
            // unbalanced too
            let e = err(&format!("RETURN {}", open.repeat(n)));
            assert_eq!(e.class, ErrorClass::SyntaxError);
        }
        for q in [
            "(".repeat(100_000),
            "[".repeat(100_000),
            format!("MATCH {}", "(".repeat(100_000)),
            format!("RETURN {}1", "NOT ".repeat(100_000)),
            format!("RETURN {}1", "-".repeat(100_000)),
            format!("RETURN 1{}", ".a".repeat(100_000)),
            format!(
                "RETURN {}1{}",
                "CASE WHEN true THEN ".repeat(100_000),
                " END".repeat(100_000)
            ),
            format!("RETURN {}", "EXISTS { MATCH (n) WHERE ".repeat(100_000)),
            "FOREACH (x IN [] | ".repeat(100_000),
            "EXPLAIN ".repeat(100_000),
            format!("MATCH (n {}", "{a: (n {a: ".repeat(100_000)),
            format!("RETURN {}", "[(a)-->(b) | ".repeat(100_000)),
            format!("RETURN {}", "count { (a)-->(b) WHERE ".repeat(100_000)),
        ] {
            let _ = parse(&q);
        }
        // Moderate nesting still parses.
        ok(&format!("RETURN {}1{}", "(".repeat(40), ")".repeat(40)));
        ok(&format!("RETURN {}1{}", "[".repeat(40), "]".repeat(40)));
        // Long lists are not nesting; long operator chains are, up to a bound.
        ok(&format!("RETURN [{}1]", "1, ".repeat(50_000)));
        ok(&format!("RETURN f({}1)", "1, ".repeat(50_000)));
        ok(&format!(
            "MATCH (n) WHERE n.a = 1{} RETURN n",
            " AND n.a = 1".repeat(200)
        ));
        ok(&format!("RETURN 1{}", " + 1".repeat(500)));
        ok(&format!("MATCH (a){} RETURN a", "-->()".repeat(10_000)));
        let e = err(&format!("RETURN 1{}", " + 1".repeat(100_000)));
        assert_eq!(e.class, ErrorClass::SyntaxError);
        let e = err(&format!("RETURN {}1", "EXPLAIN ".repeat(100_000)));
        assert_eq!(e.class, ErrorClass::SyntaxError);
    });
}

/// xorshift64*: deterministic randomness without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const SPLICE_TOKENS: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "-",
    "->",
    "<-",
    "--",
    "*",
    "..",
    ":",
    ",",
    "'",
    "\"",
    "`",
    "$",
    "|",
    "=",
    "+=",
    " WHERE ",
    " RETURN ",
    " MATCH ",
    " CASE ",
    " END ",
    " EXISTS ",
    " COUNT ",
    " IN ",
    " NOT ",
    "0x",
    "1e",
    "\\u",
    "/*",
    "//",
    "é",
    "\u{0}",
    "9223372036854775808",
    ".",
    "^",
    " IS NULL ",
    " UNION ",
    ";",
];

#[test]
fn mutation_fuzz_never_panics() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let seeds: Vec<&str> = VALID.to_vec();
    for _ in 0..4000 {
        let base = seeds[rng.below(seeds.len())];
        let mut bytes = base.as_bytes().to_vec();
        for _ in 0..1 + rng.below(4) {
            match rng.below(5) {
                0 if !bytes.is_empty() => {
                    let i = rng.below(bytes.len());
                    bytes[i] ^= 1 << rng.below(8);
                }
                1 => {
                    let i = rng.below(bytes.len() + 1);
                    bytes.truncate(i);
                }
                2 => {
                    let other = seeds[rng.below(seeds.len())].as_bytes();
                    let i = rng.below(bytes.len() + 1);
                    let j = rng.below(other.len() + 1);
                    bytes.truncate(i);
                    bytes.extend_from_slice(&other[j..]);
                }
                3 => {
                    let t = SPLICE_TOKENS[rng.below(SPLICE_TOKENS.len())].as_bytes();
                    let i = rng.below(bytes.len() + 1);
                    bytes.splice(i..i, t.iter().copied());
                }
                _ if !bytes.is_empty() => {
                    let i = rng.below(bytes.len());
                    let len = rng.below(8).min(bytes.len() - i);
                    bytes.drain(i..i + len);
                }
                _ => {}
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        let q = text.to_string();
        let r = std::panic::catch_unwind(|| parse(&q));
        assert!(r.is_ok(), "parse panicked on {q:?}");
        if let Ok(Err(e)) = r {
            assert!(e.position.is_some(), "error without position for {q:?}: {e}");
        }
    }
}
