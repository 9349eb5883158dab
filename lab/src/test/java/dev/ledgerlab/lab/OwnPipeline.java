package dev.ledgerlab.lab;

import static org.awaitility.Awaitility.await;

import dev.ledgerlab.testkit.PipelineNames;
import dev.ledgerlab.testkit.TestInfrastructure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * A pipeline of a test class's own ({@link PipelineNames}) in this JVM's PostgreSQL and Kafka, run as the lab's
 * services. Its slot is dropped at the end: an abandoned slot holds WAL for as long as the server lives, and a test
 * that makes the server's WAL go (the lost slot) would leave it lost for whoever used it next.
 */
final class OwnPipeline {

    private final PipelineNames names;
    private final LabServices.Infrastructure infrastructure;
    private final List<String> arguments;
    private final JdbcClient admin;

    private OwnPipeline(PipelineNames names, LabServices.Infrastructure infrastructure, List<String> arguments) {
        this.names = names;
        this.infrastructure = infrastructure;
        this.arguments = arguments;
        this.admin = JdbcClient.create(new DriverManagerDataSource(infrastructure.jdbcUrl(),
                infrastructure.username(), infrastructure.password()));
    }

    /** Creates the database {@code name}; the services create the rest as they start. */
    static OwnPipeline create(String name, String... more) {
        var names = new PipelineNames(name);
        var database = names.createDatabase(TestInfrastructure.get());
        var infrastructure = new LabServices.Infrastructure(database.jdbcUrl(), database.username(),
                database.password(), database.bootstrapServers());
        var arguments = new ArrayList<>(names.arguments());
        arguments.addAll(List.of(more));
        return new OwnPipeline(names, infrastructure, List.copyOf(arguments));
    }

    String name() {
        return names.name();
    }

    String topic() {
        return names.topic();
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
                "SELECT count(*) FROM pg_replication_slots WHERE slot_name = ? AND active").param(name())
                .query(Long.class).single() == 0);
        admin.sql("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = ?")
                .param(name()).query().listOfRows();
    }
}
