package dev.ledgerlab.projector.replay;

import dev.ledgerlab.projector.ProjectorProperties;
import dev.ledgerlab.projector.apply.ProjectionFaults;
import dev.ledgerlab.projector.apply.ProjectionTables;
import dev.ledgerlab.projector.operate.LogEndOffsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Starts and ends replays and rebuilds, all through projection.replays, so that every projector instance
 * sees the same state. An in-place replay is one transaction: it takes the epoch row exclusively (every batch of
 * every instance waits at it), clears the projection and the live group's stored offsets, and moves the epoch
 * (every consumer then seeks back to offset zero). A rebuild fills shadow tables with a group of its own; the swap
 * is one transaction too: with the rebuild's row and the epoch row locked, so that neither group writes, it checks
 * that the shadow offsets reached the live ones, replaces the live tables by the shadow ones, hands the shadow
 * offsets to the live group and moves the epoch.
 */
@Component
public class Replays {

    private static final Logger log = LoggerFactory.getLogger(Replays.class);

    private final JdbcTemplate jdbc;
    private final TransactionTemplate transactions;
    private final ProjectorProperties properties;
    private final ProjectorProperties.Replay replay;
    private final LogEndOffsets logEnd;
    private final ProjectionFaults faults;
    private final ReplayQueries queries;

    public Replays(JdbcTemplate jdbc, TransactionTemplate transactions, ProjectorProperties properties,
            LogEndOffsets logEnd, ProjectionFaults faults, ReplayQueries queries) {
        this.jdbc = jdbc;
        this.transactions = transactions;
        this.properties = properties;
        this.replay = properties.replay();
        this.logEnd = logEnd;
        this.faults = faults;
        this.queries = queries;
    }

    /**
     * Clears the projection (balances, parked accounts, held events) and the live group's offsets in one
     * transaction; every consumer of the group then re-reads the log from offset zero.
     *
     * @throws ReplayRefused when a replay or rebuild runs
     */
    public Progress startReplay(String requestedBy) {
        var target = endOffsets();
        long id = begin(() -> transactions.execute(status -> {
            long run = insertRun("replay", properties.groupId(), requestedBy, target);
            // Taken before anything is cleared: batches in flight finish first, later ones wait for the commit.
            jdbc.queryForObject("SELECT epoch FROM projection.epoch FOR UPDATE", Long.class);
            clearOffsets(properties.groupId());
            jdbc.execute("TRUNCATE projection.held_events, projection.parked_accounts, projection.balances");
            jdbc.update("UPDATE projection.epoch SET epoch = epoch + 1");
            if (target.values().stream().allMatch(end -> end == 0)) {
                jdbc.update("""
                        UPDATE projection.replays SET state = 'completed', finished_at = now(), events_applied = 0,
                            detail = 'the log was empty' WHERE id = ?""", run);
            }
            return run;
        }));
        var progress = queries.progress(id);
        log.info("replay {} started by {}: projection cleared, {} events to re-read from offset zero, target {}", id,
                requestedBy, progress.target(), progress.targetOffsets());
        return progress;
    }

    /**
     * Creates empty shadow tables and starts a rebuild; the instances' rebuild consumers fill them from offset zero.
     *
     * @throws ReplayRefused when a replay or rebuild runs
     */
    public Progress startRebuild(String requestedBy) {
        var target = endOffsets();
        long id = begin(() -> transactions.execute(status -> {
            long run = insertRun("rebuild", replay.rebuildGroupId(), requestedBy, target);
            dropShadow();
            // The live tables' own definitions, so that the shadow is what a migration made of them.
            var shadow = ProjectionTables.REBUILD;
            jdbc.execute("CREATE TABLE " + shadow.balances() + " (LIKE " + ProjectionTables.LIVE.balances() + " INCLUDING ALL)");
            jdbc.execute("CREATE TABLE " + shadow.parkedAccounts() + " (LIKE " + ProjectionTables.LIVE.parkedAccounts()
                    + " INCLUDING ALL)");
            jdbc.execute("CREATE TABLE " + shadow.heldEvents() + " (LIKE " + ProjectionTables.LIVE.heldEvents()
                    + " INCLUDING ALL)");
            // LIKE copies no foreign key: this is V1's, between the shadow tables.
            jdbc.execute("ALTER TABLE " + shadow.heldEvents() + " ADD FOREIGN KEY (account_id) REFERENCES "
                    + shadow.parkedAccounts() + " (account_id) ON DELETE CASCADE");
            clearOffsets(replay.rebuildGroupId());
            return run;
        }));
        var progress = queries.progress(id);
        log.info("rebuild {} started by {}: shadow tables in {}, group {} reads {} events from offset zero", id,
                requestedBy, ProjectionTables.REBUILD.schema(), replay.rebuildGroupId(), progress.target());
        return progress;
    }

