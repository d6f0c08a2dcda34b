// The reference Neo4j of the differential tests: Neo4j Community 5.26, embedded, with APOC core,
// serving Bolt on 127.0.0.1 (python/tests/neo4j_reference.py starts it).
//
//   java -cp CLASSPATH Neo4jTestServer.java NEO4J_HOME PORT PLUGIN_DIR
//
// CLASSPATH is what python/tests/neo4j_server/pom.xml resolves (Neo4j, apoc-common, apoc-core):
// apoc-common's extension factories (ApocConfig, the pools) are found on the classpath by
// ServiceLoader, as the server's launcher puts plugins/ on its classpath. PLUGIN_DIR holds the
// APOC jars: Neo4j compiles and registers the @Procedure / @UserFunction classes of the jars in
// its plugin directory, so every APOC core procedure is there as in a server with the plugin
// installed, `apoc.*` unrestricted (dbms.security.procedures.unrestricted=apoc.*).
//
// The database is whatever NEO4J_HOME holds (a fresh directory gives an empty `neo4j`
// database). Bolt without TLS or authentication, loopback only; a small page cache. Prints
// "READY PORT" once the default database is available and every APOC procedure the tests call is
// registered (else "FAILED ..." and exits 1). Exits at once when its standard input closes (the
// Python side holds the pipe): the database is a throwaway; SIGTERM shuts it down cleanly.
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;
import org.neo4j.io.ByteUnit;

public class Neo4jTestServer {
    static final List<String> NEEDED = List.of(
            "apoc.path.subgraphAll", "apoc.merge.node", "apoc.merge.relationship", "apoc.create.addLabels",
            "apoc.meta.data", "apoc.schema.nodes");

    public static void main(String[] args) throws Exception {
        Path home = Path.of(args[0]);
        int port = Integer.parseInt(args[1]);
        Path plugins = Path.of(args[2]);
        DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(home)
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                .setConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
                .setConfig(HttpConnector.enabled, false)
                .setConfig(HttpsConnector.enabled, false)
                .setConfig(GraphDatabaseSettings.auth_enabled, false)
                .setConfig(GraphDatabaseSettings.plugin_dir, plugins)
                .setConfig(GraphDatabaseSettings.procedure_unrestricted, List.of("apoc.*"))
                .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(64))
                .build();
        Runtime.getRuntime().addShutdownHook(new Thread(dbms::shutdown));
        GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
        while (!db.isAvailable(1000)) {
            // wait for start-up
        }
        Set<String> have = new TreeSet<>();
        try (Transaction tx = db.beginTx();
                Result r = tx.execute("SHOW PROCEDURES YIELD name WHERE name STARTS WITH 'apoc.' RETURN name")) {
            while (r.hasNext()) {
                have.add((String) r.next().get("name"));
            }
        }
        List<String> missing = NEEDED.stream().filter(p -> !have.contains(p)).toList();
        if (!missing.isEmpty()) {
            System.out.println("FAILED APOC procedures missing: " + missing + " (registered: " + have.size() + ")");
            System.out.flush();
            System.exit(1);
        }
        System.out.println("READY " + port + " apoc-procedures=" + have.size());
        System.out.flush();
        while (System.in.read() != -1) {
            // hold until the parent closes the pipe
        }
        // The database is a throwaway (a fresh home per test run): no clean shutdown, which
        // takes about 10 s (checkpoint, index files), nothing to keep.
        Runtime.getRuntime().halt(0);
    }
}
