// Exercises `hopdb serve` with the official Neo4j Go driver (v5) and prints one JSON line of
// what came back, for python/tests/test_driver_go.py to check; exits non-zero with the error
// on stderr when something fails outright.
//
//	go run . bolt://127.0.0.1:7687      (or HOPDB_BOLT_URI=...)
//
// Values are printed in a typed form shared with drivers/js/test.mjs, so that one table of
// expectations checks both drivers: {"int": "42"} (a decimal string: no precision lost),
// {"float": 1.5}, {"string": "..."}, {"bytes": "00ff"}, {"map": {...}}, lists as JSON arrays,
// {"date": "2024-02-29"}, {"localtime": [h, m, s, ns]}, {"time": [h, m, s, ns, offset]},
// {"localdatetime": [Y, M, D, h, m, s, ns]}, {"datetime": [Y, M, D, h, m, s, ns, offset]},
// {"datetimezone": [Y, M, D, h, m, s, ns, zone, offset]}, {"duration": [months, days, s, ns]},
// and graph entities as {"node": ...}, {"relationship": ...}, {"path": ...}.
package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // named zones without relying on the machine's zoneinfo

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/dbtype"
)

const driverModule = "github.com/neo4j/neo4j-go-driver/v5"

// Authentication is off on the test server: any credentials are accepted.
var auth = neo4j.BasicAuth("neo4j", "any password: authentication is disabled", "")

type M = map[string]any

func enc(v any) any {
	switch v := v.(type) {
	case nil:
		return nil
	case bool:
		return v
	case int64:
		return M{"int": strconv.FormatInt(v, 10)}
	case float64:
		return M{"float": v}
	case string:
		return M{"string": v}
	case []byte:
		return M{"bytes": hex.EncodeToString(v)}
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = enc(x)
		}
		return out
	case map[string]any:
		out := M{}
		for k, x := range v {
			out[k] = enc(x)
		}
		return M{"map": out}
	case dbtype.Date:
		t := v.Time()
		return M{"date": fmt.Sprintf("%04d-%02d-%02d", t.Year(), int(t.Month()), t.Day())}
	case dbtype.LocalTime:
		t := v.Time()
		return M{"localtime": []any{t.Hour(), t.Minute(), t.Second(), t.Nanosecond()}}
	case dbtype.Time:
		t := v.Time()
		_, offset := t.Zone()
		return M{"time": []any{t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), offset}}
	case dbtype.LocalDateTime:
		t := v.Time()
		return M{"localdatetime": []any{t.Year(), int(t.Month()), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond()}}
	case time.Time:
		name, offset := v.Zone()
		parts := []any{v.Year(), int(v.Month()), v.Day(), v.Hour(), v.Minute(), v.Second(), v.Nanosecond()}
		if name == "Offset" { // the driver's name for a fixed offset, both ways
			return M{"datetime": append(parts, offset)}
		}
		return M{"datetimezone": append(parts, v.Location().String(), offset)}
	case dbtype.Duration:
		return M{"duration": []any{v.Months, v.Days, v.Seconds, v.Nanos}}
	case dbtype.Node:
		labels := append([]string{}, v.Labels...)
		sort.Strings(labels)
		return M{"node": M{"elementId": v.ElementId, "labels": labels, "props": enc(v.Props)}}
	case dbtype.Relationship:
		return M{"relationship": M{
			"elementId": v.ElementId, "type": v.Type, "start": v.StartElementId, "end": v.EndElementId,
			"props": enc(v.Props),
		}}
	case dbtype.Path:
		nodes := make([]any, len(v.Nodes))
		for i, n := range v.Nodes {
			nodes[i] = enc(n)
		}
		rels := make([]any, len(v.Relationships))
		for i, r := range v.Relationships {
			rels[i] = enc(r)
		}
		return M{"path": M{"nodes": nodes, "relationships": rels}}
	case *dbtype.InvalidValue:
		return M{"invalid": fmt.Sprintf("%s: %v", v.Message, v.Err)}
	default:
		return M{"unknown": fmt.Sprintf("%T %v", v, v)}
	}
}

