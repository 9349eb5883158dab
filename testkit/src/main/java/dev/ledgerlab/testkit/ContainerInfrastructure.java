package dev.ledgerlab.testkit;

import dev.ledgerlab.infra.PostgresServerSettings;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * The official PostgreSQL 17 and Apache Kafka images, with the same server settings as the embedded server.
 */
final class ContainerInfrastructure implements RunningInfrastructure {

    static final String POSTGRES_IMAGE = "postgres:17";
    static final String KAFKA_IMAGE = "apache/kafka:4.1.2";

    private final PostgreSQLContainer postgres;
    private final KafkaContainer kafka;

    private ContainerInfrastructure(PostgreSQLContainer postgres, KafkaContainer kafka) {
        this.postgres = postgres;
        this.kafka = kafka;
    }

    static ContainerInfrastructure start() {
        Map<String, String> settings = new LinkedHashMap<>(PostgresServerSettings.fromClasspath());
        settings.putIfAbsent("fsync", "off");
        settings.putIfAbsent("synchronous_commit", "off");
        List<String> command = new ArrayList<>(List.of("postgres"));
        command.addAll(List.of(PostgresServerSettings.asCommandLine(settings)));

        PostgreSQLContainer postgres = new PostgreSQLContainer(POSTGRES_IMAGE)
                .withDatabaseName("ledger")
                .withCommand(command.toArray(String[]::new));
        KafkaContainer kafka = new KafkaContainer(KAFKA_IMAGE);
        postgres.start();
        try {
            kafka.start();
        }
        catch (RuntimeException e) {
            postgres.stop();
            throw e;
        }
        return new ContainerInfrastructure(postgres, kafka);
    }

    @Override
    public Infrastructure infrastructure() {
        return new Infrastructure(postgres.getJdbcUrl(), postgres.getUsername(), postgres.getPassword(),
                kafka.getBootstrapServers());
    }

    @Override
    public String description() {
        return POSTGRES_IMAGE + " at " + postgres.getJdbcUrl() + ", " + KAFKA_IMAGE + " at " + kafka.getBootstrapServers();
    }

    @Override
    public void close() {
        try {
            kafka.stop();
        }
        finally {
            postgres.stop();
        }
    }
}
