package dev.ledgerlab.proofs.support;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.GroupState;

/** Where a consumer group stands in Kafka's own bookkeeping, and in projection.offsets, per partition. */
public final class GroupOffsets {

    private GroupOffsets() {
    }

    /** The offsets Kafka holds as committed for the pipeline's live group (absent: nothing committed). */
    public static Map<Integer, Long> committedInKafka(Pipeline pipeline) throws Exception {
        return committedInKafka(pipeline, pipeline.group());
    }

    /** The offsets Kafka holds as committed for {@code group} on the pipeline's topic. */
    public static Map<Integer, Long> committedInKafka(Pipeline pipeline, String group) throws Exception {
        try (var admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                pipeline.infrastructure().bootstrapServers()))) {
            var offsets = new HashMap<Integer, Long>();
            admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS)
                    .forEach((partition, offset) -> {
                        if (offset != null && partition.topic().equals(pipeline.topic())) {
                            offsets.put(partition.partition(), offset.offset());
                        }
                    });
            return offsets;
        }
    }

    /**
     * How many partitions of the topic each member of the live group holds, as Kafka's coordinator says, once the
     * group is Stable (every member joined and synced); empty while it is rebalancing.
     */
    public static List<Integer> stableAssignmentSizes(Pipeline pipeline) throws Exception {
        try (var admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                pipeline.infrastructure().bootstrapServers()))) {
            var group = admin.describeConsumerGroups(List.of(pipeline.group())).all().get(30, TimeUnit.SECONDS)
                    .get(pipeline.group());
            if (group.groupState() != GroupState.STABLE) {
                return List.of();
            }
            return group.members().stream().map(member -> (int) member.assignment().topicPartitions().stream()
                    .filter(partition -> partition.topic().equals(pipeline.topic())).count()).toList();
        }
    }

    /** The next offsets projection.offsets holds for the pipeline's live group. */
    public static Map<Integer, Long> storedWithTheProjection(Pipeline pipeline) throws Exception {
        var offsets = new HashMap<Integer, Long>();
        try (var connection = pipeline.connect(); var statement = connection.createStatement();
                var rs = statement.executeQuery("SELECT partition, next_offset FROM projection.offsets WHERE group_id = '"
                        + pipeline.group() + "'")) {
            while (rs.next()) {
                offsets.put(rs.getInt(1), rs.getLong(2));
            }
        }
        return offsets;
    }

    /** Records Kafka's committed offsets would deliver again: stored minus committed, summed over partitions. */
    public static long window(Map<Integer, Long> stored, Map<Integer, Long> committed) {
        return stored.entrySet().stream()
                .mapToLong(e -> Math.max(0, e.getValue() - committed.getOrDefault(e.getKey(), 0L))).sum();
    }
}
