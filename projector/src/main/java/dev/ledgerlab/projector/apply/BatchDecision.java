package dev.ledgerlab.projector.apply;

import dev.ledgerlab.events.EventCodec.MalformedEventException;
import dev.ledgerlab.events.EventCodec.UnknownSchemaVersionException;
import dev.ledgerlab.events.EventEnvelope;
import dev.ledgerlab.events.EventReader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The projection's rule for a batch, as a pure function of what is stored and what was read: no database, no
 * Kafka. Per record, in log order:
 * <ul>
 *   <li>below its partition's stored offset: already in the projection (read from an older position), passed over;</li>
 *   <li>of a parked account: held, behind the record that parked it;</li>
 *   <li>at or below its account's version: a duplicate, skipped and counted, unless it repeats the current version
 *       with another event id (a conflict);</li>
 *   <li>the next version: applied, folded in memory with the account's other events of the batch, unless it is of
 *       a schema version this projector does not know (then it cannot follow: the account waits for a reader that
 *       knows it, and the missing field is never read as zero);</li>
 *   <li>anything else (a gap, a conflict, an event that cannot follow at all): the batch stops there, and everything
 *       before it is decided.</li>
 * </ul>
 * Offsets advance past every record handled, so the stored offsets and the balances always say the same.
 */
final class BatchDecision {

    /**
     * A record with its decoded event, or, when the event is of a schema version this projector does not know, with
     * the reason ({@code unreadable}) and no envelope: its account, version and id are still known, so it can be
     * counted as a duplicate or wait behind its account, but it is never applied.
     */
    record Entry(int partition, long offset, String value, EventEnvelope envelope,
            UnknownSchemaVersionException unreadable) {

        Entry(int partition, long offset, String value, EventEnvelope envelope) {
            this(partition, offset, value, envelope, null);
        }

        /** @throws MalformedEventException when the record carries no event of the contract under its account's key */
        static Entry decode(ConsumerRecord<String, String> record, EventReader reader) {
            if (record.value() == null) {
                throw new MalformedEventException("record has no value", null);
            }
            var entry = read(record.partition(), record.offset(), record.value(), reader);
            // The key decides the partition: under another key, the partition says nothing about the event's order.
            if (!entry.accountId().toString().equals(record.key())) {
                throw new MalformedEventException("key " + record.key() + " is not the event's account "
                        + entry.accountId(), null);
            }
            return entry;
        }

        /** @throws MalformedEventException when the value is no event of the contract */
        static Entry read(int partition, long offset, String value, EventReader reader) {
            try {
                return new Entry(partition, offset, value, reader.read(value));
            } catch (UnknownSchemaVersionException e) {
                return new Entry(partition, offset, value, null, e);
            }
        }

        UUID accountId() {
            return envelope != null ? envelope.accountId() : unreadable.accountId();
        }

        long version() {
            return envelope != null ? envelope.version() : unreadable.version();
        }

        UUID eventId() {
            return envelope != null ? envelope.eventId() : unreadable.eventId();
        }
    }

    /** How far one partition got: its next offset, and what it applied and skipped. */
    static final class PartitionProgress {
        long nextOffset;
        long applied;
        long duplicates;
    }

    /**
     * What to persist: the new state of the {@code changed} accounts, the progress per partition, the records to hold;
     * and the counts. {@code stop} is the index of the first entry not handled ({@code entries.size()} when all
     * were), with its {@code failure}.
     */
    record Decided(Map<UUID, Balance> state, Set<UUID> changed, Map<Integer, PartitionProgress> progress,
            List<Entry> held, int applied, int duplicates, int belowStoredOffset, int stop, UnapplicableEventException failure) {
    }

    private BatchDecision() {
    }

    /**
     * @param stored each partition's stored next offset (absent: nothing stored)
     * @param current each account's stored state (absent: never applied); not modified
     * @param parked the accounts that are parked
     * @param skipBelowStoredOffset false with positions from Kafka: such records then meet the version check
     */
    static Decided decide(List<Entry> entries, Map<Integer, Long> stored, Map<UUID, Balance> current,
            Set<UUID> parked, boolean skipBelowStoredOffset) {
        var state = new HashMap<>(current);
        var changed = new HashSet<UUID>();
        var progress = new TreeMap<Integer, PartitionProgress>();
        var held = new ArrayList<Entry>();
        int applied = 0;
        int duplicates = 0;
        int below = 0;
        for (int i = 0; i < entries.size(); i++) {
            var entry = entries.get(i);
            var storedOffset = stored.get(entry.partition());
            if (skipBelowStoredOffset && storedOffset != null && entry.offset() < storedOffset) {
                below++;
                continue;
            }
            var partition = progress.computeIfAbsent(entry.partition(), p -> new PartitionProgress());
            var id = entry.accountId();
            if (parked.contains(id)) {
                held.add(entry);
                partition.nextOffset = entry.offset() + 1;
                continue;
            }
            var balance = state.get(id);
            long version = balance == null ? 0 : balance.version();
            try {
                if (balance != null && entry.version() == version && balance.eventId() != null
                        && !balance.eventId().equals(entry.eventId())) {
                    throw new UnapplicableEventException(id, version + 1, entry.version(), "conflict: version " + version
                            + " was applied as event " + balance.eventId() + ", this record is event "
                            + entry.eventId());
                }
                if (entry.version() <= version) {
                    duplicates++;
                    partition.duplicates++;
                    partition.nextOffset = entry.offset() + 1;
                    continue;
                }
                if (entry.version() > version + 1) {
                    throw new UnapplicableEventException(id, version + 1, entry.version(), UnapplicableEventException.GAP);
                }
                if (entry.unreadable() != null) {
                    throw new UnapplicableEventException(id, version + 1, entry.version(), entry.unreadable().getMessage());
                }
                state.put(id, Balance.evolve(balance, entry.envelope()));
            } catch (UnapplicableEventException e) {
                return new Decided(state, changed, progress, held, applied, duplicates, below, i, e);
            }
            changed.add(id);
            applied++;
            partition.applied++;
            partition.nextOffset = entry.offset() + 1;
        }
        return new Decided(state, changed, progress, held, applied, duplicates, below, entries.size(), null);
    }
}
