package dev.ledgerlab.infra;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * Runs an {@link EmbeddedStack} until the JVM is stopped, printing {@code READY pg=<port> kafka=<port>} once both
 * servers serve clients.
 *
 * <p>Configured by system properties: {@code ledgerlab.stack.dir} (or the first argument), {@code ledgerlab.stack.pg-port},
 * {@code ledgerlab.stack.kafka-port}, {@code ledgerlab.stack.controller-port}, {@code ledgerlab.stack.fresh}, and
 * {@code ledgerlab.stack.pg.<setting>=<value>} for PostgreSQL server settings.
 */
public final class EmbeddedStackMain {

    private static final String PREFIX = "ledgerlab.stack.";
    private static final String POSTGRES_SETTING = PREFIX + "pg.";

    private EmbeddedStackMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        EmbeddedStack.Settings settings = settings(args);
        EmbeddedStack stack = EmbeddedStack.start(settings);
        Runtime.getRuntime().addShutdownHook(new Thread(stack::close, "embedded-stack-shutdown"));
        System.out.println("READY pg=" + settings.postgresPort() + " kafka=" + settings.kafkaPort());
        System.out.flush();
        new CountDownLatch(1).await();
    }

    static EmbeddedStack.Settings settings(String[] args) {
        String directory = args.length > 0 ? args[0] : System.getProperty(PREFIX + "dir", "ledger-lab-data");
        EmbeddedStack.Settings settings = EmbeddedStack.Settings.under(Path.of(directory))
                .withPostgresPort(Integer.getInteger(PREFIX + "pg-port", EmbeddedStack.Settings.DEFAULT_POSTGRES_PORT))
                .withKafkaPort(Integer.getInteger(PREFIX + "kafka-port", EmbeddedStack.Settings.DEFAULT_KAFKA_PORT))
                .withControllerPort(Integer.getInteger(PREFIX + "controller-port",
                        EmbeddedStack.Settings.DEFAULT_CONTROLLER_PORT))
                .withFresh(Boolean.getBoolean(PREFIX + "fresh"));
        for (String name : System.getProperties().stringPropertyNames()) {
            if (name.startsWith(POSTGRES_SETTING)) {
                settings = settings.withPostgresSetting(name.substring(POSTGRES_SETTING.length()), System.getProperty(name));
            }
        }
        return settings;
    }
}
