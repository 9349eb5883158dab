package dev.ledgerlab.projector.invariants;

import dev.ledgerlab.events.EventReader;
import dev.ledgerlab.projector.ProjectorProperties;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.UUID;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * Compares the projection with the event store it was built from. Meaningful once the pipeline is quiet (nothing
 * in flight between ledger.events and projection.balances); every crash and concurrency proof ends with it, and
 * users can run it after their own experiments ({@code GET /projection/invariants}).
 *
 * <p>For every account: the projected balance equals the fold of its events (with the events' own arithmetic,
 * {@code AccountEvent.applyTo}), the projected version equals its last event's version, event versions are
 * contiguous from 1, no balance is ever negative; and the events applied (the applications counted in
 * projection.offsets by the live group, each batch's count committed with its balances) equal the events stored: an
 * event applied twice or never shows there even when the balances happen to agree.
 *
 * <p>It folds with the events' own arithmetic, as the projector does, so it cannot catch a wrong rule shared by both:
 * the proofs add a checker of their own that does the arithmetic in SQL over the stored payloads.
 */
@Component
public class InvariantChecker {

    public record Violation(UUID accountId, String invariant, String expected, String actual) {
    }

    public record Report(boolean ok, long accounts, long eventsStored, long eventsApplied, long parkedAccounts,
            List<Violation> violations) {
    }

    private static final int MAX_REPORTED = 100;

    private final JdbcTemplate jdbc;
    private final JdbcTemplate streaming;
    private final ProjectorProperties properties;
    private final EventReader reader;

    public InvariantChecker(JdbcTemplate jdbc, ProjectorProperties properties, EventReader reader) {
        this.jdbc = jdbc;
        this.properties = properties;
        this.reader = reader;
        // Its own template: the fetch size streams the event store instead of loading it whole.
        this.streaming = new JdbcTemplate(jdbc.getDataSource());
        this.streaming.setFetchSize(10_000);
    }

    /** One snapshot (REPEATABLE READ) of both schemas, so a write in between cannot fake a violation. */
    @Transactional(readOnly = true, isolation = org.springframework.transaction.annotation.Isolation.REPEATABLE_READ)
    public Report check() {
        record Projected(long balance, long version) {
        }
        var projected = new HashMap<UUID, Projected>();
        jdbc.query("SELECT account_id, balance, version FROM projection.balances", rs -> {
            projected.put(rs.getObject(1, UUID.class), new Projected(rs.getLong(2), rs.getLong(3)));
        });
        var violations = new ArrayList<Violation>();
        var seen = new HashSet<UUID>();
        long[] stored = {0};
        // Streamed in account and version order: the fold of one account is done before the next begins.
        var fold = new Object() {
            UUID account;
            long balance;
            long lastVersion;
            boolean broken;

            void finish() {
                if (account == null) {
                    return;
                }
                var p = projected.get(account);
                if (p == null) {
                    add(violations, account, "every account with events is projected", "version " + lastVersion,
                            "absent");
                } else {
                    if (!broken && p.balance() != balance) {
                        add(violations, account, "balance equals the fold of its events", Long.toString(balance),
                                Long.toString(p.balance()));
                    }
                    if (p.version() != lastVersion) {
                        add(violations, account, "version equals the last event's version", Long.toString(lastVersion),
                                Long.toString(p.version()));
                    }
                    if (p.balance() < 0) {
                        add(violations, account, "balance is not negative", ">= 0", Long.toString(p.balance()));
                    }
                }
                seen.add(account);
            }
        };
        streaming.query("SELECT account_id, version, payload::text FROM ledger.events ORDER BY account_id, version", rs -> {
            var account = rs.getObject(1, UUID.class);
            long version = rs.getLong(2);
            stored[0]++;
            if (!account.equals(fold.account)) {
                fold.finish();
                fold.account = account;
                fold.balance = 0;
                fold.lastVersion = 0;
                fold.broken = false;
            }
            if (version != fold.lastVersion + 1) {
                add(violations, account, "event versions are contiguous from 1", Long.toString(fold.lastVersion + 1),
                        Long.toString(version));
                fold.broken = true;
            }
            fold.lastVersion = version;
            try {
                fold.balance = reader.read(rs.getString(3)).event().applyTo(fold.balance);
                if (fold.balance < 0) {
                    add(violations, account, "no balance is ever negative", ">= 0 after version " + version,
                            Long.toString(fold.balance));
                }
            } catch (RuntimeException e) {
                add(violations, account, "every stored event decodes and applies", "version " + version,
                        e.getMessage());
                fold.broken = true;
            }
        });
        fold.finish();
        long applied = jdbc.queryForObject(
                "SELECT coalesce(sum(applied), 0) FROM projection.offsets WHERE group_id = ? AND topic = ?",
                Long.class, properties.groupId(), properties.topic());
        for (var entry : projected.entrySet()) {
            if (!seen.contains(entry.getKey())) {
                add(violations, entry.getKey(), "every projected account has events", "events", "none");
            }
        }
        if (applied != stored[0]) {
            add(violations, null, "events applied equal events stored", Long.toString(stored[0]),
                    Long.toString(applied));
        }
        var parked = jdbc.queryForObject("SELECT count(*) FROM projection.parked_accounts", Long.class);
        var reported = violations.size() > MAX_REPORTED ? violations.subList(0, MAX_REPORTED) : violations;
        return new Report(violations.isEmpty(), projected.size(), stored[0], applied, parked, List.copyOf(reported));
    }

    private static void add(List<Violation> violations, UUID account, String invariant, String expected,
            String actual) {
        violations.add(new Violation(account, invariant, expected, actual));
    }
}
