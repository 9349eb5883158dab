package dev.ledgerlab.projector.apply;

import dev.ledgerlab.events.AccountOpened;
import dev.ledgerlab.events.EventCodec;
import dev.ledgerlab.events.EventCodec.MalformedEventException;
import dev.ledgerlab.events.EventEnvelope;
import dev.ledgerlab.projector.ProjectorProperties;
import dev.ledgerlab.projector.ReplayProperties;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * Applies a polled batch in one transaction: the balances it changes and the consumed offsets per partition commit
 * together, so a crash at any point either keeps both or neither. Per account, version {@code current + 1} is
 * applied, anything at or below {@code current} is a duplicate and skipped, anything above is never skipped: the
 * batch stops there and the caller retries, then parks the account. The events of one account fold in memory, so a
 * batch writes one row per account, whatever the number of its events: a replay is not bound by round trips.
 */
@Component
public class ProjectionWriter {

    /**
     * What a batch did. {@code failedIndex} is the first record not handled (-1 when all were), and everything
     * before it is committed. {@code stale}: the batch was read from a position taken before a reset of the
     * projection; nothing was applied, and the consumer must be positioned again from the stored offsets.
     */
    public record Outcome(int applied, int duplicates, int held, int redelivered, int failedIndex,
            RuntimeException failure, boolean stale) {

        static final Outcome STALE = new Outcome(0, 0, 0, 0, -1, null, true);
    }

    /**
     * Where the consumers of a target start: the epoch the positions belong to, and the stored next offset per
     * partition (absent: from the beginning of the log). {@link #NO_EPOCH} for a rebuild when none runs.
     */
    public record Positions(long epoch, Map<Integer, Long> offsets) {
    }

    /** The epoch of the rebuild target while no rebuild runs: no batch applies under it. */
    public static final long NO_EPOCH = -1;

    /** An account's projected state; {@code eventId} is the last applied event's (null on rows from before V3). */
    record Balance(UUID accountId, long balance, long version, UUID eventId) {
    }

    /** The epoch read at the start of a batch, and the in-place replay that runs, if one does. */
    private record Fence(long epoch, Long runningReplay) {
    }

    private static final class PartitionProgress {
        long nextOffset;
        long applied;
        long duplicates;
    }

    private final JdbcTemplate jdbc;
    private final ProjectorProperties properties;
    private final ReplayProperties replay;
    private final SeekEpochs seekEpochs;
    private final ProjectionFaults faults;
    /**
     * False only with {@code projector.positions=kafka}: records below the stored offset then reach the version
     * check, which is what that mode is for (see {@link ProjectorProperties#positions()}).
     */
    private final boolean skipBelowStoredOffset;

    public ProjectionWriter(JdbcTemplate jdbc, ProjectorProperties properties, ProjectionFaults faults,
            ReplayProperties replay, SeekEpochs seekEpochs) {
        this.jdbc = jdbc;
        this.properties = properties;
        this.faults = faults;
        this.replay = replay;
        this.seekEpochs = seekEpochs;
        this.skipBelowStoredOffset = properties.positions() == ProjectorProperties.Positions.DATABASE;
    }

    /** Applies a batch of the live consumer group to the live projection. */
    @Transactional
    public Outcome apply(List<ConsumerRecord<String, String>> records) {
        var outcome = applyTo(Target.LIVE, records);
        faults.beforeDbCommit(outcome.applied(), records);
        return outcome;
    }

    /** Applies a batch of the rebuild's consumer group to the shadow tables. */
    @Transactional
    public Outcome applyRebuild(List<ConsumerRecord<String, String>> records) {
        return applyTo(Target.REBUILD, records);
    }

