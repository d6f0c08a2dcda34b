package hopdb.drivercheck;

import java.net.URI;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.TemporalAccessor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import org.neo4j.driver.AuthToken;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Config;
import org.neo4j.driver.Driver;
import org.neo4j.driver.EagerResult;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Logging;
import org.neo4j.driver.QueryConfig;
import org.neo4j.driver.Record;
import org.neo4j.driver.RoutingControl;
import org.neo4j.driver.Session;
import org.neo4j.driver.SessionConfig;
import org.neo4j.driver.Transaction;
import org.neo4j.driver.TransactionContext;
import org.neo4j.driver.Value;
import org.neo4j.driver.Values;
import org.neo4j.driver.exceptions.ClientException;
import org.neo4j.driver.summary.ResultSummary;
import org.neo4j.driver.summary.SummaryCounters;
import org.neo4j.driver.types.IsoDuration;
import org.neo4j.driver.types.Node;
import org.neo4j.driver.types.Path;
import org.neo4j.driver.types.Relationship;

/**
 * The official Neo4j Java driver against {@code hopdb serve}: {@code DriverCheck bolt://HOST:PORT}
 * prints one JSON line of what it saw (python/tests/test_driver_java.py asserts on it), or exits
 * non-zero with the error on stderr.
 *
 * <p>Values are reported as JSON: numbers, strings and booleans as themselves, byte arrays as
 * lists of unsigned bytes, temporal values as their {@code toString()}, durations as their four
 * fields. Each parameter's round trip also reports {@code equal}: whether the value the driver
 * hydrated {@code equals} the one it sent (same Java type, same value, same zone).
 */
public final class DriverCheck {
  private static final AuthToken AUTH =
      AuthTokens.basic("neo4j", "any password: authentication is disabled");

  private DriverCheck() {}

  public static void main(String[] args) {
    if (args.length != 1) {
      System.err.println("usage: DriverCheck bolt://HOST:PORT");
      System.exit(2);
    }
    Map<String, Object> out;
    try {
      out = run(URI.create(args[0]));
    } catch (Throwable t) {
      t.printStackTrace();
      System.exit(1);
      return;
    }
    System.out.println(Json.write(out));
    System.out.flush();
    System.exit(0);
  }

  private static Config config() {
    return Config.builder()
        .withLogging(Logging.javaUtilLogging(Level.WARNING))
        .withConnectionTimeout(10, TimeUnit.SECONDS)
        .withConnectionAcquisitionTimeout(20, TimeUnit.SECONDS)
        .withMaxTransactionRetryTime(5, TimeUnit.SECONDS)
        .build();
  }

  static Map<String, Object> run(URI bolt) throws Exception {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("driver", driverVersion());
    try (Driver driver = GraphDatabase.driver(bolt, AUTH, config())) {
      driver.verifyConnectivity();
      out.put("verified", true);
      out.put("autoCommit", autoCommit(driver));
      out.put("managed", managed(driver));
      out.put("explicit", explicit(driver));
      out.put("values", values(driver));
      out.put("built", built(driver));
      out.put("graph", graph(driver));
      out.put("errors", errors(driver));
    }
    URI routed = new URI("neo4j", bolt.getRawAuthority(), null, null, null);
    out.put("routing", routing(routed));
    return out;
  }

  private static String driverVersion() {
    // The jar's Implementation-Version, e.g. 5.28.15-<commit>.
    String v = Driver.class.getPackage().getImplementationVersion();
    return v == null ? "unknown" : v.split("-", 2)[0];
  }

  private static long count(TransactionContext tx, String label) {
    return tx.run("MATCH (n:" + label + ") RETURN count(n) AS c").single().get("c").asLong();
  }

  private static long count(Session s, String label) {
    return s.executeRead(tx -> count(tx, label));
  }

  // ---- auto-commit ------------------------------------------------------------------------

