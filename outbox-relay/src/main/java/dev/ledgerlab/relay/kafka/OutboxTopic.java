package dev.ledgerlab.relay.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.retry.RetryException;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryTemplate;

/**
 * The topic the relay publishes to. Created by the relay, not by broker auto-creation, because its partition count
 * decides which partition each account lands in ({@code murmur2(key) % partitions}) and must never change; and it
 * keeps everything ({@code retention.ms=-1}, {@code retention.bytes=-1}) because the log is what a replay reads.
 */
public final class OutboxTopic {

    private static final Logger log = LoggerFactory.getLogger(OutboxTopic.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    static final Map<String, String> UNLIMITED_RETENTION = Map.of(
            TopicConfig.RETENTION_MS_CONFIG, "-1",
            TopicConfig.RETENTION_BYTES_CONFIG, "-1");

    private final String bootstrapServers;
    private final String name;
    private final int partitions;
    private final short replicationFactor;

    public OutboxTopic(String bootstrapServers, String name, int partitions, short replicationFactor) {
        this.bootstrapServers = bootstrapServers;
        this.name = name;
        this.partitions = partitions;
        this.replicationFactor = replicationFactor;
    }

    /**
     * Creates the topic if it is missing and verifies it either way.
     *
     * @throws IllegalStateException when the topic exists with another partition count, or Kafka does not answer
     */
    public void ensureExists() {
        try (Admin admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                AdminClientConfig.CLIENT_ID_CONFIG, "outbox-relay-admin"))) {
            var existing = describe(admin);
            var description = existing.isPresent() ? existing.get() : createAndDescribe(admin);
            verifyPartitions(description);
            warnAboutRetention(admin);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while checking topic " + name, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot create or describe topic " + name + " on " + bootstrapServers, e);
        }
    }

    /**
     * Creates the topic, then describes it. The controller acknowledges the creation before every broker's metadata
     * has it, so a describe right after may still answer "unknown topic" (seen in the lab's tests): it is retried.
     */
    private TopicDescription createAndDescribe(Admin admin)
            throws InterruptedException, ExecutionException, TimeoutException {
        create(admin);
        var retry = new RetryTemplate(RetryPolicy.builder().includes(NotVisibleYet.class)
                .delay(Duration.ofMillis(50)).maxDelay(Duration.ofSeconds(1)).multiplier(2)
                .maxRetries(Long.MAX_VALUE).timeout(TIMEOUT).build());
        try {
            return retry.execute(() -> describe(admin).orElseThrow(NotVisibleYet::new));
        } catch (RetryException e) {
            throw new IllegalStateException("topic " + name + " was created but cannot be described", e.getCause());
        }
    }

    /** The topic is created but this broker's metadata does not show it yet. */
    private static final class NotVisibleYet extends RuntimeException {
        NotVisibleYet() {
            super("created topic not visible yet", null, false, false);
        }
    }

    private Optional<TopicDescription> describe(Admin admin)
            throws InterruptedException, ExecutionException, TimeoutException {
        try {
            return Optional.of(admin.describeTopics(List.of(name)).allTopicNames()
                    .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).get(name));
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return Optional.empty();
            }
            throw e;
        }
    }

    private void create(Admin admin) throws InterruptedException, ExecutionException, TimeoutException {
        var topic = new NewTopic(name, partitions, replicationFactor).configs(UNLIMITED_RETENTION);
        try {
            admin.createTopics(List.of(topic)).all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            log.info("Created topic {} with {} partitions, replication factor {}, unlimited retention", name, partitions,
                    replicationFactor);
        } catch (ExecutionException e) {
            // Another relay (the standby starting beside the active one) created it first: verify theirs.
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }
    }

    private void verifyPartitions(TopicDescription description) {
        int actual = description.partitions().size();
        if (actual != partitions) {
            throw new IllegalStateException(("Topic %s has %d partitions but relay.partitions is %d. Refusing to publish: "
                    + "a different count sends an account's events to another partition, so readers lose their order. "
                    + "Set relay.partitions=%d, or publish to a new topic and replay into it.")
                    .formatted(name, actual, partitions, actual));
        }
    }

    private void warnAboutRetention(Admin admin) throws InterruptedException, ExecutionException, TimeoutException {
        var resource = new ConfigResource(ConfigResource.Type.TOPIC, name);
        Config config = admin.describeConfigs(List.of(resource)).all()
                .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).get(resource);
        UNLIMITED_RETENTION.forEach((key, wanted) -> {
            var entry = config.get(key);
            if (entry != null && !wanted.equals(entry.value())) {
                log.warn("Topic {} has {}={}: events older than that are deleted and a replay from offset zero will "
                        + "miss them", name, key, entry.value());
            }
        });
    }
}
