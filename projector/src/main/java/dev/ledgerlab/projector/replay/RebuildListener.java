package dev.ledgerlab.projector.replay;

import dev.ledgerlab.projector.ProjectorProperties;
import dev.ledgerlab.projector.apply.PositionedListener;
import dev.ledgerlab.projector.apply.ProjectionWriter;
import dev.ledgerlab.projector.apply.SeekEpochs;
import dev.ledgerlab.projector.apply.Target;
import java.util.List;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.listener.BatchListenerFailedException;
import org.springframework.stereotype.Component;

/**
 * The rebuild group's member: fills the shadow tables from offset zero, with the same writer as the live group,
 * and swaps them in once caught up. Started and stopped by {@link ReplayCoordinator} on every instance that sees a
 * rebuild running, so the rebuild shares the work like the live group does.
 */
@Component
public class RebuildListener extends PositionedListener {

    public static final String ID = "projection-rebuild-listener";

    private final Replays replays;
    private final ReplayCoordinator coordinator;

    public RebuildListener(ProjectionWriter writer, SeekEpochs seekEpochs, ProjectorProperties properties,
            Replays replays, ReplayCoordinator coordinator) {
        super(writer, seekEpochs, Target.REBUILD, properties.gapRetries());
        this.replays = replays;
        this.coordinator = coordinator;
    }

    @KafkaListener(id = ID, topics = "${projector.topic}", groupId = "${projector.replay.rebuild-group-id}",
            concurrency = "${projector.concurrency}", batch = "true", autoStartup = "false")
    public void onBatch(List<ConsumerRecord<String, String>> records, Consumer<?, ?> consumer) {
        var outcome = writer.applyRebuild(records);
        if (outcome.stale()) {
            // Positioned for an earlier rebuild, or none runs any more (the coordinator stops this container then).
            if (replays.runningRebuild().isPresent()) {
                reposition(consumer);
            }
            return;
        }
        if (outcome.failedIndex() >= 0 && !parkedAfterRetries(outcome, records, consumer)) {
            throw new BatchListenerFailedException(outcome.failure().getMessage(), outcome.failure(),
                    outcome.failedIndex());
        }
        swapIfCaughtUp();
    }

    /** Without new records no batch comes: the last catching up is noticed here. */
    @Override
    protected void idle(ProjectionWriter.Positions positions) {
        if (positions.epoch() != ProjectionWriter.NO_EPOCH) {
            swapIfCaughtUp();
        }
    }

    private void swapIfCaughtUp() {
        if (replays.swapIfCaughtUp()) {
            coordinator.reconcileSoon();
        }
    }
}
