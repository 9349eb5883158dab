package dev.ledgerlab.relay;

import java.time.Duration;
import java.util.regex.Pattern;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code relay.*} settings. Slot, publication and offsets table names end up inside SQL that Debezium and the
 * heartbeat run, so they are checked here against PostgreSQL's plain identifier rules rather than quoted.
 *
 * @param topic the Kafka topic every event goes to
 * @param partitions the topic's partition count; fixed, because changing it moves accounts between partitions
 * @param replicationFactor the topic's replication factor when the relay creates it, with the
 *     {@code min.insync.replicas} and unclean-election setting {@link dev.ledgerlab.events.Replication} gives it
 * @param slotName the logical replication slot; also names the advisory lock, the heartbeat row and the engine
 * @param publicationName the publication limited to the outbox and heartbeat tables
 * @param heartbeatInterval how often Debezium writes a heartbeat row so that an idle slot still advances; 0 turns it off
 * @param offsetFlushInterval how often acknowledged positions are stored: what a crash may publish twice
 * @param standbyPollInterval how often a standby tries the lock, and the active relay checks its lock connection
 * @param offsetsTable the table of Debezium's JDBC offset store (one per relay deployment)
 * @param restartBackoff the first wait before restarting a failed engine; it doubles up to {@code restartBackoffMax}
 * @param restartBackoffMax the longest wait between engine restarts
 * @param linger how long the producer waits to fill a batch; 0 sends at once, and records a Debezium batch hands over
 *     together still travel together while an earlier request is in flight
 * @param pollInterval how long Debezium waits for more changes: its streaming thread sleeps this long when the slot
 *     has nothing new, and a batch it hands over waits this long to fill unless it fills first; twice on every
 *     event's way to Kafka when traffic is light. Shorter costs CPU even when idle: Debezium 3.6's queue waits in
 *     whole milliseconds and spins through the rest of each interval, so its thread took 15 % of a core at 5 ms,
 *     30 % at 2 ms and about half a core at 1 ms
 * @param deliveryTimeout how long Kafka may take to acknowledge a batch, retries included, before it counts as failed
 *     and the engine restarts: the relay's own deadline (OutboxPublisher), since its producer never expires a send
 *     itself (OutboxProducer); also how long a send may block waiting for metadata
 */
@ConfigurationProperties("relay")
public record RelayProperties(
        @DefaultValue(RelayProperties.DEFAULT_TOPIC) String topic,
        @DefaultValue("6") int partitions,
        @DefaultValue("1") short replicationFactor,
        @DefaultValue("ledger_outbox") String slotName,
        @DefaultValue("ledger_outbox") String publicationName,
        @DefaultValue("10s") Duration heartbeatInterval,
        @DefaultValue("1s") Duration offsetFlushInterval,
        @DefaultValue("1s") Duration standbyPollInterval,
        @DefaultValue("ledger.relay_offsets") String offsetsTable,
        @DefaultValue("1s") Duration restartBackoff,
        @DefaultValue("30s") Duration restartBackoffMax,
        @DefaultValue("0ms") Duration linger,
        @DefaultValue(RelayProperties.DEFAULT_POLL_INTERVAL_MS + "ms") Duration pollInterval,
        @DefaultValue("2m") Duration deliveryTimeout) {

    /** {@code relay.topic} unless set; the benchmark counts and watches what the relay publishes there. */
    public static final String DEFAULT_TOPIC = "accounts.events";

    /** {@code relay.poll-interval} unless set, in milliseconds; the benchmark's bare engine uses the same. */
    public static final String DEFAULT_POLL_INTERVAL_MS = "5";

    private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
    private static final Pattern QUALIFIED_TABLE = Pattern.compile("[a-z_][a-z0-9_]{0,62}\\.[a-z_][a-z0-9_]{0,62}");

    public RelayProperties {
        require(topic != null && !topic.isBlank(), "relay.topic must not be blank");
        require(partitions >= 1, "relay.partitions must be at least 1, not " + partitions);
        require(replicationFactor >= 1, "relay.replication-factor must be at least 1, not " + replicationFactor);
        require(slotName != null && IDENTIFIER.matcher(slotName).matches(),
                "relay.slot-name must be lower-case letters, digits and underscores, not '" + slotName + "'");
        require(publicationName != null && IDENTIFIER.matcher(publicationName).matches(),
                "relay.publication-name must be lower-case letters, digits and underscores, not '" + publicationName + "'");
        require(offsetsTable != null && QUALIFIED_TABLE.matcher(offsetsTable).matches(),
                "relay.offsets-table must be schema.table in lower case, not '" + offsetsTable + "'");
        require(!heartbeatInterval.isNegative(), "relay.heartbeat-interval must not be negative");
        require(positive(offsetFlushInterval), "relay.offset-flush-interval must be positive");
        require(positive(standbyPollInterval), "relay.standby-poll-interval must be positive");
        require(positive(restartBackoff) && restartBackoffMax.compareTo(restartBackoff) >= 0,
                "relay.restart-backoff must be positive and at most relay.restart-backoff-max");
        require(!linger.isNegative(), "relay.linger must not be negative");
        // Debezium takes whole milliseconds: 500us would become 0, a poll loop that never waits.
        require(pollInterval.toMillis() >= 1, "relay.poll-interval must be at least 1ms, not " + pollInterval);
        require(deliveryTimeout.compareTo(linger.plusSeconds(1)) >= 0,
                "relay.delivery-timeout must be at least relay.linger plus one second");
    }

    // Duration.isPositive() arrived in Java 18; this module targets 17.
    private static boolean positive(Duration duration) {
        return !duration.isNegative() && !duration.isZero();
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