    private Outcome applyTo(Target target, List<ConsumerRecord<String, String>> records) {
        var fence = fence(target);
        if (!positionedUnder(target, fence.epoch(), records)) {
            return Outcome.STALE;
        }
        int stop = records.size();
        RuntimeException failure = null;
        var envelopes = new ArrayList<EventEnvelope>(records.size());
        for (int i = 0; i < records.size(); i++) {
            try {
                envelopes.add(decode(records.get(i)));
            } catch (MalformedEventException e) {
                stop = i;
                failure = e;
                break;
            }
        }
        var partitions = new TreeSet<Integer>();
        // Unordered: the lock query orders the rows itself.
        var accounts = new HashSet<UUID>(Math.max(16, stop * 2));
        for (int i = 0; i < stop; i++) {
            partitions.add(records.get(i).partition());
            accounts.add(envelopes.get(i).accountId());
        }
        var stored = lockOffsets(target, partitions);
        var state = lockBalances(target, accounts);
        var versionsBefore = new HashMap<UUID, Long>();
        state.forEach((id, balance) -> versionsBefore.put(id, balance.version()));
        var parked = parkedAmong(target, accounts);
        var progress = new TreeMap<Integer, PartitionProgress>();
        var changed = new HashSet<UUID>();
        int applied = 0;
        int duplicates = 0;
        int held = 0;
        int redelivered = 0;
        for (int i = 0; i < stop; i++) {
            var record = records.get(i);
            var envelope = envelopes.get(i);
            var storedOffset = stored.get(record.partition());
            if (skipBelowStoredOffset && storedOffset != null && record.offset() < storedOffset) {
                // Read from a position behind the one stored with the projection (a consumer that had lost its
                // partitions, or Kafka's committed offset): this record is already in the projection.
                redelivered++;
                continue;
            }
            var partition = progress.computeIfAbsent(record.partition(), p -> new PartitionProgress());
            var id = envelope.accountId();
            if (parked.contains(id)) {
                hold(target, record, envelope);
                held++;
                partition.nextOffset = record.offset() + 1;
                continue;
            }
            var current = state.get(id);
            long currentVersion = current == null ? 0 : current.version();
            try {
                if (current != null && envelope.version() == currentVersion && current.eventId() != null
                        && !current.eventId().equals(envelope.eventId())) {
                    throw new Unapplicable(id, currentVersion + 1, envelope.version(), "conflict: version "
                            + currentVersion + " was applied as event " + current.eventId() + ", this record is event "
                            + envelope.eventId());
                }
                if (envelope.version() <= currentVersion) {
                    duplicates++;
                    partition.duplicates++;
                    partition.nextOffset = record.offset() + 1;
                    continue;
                }
                if (envelope.version() > currentVersion + 1) {
                    throw new Unapplicable(id, currentVersion + 1, envelope.version(), "gap");
                }
                state.put(id, evolve(current, envelope));
            } catch (Unapplicable e) {
                stop = i;
                failure = e;
                break;
            }
            changed.add(id);
            applied++;
            partition.applied++;
            partition.nextOffset = record.offset() + 1;
        }
        writeBalances(target, changed, state, versionsBefore);
        writeOffsets(target, progress);
        completeReplay(fence);
        return new Outcome(applied, duplicates, held, redelivered, failure == null ? -1 : stop, failure, false);
    }

    /**
     * Parks the account of a record that stayed unapplicable through its retries, holding that record. Does nothing
     * when the projection was reset since the record was read: it will be read again from the new position.
     */
    @Transactional
    public void park(Target target, ConsumerRecord<String, String> record, Unapplicable reason) {
        var fence = fence(target);
        if (!positionedUnder(target, fence.epoch(), List.of(record))) {
            return;
        }
        var stored = lockOffsets(target, Set.of(record.partition())).get(record.partition());
        if (stored != null && record.offset() < stored) {
            return;
        }
        jdbc.update("""
                INSERT INTO %s (account_id, expected_version, received_version, reason, topic, partition,
                                record_offset, parked_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, now())
                ON CONFLICT (account_id) DO NOTHING""".formatted(target.parkedAccounts()),
                reason.accountId(), reason.expectedVersion(), reason.receivedVersion(), reason.reason(),
                record.topic(), record.partition(), record.offset());
        hold(target, record, decode(record));
        advance(target, record);
        completeReplay(fence);
    }

    /** Moves the stored offset of the target past an undecodable record, unless the projection was reset since. */
    @Transactional
    public void skipDeadLettered(Target target, ConsumerRecord<String, String> record) {
        var fence = fence(target);
        if (!positionedUnder(target, fence.epoch(), List.of(record))) {
            return;
        }
        var stored = lockOffsets(target, Set.of(record.partition())).get(record.partition());
        if (stored == null || record.offset() >= stored) {
            advance(target, record);
            completeReplay(fence);
        }
    }