    /**
     * Ends the running rebuild without a swap and drops its shadow tables.
     *
     * @return empty when no rebuild runs
     */
    public Optional<Progress> cancelRebuild(String reason) {
        Long id = transactions.execute(status -> {
            var running = jdbc.queryForList("""
                    SELECT id FROM projection.replays WHERE kind = 'rebuild' AND state = 'running' FOR UPDATE""",
                    Long.class);
            if (running.isEmpty()) {
                return null;
            }
            fail(running.get(0), reason);
            return running.get(0);
        });
        if (id == null) {
            return Optional.empty();
        }
        log.warn("rebuild {} ended without a swap: {}", id, reason);
        return Optional.of(queries.progress(id));
    }

    /**
     * Swaps the shadow tables in when the rebuild has caught up with the live projection; else changes nothing.
     * Safe to call from any thread of any instance at any time.
     *
     * @return true when this call swapped
     */
    public boolean swapIfCaughtUp() {
        var running = queries.runningRebuild();
        if (running.isEmpty() || !caughtUp(running.get())) {
            return false;
        }
        long id = running.get();
        try {
            var outcome = transactions.execute(status -> swap(id));
            if (outcome != null && outcome.startsWith("swapped")) {
                log.info("rebuild {} {}", id, outcome);
                return true;
            }
            if (outcome != null) {
                log.warn("rebuild {} failed: {}", id, outcome);
            }
            return false;
        } catch (PessimisticLockingFailureException e) {
            // Readers or writers held the tables past the lock timeout: the next batch or idle event tries again.
            log.info("rebuild {} swap postponed: {}", id, e.getMostSpecificCause().getMessage());
            return false;
        }
    }

    private String swap(long id) {
        jdbc.execute("SET LOCAL lock_timeout = '" + replay.swapLockTimeout().toMillis() + "ms'");
        // Rebuild batches hold this row in share mode: none runs while the swap has it.
        var still = jdbc.queryForList(
                "SELECT id FROM projection.replays WHERE id = ? AND state = 'running' FOR UPDATE", Long.class, id);
        if (still.isEmpty()) {
            return null;
        }
        // Live batches hold the epoch in share mode: none runs while the swap has it, so the offsets stand still.
        jdbc.queryForObject("SELECT epoch FROM projection.epoch FOR UPDATE", Long.class);
        if (!caughtUp(id)) {
            return null;
        }
        // An account parked in the rebuild but released in the live projection would step back: refuse.
        var behind = jdbc.queryForList("""
                SELECT p.account_id::text FROM %s p
                JOIN %s l ON l.account_id = p.account_id
                LEFT JOIN %s s ON s.account_id = p.account_id
                WHERE l.version > coalesce(s.version, 0) ORDER BY p.account_id LIMIT 10"""
                .formatted(ProjectionTables.REBUILD.parkedAccounts(), ProjectionTables.LIVE.balances(), ProjectionTables.REBUILD.balances()),
                String.class);
        if (!behind.isEmpty()) {
            var reason = "accounts parked in the rebuild are ahead in the live projection (released there by an"
                    + " operator?); swapping would move them back: " + behind;
            fail(id, reason);
            return reason;
        }
        jdbc.execute("DROP TABLE " + ProjectionTables.LIVE.heldEvents() + ", " + ProjectionTables.LIVE.parkedAccounts() + ", "
                + ProjectionTables.LIVE.balances());
        for (var table : List.of("balances", "parked_accounts", "held_events")) {
            jdbc.execute("ALTER TABLE " + ProjectionTables.REBUILD.schema() + "." + table + " SET SCHEMA " + ProjectionTables.LIVE.schema());
        }
        clearOffsets(properties.groupId());
        jdbc.update("UPDATE projection.offsets SET group_id = ?, updated_at = now() WHERE group_id = ? AND topic = ?",
                properties.groupId(), replay.rebuildGroupId(), properties.topic());
        jdbc.update("UPDATE projection.epoch SET epoch = epoch + 1");
        var swappedAt = jdbc.queryForMap("""
                SELECT string_agg(partition || ':' || next_offset, ', ' ORDER BY partition) AS offsets
                FROM projection.offsets WHERE group_id = ? AND topic = ?""", properties.groupId(), properties.topic());
        var detail = "swapped at offsets {" + swappedAt.get("offsets") + "}";
        finish(id, "completed", detail, properties.groupId());
        faults.duringSwap();
        return detail;
    }

