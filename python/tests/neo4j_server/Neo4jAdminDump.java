// Prints the whole graph of the `neo4j` database in a Neo4j home as one line of JSON, for the
// import tests (python/tests/neo4j_admin.py runs it after `neo4j-admin database import full`):
//
//   java -cp CLASSPATH Neo4jAdminDump.java NEO4J_HOME
//
// The database is opened embedded (no Bolt, no HTTP, a small page cache) and read in one
// transaction:
//
//   {"nodes": [{"id": ID, "labels": [sorted labels], "props": {key: TYPED}}, ...],
//    "relationships": [{"id": ID, "start": ID, "end": ID, "type": T, "props": {key: TYPED}}, ...]}
//
// nodes and relationships in internal id order, property keys sorted. ID is the internal id.
// TYPED keeps the value's Cypher type: {"t": TYPE, "v": VALUE} with TYPE one of
//   string, long, double, boolean       v: the JSON string / integer / number / true|false
//   date, localtime, time,              v: the value's ISO text as Cypher's toString() gives it
//   localdatetime, datetime, duration      (seconds always shown: "12:30:00", "2018-05-10T10:30:00+02:00[Europe/Stockholm]", "P1DT2H")
//   point                               v: {"crs": NAME, "srid": SRID, "x": X, "y": Y[, "z": Z]}
//   list                                v: [TYPED, ...] (a stored array)
// A value stored with a narrower Java type (the importer's `--normalize-types=false`, and arrays,
// which it never normalizes: `int[]`, `float[]`, ...) is given its Cypher type: byte, short and int
// are "long", float is "double" (the float widened, as Cypher returns it), char is "string".
// A double that is not finite is written as the JSON string "NaN", "Infinity" or "-Infinity".
// Non-ASCII characters are written as \\uXXXX escapes (UTF-16 units), so the line is ASCII.
//
// The home is a throwaway: after printing, the JVM halts without shutting the DBMS down (a clean
// shutdown takes seconds and keeps nothing anyone reads).
import java.lang.reflect.Array;
import java.nio.charset.StandardCharsets;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZonedDateTime;
import java.time.temporal.TemporalAmount;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.ResourceIterable;
import org.neo4j.graphdb.Transaction;
import org.neo4j.graphdb.spatial.Point;
import org.neo4j.io.ByteUnit;
import org.neo4j.values.storable.Values;