    /**
     * The epoch and the stored offsets of a target, read in one statement so that they belong together: positions
     * read before a reset never pass for positions of the epoch after it.
     */
    public Positions positions(Target target) {
        var offsets = new HashMap<Integer, Long>();
        var epoch = new long[] {NO_EPOCH};
        var sql = target == Target.LIVE
                ? """
                SELECT e.epoch, o.partition, o.next_offset FROM projection.epoch e
                LEFT JOIN projection.offsets o ON o.group_id = ? AND o.topic = ?"""
                : """
                SELECT r.id, o.partition, o.next_offset FROM (SELECT 1) one
                LEFT JOIN projection.replays r ON r.kind = 'rebuild' AND r.state = 'running'
                LEFT JOIN projection.offsets o ON o.group_id = ? AND o.topic = ?""";
        jdbc.query(sql, rs -> {
            var e = rs.getObject(1, Long.class);
            epoch[0] = e == null ? NO_EPOCH : e;
            var partition = rs.getObject(2, Integer.class);
            if (partition != null) {
                offsets.put(partition, rs.getLong(3));
            }
        }, groupId(target), properties.topic());
        return new Positions(epoch[0], offsets);
    }

    public String groupId(Target target) {
        return target == Target.LIVE ? properties.groupId() : replay.rebuildGroupId();
    }

    /**
     * The balance after {@code envelope}, or {@link Unapplicable} when the event cannot follow {@code current}:
     * the log is then not a history this projection can hold, and an operator must look.
     */
    static Balance evolve(Balance current, EventEnvelope envelope) {
        var id = envelope.accountId();
        var event = envelope.event();
        long expected = current == null ? 1 : current.version() + 1;
        if (current == null) {
            if (!(event instanceof AccountOpened)) {
                throw new Unapplicable(id, expected, envelope.version(), "first event is " + event.type());
            }
            return new Balance(id, 0, envelope.version(), envelope.eventId());
        }
        if (event instanceof AccountOpened) {
            throw new Unapplicable(id, expected, envelope.version(), "account opened twice");
        }
        long balance;
        try {
            balance = event.applyTo(current.balance());
        } catch (ArithmeticException e) {
            throw new Unapplicable(id, expected, envelope.version(), "balance overflow");
        }
        if (balance < 0) {
            throw new Unapplicable(id, expected, envelope.version(), "balance would go below zero");
        }
        return new Balance(id, balance, envelope.version(), envelope.eventId());
    }

    /** The record's event; the key must be its account, or the partition says nothing about its order. */
    static EventEnvelope decode(ConsumerRecord<String, String> record) {
        if (record.value() == null) {
            throw new MalformedEventException("record has no value", null);
        }
        var envelope = EventCodec.fromJson(record.value());
        if (!envelope.accountId().toString().equals(record.key())) {
            throw new MalformedEventException("key " + record.key() + " is not the event's account "
                    + envelope.accountId(), null);
        }
        return envelope;
    }

    /**
     * The first statement of every write: in share mode, so that batches run side by side while a reset (which
     * takes the same row exclusively) waits for them, and batches after the reset see its epoch.
     */
    private Fence fence(Target target) {
        if (target == Target.LIVE) {
            return jdbc.queryForObject("""
                    SELECT e.epoch, r.id FROM projection.epoch e
                    LEFT JOIN projection.replays r ON r.kind = 'replay' AND r.state = 'running'
                    FOR SHARE OF e""",
                    (rs, row) -> new Fence(rs.getLong(1), rs.getObject(2, Long.class)));
        }
        var running = jdbc.queryForList(
                "SELECT id FROM projection.replays WHERE kind = 'rebuild' AND state = 'running' FOR SHARE",
                Long.class);
        return new Fence(running.isEmpty() ? NO_EPOCH : running.get(0), null);
    }

    private boolean positionedUnder(Target target, long epoch, List<ConsumerRecord<String, String>> records) {
        if (epoch == NO_EPOCH) {
            return false;
        }
        // A poll's records come grouped by partition: one lookup per run of a partition, not one per record.
        int checked = -1;
        for (var record : records) {
            if (record.partition() == checked) {
                continue;
            }
            var positioned = seekEpochs.epochOf(target, new TopicPartition(record.topic(), record.partition()));
            if (positioned == null || positioned != epoch) {
                return false;
            }
            checked = record.partition();
        }
        return true;
    }