    private void fail(long id, String reason) {
        finish(id, "failed", reason, replay.rebuildGroupId());
        dropShadow();
        clearOffsets(replay.rebuildGroupId());
    }

    /** Ends a run, counting the events applied by the group whose offsets it ended with. */
    private void finish(long id, String state, String detail, String groupId) {
        jdbc.update("""
                UPDATE projection.replays SET state = ?, finished_at = now(), detail = ?,
                    events_applied = (SELECT coalesce(sum(applied), 0) FROM projection.offsets
                                      WHERE group_id = ? AND topic = ?)
                WHERE id = ?""", state, detail, groupId, properties.topic(), id);
    }

    private void clearOffsets(String groupId) {
        jdbc.update("DELETE FROM projection.offsets WHERE group_id = ? AND topic = ?", groupId, properties.topic());
    }

    private void dropShadow() {
        jdbc.execute("DROP TABLE IF EXISTS " + ProjectionTables.REBUILD.heldEvents() + ", " + ProjectionTables.REBUILD.parkedAccounts()
                + ", " + ProjectionTables.REBUILD.balances());
    }

    /** The shadow offsets reached the target and the live group's, on every partition. */
    private boolean caughtUp(long id) {
        var lagging = jdbc.queryForObject("""
                SELECT count(*) FROM projection.replay_targets t
                JOIN projection.replays r ON r.id = t.replay_id
                LEFT JOIN projection.offsets s
                       ON s.group_id = r.group_id AND s.topic = r.topic AND s.partition = t.partition
                LEFT JOIN projection.offsets l
                       ON l.group_id = ? AND l.topic = r.topic AND l.partition = t.partition
                WHERE t.replay_id = ?
                  AND (coalesce(s.next_offset, 0) < t.end_offset
                       OR coalesce(s.next_offset, 0) < coalesce(l.next_offset, 0))""",
                Long.class, properties.groupId(), id);
        return lagging == 0;
    }

    private long insertRun(String kind, String groupId, String requestedBy, Map<Integer, Long> target) {
        long id = jdbc.queryForObject("""
                INSERT INTO projection.replays (kind, state, group_id, topic, requested_by, started_at)
                VALUES (?, 'running', ?, ?, ?, now()) RETURNING id""", Long.class, kind, groupId, properties.topic(),
                requestedBy);
        target.forEach((partition, end) -> jdbc.update(
                "INSERT INTO projection.replay_targets (replay_id, partition, end_offset) VALUES (?, ?, ?)", id,
                partition, end));
        return id;
    }

    private long begin(Supplier<Long> start) {
        try {
            return start.get();
        } catch (DuplicateKeyException e) {
            throw new ReplayRefused(queries.running().map(run -> queries.progress(run.id())).orElse(null));
        }
    }

    private Map<Integer, Long> endOffsets() {
        try {
            return logEnd.current();
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot read the log end offsets of " + properties.topic(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the log end offsets", e);
        }
    }

}