// A parameter sent as `$v`, returned, and compared in Cypher with what it should be.
type valueCase struct {
	name  string
	value any
	check string // a Cypher boolean over $v; empty: none (bytes have no literal)
}

func valueCases() ([]valueCase, error) {
	stockholm, err := time.LoadLocation("Europe/Stockholm")
	if err != nil {
		return nil, err
	}
	return []valueCase{
		{"null", nil, "$v IS NULL"},
		{"bool", true, "$v = true"},
		{"int", int64(42), "$v = 42"},
		{"int_negative", int64(-7), "$v = -7"},
		{"int_2_53_plus_1", int64(9007199254740993), "$v = 9007199254740993"},
		{"int_max", int64(9223372036854775807), "$v = 9223372036854775807"},
		{"int_min", int64(-9223372036854775808), "$v = -9223372036854775807 - 1"},
		{"float", 3.141592653589793, "$v = 3.141592653589793"},
		{"float_big", 1.7976931348623157e308, "$v = 1.7976931348623157e308"},
		{"float_tiny", 5e-324, "$v = 5e-324"},
		{"string", "héllo wörld ✓ 日本語 🚀", "$v = 'héllo wörld ✓ 日本語 🚀'"},
		{"string_empty", "", "$v = ''"},
		{"bytes", []byte{0x00, 0x01, 0xff, 0x7f, 0x80}, ""},
		{"list", []any{int64(1), "two", 3.5, nil, []any{true}},
			"$v[0] = 1 AND $v[1] = 'two' AND $v[2] = 3.5 AND $v[3] IS NULL AND $v[4] = [true] AND size($v) = 5"},
		{"map", map[string]any{"a": int64(1), "b": []any{"x"}, "nested": map[string]any{"k": nil}},
			"$v.a = 1 AND $v.b = ['x'] AND $v.nested.k IS NULL AND keys($v.nested) = ['k'] AND size(keys($v)) = 3"},
		{"date", dbtype.Date(time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)), "$v = date('2024-02-29')"},
		{"date_old", dbtype.Date(time.Date(1815, 12, 10, 0, 0, 0, 0, time.UTC)), "$v = date('1815-12-10')"},
		{"localtime", dbtype.LocalTime(time.Date(0, 1, 1, 8, 15, 30, 123456789, time.UTC)),
			"$v = localtime('08:15:30.123456789')"},
		{"time", dbtype.Time(time.Date(0, 1, 1, 8, 15, 30, 500000000, time.FixedZone("Offset", 19800))),
			"$v = time('08:15:30.5+05:30')"},
		{"localdatetime", dbtype.LocalDateTime(time.Date(2024, 6, 1, 12, 0, 0, 1, time.UTC)),
			"$v = localdatetime('2024-06-01T12:00:00.000000001')"},
		// The driver sends a time.Time whose zone is named "Offset" as a fixed offset, any
		// other as a named zone.
		{"datetime", time.Date(2024, 6, 1, 12, 0, 0, 987654321, time.FixedZone("Offset", -5*3600)),
			"$v = datetime('2024-06-01T12:00:00.987654321-05:00')"},
		{"datetime_zone", time.Date(2024, 6, 1, 12, 30, 15, 250000000, stockholm),
			"$v = datetime('2024-06-01T12:30:15.25[Europe/Stockholm]') AND $v.timezone = 'Europe/Stockholm'"},
		{"duration", dbtype.Duration{Months: 14, Days: 3, Seconds: 3723, Nanos: 500},
			"$v = duration({months: 14, days: 3, seconds: 3723, nanoseconds: 500})"},
	}, nil
}

func single(ctx context.Context, s neo4j.SessionWithContext, query string, params M) (*neo4j.Record, error) {
	r, err := s.Run(ctx, query, params)
	if err != nil {
		return nil, err
	}
	return r.Single(ctx)
}

func countLabel(ctx context.Context, run func(string) (*neo4j.Record, error), label string) (int64, error) {
	rec, err := run("MATCH (n:" + label + ") RETURN count(n) AS c")
	if err != nil {
		return 0, err
	}
	c, _ := rec.Get("c")
	n, ok := c.(int64)
	if !ok {
		return 0, fmt.Errorf("count(n) came back as %T", c)
	}
	return n, nil
}