    /** The batch that carries the stored offsets to the replay's target ends the replay, in its own transaction. */
    private void completeReplay(Fence fence) {
        if (fence.runningReplay() == null) {
            return;
        }
        jdbc.update("""
                UPDATE projection.replays r
                SET state = 'completed', finished_at = now(),
                    events_applied = (SELECT coalesce(sum(o.applied), 0) FROM projection.offsets o
                                      WHERE o.group_id = r.group_id AND o.topic = r.topic)
                WHERE r.id = ? AND r.state = 'running'
                  AND NOT EXISTS (SELECT 1 FROM projection.replay_targets t
                                  LEFT JOIN projection.offsets o
                                         ON o.group_id = r.group_id AND o.topic = r.topic AND o.partition = t.partition
                                  WHERE t.replay_id = r.id AND coalesce(o.next_offset, 0) < t.end_offset)""",
                fence.runningReplay());
    }

    private Map<Integer, Long> lockOffsets(Target target, Set<Integer> partitions) {
        var offsets = new HashMap<Integer, Long>();
        if (partitions.isEmpty()) {
            return offsets;
        }
        jdbc.query("""
                SELECT partition, next_offset FROM projection.offsets
                WHERE group_id = ? AND topic = ? AND partition = ANY (?)
                ORDER BY partition FOR UPDATE""",
                rs -> {
                    offsets.put(rs.getInt(1), rs.getLong(2));
                }, groupId(target), properties.topic(), partitions.toArray(Integer[]::new));
        return offsets;
    }

    Map<UUID, Balance> lockBalances(Set<UUID> accounts) {
        return lockBalances(Target.LIVE, accounts);
    }

    /** Locks the accounts' rows in a fixed order, so two consumers briefly sharing a partition cannot interleave. */
    private Map<UUID, Balance> lockBalances(Target target, Set<UUID> accounts) {
        var balances = new HashMap<UUID, Balance>();
        if (accounts.isEmpty()) {
            return balances;
        }
        jdbc.query("""
                SELECT account_id, balance, version, event_id FROM %s
                WHERE account_id = ANY (?) ORDER BY account_id FOR UPDATE""".formatted(target.balances()),
                rs -> {
                    var id = rs.getObject(1, UUID.class);
                    balances.put(id, new Balance(id, rs.getLong(2), rs.getLong(3), rs.getObject(4, UUID.class)));
                }, (Object) accounts.toArray(UUID[]::new));
        return balances;
    }

    private Set<UUID> parkedAmong(Target target, Set<UUID> accounts) {
        if (accounts.isEmpty()) {
            return Set.of();
        }
        return new HashSet<>(jdbc.queryForList(
                "SELECT account_id FROM %s WHERE account_id = ANY (?)".formatted(target.parkedAccounts()),
                UUID.class, (Object) accounts.toArray(UUID[]::new)));
    }

    private void hold(Target target, ConsumerRecord<String, String> record, EventEnvelope envelope) {
        jdbc.update("""
                INSERT INTO %s (account_id, version, payload, partition, record_offset)
                VALUES (?, ?, ?, ?, ?) ON CONFLICT (account_id, version) DO NOTHING""".formatted(target.heldEvents()),
                envelope.accountId(), envelope.version(), record.value(), record.partition(), record.offset());
    }

    void writeBalances(Set<UUID> changed, Map<UUID, Balance> state, Map<UUID, Long> versionsBefore) {
        writeBalances(Target.LIVE, changed, state, versionsBefore);
    }

