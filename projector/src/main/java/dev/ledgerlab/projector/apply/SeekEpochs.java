package dev.ledgerlab.projector.apply;

import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.springframework.stereotype.Component;

/**
 * The epoch under which each partition's consumer was last positioned from the stored offsets. A batch is applied
 * only while that epoch is still the database's: after a reset (a replay's clear, a rebuild's swap) the position the
 * consumer holds no longer matches what is stored, and applying from it would skip or repeat events.
 */
@Component
public class SeekEpochs {

    private final Map<ProjectionTables, Map<TopicPartition, Long>> epochs = new EnumMap<>(ProjectionTables.class);

    public SeekEpochs() {
        for (var target : ProjectionTables.values()) {
            epochs.put(target, new ConcurrentHashMap<>());
        }
    }

    void positioned(ProjectionTables target, TopicPartition partition, long epoch) {
        epochs.get(target).put(partition, epoch);
    }

    void forget(ProjectionTables target, Collection<TopicPartition> partitions) {
        partitions.forEach(epochs.get(target)::remove);
    }

    /** The epoch the partition was positioned under, or null when this process does not consume it. */
    Long epochOf(ProjectionTables target, TopicPartition partition) {
        return epochs.get(target).get(partition);
    }

    /** Whether every record's partition was positioned under this epoch (never under {@link ProjectionStore#NO_EPOCH}). */
    boolean positionedUnder(ProjectionTables target, long epoch, List<ConsumerRecord<String, String>> records) {
        if (epoch == ProjectionStore.NO_EPOCH) {
            return false;
        }
        // A poll's records come grouped by partition: one lookup per run of a partition, not one per record.
        int checked = -1;
        for (var record : records) {
            if (record.partition() == checked) {
                continue;
            }
            var positioned = epochOf(target, new TopicPartition(record.topic(), record.partition()));
            if (positioned == null || positioned != epoch) {
                return false;
            }
            checked = record.partition();
        }
        return true;
    }
}
