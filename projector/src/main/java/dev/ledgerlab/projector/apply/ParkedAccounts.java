package dev.ledgerlab.projector.apply;

import dev.ledgerlab.events.EventReader;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/** The operator's view of parked accounts, and their release once the missing event has arrived. */
@Component
public class ParkedAccounts {

    public record Parked(UUID accountId, long expectedVersion, long receivedVersion, String reason, int partition,
            long recordOffset, Instant parkedAt, List<Long> heldVersions) {
    }

    public record Released(UUID accountId, long balance, long version, int applied) {
    }

    /** The held events still do not continue the projected version: releasing would skip an event. */
    public static final class StillMissing extends RuntimeException {
        private final long expectedVersion;
        private final long firstHeldVersion;

        StillMissing(UUID accountId, long expectedVersion, long firstHeldVersion) {
            super("account " + accountId + " still misses version " + expectedVersion + " (first held: "
                    + firstHeldVersion + ")", null, false, false);
            this.expectedVersion = expectedVersion;
            this.firstHeldVersion = firstHeldVersion;
        }

        public long expectedVersion() {
            return expectedVersion;
        }

        public long firstHeldVersion() {
            return firstHeldVersion;
        }
    }

    /** A held event is of a schema version this projector does not know: releasing would skip or misread it. */
    public static final class UnknownVersionHeld extends RuntimeException {
        UnknownVersionHeld(UUID accountId, long version, String reason) {
            super("account " + accountId + " holds version " + version + " of a schema this projector cannot read: "
                    + reason + ". Deploy a projector that knows it, then release", null, false, false);
        }
    }

    /** A rebuild runs: a release now would be lost when its shadow tables replace these. */
    public static final class RebuildRunning extends RuntimeException {
        RebuildRunning(long rebuildId) {
            super("rebuild " + rebuildId + " runs; its tables replace these when it swaps, and a release now would"
                    + " be lost with them. Release after the swap, or cancel the rebuild", null, false, false);
        }
    }

    private final JdbcTemplate jdbc;
    private final ProjectionStore store;
    private final EventReader reader;

    public ParkedAccounts(JdbcTemplate jdbc, ProjectionStore store, EventReader reader) {
        this.jdbc = jdbc;
        this.store = store;
        this.reader = reader;
    }

    public List<Parked> list() {
        return jdbc.query("""
                SELECT p.account_id, p.expected_version, p.received_version, p.reason, p.partition, p.record_offset,
                       p.parked_at,
                       coalesce((SELECT array_agg(h.version ORDER BY h.version) FROM projection.held_events h
                                 WHERE h.account_id = p.account_id), '{}') AS held
                FROM projection.parked_accounts p ORDER BY p.parked_at, p.account_id""",
                (rs, row) -> new Parked(rs.getObject(1, UUID.class), rs.getLong(2), rs.getLong(3), rs.getString(4),
                        rs.getInt(5), rs.getLong(6), rs.getObject(7, java.time.OffsetDateTime.class).toInstant(),
                        List.of((Long[]) rs.getArray(8).getArray())));
    }

    public long count() {
        return jdbc.queryForObject("SELECT count(*) FROM projection.parked_accounts", Long.class);
    }

    /**
     * Applies the held events in version order and un-parks the account, all in one transaction, or changes
     * nothing when they do not continue from the projected version.
     *
     * @return empty when the account is not parked
     * @throws StillMissing when the event before the first held one has not arrived yet
     * @throws UnknownVersionHeld when a held event is of a schema version this projector cannot read
     * @throws RebuildRunning while a rebuild runs
     */
    @Transactional
    public Optional<Released> release(UUID accountId) {
        var rebuilding = jdbc.queryForList(
                "SELECT id FROM projection.replays WHERE kind = 'rebuild' AND state = 'running'", Long.class);
        if (!rebuilding.isEmpty()) {
            throw new RebuildRunning(rebuilding.get(0));
        }
        var parked = jdbc.queryForList(
                "SELECT account_id FROM projection.parked_accounts WHERE account_id = ? FOR UPDATE", UUID.class,
                accountId);
        if (parked.isEmpty()) {
            return Optional.empty();
        }
        var current = store.lockBalances(ProjectionTables.LIVE, Set.of(accountId));
        long version = current.containsKey(accountId) ? current.get(accountId).version() : 0;
        var held = jdbc.query(
                "SELECT payload, partition, record_offset FROM projection.held_events WHERE account_id = ?"
                        + " ORDER BY version",
                (rs, row) -> BatchDecision.Entry.read(rs.getInt(2), rs.getLong(3), rs.getString(1), reader),
                accountId);
        // What the projection has already (a redelivered event, or the second of two events claiming one version,
        // which the operator releases past) is skipped; the rest must continue the version, by the batch rule.
        var pending = held.stream().filter(entry -> entry.version() > version).toList();
        for (var entry : pending) {
            if (entry.unreadable() != null) {
                throw new UnknownVersionHeld(accountId, entry.version(), entry.unreadable().getMessage());
            }
        }
        var decided = BatchDecision.decide(pending, Map.of(), current, Set.of(), false);
        if (decided.failure() != null) {
            if (decided.failure().isGap()) {
                throw new StillMissing(accountId, decided.failure().expectedVersion(),
                        decided.failure().receivedVersion());
            }
            throw decided.failure();
        }
        store.writeBalances(ProjectionTables.LIVE, decided.changed(), decided.state(), current);
        if (!held.isEmpty()) {
            // An account's events share one partition. Counted there, the applications stay equal to the events
            // stored, which the invariant checker compares.
            store.countReleased(held.get(0).partition(), decided.applied(), held.size() - pending.size());
        }
        var released = decided.state().get(accountId);
        jdbc.update("DELETE FROM projection.parked_accounts WHERE account_id = ?", accountId);
        return Optional.of(new Released(accountId, released == null ? 0 : released.balance(),
                released == null ? 0 : released.version(), decided.applied()));
    }
}
