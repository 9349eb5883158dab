package dev.ledgerlab.projector.apply;

import dev.ledgerlab.projector.ProjectorProperties;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/** The live consumer group's member: applies each polled batch to the projection that serves reads. */
@Component
public class ProjectionListener extends PositionedListener {

    public static final String ID = "projection-listener";

    private static final Logger log = LoggerFactory.getLogger(ProjectionListener.class);

    private final ProjectionSignals signals;
    private final LiveGroupCounts counts;
    private final ProjectionFaults faults;
    private final EventSpans spans;

    public ProjectionListener(ProjectionWriter writer, ProjectionStore store, SeekEpochs seekEpochs,
            ProjectionSignals signals, ProjectorProperties properties, MeterRegistry meters, ProjectionFaults faults,
            EventSpans spans, LiveGroupCounts counts) {
        super(writer, store, seekEpochs, ProjectionTables.LIVE, properties, meters);
        this.faults = faults;
        this.spans = spans;
        this.signals = signals;
        this.counts = counts;
    }

    @Override
    public void onPartitionsAssigned(Map<TopicPartition, Long> assignments, ConsumerSeekCallback callback) {
        counts.assigned(assignments.keySet().stream().map(TopicPartition::partition).toList());
        super.onPartitionsAssigned(assignments, callback);
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        counts.revoked(partitions.stream().map(TopicPartition::partition).toList());
        super.onPartitionsRevoked(partitions);
    }

    @KafkaListener(id = ID, topics = "${projector.topic}", groupId = "${projector.group-id}",
            concurrency = "${projector.concurrency}", batch = "true")
    public void onBatch(List<ConsumerRecord<String, String>> records, Consumer<?, ?> consumer) {
        long started = System.currentTimeMillis();
        // Per partition of this batch its oldest timestamp, in a local map: the shared one changes once per partition.
        var oldest = new HashMap<Integer, Long>();
        records.forEach(record -> oldest.merge(record.partition(), record.timestamp(), Math::min));
        counts.received(records, oldest);
        faults.beforeApply(records);
        process(records, consumer, writer::apply, outcome -> {
            faults.afterDbCommit(outcome.applied(), records);
            if (outcome.stale()) {
                counts.refused(records.size());
                return;
            }
            int committed = outcome.failedIndex() < 0 ? records.size() : outcome.failedIndex();
            spans.committed(records, committed, started);
            signals.committed(() -> records.stream().limit(committed).map(ConsumerRecord::key).iterator());
            counts.committed(outcome, oldest.keySet());
            if (outcome.duplicates() > 0 || outcome.redelivered() > 0) {
                log.debug("batch of {}: {} applied, {} duplicates skipped, {} redelivered", records.size(),
                        outcome.applied(), outcome.duplicates(), outcome.redelivered());
            }
        });
    }
}