func txSingle(ctx context.Context, tx neo4j.ManagedTransaction, query string, params M) (*neo4j.Record, error) {
	r, err := tx.Run(ctx, query, params)
	if err != nil {
		return nil, err
	}
	return r.Single(ctx)
}

// Bolt's "r", "w", "rw" and "s".
func statementType(t neo4j.StatementType) string {
	switch t {
	case neo4j.StatementTypeReadOnly:
		return "r"
	case neo4j.StatementTypeReadWrite:
		return "rw"
	case neo4j.StatementTypeWriteOnly:
		return "w"
	case neo4j.StatementTypeSchemaWrite:
		return "s"
	}
	return "unknown"
}

func driverVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == driverModule {
				return dep.Version
			}
		}
	}
	return "unknown"
}

func run(ctx context.Context, uri string) (M, error) {
	out := M{"driver": driverVersion()}
	driver, err := neo4j.NewDriverWithContext(uri, auth)
	if err != nil {
		return nil, fmt.Errorf("driver: %w", err)
	}
	defer driver.Close(ctx)
	if err := driver.VerifyConnectivity(ctx); err != nil {
		return nil, fmt.Errorf("VerifyConnectivity: %w", err)
	}
	info, err := driver.GetServerInfo(ctx)
	if err != nil {
		return nil, fmt.Errorf("GetServerInfo: %w", err)
	}
	pv := info.ProtocolVersion()
	out["agent"] = info.Agent()
	out["protocol"] = fmt.Sprintf("%d.%d", pv.Major, pv.Minor)

	session := driver.NewSession(ctx, neo4j.SessionConfig{})
	defer session.Close(ctx)
	sessionRun := func(q string) (*neo4j.Record, error) { return single(ctx, session, q, nil) }

	// Auto-commit statements with parameters.
	res, err := session.Run(ctx, "CREATE (:Auto {n: $n, name: $name})", M{"n": int64(1), "name": "one"})
	if err != nil {
		return nil, fmt.Errorf("auto-commit CREATE: %w", err)
	}
	summary, err := res.Consume(ctx)
	if err != nil {
		return nil, fmt.Errorf("auto-commit CREATE: %w", err)
	}
	counters := summary.Counters()
	rec, err := single(ctx, session, "MATCH (a:Auto {name: $name}) RETURN a.n AS n, a.name AS name", M{"name": "one"})
	if err != nil {
		return nil, fmt.Errorf("auto-commit MATCH: %w", err)
	}
	n, _ := rec.Get("n")
	name, _ := rec.Get("name")
	res, err = session.Run(ctx, "UNWIND range(1, $n) AS x RETURN x", M{"n": int64(2500)})
	if err != nil {
		return nil, fmt.Errorf("UNWIND: %w", err)
	}
	rows, sum := 0, int64(0)
	for res.Next(ctx) {
		x, _ := res.Record().Get("x")
		rows++
		sum += x.(int64)
	}
	if err := res.Err(); err != nil {
		return nil, fmt.Errorf("UNWIND: %w", err)
	}
	eager, err := neo4j.ExecuteQuery(ctx, driver, "MATCH (a:Auto) WHERE a.n = $n RETURN a.name AS name",
		M{"n": int64(1)}, neo4j.EagerResultTransformer)
	if err != nil {
		return nil, fmt.Errorf("ExecuteQuery: %w", err)
	}
	eagerNames := []any{}
	for _, r := range eager.Records {
		v, _ := r.Get("name")
		eagerNames = append(eagerNames, enc(v))
	}
	out["auto"] = M{
		"nodes_created": counters.NodesCreated(), "labels_added": counters.LabelsAdded(),
		"properties_set": counters.PropertiesSet(), "query_type": statementType(summary.StatementType()),
		"n": enc(n), "name": enc(name), "rows": rows, "sum": sum,
		"execute_query": M{"keys": eager.Keys, "names": eagerNames},
	}

	// Managed transactions. The write is retry-safe (MERGE: running it again changes nothing),
	// as a function the driver may retry must be; it runs twice and leaves one node.
	attempts := 0
	merge := func(tx neo4j.ManagedTransaction) (any, error) {
		attempts++
		r, err := txSingle(ctx, tx, "MERGE (m:Managed {name: $name}) RETURN m.name AS name", M{"name": "Ada"})
		if err != nil {
			return nil, err
		}
		v, _ := r.Get("name")
		return v, nil
	}
	written, err := session.ExecuteWrite(ctx, merge)
	if err != nil {
		return nil, fmt.Errorf("ExecuteWrite: %w", err)
	}
	if _, err := session.ExecuteWrite(ctx, merge); err != nil {
		return nil, fmt.Errorf("ExecuteWrite again: %w", err)
	}
	read, err := session.ExecuteRead(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		return countLabel(ctx, func(q string) (*neo4j.Record, error) { return txSingle(ctx, tx, q, nil) }, "Managed")
	})
	if err != nil {
		return nil, fmt.Errorf("ExecuteRead: %w", err)
	}
	out["managed"] = M{"written": enc(written), "attempts": attempts, "count": enc(read)}

	// An explicit transaction rolled back leaves nothing; one committed keeps its node.
	tx, err := session.BeginTransaction(ctx)
	if err != nil {
		return nil, fmt.Errorf("BeginTransaction: %w", err)
	}
	if _, err := tx.Run(ctx, "CREATE (:Rolled {n: $n})", M{"n": int64(1)}); err != nil {
		return nil, fmt.Errorf("tx CREATE: %w", err)
	}
	inside, err := countLabel(ctx, func(q string) (*neo4j.Record, error) {
		r, err := tx.Run(ctx, q, nil)
		if err != nil {
			return nil, err
		}
		return r.Single(ctx)
	}, "Rolled")
	if err != nil {
		return nil, fmt.Errorf("tx count: %w", err)
	}
	if err := tx.Rollback(ctx); err != nil {
		return nil, fmt.Errorf("Rollback: %w", err)
	}
	after, err := countLabel(ctx, sessionRun, "Rolled")
	if err != nil {
		return nil, fmt.Errorf("count after rollback: %w", err)
	}
	tx, err = session.BeginTransaction(ctx)
	if err != nil {
		return nil, fmt.Errorf("BeginTransaction: %w", err)
	}
	if _, err := tx.Run(ctx, "CREATE (:Kept)", nil); err != nil {
		return nil, fmt.Errorf("tx CREATE: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("Commit: %w", err)
	}
	kept, err := countLabel(ctx, sessionRun, "Kept")
	if err != nil {
		return nil, fmt.Errorf("count after commit: %w", err)
	}
	out["rollback"] = M{"inside": inside, "after": after, "committed": kept}

	// Every value type as a parameter, returned, and checked in Cypher.
	cases, err := valueCases()
	if err != nil {
		return nil, fmt.Errorf("time zones: %w", err)
	}
	values, same := M{}, M{}
	for _, c := range cases {
		check := c.check
		if check == "" {
			check = "null"
		}
		rec, err := single(ctx, session, "RETURN $v AS v, "+check+" AS same", M{"v": c.value})
		if err != nil {
			return nil, fmt.Errorf("value %s: %w", c.name, err)
		}
		v, _ := rec.Get("v")
		s, _ := rec.Get("same")
		values[c.name], same[c.name] = enc(v), s
	}
	out["values"], out["same"] = values, same
	rec, err = sessionRun("RETURN datetime('2024-01-15T08:00:00[Europe/Paris]') AS paris, " +
		"datetime('2024-06-01T12:00-05:00') AS fixed, duration('P1M2DT3.5S') AS duration")
	if err != nil {
		return nil, fmt.Errorf("server-built temporals: %w", err)
	}
	built := M{}
	for i, k := range rec.Keys {
		built[k] = enc(rec.Values[i])
	}
	out["built"] = built

	// Nodes, relationships and paths, both ways along the relationship.
	res, err = session.Run(ctx, "CREATE (:Person {name: $a})-[:KNOWS {since: $since}]->(:Person:Author {name: $b})",
		M{"a": "Ada", "b": "Charles", "since": int64(1833)})
	if err == nil {
		_, err = res.Consume(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("graph CREATE: %w", err)
	}
	rec, err = sessionRun("MATCH p = (a:Person {name: 'Ada'})-[r:KNOWS]->(b) MATCH q = (b)<-[:KNOWS]-(a) " +
		"RETURN a, r, b, p, q, elementId(a) AS ida, elementId(b) AS idb, elementId(r) AS idr")
	if err != nil {
		return nil, fmt.Errorf("graph MATCH: %w", err)
	}
	graph := M{}
	for i, k := range rec.Keys {
		graph[k] = enc(rec.Values[i])
	}
	out["graph"] = graph

	// A syntax error is a Neo4jError with Neo4j's code; the session serves on.
	_, err = sessionRun("MATCH (n RETURN n")
	syntax := M{"raised": err != nil}
	var ne *neo4j.Neo4jError
	if errors.As(err, &ne) {
		syntax["type"], syntax["code"], syntax["message"] = "Neo4jError", ne.Code, ne.Msg
	} else if err != nil {
		syntax["type"], syntax["message"] = fmt.Sprintf("%T", err), err.Error()
	}
	rec, err = sessionRun("RETURN 1 AS x")
	if err != nil {
		return nil, fmt.Errorf("query after the syntax error: %w", err)
	}
	syntax["after"] = enc(rec.Values[0])
	out["syntax_error"] = syntax

	routing, err := routed(ctx, uri)
	if err != nil {
		return nil, fmt.Errorf("neo4j:// scheme: %w", err)
	}
	out["routing"] = routing
	return out, nil
}

// The same server through the routing scheme: the driver asks it for a routing table.
func routed(ctx context.Context, boltURI string) (M, error) {
	uri := "neo4j://" + strings.TrimPrefix(boltURI, "bolt://")
	driver, err := neo4j.NewDriverWithContext(uri, auth)
	if err != nil {
		return nil, err
	}
	defer driver.Close(ctx)
	if err := driver.VerifyConnectivity(ctx); err != nil {
		return nil, fmt.Errorf("VerifyConnectivity: %w", err)
	}
	session := driver.NewSession(ctx, neo4j.SessionConfig{})
	defer session.Close(ctx)
	written, err := session.ExecuteWrite(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		r, err := txSingle(ctx, tx, "CREATE (r:Routed {at: $at}) RETURN count(r) AS c", M{"at": "neo4j://"})
		if err != nil {
			return nil, err
		}
		return r.Values[0], nil
	})
	if err != nil {
		return nil, fmt.Errorf("ExecuteWrite: %w", err)
	}
	read, err := session.ExecuteRead(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		r, err := txSingle(ctx, tx, "MATCH (r:Routed) RETURN count(r) AS c", nil)
		if err != nil {
			return nil, err
		}
		return r.Values[0], nil
	})
	if err != nil {
		return nil, fmt.Errorf("ExecuteRead: %w", err)
	}
	eager, err := neo4j.ExecuteQuery(ctx, driver, "MATCH (r:Routed {at: $at}) RETURN count(r) AS c",
		M{"at": "neo4j://"}, neo4j.EagerResultTransformer, neo4j.ExecuteQueryWithReadersRouting())
	if err != nil {
		return nil, fmt.Errorf("ExecuteQuery (readers): %w", err)
	}
	return M{"scheme": driver.Target().Scheme, "written": enc(written), "read": enc(read), "query": enc(eager.Records[0].Values[0])}, nil
}

func main() {
	uri := os.Getenv("HOPDB_BOLT_URI")
	if len(os.Args) > 1 {
		uri = os.Args[1]
	}
	if uri == "" {
		fmt.Fprintln(os.Stderr, "usage: go run . bolt://HOST:PORT (or HOPDB_BOLT_URI)")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := run(ctx, uri)
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	line, err := json.Marshal(out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "error: JSON:", err)
		os.Exit(1)
	}
	fmt.Println(string(line))
}
