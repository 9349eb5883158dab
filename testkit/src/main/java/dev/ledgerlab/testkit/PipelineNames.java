package dev.ledgerlab.testkit;

import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The names of a pipeline of its own on a shared PostgreSQL server and Kafka: a database, a replication slot and
 * publication, a topic and its dead-letter topic, consumer groups, all named after it. A test that runs one sees no
 * other test's events or counts, and leaves no state another test could trip on.
 *
 * @param name lower case, digits and underscores (it names a database and a slot)
 */
public record PipelineNames(String name) {

    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]{0,40}");

    public PipelineNames {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("a pipeline name is lower case, digits and underscores: " + name);
        }
    }

    public String topic() {
        return name + ".events";
    }

    public String deadLetterTopic() {
        return name + ".events.dlt";
    }

    /** The live consumer group of its projectors. */
    public String group() {
        return name;
    }

    /** The services' settings that give them these names. */
    public List<String> arguments() {
        return List.of(
                "--relay.topic=" + topic(),
                "--relay.slot-name=" + name,
                "--relay.publication-name=" + name,
                "--projector.topic=" + topic(),
                "--projector.dead-letter-topic=" + deadLetterTopic(),
                "--projector.group-id=" + group(),
                "--projector.replay.rebuild-group-id=" + group() + "-rebuild");
    }

    /** Creates its database on the server; the same server and Kafka, pointed at that database. */
    public Infrastructure createDatabase(Infrastructure server) {
        try (var connection = DriverManager.getConnection(server.jdbcUrl(), server.username(), server.password());
                var statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + name, e);
        }
        return new Infrastructure(server.jdbcUrl().replaceFirst("/[^/?]+(\\?|$)", "/" + name + "$1"),
                server.username(), server.password(), server.bootstrapServers());
    }
}