public class Neo4jAdminDump {
    public static void main(String[] args) throws Exception {
        Path home = Path.of(args[0]);
        DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(home)
                .setConfig(BoltConnector.enabled, false)
                .setConfig(HttpConnector.enabled, false)
                .setConfig(HttpsConnector.enabled, false)
                .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(32))
                .setConfig(GraphDatabaseSettings.udc_enabled, false)
                .build();
        StringBuilder b = new StringBuilder(1 << 16);
        try {
            GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
            try (Transaction tx = db.beginTx()) {
                b.append("{\"nodes\": [");
                List<Node> nodes = new ArrayList<>();
                try (ResourceIterable<Node> all = tx.getAllNodes()) {
                    all.forEach(nodes::add);
                }
                nodes.sort((x, y) -> Long.compare(x.getId(), y.getId()));
                boolean first = true;
                for (Node n : nodes) {
                    b.append(first ? "" : ", ");
                    first = false;
                    List<String> labels = new ArrayList<>();
                    for (Label l : n.getLabels()) {
                        labels.add(l.name());
                    }
                    labels.sort(null);
                    b.append("{\"id\": ").append(n.getId()).append(", \"labels\": [");
                    for (int i = 0; i < labels.size(); i++) {
                        b.append(i == 0 ? "" : ", ");
                        string(b, labels.get(i));
                    }
                    b.append("], \"props\": ");
                    props(b, n.getAllProperties());
                    b.append('}');
                }
                b.append("], \"relationships\": [");
                List<Relationship> rels = new ArrayList<>();
                try (ResourceIterable<Relationship> all = tx.getAllRelationships()) {
                    all.forEach(rels::add);
                }
                rels.sort((x, y) -> Long.compare(x.getId(), y.getId()));
                first = true;
                for (Relationship r : rels) {
                    b.append(first ? "" : ", ");
                    first = false;
                    b.append("{\"id\": ").append(r.getId());
                    b.append(", \"start\": ").append(r.getStartNode().getId());
                    b.append(", \"end\": ").append(r.getEndNode().getId());
                    b.append(", \"type\": ");
                    string(b, r.getType().name());
                    b.append(", \"props\": ");
                    props(b, r.getAllProperties());
                    b.append('}');
                }
                b.append("]}");
            }
        } catch (Throwable e) {
            e.printStackTrace();
            System.err.flush();
            Runtime.getRuntime().halt(1);
        }
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.US_ASCII);
        out.println(b);
        out.flush();
        Runtime.getRuntime().halt(0);
    }

    static void props(StringBuilder b, Map<String, Object> props) {
        b.append('{');
        boolean first = true;
        for (Map.Entry<String, Object> e : new TreeMap<>(props).entrySet()) {
            b.append(first ? "" : ", ");
            first = false;
            string(b, e.getKey());
            b.append(": ");
            value(b, e.getValue());
        }
        b.append('}');
    }

    static void typed(StringBuilder b, String type) {
        b.append("{\"t\": \"").append(type).append("\", \"v\": ");
    }

    static void value(StringBuilder b, Object v) {
        if (v instanceof String s) {
            typed(b, "string");
            string(b, s);
        } else if (v instanceof Character c) {
            typed(b, "string");
            string(b, c.toString());
        } else if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            typed(b, "long");
            b.append(((Number) v).longValue());
        } else if (v instanceof Double || v instanceof Float) {
            typed(b, "double");
            number(b, ((Number) v).doubleValue());
        } else if (v instanceof Boolean x) {
            typed(b, "boolean");
            b.append(x.booleanValue());
        } else if (v instanceof LocalDate) {
            temporal(b, "date", v);
        } else if (v instanceof LocalTime) {
            temporal(b, "localtime", v);
        } else if (v instanceof OffsetTime) {
            temporal(b, "time", v);
        } else if (v instanceof LocalDateTime) {
            temporal(b, "localdatetime", v);
        } else if (v instanceof ZonedDateTime) {
            temporal(b, "datetime", v);
        } else if (v instanceof TemporalAmount) {
            temporal(b, "duration", v);
        } else if (v instanceof Point p) {
            typed(b, "point");
            b.append("{\"crs\": ");
            string(b, p.getCRS().getType());
            b.append(", \"srid\": ").append(p.getCRS().getCode());
            double[] c = p.getCoordinate().getCoordinate();
            String[] axes = {"x", "y", "z"};
            for (int i = 0; i < c.length && i < 3; i++) {
                b.append(", \"").append(axes[i]).append("\": ");
                number(b, c[i]);
            }
            b.append('}');
        } else if (v != null && v.getClass().isArray()) {
            typed(b, "list");
            b.append('[');
            int n = Array.getLength(v);
            for (int i = 0; i < n; i++) {
                b.append(i == 0 ? "" : ", ");
                value(b, Array.get(v, i));
            }
            b.append(']');
        } else {
            throw new IllegalArgumentException("unexpected property value of " + (v == null ? "null" : v.getClass()) + ": " + v);
        }
        b.append('}');
    }

    static void temporal(StringBuilder b, String type, Object v) {
        typed(b, type);
        // Neo4j's own text of the value (what Cypher's toString() returns), not java.time's
        // toString(), which leaves out zero seconds.
        string(b, Values.of(v).prettyPrint());
    }

    static void number(StringBuilder b, double d) {
        if (Double.isNaN(d)) {
            b.append("\"NaN\"");
        } else if (Double.isInfinite(d)) {
            b.append(d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
        } else {
            b.append(Double.toString(d));
        }
    }

    static void string(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                case '\b' -> b.append("\\b");
                case '\f' -> b.append("\\f");
                default -> {
                    if (c < 0x20 || c > 0x7e) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        b.append('"');
    }
}
