package dev.ledgerlab.projector;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * @param topic the event log the projection is built from
 * @param groupId the consumer group; its offsets are stored in projection.offsets under this name
 * @param concurrency consumers in this process (the group's parallelism is capped by the partition count)
 * @param deadLetterTopic where records that cannot be decoded go, with their origin in headers
 * @param deadLetterReplicationFactor replication factor of the dead-letter topic when the projector creates it
 * @param gapRetries how often a batch that hits a version gap is retried before the account is parked
 * @param gapRetryInterval the pause between those retries
 * @param readYourWritesTimeout how long {@code ?minVersion=} waits for the projection to catch up
 */
@ConfigurationProperties("projector")
public record ProjectorProperties(
        @DefaultValue("accounts.events") String topic,
        @DefaultValue("projection") String groupId,
        @DefaultValue("1") int concurrency,
        @DefaultValue("accounts.events.dlt") String deadLetterTopic,
        @DefaultValue("1") short deadLetterReplicationFactor,
        @DefaultValue("3") int gapRetries,
        @DefaultValue("200ms") Duration gapRetryInterval,
        @DefaultValue("5s") Duration readYourWritesTimeout) {
}
