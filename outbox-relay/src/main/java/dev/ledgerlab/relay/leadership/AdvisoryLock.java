package dev.ledgerlab.relay.leadership;

import dev.ledgerlab.relay.capture.PostgresSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;

/**
 * A session-level PostgreSQL advisory lock on one dedicated connection. The session holds the lock, so it is released
 * when the connection closes for any reason, including the death of the process: no lease to expire, no cleanup.
 */
final class AdvisoryLock implements AutoCloseable {

    private final PostgresSource source;
    private final String name;
    private Connection connection;
    private boolean held;

    AdvisoryLock(PostgresSource source, String name) {
        this.source = source;
        this.name = name;
    }

    /** Tries once, without waiting; a standby keeps its connection between tries. */
    boolean tryAcquire() throws SQLException {
        if (held) {
            return true;
        }
        if (connection == null || connection.isClosed()) {
            // PostgreSQL cuts application_name at 63 bytes: the lock's name would not fit.
            connection = source.connect("outbox-relay lock");
            connection.setAutoCommit(true);
        }
        // hashtextextended turns the readable name into the 64-bit key the lock functions take.
        try (var statement = connection.prepareStatement("SELECT pg_try_advisory_lock(hashtextextended(?, 0))")) {
            statement.setString(1, name);
            try (var result = statement.executeQuery()) {
                result.next();
                held = result.getBoolean(1);
            }
        } catch (SQLException e) {
            release();
            throw e;
        }
        return held;
    }

    /** Whether the session that holds the lock is still alive; if it is not, PostgreSQL has already released it. */
    boolean stillHeld(Duration timeout) {
        if (!held) {
            return false;
        }
        try {
            return connection.isValid((int) Math.max(1, timeout.toSeconds()));
        } catch (SQLException e) {
            return false;
        }
    }

    /** Closing the session releases the lock; an explicit unlock would only add a statement that can fail. */
    void release() {
        held = false;
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // The session is gone either way, and with it the lock.
            }
            connection = null;
        }
    }

    @Override
    public void close() {
        release();
    }
}
