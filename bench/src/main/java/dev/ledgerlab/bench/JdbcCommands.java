package dev.ledgerlab.bench;

import dev.ledgerlab.events.AccountOpened;
import dev.ledgerlab.events.EventCodec;
import dev.ledgerlab.events.EventEnvelope;
import dev.ledgerlab.events.MoneyDeposited;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;

/**
 * The baseline of a command: the same transaction the command API runs for a deposit, over plain JDBC: lock the
 * account's row, insert the event (a valid envelope, so that the relay and the projector downstream handle it like
 * any other), update the account, commit. No HTTP, no JSON parsing of a request, no Spring, no idempotency key (the
 * benchmark's HTTP deposits send none either). One connection per thread, as a pool would give.
 */
final class JdbcCommands implements AutoCloseable {

    private final Connection connection;
    private final PreparedStatement lock;
    private final PreparedStatement insert;
    private final PreparedStatement update;

    JdbcCommands(String jdbcUrl) throws SQLException {
        connection = DriverManager.getConnection(jdbcUrl, "postgres", "postgres");
        connection.setAutoCommit(false);
        lock = connection.prepareStatement("SELECT balance, version FROM ledger.accounts WHERE account_id = ? FOR UPDATE");
        insert = connection.prepareStatement("""
                INSERT INTO ledger.events (id, account_id, version, type, schema_version, payload, occurred_at)
                VALUES (?, ?, ?, ?, ?, ?::jsonb, ?)""");
        update = connection.prepareStatement(
                "UPDATE ledger.accounts SET balance = ?, version = ?, updated_at = ? WHERE account_id = ? AND version = ?");
    }

    /** One deposit, one transaction. */
    void deposit(UUID account, long amount) throws SQLException {
        try {
            lock.setObject(1, account);
            long balance;
            long version;
            try (var rs = lock.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalStateException("no account " + account);
                }
                balance = rs.getLong(1);
                version = rs.getLong(2);
            }
            var now = Instant.now().truncatedTo(ChronoUnit.MICROS);
            var event = new MoneyDeposited(amount);
            var envelope = new EventEnvelope(UUID.randomUUID(), account, version + 1, now, event);
            insert.setObject(1, envelope.eventId());
            insert.setObject(2, account);
            insert.setLong(3, version + 1);
            insert.setString(4, event.type());
            insert.setInt(5, EventCodec.schemaVersion(event));
            insert.setString(6, EventCodec.toJson(envelope));
            insert.setTimestamp(7, Timestamp.from(now));
            insert.executeUpdate();
            update.setLong(1, Math.addExact(balance, amount));
            update.setLong(2, version + 1);
            update.setTimestamp(3, Timestamp.from(now));
            update.setObject(4, account);
            update.setLong(5, version);
            if (update.executeUpdate() != 1) {
                throw new IllegalStateException("account " + account + " moved under its lock");
            }
            connection.commit();
        }
        catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        }
    }

    /** A closed-loop client of thread {@code index}: deposits of 1 into random {@code accounts}, one connection. */
    static ClosedLoop.Client depositClient(String jdbcUrl, List<UUID> accounts, int index) throws SQLException {
        var jdbc = new JdbcCommands(jdbcUrl);
        var random = new Random(index);
        return new ClosedLoop.Client() {
            @Override
            public void command(int sequence) throws SQLException {
                jdbc.deposit(accounts.get(random.nextInt(accounts.size())), 1);
            }

            @Override
            public void close() throws SQLException {
                jdbc.close();
            }
        };
    }

    /** Opens accounts as the command API would: the account row and its AccountOpened event, one transaction each. */
    static List<UUID> openAccounts(String jdbcUrl, int count) throws SQLException {
        var accounts = new ArrayList<UUID>();
        try (var connection = DriverManager.getConnection(jdbcUrl, "postgres", "postgres");
                var account = connection.prepareStatement("""
                        INSERT INTO ledger.accounts (account_id, owner, balance, version, opened_at, updated_at)
                        VALUES (?, ?, 0, 1, ?, ?)""");
                var opened = connection.prepareStatement("""
                        INSERT INTO ledger.events (id, account_id, version, type, schema_version, payload, occurred_at)
                        VALUES (?, ?, 1, ?, ?, ?::jsonb, ?)""")) {
            connection.setAutoCommit(false);
            for (int i = 0; i < count; i++) {
                var id = UUID.randomUUID();
                var now = Instant.now().truncatedTo(ChronoUnit.MICROS);
                var event = new AccountOpened("bench-" + i);
                account.setObject(1, id);
                account.setString(2, event.owner());
                account.setTimestamp(3, Timestamp.from(now));
                account.setTimestamp(4, Timestamp.from(now));
                account.executeUpdate();
                var envelope = new EventEnvelope(UUID.randomUUID(), id, 1, now, event);
                opened.setObject(1, envelope.eventId());
                opened.setObject(2, id);
                opened.setString(3, event.type());
                opened.setInt(4, EventCodec.schemaVersion(event));
                opened.setString(5, EventCodec.toJson(envelope));
                opened.setTimestamp(6, Timestamp.from(now));
                opened.executeUpdate();
                connection.commit();
                accounts.add(id);
            }
        }
        return accounts;
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