  private static Map<String, Object> autoCommit(Driver driver) {
    Map<String, Object> out = new LinkedHashMap<>();
    try (Session s = driver.session()) {
      ResultSummary summary =
          s.run("CREATE (:Auto {n: $n, name: $name})", Map.of("n", 1L, "name", "one")).consume();
      SummaryCounters c = summary.counters();
      out.put("agent", summary.server().agent());
      out.put("protocol", summary.server().protocolVersion());
      out.put("nodesCreated", (long) c.nodesCreated());
      out.put("labelsAdded", (long) c.labelsAdded());
      out.put("propertiesSet", (long) c.propertiesSet());
      out.put("containsUpdates", c.containsUpdates());
      out.put("queryType", summary.queryType().name());
      out.put("database", summary.database().name());

      Record r =
          s.run("MATCH (a:Auto) WHERE a.n = $n RETURN a.n AS n, a.name AS name", Map.of("n", 1L))
              .single();
      out.put("keys", r.keys());
      out.put("n", r.get("n").asLong());
      out.put("name", r.get("name").asString());

      // More rows than one PULL batch (the driver fetches 1000 at a time).
      List<Long> xs =
          s.run("UNWIND range(1, $to) AS x RETURN x", Map.of("to", 2500L)).list(x -> x.get(0).asLong());
      boolean inOrder = true;
      for (int i = 0; i < xs.size(); i++) {
        inOrder &= xs.get(i) == i + 1;
      }
      out.put("rows", (long) xs.size());
      out.put("rowsInOrder", inOrder);
    }
    return out;
  }

  // ---- managed transactions ---------------------------------------------------------------

  private static Map<String, Object> managed(Driver driver) {
    Map<String, Object> out = new LinkedHashMap<>();
    try (Session s = driver.session()) {
      out.put(
          "written",
          s.executeWrite(
              tx ->
                  tx.run(
                          "CREATE (p:Managed {name: $name}) RETURN p.name AS name",
                          Map.of("name", "Ada"))
                      .single()
                      .get("name")
                      .asString()));
      out.put("readCount", s.executeRead(tx -> count(tx, "Managed")));
      try {
        s.executeRead(tx -> tx.run("CREATE (:ReadOnly)").consume());
        out.put("writeInReadRefused", null);
      } catch (ClientException e) {
        out.put("writeInReadRefused", e.code());
      }
      out.put("readOnlyCount", count(s, "ReadOnly"));
    }
    EagerResult eager =
        driver
            .executableQuery("MATCH (p:Managed) WHERE p.name = $name RETURN p.name AS name")
            .withParameters(Map.of("name", "Ada"))
            .execute();
    out.put("eagerKeys", eager.keys());
    List<Object> names = new ArrayList<>();
    eager.records().forEach(r -> names.add(r.get("name").asString()));
    out.put("eagerNames", names);
    out.put("eagerQueryType", eager.summary().queryType().name());
    return out;
  }

  // ---- explicit transactions --------------------------------------------------------------

  private static Map<String, Object> explicit(Driver driver) {
    Map<String, Object> out = new LinkedHashMap<>();
    try (Session s = driver.session()) {
      try (Transaction tx = s.beginTransaction()) {
        tx.run("CREATE (:Rolled {n: $n})", Map.of("n", 1L)).consume();
        out.put("seenInside", tx.run("MATCH (n:Rolled) RETURN count(n) AS c").single().get("c").asLong());
        tx.rollback();
      }
      out.put("afterRollback", count(s, "Rolled"));
      try (Transaction tx = s.beginTransaction()) {
        // Closed without commit: rolled back too.
        tx.run("CREATE (:Abandoned)").consume();
      }
      out.put("afterClose", count(s, "Abandoned"));
      try (Transaction tx = s.beginTransaction()) {
        tx.run("CREATE (:Kept)").consume();
        tx.commit();
      }
      out.put("afterCommit", count(s, "Kept"));
    }
    return out;
  }

  // ---- values as parameters ---------------------------------------------------------------

  /** A parameter, the Cypher that must be true of it on the server, and whether to store it. */
  private record Case(String name, Object value, String serverCheck, boolean storable) {}

