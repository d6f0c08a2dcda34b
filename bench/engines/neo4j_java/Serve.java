// Neo4j Community, embedded, serving Bolt on 127.0.0.1 for the deep-query benchmark (bench/deep).
//   java -cp CLASSPATH Serve.java NEO4J_HOME PORT
// Opens the DBMS over the home that `neo4j-admin database import` filled (bench/import's adapter),
// enables the Bolt connector on 127.0.0.1:PORT without TLS or authentication (loopback only),
// prints READY once the default database is available, and shuts down when its standard input
// closes (the Python side holds the pipe) or on SIGTERM.
import java.nio.file.Path;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;

public class Serve {
    public static void main(String[] args) throws Exception {
        Path home = Path.of(args[0]);
        int port = Integer.parseInt(args[1]);
        DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(home)
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                .setConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
                .setConfig(GraphDatabaseSettings.auth_enabled, false)
                .build();
        Runtime.getRuntime().addShutdownHook(new Thread(dbms::shutdown));
        GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
        while (!db.isAvailable(1000)) {
            // wait for recovery / start-up
        }
        System.out.println("READY " + port);
        System.out.flush();
        while (System.in.read() != -1) {
            // hold until the parent closes the pipe
        }
        System.exit(0); // runs the shutdown hook
    }
}
