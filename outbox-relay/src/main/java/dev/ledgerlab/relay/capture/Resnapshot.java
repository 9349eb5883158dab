package dev.ledgerlab.relay.capture;

import dev.ledgerlab.problems.ApiProblem;
import dev.ledgerlab.problems.ProblemType;
import dev.ledgerlab.relay.RelayProperties;
import dev.ledgerlab.relay.status.RelayRole;
import dev.ledgerlab.relay.status.RelayStatus;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessResourceFailureException;

/**
 * What an operator does once PostgreSQL has removed WAL the relay's slot still needed ({@code wal_status = 'lost'},
 * past {@code max_slot_wal_keep_size}): the slot can never stream again, and the engine does not start on it
 * (OutboxEngine asks first), which is right (nothing is skipped) until someone decides. The events themselves are
 * all still in {@code ledger.events}, so nothing is lost if the relay takes them again from the table: it stops the
 * engine, deletes its stored offsets, drops the slot and starts the engine, which (with no offset,
 * {@code snapshot.mode=initial}) makes a new slot and snapshots the table in (account, version) order, then streams
 * from the new slot's start. Every event is published again; the projector's version check skips those it has
 * applied.
 *
 * <p>The offsets go first: should the process die between the two steps, the lost slot keeps the engine from
 * starting until the operator asks again, and the next call drops it. The old offsets must go in any case: they point
 * into WAL no slot can serve, and Debezium refuses to stream from them. Done only when the slot is lost: a slot that is
 * merely behind catches up by itself, and a snapshot re-publishes the whole log.
 */
public final class Resnapshot {

    private static final Logger log = LoggerFactory.getLogger(Resnapshot.class);
    private static final long INACTIVE_WAIT_MILLIS = 30_000;

    /** What was reset. */
    public record Result(String slot, int offsetsDeleted) {
    }

    private final OutboxEngine engine;
    private final PostgresSource source;
    private final RelayStatus status;
    private final String slot;
    private final String offsetsTable;
    private final String engineName;

    public Resnapshot(OutboxEngine engine, PostgresSource source, RelayStatus status, RelayProperties relay) {
        this.engine = engine;
        this.source = source;
        this.status = status;
        this.slot = relay.slotName();
        this.offsetsTable = relay.offsetsTable();
        this.engineName = ConnectorSettings.engineName(relay);
    }

    public synchronized Result run() {
        if (status.role() != RelayRole.ACTIVE) {
            throw new ApiProblem(ProblemType.RELAY_NOT_ACTIVE, "this relay is " + status.role().name().toLowerCase()
                    + "; the relay holding the lock for slot " + slot + " takes the snapshot");
        }
        try (var connection = source.connect("outbox-relay-resnapshot")) {
            var walStatus = ReplicationSlots.walStatus(connection, slot);
            if (!"lost".equals(walStatus)) {
                throw new ApiProblem(ProblemType.SLOT_NOT_LOST, "slot " + slot + " has wal_status "
                        + (walStatus == null ? "(no such slot)" : walStatus) + "; it catches up by itself",
                        Map.of("walStatus", walStatus == null ? "absent" : walStatus));
            }
            log.warn("Slot {} is lost: re-snapshotting the events table as the operator asked", slot);
            engine.stop();
            try {
                awaitInactive(connection);
                int deleted = deleteOffsets(connection);
                try (var drop = connection.prepareStatement("SELECT pg_drop_replication_slot(?)")) {
                    drop.setString(1, slot);
                    drop.execute();
                }
                log.warn("Deleted {} stored offsets of {} and dropped slot {}; the engine snapshots ledger.events",
                        deleted, engineName, slot);
                return new Result(slot, deleted);
            } finally {
                if (status.role() == RelayRole.ACTIVE) {
                    engine.start();
                }
            }
        } catch (SQLException e) {
            throw new DataAccessResourceFailureException("re-snapshot of slot " + slot + " failed", e);
        }
    }

    /** The stopped engine's replication connection may take a moment to end on the server. */
    private void awaitInactive(Connection connection) throws SQLException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(INACTIVE_WAIT_MILLIS);
        try (var query = connection.prepareStatement(
                "SELECT active FROM pg_replication_slots WHERE slot_name = ?")) {
            query.setString(1, slot);
            while (true) {
                try (var rows = query.executeQuery()) {
                    if (!rows.next() || !rows.getBoolean(1)) {
                        return;
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new SQLException("slot " + slot + " is still in use " + INACTIVE_WAIT_MILLIS + " ms after "
                            + "the engine stopped", "55006");
                }
                try {
                    Thread.sleep(100); // polling the server's view of the slot; no event to wait on
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new SQLException("interrupted while waiting for slot " + slot, e);
                }
            }
        }
    }

    /** Debezium's JDBC store keys each offset {@code ["<engine name>",{...partition...}]}. */
    private int deleteOffsets(Connection connection) throws SQLException {
        // offsetsTable is a checked schema.table identifier (RelayProperties).
        try (var delete = connection.prepareStatement("DELETE FROM " + offsetsTable + " WHERE offset_key LIKE ?")) {
            delete.setString(1, "[\"" + engineName.replace("%", "\\%").replace("_", "\\_") + "\",%");
            return delete.executeUpdate();
        }
    }
}
