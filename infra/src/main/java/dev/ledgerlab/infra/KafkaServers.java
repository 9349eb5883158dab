package dev.ledgerlab.infra;

import java.util.List;

/** The Kafka of an embedded stack: one broker in this JVM, or a cluster of node processes. */
public interface KafkaServers extends AutoCloseable {

    /** What clients put in {@code bootstrap.servers}: every node, comma-separated. */
    String bootstrapServers();

    /** One line per node, for a banner: its id, address, and where it runs. */
    List<String> describeNodes();

    /** Stops every node cleanly, so the next start needs no log recovery. */
    @Override
    void close();
}
