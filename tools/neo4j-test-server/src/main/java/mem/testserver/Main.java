package mem.testserver;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.ConnectorPortRegister;
import org.neo4j.configuration.connectors.ConnectorType;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.kernel.internal.GraphDatabaseAPI;

/**
 * A Neo4j Community DBMS, embedded, for @mem/graph-neo4j's integration tests (issue #14).
 *
 * <p>Bolt listens on 127.0.0.1 only (port 0 = a free port chosen by the OS, or --port N); auth is
 * on with user {@code neo4j} and the password in the environment variable MEM_NEO4J_TEST_PASSWORD
 * when it is set, off otherwise; data lives in --data DIR (default: a new temporary folder, deleted on exit). Prints exactly
 * one line {@code READY bolt://127.0.0.1:PORT neo4j=VERSION data=DIR} on stdout once the default
 * database accepts Bolt, then waits. SIGTERM (or SIGINT) runs the shutdown hook: a clean DBMS
 * shutdown, then the temporary folder (never a --data folder) is deleted. With --exit-on-stdin-eof
 * the same happens when stdin closes (the parent process died), so no orphan server is left.
 */
public final class Main {
  public static void main(String[] args) {
    try {
      run(args);
    } catch (Throwable e) {
      e.printStackTrace();
      System.exit(1); // runs the shutdown hook: the DBMS's own threads would keep the JVM alive
    }
  }

  private static void run(String[] args) throws Exception {
    int port = 0;
    boolean exitOnEof = false;
    Path data = null;
    String password = System.getenv("MEM_NEO4J_TEST_PASSWORD"); // never on the command line (ps shows it)
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--port" -> port = Integer.parseInt(args[++i]);
        case "--data" -> data = Path.of(args[++i]);
        case "--exit-on-stdin-eof" -> exitOnEof = true;
        default -> {
          System.err.println("usage: Main [--port N] [--data DIR] [--exit-on-stdin-eof]");
          System.exit(2);
        }
      }
    }
    final boolean temporary = data == null;
    final Path home = temporary ? Files.createTempDirectory("mem-neo4j-") : data.toAbsolutePath();
    Files.createDirectories(home);

    final DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(home)
        .setConfig(BoltConnector.enabled, true)
        .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
        .setConfig(BoltConnector.advertised_address, new SocketAddress("127.0.0.1", port))
        .setConfig(GraphDatabaseSettings.auth_enabled, password != null && !password.isEmpty())
        .setConfig(GraphDatabaseSettings.pagecache_memory, 64L * 1024 * 1024)
        .setConfig(GraphDatabaseSettings.keep_logical_logs, "false")
        .build();

    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        dbms.shutdown();
      } catch (RuntimeException e) {
        System.err.println("shutdown failed: " + e);
      }
      if (temporary) deleteTree(home);
    }, "neo4j-test-server-shutdown"));

    if (password != null && !password.isEmpty()) {
      // the embedded API runs with full rights: set the built-in user's password (idempotent on a reused --data folder)
      try {
        dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME).executeTransactionally(
            "ALTER USER neo4j SET PASSWORD $p CHANGE NOT REQUIRED", java.util.Map.of("p", password));
      } catch (RuntimeException e) {
        // a restart on the same --data folder with the same password: nothing to change
        if (!String.valueOf(e.getMessage()).contains("cannot be the same") && !String.valueOf(e.getCause()).contains("cannot be the same")) throw e;
      }
    }
    GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
    ConnectorPortRegister ports = ((GraphDatabaseAPI) db).getDependencyResolver().resolveDependency(ConnectorPortRegister.class);
    int bound = ports.getLocalAddress(ConnectorType.BOLT).getPort();
    String version = org.neo4j.kernel.internal.Version.getNeo4jVersion();
    System.out.println("READY bolt://127.0.0.1:" + bound + " neo4j=" + version + " java=" + System.getProperty("java.version") + " data=" + home);
    System.out.flush();
    if (exitOnEof) {
      // the parent (a test run) holds our stdin: when it dies, stdin closes and we shut down too
      while (System.in.read() != -1) {
        // ignore input
      }
      System.exit(0);
    }
    Thread.currentThread().join(); // until SIGTERM
  }

  private static void deleteTree(Path root) {
    try (Stream<Path> walk = Files.walk(root)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      System.err.println("could not delete " + root + ": " + e);
    }
  }
}
