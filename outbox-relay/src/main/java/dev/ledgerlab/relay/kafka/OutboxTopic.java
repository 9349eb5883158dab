package dev.ledgerlab.relay.kafka;

import dev.ledgerlab.events.Replication;
import java.time.Duration;
import java.util.HashMap;
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
import org.apache.kafka.common.KafkaFuture;
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
 * decides which partition each account lands in ({@code murmur2(key) % partitions}) and must never change; it keeps
 * everything ({@code retention.ms=-1}, {@code retention.bytes=-1}) because the log is what a replay reads; and it gets
 * its copies and the copies a write needs from {@link Replication}.
 */
public record OutboxTopic(String bootstrapServers, String name, int partitions, Replication replication) {

    private static final Logger log = LoggerFactory.getLogger(OutboxTopic.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    static final Map<String, String> UNLIMITED_RETENTION = Map.of(
            TopicConfig.RETENTION_MS_CONFIG, "-1",
            TopicConfig.RETENTION_BYTES_CONFIG, "-1");

    /**
     * Creates the topic if it is missing and verifies it either way.
     *
     * @throws IllegalStateException when the topic exists with another partition count, or Kafka does not answer
     */
    public void ensureExists() {
        try (Admin admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                AdminClientConfig.CLIENT_ID_CONFIG, "outbox-relay-admin"))) {
            if (describe(admin).isEmpty()) {
                create(admin);
            }
            var visible = whenVisible(admin);
            verifyPartitions(visible.description());
            warnAboutSettings(visible.config(), visible.description());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while checking topic " + name, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot create or describe topic " + name + " on " + bootstrapServers, e);
        }
    }

    /** What the brokers say of the topic: its partitions and replicas, and its settings. */
    private record Visible(TopicDescription description, Config config) {
    }

    /**
     * Describes the topic and its settings. The controller acknowledges a creation before every broker's metadata has
     * it, so a describe right after may still answer "unknown topic" (seen in the lab's tests, and on a cluster from
     * the broker asked for the settings): it is retried.
     */
    private Visible whenVisible(Admin admin) {
        var retry = new RetryTemplate(RetryPolicy.builder().includes(NotVisibleYet.class)
                .delay(Duration.ofMillis(50)).maxDelay(Duration.ofSeconds(1)).multiplier(2)
                .maxRetries(Long.MAX_VALUE).timeout(TIMEOUT).build());
        try {
            return retry.execute(() -> new Visible(describe(admin).orElseThrow(NotVisibleYet::new),
                    config(admin).orElseThrow(NotVisibleYet::new)));
        } catch (RetryException e) {
            throw new IllegalStateException("topic " + name + " exists but cannot be described", e.getCause());
        }
    }

    /** The topic is created but this broker's metadata does not show it yet. */
    private static final class NotVisibleYet extends RuntimeException {
        NotVisibleYet() {
            super("created topic not visible yet", null, false, false);
        }
    }

    private Optional<Config> config(Admin admin) throws InterruptedException, ExecutionException, TimeoutException {
        var resource = new ConfigResource(ConfigResource.Type.TOPIC, name);
        return unlessUnknown(admin.describeConfigs(List.of(resource)).all()).map(all -> all.get(resource));
    }

    private Optional<TopicDescription> describe(Admin admin)
            throws InterruptedException, ExecutionException, TimeoutException {
        return unlessUnknown(admin.describeTopics(List.of(name)).allTopicNames()).map(all -> all.get(name));
    }

    /** What the broker answered, or empty when it does not know the topic (yet). */
    private static <T> Optional<T> unlessUnknown(KafkaFuture<T> answer)
            throws InterruptedException, ExecutionException, TimeoutException {
        try {
            return Optional.of(answer.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return Optional.empty();
            }
            throw e;
        }
    }

    private void create(Admin admin) throws InterruptedException, ExecutionException, TimeoutException {
        var configs = new HashMap<>(UNLIMITED_RETENTION);
        configs.putAll(replication.topicConfigs());
        var topic = new NewTopic(name, partitions, replication.factor()).configs(configs);
        try {
            admin.createTopics(List.of(topic)).all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            log.info("Created topic {} with {} partitions, replication factor {}, {}, unlimited retention", name,
                    partitions, replication.factor(), replication.topicConfigs());
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

    /**
     * An existing topic (made by an operator, or by kafka-init in docker-compose) is used as it is, but what it lacks is
     * said: a shorter retention loses what a replay reads, fewer copies or fewer needed in sync weaken what an
     * acknowledgement means.
     */
    private void warnAboutSettings(Config config, TopicDescription description) {
        UNLIMITED_RETENTION.forEach((key, wanted) -> {
            var entry = config.get(key);
            if (entry != null && !wanted.equals(entry.value())) {
                log.warn("Topic {} has {}={}: events older than that are deleted and a replay from offset zero will "
                        + "miss them", name, key, entry.value());
            }
        });
        replication.topicConfigs().forEach((key, wanted) -> {
            var entry = config.get(key);
            if (entry != null && !wanted.equals(entry.value())) {
                log.warn("Topic {} has {}={} where {} copies call for {}", name, key, entry.value(),
                        replication.replicas(), wanted);
            }
        });
        int copies = description.partitions().get(0).replicas().size();
        if (copies != replication.replicas()) {
            log.warn("Topic {} has {} replicas per partition; relay.replication-factor is {}", name, copies,
                    replication.replicas());
        }
    }
}
