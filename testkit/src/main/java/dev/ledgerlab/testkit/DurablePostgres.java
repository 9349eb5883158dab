package dev.ledgerlab.testkit;

import dev.ledgerlab.infra.EmbeddedPostgres;
import dev.ledgerlab.infra.EmbeddedStack;
import java.nio.file.Path;
import java.util.Map;

/**
 * A PostgreSQL server of its own, with {@code fsync} and {@code synchronous_commit} on as the lab runs it, for the
 * proofs that kill it: only there does "answered 200" mean "survives a crash". Always the embedded server (its
 * postmaster is a process of this machine that can be sent SIGKILL), beside whatever {@link TestInfrastructure} chose;
 * it shares that infrastructure's Kafka.
 */
public final class DurablePostgres {

    private static DurablePostgres instance;

    private final EmbeddedPostgres server;
    private final Infrastructure infrastructure;

    private DurablePostgres(EmbeddedPostgres server, Infrastructure infrastructure) {
        this.server = server;
        this.infrastructure = infrastructure;
    }

    /** Started on first use, once per test JVM, stopped when the JVM exits. */
    public static synchronized DurablePostgres get() {
        if (instance == null) {
            var kafka = TestInfrastructure.get().bootstrapServers();
            Path base = EmbeddedInfrastructure.newRunDirectory("durable");
            var server = EmbeddedPostgres.start(base.resolve("postgres"), EmbeddedStack.freePort(),
                    Map.of("fsync", "on", "synchronous_commit", "on"));
            Runtime.getRuntime().addShutdownHook(new Thread(server::close, "durable-postgres-shutdown"));
            instance = new DurablePostgres(server,
                    new Infrastructure(server.jdbcUrl(), server.username(), server.password(), kafka));
            System.out.printf("Ledger Lab durable PostgreSQL (fsync and synchronous_commit on): %s, pid %d%n",
                    server.jdbcUrl(), server.pid());
        }
        return instance;
    }

    public Infrastructure infrastructure() {
        return infrastructure;
    }

    /** SIGKILL of the postmaster; returns once every server process is gone. */
    public void kill() {
        server.kill();
    }

    /** Starts the server again on its data (crash recovery), same port. */
    public void restart() {
        server.restart();
    }

    public long pid() {
        return server.pid();
    }
}