  private static List<Case> cases() {
    List<Object> list = new ArrayList<>(Arrays.asList(1L, "two", 3.5, true, null, List.of(4L, 5L)));
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("a", 1L);
    map.put("b", "x");
    map.put("nested", Map.of("c", List.of(1L, 2L)));
    map.put("none", null);
    return List.of(
        new Case("null", null, "$v IS NULL", false),
        new Case("true", true, "$v = true", true),
        new Case("false", false, "$v = false", true),
        new Case("long", 42L, "$v = 42", true),
        new Case("negative", -1L, "$v = -1", true),
        new Case("longMax", Long.MAX_VALUE, "$v = 9223372036854775807", true),
        new Case("longMin", Long.MIN_VALUE, "$v = -9223372036854775807 - 1", true),
        new Case("double", 3.141592653589793, "$v = 3.141592653589793", true),
        new Case("doubleNegative", -2.5e-7, "$v = -0.00000025", true),
        new Case(
            "string",
            "h\u00e9llo w\u00f6rld \u2014 \u65e5\u672c\u8a9e \ud83c\udf89 \"quoted\"\n",
            "$v = 'h\u00e9llo w\u00f6rld \u2014 \u65e5\u672c\u8a9e \ud83c\udf89 \"quoted\"\\n'",
            true),
        new Case("emptyString", "", "$v = ''", true),
        new Case("bytes", new byte[] {0, 1, (byte) 0x7f, (byte) 0x80, (byte) 0xff}, null, true),
        new Case(
            "list",
            list,
            "size($v) = 6 AND $v[0] = 1 AND $v[1] = 'two' AND $v[2] = 3.5 AND $v[3] = true"
                + " AND $v[4] IS NULL AND $v[5] = [4, 5]",
            false),
        new Case("longList", List.of(1L, 2L, 3L), "$v = [1, 2, 3]", true),
        new Case("stringList", List.of("a", "\u00df"), "$v = ['a', '\u00df']", true),
        new Case(
            "map",
            map,
            "$v.a = 1 AND $v.b = 'x' AND $v.nested.c = [1, 2] AND $v.none IS NULL"
                + " AND size(keys($v)) = 4",
            false),
        new Case("date", LocalDate.of(2024, 2, 29), "$v = date('2024-02-29')", true),
        new Case(
            "offsetTime",
            OffsetTime.of(8, 15, 30, 123456789, ZoneOffset.ofHoursMinutes(1, 30)),
            "$v = time('08:15:30.123456789+01:30')",
            true),
        new Case(
            "localTime",
            LocalTime.of(23, 59, 59, 999999999),
            "$v = localtime('23:59:59.999999999')",
            true),
        new Case(
            "localDateTime",
            LocalDateTime.of(2024, 6, 1, 12, 0, 0, 1),
            "$v = localdatetime('2024-06-01T12:00:00.000000001')",
            true),
        new Case(
            "offsetDateTime",
            OffsetDateTime.of(2024, 6, 1, 12, 0, 0, 0, ZoneOffset.ofHours(-5)),
            "$v = datetime('2024-06-01T12:00-05:00')",
            true),
        new Case(
            "zonedDateTime",
            ZonedDateTime.of(2024, 1, 15, 8, 0, 0, 123456789, ZoneId.of("Europe/Paris")),
            "$v = datetime('2024-01-15T08:00:00.123456789[Europe/Paris]')"
                + " AND $v.timezone = 'Europe/Paris' AND $v.offsetSeconds = 3600",
            true),
        new Case(
            "zonedDateTimeSummer",
            ZonedDateTime.of(2024, 6, 1, 12, 30, 15, 250000000, ZoneId.of("Europe/Stockholm")),
            "$v = datetime('2024-06-01T12:30:15.25[Europe/Stockholm]')"
                + " AND $v.timezone = 'Europe/Stockholm' AND $v.offsetSeconds = 7200",
            true),
        new Case(
            "duration",
            Values.isoDuration(14, -3, 5, 500).asIsoDuration(),
            "$v = duration({months: 14, days: -3, seconds: 5, nanoseconds: 500})",
            true));
  }