    /**
     * One array statement for the accounts that had a row and one for those that had none, whatever their number.
     * The version guard: an update only lands on the version it was decided on, and an insert only where no row
     * appeared meanwhile, so a second writer (a consumer that lost its partition but has not noticed yet) fails and
     * rolls back instead of applying twice.
     */
    private void writeBalances(Target target, Set<UUID> changed, Map<UUID, Balance> state,
            Map<UUID, Long> versionsBefore) {
        var updates = new ArrayList<Balance>();
        var updateExpected = new ArrayList<Long>();
        var inserts = new ArrayList<Balance>();
        for (var id : new TreeSet<>(changed)) {
            long before = versionsBefore.getOrDefault(id, 0L);
            if (before == 0) {
                inserts.add(state.get(id));
            } else {
                updates.add(state.get(id));
                updateExpected.add(before);
            }
        }
        if (!updates.isEmpty()) {
            int updated = jdbc.update("""
                    UPDATE %s AS b SET balance = u.balance, version = u.version, event_id = u.event_id, updated_at = now()
                    FROM unnest(?::uuid[], ?::bigint[], ?::bigint[], ?::uuid[], ?::bigint[])
                         AS u(account_id, balance, version, event_id, expected)
                    WHERE b.account_id = u.account_id AND b.version = u.expected""".formatted(target.balances()),
                    ids(updates), balances(updates), versions(updates), eventIds(updates),
                    updateExpected.stream().mapToLong(Long::longValue).toArray());
            if (updated != updates.size()) {
                throw new IllegalStateException((updates.size() - updated) + " of " + updates.size()
                        + " accounts moved past the version this batch started from; another consumer wrote them");
            }
        }
        if (!inserts.isEmpty()) {
            int inserted = jdbc.update("""
                    INSERT INTO %s (account_id, balance, version, event_id, updated_at)
                    SELECT u.account_id, u.balance, u.version, u.event_id, now()
                    FROM unnest(?::uuid[], ?::bigint[], ?::bigint[], ?::uuid[]) AS u(account_id, balance, version, event_id)
                    ON CONFLICT (account_id) DO NOTHING""".formatted(target.balances()),
                    ids(inserts), balances(inserts), versions(inserts), eventIds(inserts));
            if (inserted != inserts.size()) {
                throw new IllegalStateException((inserts.size() - inserted) + " of " + inserts.size()
                        + " new accounts appeared under this batch; another consumer wrote them");
            }
        }
    }

    private static UUID[] ids(List<Balance> rows) {
        return rows.stream().map(Balance::accountId).toArray(UUID[]::new);
    }

    private static long[] balances(List<Balance> rows) {
        return rows.stream().mapToLong(Balance::balance).toArray();
    }

    private static long[] versions(List<Balance> rows) {
        return rows.stream().mapToLong(Balance::version).toArray();
    }

    private static UUID[] eventIds(List<Balance> rows) {
        return rows.stream().map(Balance::eventId).toArray(UUID[]::new);
    }

    private void writeOffsets(Target target, Map<Integer, PartitionProgress> progress) {
        if (progress.isEmpty()) {
            return;
        }
        var partitions = new int[progress.size()];
        var nextOffsets = new long[progress.size()];
        var applied = new long[progress.size()];
        var duplicates = new long[progress.size()];
        int i = 0;
        for (var entry : progress.entrySet()) {
            partitions[i] = entry.getKey();
            nextOffsets[i] = entry.getValue().nextOffset;
            applied[i] = entry.getValue().applied;
            duplicates[i] = entry.getValue().duplicates;
            i++;
        }
        upsertOffsets(target, partitions, nextOffsets, applied, duplicates);
    }

    /** Counts the held events a release applied (or found already applied) on the live group's partition. */
    void countReleased(int partition, long applied, long duplicates) {
        jdbc.update("""
                UPDATE projection.offsets SET applied = applied + ?, duplicates = duplicates + ?, updated_at = now()
                WHERE group_id = ? AND topic = ? AND partition = ?""", applied, duplicates, properties.groupId(),
                properties.topic(), partition);
    }

    private void advance(Target target, ConsumerRecord<String, String> record) {
        upsertOffsets(target, new int[] {record.partition()}, new long[] {record.offset() + 1}, new long[] {0},
                new long[] {0});
    }

    private void upsertOffsets(Target target, int[] partitions, long[] nextOffsets, long[] applied,
            long[] duplicates) {
        jdbc.update("""
                INSERT INTO projection.offsets (group_id, topic, partition, next_offset, applied, duplicates, updated_at)
                SELECT ?, ?, u.partition, u.next_offset, u.applied, u.duplicates, now()
                FROM unnest(?::int[], ?::bigint[], ?::bigint[], ?::bigint[]) AS u(partition, next_offset, applied, duplicates)
                ON CONFLICT (group_id, topic, partition) DO UPDATE
                SET next_offset = greatest(projection.offsets.next_offset, EXCLUDED.next_offset),
                    applied = projection.offsets.applied + EXCLUDED.applied,
                    duplicates = projection.offsets.duplicates + EXCLUDED.duplicates,
                    updated_at = EXCLUDED.updated_at""",
                groupId(target), properties.topic(), partitions, nextOffsets, applied, duplicates);
    }
}
