package dev.ledgerlab.lab;

import static org.awaitility.Awaitility.await;

import dev.ledgerlab.testkit.TestInfrastructure;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * A pipeline of a test class's own in this JVM's PostgreSQL and Kafka: database, slot, publication, topics and
 * consumer groups all named after it, so that its lab shares no state with another test's. Its slot is dropped at the
 * end: an abandoned slot holds WAL for as long as the server lives, and a test that makes the server's WAL go (the
 * lost slot) would leave it lost for whoever used it next.
 */
final class OwnPipeline {

    private final String name;
    private final LabServices.Infrastructure infrastructure;
    private final List<String> arguments;
    private final JdbcClient admin;

    private OwnPipeline(String name, LabServices.Infrastructure infrastructure, List<String> arguments) {
        this.name = name;
        this.infrastructure = infrastructure;
        this.arguments = arguments;
        this.admin = JdbcClient.create(new DriverManagerDataSource(infrastructure.jdbcUrl(),
                infrastructure.username(), infrastructure.password()));
    }

    /** Creates the database {@code name}; the services create the rest as they start. */
    static OwnPipeline create(String name, String... more) throws SQLException {
        var infra = TestInfrastructure.get();
        try (var server = DriverManager.getConnection(infra.jdbcUrl(), infra.username(), infra.password());
                var statement = server.createStatement()) {
            statement.execute("CREATE DATABASE " + name);
        }
        var infrastructure = new LabServices.Infrastructure(
                infra.jdbcUrl().replaceFirst("/[^/?]+(\\?|$)", "/" + name + "$1"), infra.username(),
                infra.password(), infra.bootstrapServers());
        var topic = topic(name);
        var arguments = new ArrayList<>(List.of("--relay.slot-name=" + name, "--relay.publication-name=" + name,
                "--relay.topic=" + topic, "--projector.topic=" + topic, "--projector.dead-letter-topic=" + topic + ".dlt",
                "--projector.group-id=" + name, "--projector.replay.rebuild-group-id=" + name + "-rebuild"));
        arguments.addAll(List.of(more));
        return new OwnPipeline(name, infrastructure, List.copyOf(arguments));
    }

    static String topic(String name) {
        return name + ".events";
    }

    String name() {
        return name;
    }

    String topic() {
        return topic(name);
    }

    LabServices.Infrastructure infrastructure() {
        return infrastructure;
    }

    /** What each of its services is started with: its names, and what {@link #create} was given. */
    List<String> arguments() {
        return arguments;
    }

    /** The admin user on its database. */
    JdbcClient admin() {
        return admin;
    }

    LabServices start() {
        return LabServices.start(infrastructure, new LabServices.Ports(0, 0, 0), arguments);
    }

    /** Once its relays are stopped: waits for the slot to be released, then drops it. */
    void dropSlot() {
        await().atMost(Duration.ofSeconds(30)).until(() -> admin.sql(
                "SELECT count(*) FROM pg_replication_slots WHERE slot_name = ? AND active").param(name)
                .query(Long.class).single() == 0);
        admin.sql("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = ?")
                .param(name).query().listOfRows();
    }
}
