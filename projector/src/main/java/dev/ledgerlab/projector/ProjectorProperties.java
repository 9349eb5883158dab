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
 * @param retryInterval the first pause before a batch that failed for any other reason (the database unreachable, a
 *     timeout, a serialization abort) is tried again; it doubles up to {@code retryMaxInterval} and never gives up
 * @param retryMaxInterval the longest pause between those tries
 * @param readYourWritesTimeout how long {@code ?minVersion=} waits for the projection to catch up
 * @param positions where a consumer starts when it is assigned a partition: {@code database} (the default, and the
 *     design of this lab: the offsets stored with the balances) or {@code kafka} (the group's committed offset, the
 *     usual "commit after the database write" design, where only the version check stops a redelivered record)
 * @param replay the replay in place and the shadow rebuild ({@code projector.replay.*})
 */
@ConfigurationProperties("projector")
public record ProjectorProperties(
        @DefaultValue("accounts.events") String topic,
        @DefaultValue("projection") String groupId,
        @DefaultValue("2") int concurrency,
        @DefaultValue("accounts.events.dlt") String deadLetterTopic,
        @DefaultValue("1") short deadLetterReplicationFactor,
        @DefaultValue("3") int gapRetries,
        @DefaultValue("200ms") Duration gapRetryInterval,
        @DefaultValue("200ms") Duration retryInterval,
        @DefaultValue("5s") Duration retryMaxInterval,
        @DefaultValue("5s") Duration readYourWritesTimeout,
        @DefaultValue("database") Positions positions,
        @DefaultValue Replay replay) {

    /**
     * @param onStart replay in place when this instance starts, before its listener consumes anything (the
     *        command-line switch {@code --projector.replay.on-start=true})
     * @param rebuildGroupId the consumer group that fills the shadow tables of a rebuild; its offsets are stored in
     *        projection.offsets under this name
     * @param progressInterval how often a running replay or rebuild logs its progress
     * @param coordinationInterval how often each instance looks at projection.replays to join or leave a rebuild
     * @param swapLockTimeout how long the swap waits for its locks before it gives up and tries again later; reads of
     *        the balances wait at most this long during a swap
     */
    public record Replay(
            @DefaultValue("false") boolean onStart,
            @DefaultValue("projection-rebuild") String rebuildGroupId,
            @DefaultValue("5s") Duration progressInterval,
            @DefaultValue("1s") Duration coordinationInterval,
            @DefaultValue("2s") Duration swapLockTimeout) {
    }

    /** Where a consumer's position comes from when it is assigned a partition. */
    public enum Positions {
        /** projection.offsets, written in the transaction of the balances: nothing applied is ever read again. */
        DATABASE,
        /**
         * Kafka's committed offset, which trails the database after a crash between the two commits: the records in
         * between are read again and the version check counts them as duplicates. After a reset of the projection (a
         * replay's clear, a rebuild's swap) the consumers still seek to the stored offsets.
         */
        KAFKA
    }
}
