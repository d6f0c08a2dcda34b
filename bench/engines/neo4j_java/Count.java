// Counts the nodes and relationships of an offline Neo4j database (embedded, read after the
// import, not timed): java -cp CLASSPATH Count.java NEO4J_HOME [DATABASE]
import java.nio.file.Path;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Transaction;
import org.neo4j.graphdb.Result;

public class Count {
    public static void main(String[] args) {
        DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(Path.of(args[0])).build();
        try {
            GraphDatabaseService db = dbms.database(args.length > 1 ? args[1] : "neo4j");
            try (Transaction tx = db.beginTx()) {
                long n = (Long) tx.execute("MATCH (n) RETURN count(n) AS c").next().get("c");
                long e = (Long) tx.execute("MATCH ()-[r]->() RETURN count(r) AS c").next().get("c");
                System.out.println("{\"nodes\": " + n + ", \"edges\": " + e + "}");
            }
        } finally {
            dbms.shutdown();
        }
    }
}
