package dev.ledgerlab.projector.replay;

import dev.ledgerlab.projector.ProjectorProperties;
import dev.ledgerlab.projector.apply.PositionedListener;
import dev.ledgerlab.projector.apply.ProjectionFaults;
import dev.ledgerlab.projector.apply.ProjectionStore;
import dev.ledgerlab.projector.apply.ProjectionWriter;
import dev.ledgerlab.projector.apply.SeekEpochs;
import dev.ledgerlab.projector.apply.ProjectionTables;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/**
 * The rebuild group's member: fills the shadow tables from offset zero, with the same writer as the live group,
 * and swaps them in once caught up. Started and stopped by {@link ReplayCoordinator} on every instance that sees a
 * rebuild running, so the rebuild shares the work like the live group does.
 */
@Component
public class RebuildListener extends PositionedListener {

    private static final Logger log = LoggerFactory.getLogger(RebuildListener.class);

    public static final String ID = "projection-rebuild-listener";

    private final Replays replays;
    private final ReplayQueries queries;
    private final ReplayCoordinator coordinator;
    private final ProjectionFaults faults;

    public RebuildListener(ProjectionWriter writer, ProjectionStore store, SeekEpochs seekEpochs,
            ProjectorProperties properties, Replays replays, ReplayQueries queries, ReplayCoordinator coordinator,
            ProjectionFaults faults, MeterRegistry meters) {
        super(writer, store, seekEpochs, ProjectionTables.REBUILD, properties, meters);
        this.replays = replays;
        this.queries = queries;
        this.coordinator = coordinator;
        this.faults = faults;
    }

    @KafkaListener(id = ID, topics = "${projector.topic}", groupId = "${projector.replay.rebuild-group-id}",
            concurrency = "${projector.concurrency}", batch = "true", autoStartup = "false")
    public void onBatch(List<ConsumerRecord<String, String>> records, Consumer<?, ?> consumer) {
        var outcome = process(records, consumer, writer::applyRebuild,
                committed -> faults.afterRebuildCommit(committed.applied(), records));
        if (!outcome.stale()) {
            trySwap();
        }
    }

    /** Positioned for an earlier rebuild, or none runs any more (the coordinator stops this container then). */
    @Override
    protected boolean repositionWhenStale() {
        return queries.runningRebuild().isPresent();
    }

    /** Without new records no batch comes: the last catching up is noticed here. */
    @Override
    protected void idle(ProjectionStore.Positions positions) {
        if (positions.epoch() != ProjectionStore.NO_EPOCH) {
            trySwap();
        }
    }

    /** A failed attempt changed nothing (one transaction): the next batch or idle event tries again. */
    private void trySwap() {
        try {
            if (replays.swapIfCaughtUp()) {
                coordinator.reconcileSoon();
            }
        } catch (RuntimeException e) {
            log.warn("rebuild swap attempt failed, tried again later: {}", e.getMessage());
        }
    }
}
