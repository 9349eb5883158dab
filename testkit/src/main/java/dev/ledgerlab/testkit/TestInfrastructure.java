package dev.ledgerlab.testkit;

import java.util.Locale;
import org.testcontainers.DockerClientFactory;

/**
 * The one place where integration tests get their PostgreSQL and Kafka: started on first use, shared by every test in
 * the JVM, stopped when the JVM exits.
 *
 * <p>The system property {@value #PROPERTY} chooses: {@code embedded}, {@code containers}, or {@code auto} (the
 * default), which takes containers when a Docker engine answers and the embedded stack otherwise.
 */
public final class TestInfrastructure {

    public static final String PROPERTY = "ledgerlab.test.infra";

    private static Infrastructure infrastructure;

    private TestInfrastructure() {
    }

    public static synchronized Infrastructure get() {
        if (infrastructure == null) {
            long started = System.nanoTime();
            Choice choice = choose(System.getProperty(PROPERTY, "auto"));
            RunningInfrastructure running = choice.containers() ? ContainerInfrastructure.start()
                    : EmbeddedInfrastructure.start();
            Runtime.getRuntime().addShutdownHook(new Thread(running::close, "test-infrastructure-shutdown"));
            infrastructure = running.infrastructure();
            System.out.printf("Ledger Lab test infrastructure: %s (%s), up in %d ms: %s%n",
                    choice.containers() ? "containers" : "embedded", choice.reason(),
                    (System.nanoTime() - started) / 1_000_000, running.description());
        }
        return infrastructure;
    }

    static Choice choose(String requested) {
        return switch (requested.trim().toLowerCase(Locale.ROOT)) {
            case "embedded" -> new Choice(false, PROPERTY + "=embedded");
            case "containers" -> new Choice(true, PROPERTY + "=containers");
            case "auto" -> DockerClientFactory.instance().isDockerAvailable()
                    ? new Choice(true, PROPERTY + "=auto and a Docker engine answers")
                    : new Choice(false, PROPERTY + "=auto and no Docker engine answers");
            default -> throw new IllegalArgumentException(
                    PROPERTY + " must be embedded, containers or auto, not '" + requested + "'");
        };
    }

    record Choice(boolean containers, String reason) {
    }
}
