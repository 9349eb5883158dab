package dev.ledgerlab.relay.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledgerlab.events.Replication;
import dev.ledgerlab.relay.support.RelayIntegrationTest;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.Test;

/** The relay owns its topic's shape: a fixed partition count and a log that is never deleted. */
class OutboxTopicTest extends RelayIntegrationTest {

    @Test
    void createsTheTopicWithTheConfiguredPartitionsUnlimitedRetentionAndItsReplicationSettings() throws Exception {
        startRelay(Map.of("relay.partitions", "4"));

        try (var admin = admin()) {
            var description = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
            assertThat(description.partitions()).hasSize(4);
            var resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            var config = admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS).get(resource);
            assertThat(config.get(TopicConfig.RETENTION_MS_CONFIG).value()).isEqualTo("-1");
            assertThat(config.get(TopicConfig.RETENTION_BYTES_CONFIG).value()).isEqualTo("-1");
            Replication.SINGLE.topicConfigs().forEach((name, value) ->
                    assertThat(config.get(name).value()).as(name).isEqualTo(value));
        }
    }

    @Test
    void refusesToStartWhenTheTopicHasAnotherPartitionCount() throws Exception {
        try (var admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }

        assertThatThrownBy(() -> startRelay(Map.of("relay.partitions", "6")))
                .hasStackTraceContaining("Topic " + topic + " has 3 partitions but relay.partitions is 6");
        // It refused before touching the database's replication machinery.
        assertThat(jdbc.sql("SELECT count(*) FROM pg_replication_slots WHERE slot_name = ?").param(slot)
                .query(Long.class).single()).isZero();
    }

    @Test
    void acceptsATopicThatAlreadyHasTheConfiguredPartitions() throws Exception {
        try (var admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, 6, (short) 1).configs(OutboxTopic.UNLIMITED_RETENTION)))
                    .all().get(30, TimeUnit.SECONDS);
        }

        new OutboxTopic(infra.bootstrapServers(), topic, 6, Replication.SINGLE).ensureExists();
    }
}
