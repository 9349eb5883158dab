package dev.ledgerlab.events;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How many copies of the event log Kafka keeps, and how many of them must hold a record before the producer is told
 * it is written: the one place that decides the durability settings of {@code accounts.events}, of its dead-letter
 * topic, and of the brokers' own topics (consumer offsets, transaction state). The relay and the projector apply
 * {@link #topicConfigs()} to the topics they create, the embedded brokers run with {@link #brokerConfigs()}, and the
 * docker-compose file is checked against both.
 *
 * <p>With three replicas a write needs two ({@code min.insync.replicas=2} with the relay's {@code acks=all}): any one
 * broker may be down while writes go on, and a write acknowledged before a broker died is on a broker that is still
 * alive. Unclean leader election stays off: a replica that had fallen behind never becomes leader, so an acknowledged
 * record is never truncated away; a partition whose in-sync replicas are all gone waits for one of them instead.
 *
 * @param replicas copies of each partition, one per broker
 */
public record Replication(int replicas) {

    /** One broker: the embedded lab's default, no failure tolerated. */
    public static final Replication SINGLE = new Replication(1);

    public Replication {
        if (replicas < 1) {
            throw new IllegalArgumentException("a topic needs at least one replica, not " + replicas);
        }
    }

    public static Replication of(int replicas) {
        return replicas == 1 ? SINGLE : new Replication(replicas);
    }

    /** Kafka's type for a replication factor. */
    public short factor() {
        return (short) replicas;
    }

    /**
     * A majority of the copies: 1 of 1, 2 of 3, 3 of 5. A write acknowledged by a majority survives the loss of any
     * minority of the brokers.
     */
    public int minInSyncReplicas() {
        return replicas / 2 + 1;
    }

    /** What every topic of the pipeline is created with, besides its own settings (partitions, retention). */
    public Map<String, String> topicConfigs() {
        var configs = new LinkedHashMap<String, String>();
        configs.put("min.insync.replicas", Integer.toString(minInSyncReplicas()));
        configs.put("unclean.leader.election.enable", "false");
        return Map.copyOf(configs);
    }

    /**
     * Broker settings for a cluster of {@link #replicas()} brokers: the defaults of topics created without settings
     * and the replication of Kafka's internal topics, which brokers create for themselves on first use.
     */
    public Map<String, String> brokerConfigs() {
        var configs = new LinkedHashMap<String, String>();
        configs.put("default.replication.factor", Integer.toString(replicas));
        configs.put("min.insync.replicas", Integer.toString(minInSyncReplicas()));
        configs.put("unclean.leader.election.enable", "false");
        configs.put("offsets.topic.replication.factor", Integer.toString(replicas));
        configs.put("transaction.state.log.replication.factor", Integer.toString(replicas));
        configs.put("transaction.state.log.min.isr", Integer.toString(minInSyncReplicas()));
        configs.put("share.coordinator.state.topic.replication.factor", Integer.toString(replicas));
        configs.put("share.coordinator.state.topic.min.isr", Integer.toString(minInSyncReplicas()));
        return Map.copyOf(configs);
    }
}
