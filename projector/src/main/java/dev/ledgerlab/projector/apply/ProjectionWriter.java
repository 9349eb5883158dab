package dev.ledgerlab.projector.apply;

import dev.ledgerlab.events.EventCodec.MalformedEventException;
import dev.ledgerlab.events.EventReader;
import dev.ledgerlab.projector.ProjectorProperties;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * One polled batch as one transaction: the balances it changes and the consumed offsets per partition commit
 * together, so a crash at any point either keeps both or neither. What to apply is {@link BatchDecision}'s to say,
 * how to store it {@link ProjectionStore}'s; this holds the order of the steps and the fence against resets.
 */
@Component
public class ProjectionWriter {

    /**
     * What a batch did. {@code failedIndex} is the first record not handled (-1 when all were), and everything
     * before it is committed. {@code redelivered}: records below the stored offset, already in the projection.
     * {@code stale}: the batch was read from a position taken before a reset of the projection; nothing was applied,
     * and the consumer must be positioned again from the stored offsets.
     */
    public record Outcome(int applied, int duplicates, int held, int redelivered, int failedIndex,
            RuntimeException failure, boolean stale) {

        static final Outcome STALE = new Outcome(0, 0, 0, 0, -1, null, true);
    }

    private final ProjectionStore store;
    private final SeekEpochs seekEpochs;
    private final ProjectionFaults faults;
    private final EventReader reader;
    /**
     * False only with {@code projector.positions=kafka}: records below the stored offset then reach the version
     * check, which is what that mode is for (see {@link ProjectorProperties#positions()}).
     */
    private final boolean skipBelowStoredOffset;

    public ProjectionWriter(ProjectionStore store, SeekEpochs seekEpochs, ProjectionFaults faults,
            ProjectorProperties properties, EventReader reader) {
        this.store = store;
        this.seekEpochs = seekEpochs;
        this.faults = faults;
        this.reader = reader;
        this.skipBelowStoredOffset = properties.positions() == ProjectorProperties.Positions.DATABASE;
    }

    /** Applies a batch of the live consumer group to the live projection. */
    @Transactional
    public Outcome apply(List<ConsumerRecord<String, String>> records) {
        var outcome = applyTo(ProjectionTables.LIVE, records);
        faults.beforeDbCommit(outcome.applied(), records);
        return outcome;
    }

    /** Applies a batch of the rebuild's consumer group to the shadow tables. */
    @Transactional
    public Outcome applyRebuild(List<ConsumerRecord<String, String>> records) {
        return applyTo(ProjectionTables.REBUILD, records);
    }

    private Outcome applyTo(ProjectionTables target, List<ConsumerRecord<String, String>> records) {
        var fence = store.fence(target);
        if (!seekEpochs.positionedUnder(target, fence.epoch(), records)) {
            return Outcome.STALE;
        }
        var entries = new ArrayList<BatchDecision.Entry>(records.size());
        MalformedEventException undecodable = null;
        for (var record : records) {
            try {
                entries.add(BatchDecision.Entry.decode(record, reader));
            } catch (MalformedEventException e) {
                // Decided up to it; the error handler dead-letters it and the rest comes again.
                undecodable = e;
                break;
            }
        }
        var partitions = new TreeSet<Integer>();
        // Unordered: the lock query orders the rows itself.
        var accounts = new HashSet<UUID>(Math.max(16, entries.size() * 2));
        for (var entry : entries) {
            partitions.add(entry.partition());
            accounts.add(entry.accountId());
        }
        var stored = store.lockOffsets(target, partitions);
        var current = store.lockBalances(target, accounts);
        var parked = store.parkedAmong(target, accounts);
        var decided = BatchDecision.decide(entries, stored, current, parked, skipBelowStoredOffset);
        for (var entry : decided.held()) {
            store.hold(target, entry);
        }
        store.writeBalances(target, decided.changed(), decided.state(), current);
        store.writeOffsets(target, decided.progress());
        store.completeReplay(fence, decided.progress().keySet());
        RuntimeException failure = decided.failure() != null ? decided.failure() : undecodable;
        int failedIndex = decided.failure() != null ? decided.stop() : undecodable != null ? entries.size() : -1;
        return new Outcome(decided.applied(), decided.duplicates(), decided.held().size(), decided.belowStoredOffset(),
                failedIndex, failure, false);
    }

    /**
     * Parks the account of a record that stayed unapplicable through its retries, holding that record. Does nothing
     * when the projection was reset since the record was read (it will be read again from the new position) or
     * when the record is below the stored offset already.
     */
    @Transactional
    public void park(ProjectionTables target, ConsumerRecord<String, String> record, UnapplicableEventException reason) {
        var fence = store.fence(target);
        if (!seekEpochs.positionedUnder(target, fence.epoch(), List.of(record))) {
            return;
        }
        var stored = store.lockOffsets(target, Set.of(record.partition())).get(record.partition());
        if (stored != null && record.offset() < stored) {
            return;
        }
        var entry = BatchDecision.Entry.decode(record, reader);
        store.park(target, record.topic(), entry, reason);
        store.hold(target, entry);
        store.advance(target, record.partition(), record.offset());
        store.completeReplay(fence, Set.of(record.partition()));
    }

    /** Moves the stored offset of the target past an undecodable record, unless the projection was reset since. */
    @Transactional
    public void skipDeadLettered(ProjectionTables target, ConsumerRecord<String, String> record) {
        var fence = store.fence(target);
        if (!seekEpochs.positionedUnder(target, fence.epoch(), List.of(record))) {
            return;
        }
        var stored = store.lockOffsets(target, Set.of(record.partition())).get(record.partition());
        if (stored == null || record.offset() >= stored) {
            store.advance(target, record.partition(), record.offset());
            store.completeReplay(fence, Set.of(record.partition()));
        }
    }
}
