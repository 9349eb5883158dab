package dev.ledgerlab.projector.apply;

import dev.ledgerlab.projector.ProjectorProperties;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * The SQL of the projection's tables, for either target: each statement is one round trip whatever the number of
 * rows (arrays and {@code unnest}), so that a batch of 20,000 records costs a handful of statements. It decides
 * nothing; callers run it inside their transaction.
 */
@Component
public class ProjectionStore {

    /** The epoch of the rebuild target while no rebuild runs: no batch applies under it. */
    public static final long NO_EPOCH = -1;

    /**
     * Where the consumers of a target start: the epoch the positions belong to, and the stored next offset per
     * partition (absent: from the beginning of the log). {@link #NO_EPOCH} for a rebuild when none runs.
     */
    public record Positions(long epoch, Map<Integer, Long> offsets) {
    }

    /** The epoch read at the start of a batch, and the in-place replay that runs, if one does. */
    record Fence(long epoch, Long runningReplay) {
    }

    private final JdbcTemplate jdbc;
    private final ProjectorProperties properties;

    public ProjectionStore(JdbcTemplate jdbc, ProjectorProperties properties) {
        this.jdbc = jdbc;
        this.properties = properties;
    }

    public String groupId(ProjectionTables target) {
        return target == ProjectionTables.LIVE ? properties.groupId() : properties.replay().rebuildGroupId();
    }

    /**
     * The epoch and the stored offsets of a target, read in one statement so that they belong together: positions
     * read before a reset never pass for positions of the epoch after it.
     */
    public Positions positions(ProjectionTables target) {
        var offsets = new HashMap<Integer, Long>();
        var epoch = new long[] {NO_EPOCH};
        var sql = target == ProjectionTables.LIVE
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

    /**
     * The first statement of every write: in share mode, so that batches run side by side while a reset (which
     * takes the same row exclusively) waits for them, and batches after the reset see its epoch.
     */
    Fence fence(ProjectionTables target) {
        if (target == ProjectionTables.LIVE) {
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

    /**
     * The batch that carries the stored offsets to the replay's target ends the replay, in its own transaction.
     *
     * <p>Two consumers can carry the last two partitions to their targets at the same moment; each checks the
     * others' offsets as committed, so neither would see the other's and the replay would never end (a write skew
     * under read committed). So every transaction that has brought all of its own partitions to their targets first
     * takes the replay's row: of two such transactions the later one checks after the earlier one committed and sees
     * its offsets. Batches still short of the target on one of their partitions cannot end the replay and take
     * nothing.
     *
     * @param partitions the partitions whose offsets this transaction wrote
     */
    void completeReplay(Fence fence, Collection<Integer> partitions) {
        if (fence.runningReplay() == null) {
            return;
        }
        var mayEnd = jdbc.queryForList("""
                SELECT r.id FROM projection.replays r
                WHERE r.id = ? AND r.state = 'running'
                  AND NOT EXISTS (SELECT 1 FROM projection.replay_targets t
                                  LEFT JOIN projection.offsets o
                                         ON o.group_id = r.group_id AND o.topic = r.topic AND o.partition = t.partition
                                  WHERE t.replay_id = r.id AND t.partition = ANY (?)
                                    AND coalesce(o.next_offset, 0) < t.end_offset)
                FOR UPDATE OF r""", Long.class, fence.runningReplay(), partitions.toArray(Integer[]::new));
        if (mayEnd.isEmpty()) {
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

    Map<Integer, Long> lockOffsets(ProjectionTables target, Set<Integer> partitions) {
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

    /** Locks the accounts' rows in a fixed order, so two consumers briefly sharing a partition cannot interleave. */
    Map<UUID, Balance> lockBalances(ProjectionTables target, Set<UUID> accounts) {
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

    Set<UUID> parkedAmong(ProjectionTables target, Set<UUID> accounts) {
        if (accounts.isEmpty()) {
            return Set.of();
        }
        return new HashSet<>(jdbc.queryForList(
                "SELECT account_id FROM %s WHERE account_id = ANY (?)".formatted(target.parkedAccounts()),
                UUID.class, (Object) accounts.toArray(UUID[]::new)));
    }

    /** Parks the account named by {@code reason} at that record; an account parked already stays as it was. */
    void park(ProjectionTables target, String topic, BatchDecision.Entry entry, UnapplicableEventException reason) {
        jdbc.update("""
                INSERT INTO %s (account_id, expected_version, received_version, reason, topic, partition,
                                record_offset, parked_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, now())
                ON CONFLICT (account_id) DO NOTHING""".formatted(target.parkedAccounts()),
                reason.accountId(), reason.expectedVersion(), reason.receivedVersion(), reason.reason(),
                topic, entry.partition(), entry.offset());
    }

    /** A redelivered held event collapses onto the one already held. */
    void hold(ProjectionTables target, BatchDecision.Entry entry) {
        jdbc.update("""
                INSERT INTO %s (account_id, version, payload, partition, record_offset)
                VALUES (?, ?, ?, ?, ?) ON CONFLICT (account_id, version) DO NOTHING""".formatted(target.heldEvents()),
                entry.accountId(), entry.version(), entry.value(), entry.partition(),
                entry.offset());
    }

    /**
     * One array statement for the accounts that had a row and one for those that had none, whatever their number.
     * The version guard: an update only lands on the version it was decided on, and an insert only where no row
     * appeared meanwhile, so a second writer (a consumer that lost its partition but has not noticed yet) fails and
     * rolls back instead of applying twice.
     */
    void writeBalances(ProjectionTables target, Set<UUID> changed, Map<UUID, Balance> state, Map<UUID, Balance> before) {
        var updates = new ArrayList<Balance>();
        var updateExpected = new ArrayList<Long>();
        var inserts = new ArrayList<Balance>();
        for (var id : new TreeSet<>(changed)) {
            var previous = before.get(id);
            if (previous == null) {
                inserts.add(state.get(id));
            } else {
                updates.add(state.get(id));
                updateExpected.add(previous.version());
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

    /** The partitions' new next offsets and counts; an offset never moves back, the counts always add up. */
    void writeOffsets(ProjectionTables target, Map<Integer, BatchDecision.PartitionProgress> progress) {
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

    /** Moves the partition's stored offset past the record, counting nothing. */
    void advance(ProjectionTables target, int partition, long offset) {
        upsertOffsets(target, new int[] {partition}, new long[] {offset + 1}, new long[] {0}, new long[] {0});
    }

    /** Counts the held events a release applied (or found already applied) on the live group's partition. */
    void countReleased(int partition, long applied, long duplicates) {
        jdbc.update("""
                UPDATE projection.offsets SET applied = applied + ?, duplicates = duplicates + ?, updated_at = now()
                WHERE group_id = ? AND topic = ? AND partition = ?""", applied, duplicates, properties.groupId(),
                properties.topic(), partition);
    }

    private void upsertOffsets(ProjectionTables target, int[] partitions, long[] nextOffsets, long[] applied,
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
}