  private static Map<String, Object> values(Driver driver) {
    Map<String, Object> out = new LinkedHashMap<>();
    try (Session s = driver.session()) {
      for (Case c : cases()) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("sent", describe(c.value()));
        try {
          String check = c.serverCheck() == null ? "null" : c.serverCheck();
          Record r = s.run("RETURN $v AS v, " + check + " AS same", Values.parameters("v", c.value())).single();
          Value v = r.get("v");
          Object back = v.asObject();
          entry.put("type", v.type().name());
          entry.put("javaType", back == null ? null : back.getClass().getSimpleName());
          entry.put("received", describe(back));
          entry.put("equal", same(c.value(), as(v, c.value())));
          Value serverSame = r.get("same");
          entry.put("server", serverSame.isNull() ? null : serverSame.asBoolean());
        } catch (Exception e) {
          entry.put("error", e.getClass().getName() + ": " + e.getMessage());
        }
        if (c.storable()) {
          try {
            s.run(
                    "CREATE (:Stored {k: $k, v: $v})",
                    Values.parameters("k", c.name(), "v", c.value()))
                .consume();
            Object stored =
                as(
                    s.run("MATCH (n:Stored) WHERE n.k = $k RETURN n.v AS v", Map.of("k", c.name()))
                        .single()
                        .get("v"),
                    c.value());
            entry.put("storedEqual", same(c.value(), stored));
            if (!same(c.value(), stored)) {
              entry.put("stored", describe(stored));
            }
          } catch (Exception e) {
            entry.put("storedError", e.getClass().getName() + ": " + e.getMessage());
          }
        }
        out.put(c.name(), entry);
      }
    }
    return out;
  }

  /** Values built by the server (not echoed parameters), hydrated by the driver. */
  private static Map<String, Object> built(Driver driver) {
    Map<String, Object> out = new LinkedHashMap<>();
    try (Session s = driver.session()) {
      Record r =
          s.run(
                  "RETURN date('2024-02-29') AS date, time('08:15:30.5+01:30') AS time,"
                      + " localtime('07:00') AS localtime,"
                      + " localdatetime('2024-06-01T12:00:00.000000001') AS localdatetime,"
                      + " datetime('2024-06-01T12:00-05:00') AS offset,"
                      + " datetime('2024-06-01T12:30:15.25[Europe/Stockholm]') AS zoned,"
                      + " datetime('2024-01-15T08:00:00[Europe/Paris]') AS paris,"
                      + " duration('P1M2DT3.5S') AS duration,"
                      + " [1, 'a', null, 2.5] AS list, {k: [true]} AS map")
              .single();
      for (String k : r.keys()) {
        Value v = r.get(k);
        Object o = v.asObject();
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("type", v.type().name());
        entry.put("javaType", o == null ? null : o.getClass().getSimpleName());
        entry.put("value", describe(o));
        out.put(k, entry);
      }
      // A named zone the server built, sent back as a parameter.
      ZonedDateTime zoned = r.get("zoned").asZonedDateTime();
      out.put(
          "zonedEchoed",
          s.run(
                  "RETURN $z = datetime('2024-06-01T12:30:15.25[Europe/Stockholm]') AS same",
                  Map.of("z", zoned))
              .single()
              .get("same")
              .asBoolean());
    }
    return out;
  }

  // ---- nodes, relationships, paths --------------------------------------------------------

  private static Map<String, Object> graph(Driver driver) {
    Map<String, Object> out = new LinkedHashMap<>();
    try (Session s = driver.session()) {
      s.run(
              "CREATE (:Person {name: 'Ada', born: 1815})-[:KNOWS {since: 1833}]->"
                  + "(:Person:Author {name: 'Charles'})<-[:ADMIRES {how: 'much'}]-(:Person {name: 'Mary'})")
          .consume();
      Record r =
          s.run(
                  "MATCH p = (a:Person {name: 'Ada'})-[r:KNOWS]->(b)<-[m:ADMIRES]-(c)"
                      + " RETURN a, r, b, c, m, p, elementId(a) AS ida, elementId(b) AS idb,"
                      + " elementId(r) AS idr")
              .single();
      Node a = r.get("a").asNode();
      Node b = r.get("b").asNode();
      Node c = r.get("c").asNode();
      Relationship rel = r.get("r").asRelationship();
      Relationship admires = r.get("m").asRelationship();
      Path p = r.get("p").asPath();
      Map<String, Node> byId = new LinkedHashMap<>();
      for (Node n : List.of(a, b, c)) {
        byId.put(n.elementId(), n);
      }

      out.put("types", List.of(r.get("a").type().name(), r.get("r").type().name(), r.get("p").type().name()));
      out.put("a", node(a));
      out.put("b", node(b));
      out.put("c", node(c));
      out.put("aElementIdMatches", a.elementId().equals(r.get("ida").asString()));
      out.put("bElementIdMatches", b.elementId().equals(r.get("idb").asString()));
      out.put("distinctElementIds", byId.size() == 3);
      out.put("r", relationship(rel, byId));
      out.put("rElementIdMatches", rel.elementId().equals(r.get("idr").asString()));
      out.put("rStartIsA", rel.startNodeElementId().equals(a.elementId()));
      out.put("rEndIsB", rel.endNodeElementId().equals(b.elementId()));
      out.put("m", relationship(admires, byId));

      Map<String, Object> path = new LinkedHashMap<>();
      path.put("length", (long) p.length());
      path.put("start", p.start().get("name").asString());
      path.put("end", p.end().get("name").asString());
      List<Object> nodes = new ArrayList<>();
      p.nodes().forEach(n -> nodes.add(n.get("name").asString()));
      path.put("nodes", nodes);
      List<Object> segments = new ArrayList<>();
      for (Path.Segment seg : p) {
        Map<String, Object> sg = new LinkedHashMap<>();
        sg.put("start", seg.start().get("name").asString());
        sg.put("end", seg.end().get("name").asString());
        sg.put("relationship", relationship(seg.relationship(), byId));
        segments.add(sg);
      }
      path.put("segments", segments);
      path.put("nodesMatch", p.start().elementId().equals(a.elementId()) && p.end().elementId().equals(c.elementId()));
      out.put("path", path);
    }
    return out;
  }

  private static Map<String, Object> node(Node n) {
    Map<String, Object> out = new LinkedHashMap<>();
    List<String> labels = new ArrayList<>();
    n.labels().forEach(labels::add);
    labels.sort(null);
    out.put("labels", labels);
    out.put("properties", describe(n.asMap()));
    out.put("elementId", n.elementId());
    return out;
  }

  private static Map<String, Object> relationship(Relationship r, Map<String, Node> byId) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("type", r.type());
    out.put("properties", describe(r.asMap()));
    out.put("elementId", r.elementId());
    Node start = byId.get(r.startNodeElementId());
    Node end = byId.get(r.endNodeElementId());
    out.put("start", start == null ? "?" + r.startNodeElementId() : start.get("name").asString());
    out.put("end", end == null ? "?" + r.endNodeElementId() : end.get("name").asString());
    return out;
  }

  // ---- errors -----------------------------------------------------------------------------

  private static Map<String, Object> errors(Driver driver) {
    Map<String, Object> out = new LinkedHashMap<>();
    try (Session s = driver.session()) {
      out.put("syntax", failure(() -> s.run("MATCH (n RETURN n").consume()));
      out.put("usableAfter", s.run("RETURN 1 AS x").single().get("x").asLong());
      out.put("inTransaction", failure(() -> s.executeRead(tx -> tx.run("RETURN 1 +").consume())));
      out.put("usableAfterTransaction", s.run("RETURN 2 AS x").single().get("x").asLong());
    }
    try (Session s = driver.session(SessionConfig.forDatabase("nope"))) {
      out.put("unknownDatabase", failure(() -> s.run("RETURN 1").consume()));
    }
    return out;
  }

  private static Map<String, Object> failure(Runnable action) {
    Map<String, Object> out = new LinkedHashMap<>();
    try {
      action.run();
      out.put("exception", null);
    } catch (ClientException e) {
      out.put("exception", e.getClass().getName());
      out.put("code", e.code());
      out.put("message", e.getMessage());
    }
    return out;
  }

  // ---- the neo4j:// routing scheme --------------------------------------------------------

  private static Map<String, Object> routing(URI uri) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("uri", uri.toString());
    try (Driver driver = GraphDatabase.driver(uri, AUTH, config())) {
      // Reported rather than thrown, so that the routed sessions below are checked either way:
      // with neo4j:// the Java driver verifies by fetching the routing table of 'system'.
      try {
        driver.verifyConnectivity();
        out.put("verified", true);
      } catch (Exception e) {
        out.put("verified", false);
        out.put("verifyError", e.getClass().getName() + ": " + e.getMessage());
      }
      try (Session s = driver.session()) {
        out.put(
            "written",
            s.executeWrite(
                tx -> tx.run("CREATE (r:Routed) RETURN count(r) AS c").single().get("c").asLong()));
        out.put("readCount", s.executeRead(tx -> count(tx, "Routed")));
      }
      EagerResult eager =
          driver
              .executableQuery("MATCH (r:Routed) RETURN count(r) AS c")
              .withConfig(QueryConfig.builder().withRouting(RoutingControl.READ).build())
              .execute();
      out.put("eagerReadCount", eager.records().get(0).get("c").asLong());
    }
    return out;
  }

  // ---- describing values as JSON ----------------------------------------------------------

  /**
   * The value as the sent one's Java type: {@code asObject()}, except that a DateTime with an
   * offset is always hydrated as a ZonedDateTime (its zone a ZoneOffset), so an OffsetDateTime
   * sent comes back through {@code asOffsetDateTime()}.
   */
  private static Object as(Value v, Object sent) {
    return sent instanceof OffsetDateTime ? v.asOffsetDateTime() : v.asObject();
  }

  private static boolean same(Object sent, Object back) {
    return Arrays.deepEquals(new Object[] {sent}, new Object[] {back});
  }

  static Object describe(Object o) {
    if (o == null || o instanceof Boolean || o instanceof Long || o instanceof Double || o instanceof String) {
      return o;
    }
    if (o instanceof byte[] bytes) {
      List<Object> out = new ArrayList<>();
      for (byte b : bytes) {
        out.add((long) (b & 0xff));
      }
      return out;
    }
    if (o instanceof List<?> list) {
      List<Object> out = new ArrayList<>();
      list.forEach(x -> out.add(describe(x)));
      return out;
    }
    if (o instanceof Map<?, ?> map) {
      Map<String, Object> out = new TreeMap<>();
      map.forEach((k, v) -> out.put((String) k, describe(v)));
      return out;
    }
    if (o instanceof IsoDuration d) {
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("months", d.months());
      out.put("days", d.days());
      out.put("seconds", d.seconds());
      out.put("nanoseconds", (long) d.nanoseconds());
      return out;
    }
    if (o instanceof TemporalAccessor) {
      return o.toString();
    }
    return "<" + o.getClass().getName() + "> " + o;
  }

  /** Just enough JSON: maps, lists, strings (ASCII, the rest escaped), numbers, booleans, null. */
  static final class Json {
    private Json() {}

    static String write(Object o) {
      StringBuilder sb = new StringBuilder();
      write(sb, o);
      return sb.toString();
    }

    private static void write(StringBuilder sb, Object o) {
      if (o == null) {
        sb.append("null");
      } else if (o instanceof Boolean || o instanceof Long || o instanceof Integer) {
        sb.append(o);
      } else if (o instanceof Double d) {
        if (d.isNaN() || d.isInfinite()) {
          string(sb, d.toString());
        } else {
          sb.append(d);
        }
      } else if (o instanceof String s) {
        string(sb, s);
      } else if (o instanceof Map<?, ?> m) {
        sb.append('{');
        boolean first = true;
        for (Map.Entry<?, ?> e : m.entrySet()) {
          if (!first) {
            sb.append(',');
          }
          first = false;
          string(sb, String.valueOf(e.getKey()));
          sb.append(':');
          write(sb, e.getValue());
        }
        sb.append('}');
      } else if (o instanceof Iterable<?> it) {
        sb.append('[');
        boolean first = true;
        for (Object x : it) {
          if (!first) {
            sb.append(',');
          }
          first = false;
          write(sb, x);
        }
        sb.append(']');
      } else {
        string(sb, o.toString());
      }
    }

    private static void string(StringBuilder sb, String s) {
      sb.append('"');
      for (int i = 0; i < s.length(); i++) {
        char ch = s.charAt(i);
        if (ch == '"' || ch == '\\') {
          sb.append('\\').append(ch);
        } else if (ch >= 0x20 && ch < 0x7f) {
          sb.append(ch);
        } else {
          sb.append(String.format("\\u%04x", (int) ch));
        }
      }
      sb.append('"');
    }
  }
}
