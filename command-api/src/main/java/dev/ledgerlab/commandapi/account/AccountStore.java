package dev.ledgerlab.commandapi.account;

import dev.ledgerlab.events.EventCodec;
import dev.ledgerlab.events.EventEnvelope;
import java.math.BigInteger;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** SQL for ledger.accounts and ledger.events. The invariants themselves live in the schema (V1 migration). */
@Repository
public class AccountStore {

    private final JdbcClient jdbc;

    public AccountStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    public Optional<Account> find(UUID id) {
        return jdbc.sql("SELECT account_id, owner, balance, version FROM ledger.accounts WHERE account_id = ?")
                .param(id)
                .query(AccountStore::account)
                .optional();
    }

    /** Serialises commands on one account: the second waits here until the first commits. */
    public Optional<Account> lockForUpdate(UUID id) {
        return jdbc.sql("SELECT account_id, owner, balance, version FROM ledger.accounts WHERE account_id = ? FOR UPDATE")
                .param(id)
                .query(AccountStore::account)
                .optional();
    }

    public void insert(Account account, Instant now) {
        jdbc.sql("""
                INSERT INTO ledger.accounts (account_id, owner, balance, version, opened_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?)""")
                .params(account.id(), account.owner(), account.balance(), account.version(),
                        Timestamp.from(now), Timestamp.from(now))
                .update();
    }

    /** Optimistic guard on top of the row lock: the state must still be the one the command was decided on. */
    public void update(Account next, long expectedVersion, Instant now) {
        int updated = jdbc.sql("""
                UPDATE ledger.accounts SET balance = ?, version = ?, updated_at = ?
                WHERE account_id = ? AND version = ?""")
                .params(next.balance(), next.version(), Timestamp.from(now), next.id(), expectedVersion)
                .update();
        if (updated != 1) {
            throw new IllegalStateException("account " + next.id() + " moved past version " + expectedVersion);
        }
    }

    public void append(List<EventEnvelope> events, TraceContext trace) {
        for (var e : events) {
            jdbc.sql("""
                    INSERT INTO ledger.events (id, account_id, version, type, schema_version, payload, occurred_at,
                                               traceparent, tracestate)
                    VALUES (?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?)""")
                    .params(e.eventId(), e.accountId(), e.version(), e.event().type(),
                            EventCodec.schemaVersion(e.event()), EventCodec.toJson(e), Timestamp.from(e.occurredAt()),
                            trace.traceparent(), trace.tracestate())
                    .update();
        }
    }

    /** The account's events as stored, in version order. */
    public List<String> eventsOf(UUID id) {
        return jdbc.sql("SELECT payload::text FROM ledger.events WHERE account_id = ? ORDER BY version")
                .param(id)
                .query(String.class)
                .list();
    }

    /** A transfer's two events as stored, MoneySent first; empty when there is no such transfer. */
    public List<String> transferEvents(UUID transferId) {
        return jdbc.sql("""
                SELECT payload::text FROM ledger.events
                WHERE type IN ('MoneySent', 'MoneyReceived') AND payload -> 'event' ->> 'transferId' = ?
                ORDER BY type DESC""")
                .param(transferId.toString())
                .query(String.class)
                .list();
    }

    /** The sum of all balances and the number of accounts, both from one statement: one snapshot. */
    public record Total(BigInteger balance, long accounts) {
    }

    public Total total() {
        return jdbc.sql("SELECT coalesce(sum(balance), 0), count(*) FROM ledger.accounts")
                .query((rs, row) -> new Total(rs.getBigDecimal(1).toBigIntegerExact(), rs.getLong(2)))
                .single();
    }

    private static Account account(java.sql.ResultSet rs, int row) throws java.sql.SQLException {
        return new Account(rs.getObject("account_id", UUID.class), rs.getString("owner"), rs.getLong("balance"),
                rs.getLong("version"));
    }
}
