package dev.ledgerlab.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;
import org.postgresql.util.PSQLState;

class DatabaseFailuresTest {

    @Test
    void readsARefusedConnectionAsUnavailable() throws Exception {
        var refused = catchThrowable(() -> DriverManager.getConnection(closedPortUrl(), "postgres", "x").close());

        assertThat(refused).isInstanceOf(SQLException.class);
        assertThat(DatabaseFailures.unavailable(refused)).isTrue();
        assertThat(DatabaseFailures.transientFailure(refused)).isTrue();
    }

    @Test
    void readsThePoolsConnectionTimeoutAsUnavailableHoweverDeeplyItIsWrapped() throws Exception {
        var config = new HikariConfig();
        config.setJdbcUrl(closedPortUrl());
        config.setUsername("postgres");
        config.setConnectionTimeout(250);
        config.setInitializationFailTimeout(-1);
        try (var pool = new HikariDataSource(config)) {
            var timedOut = catchThrowable(() -> pool.getConnection().close());
            // What Spring's transaction manager makes of it: CannotCreateTransactionException(cause: this).
            var wrapped = new IllegalStateException("Could not open JDBC Connection for transaction",
                    new RuntimeException(timedOut));

            assertThat(DatabaseFailures.unavailable(timedOut)).isTrue();
            assertThat(DatabaseFailures.unavailable(wrapped)).isTrue();
            // An SQLTransientConnectionException: transient, but not an abort that running again would cure at once.
            assertThat(DatabaseFailures.transientFailure(wrapped)).isTrue();
            assertThat(DatabaseFailures.aborted(wrapped)).isFalse();
        }
    }

    @Test
    void looksPastAFailedRollbackToTheFailureThatCausedIt() {
        // What Spring throws when the statement's connection broke and the pool has closed it before the rollback.
        var rollback = new org.springframework.transaction.TransactionSystemException("JDBC rollback failed",
                new SQLException("Connection is closed"));
        rollback.initApplicationException(new PSQLException("An I/O error occurred while sending to the backend.",
                PSQLState.CONNECTION_FAILURE));

        assertThat(DatabaseFailures.unavailable(rollback)).isTrue();
        assertThat(DatabaseFailures.unavailable(new org.springframework.transaction.TransactionSystemException(
                "JDBC rollback failed", new SQLException("Connection is closed")))).as("without it, nothing to go by")
                .isFalse();
    }

    @Test
    void readsAServerGoingAwayOrStartingAsUnavailable() {
        for (var state : new String[] {"57P01", "57P02", "57P03", "25P03", "08006", "53300"}) {
            // How the driver reports the server's ErrorResponse: its SQLSTATE on the exception.
            assertThat(DatabaseFailures.unavailable(new SQLException("server says " + state, state))).as(state)
                    .isTrue();
        }
    }

    @Test
    void readsAbortsCausedByOtherTransactionsAsTransientButNotAsUnavailable() {
        var serialization = new PSQLException("could not serialize access", PSQLState.SERIALIZATION_FAILURE);
        var deadlock = new SQLException("deadlock detected", "40P01");

        assertThat(DatabaseFailures.transientFailure(serialization)).isTrue();
        assertThat(DatabaseFailures.transientFailure(new RuntimeException(deadlock))).isTrue();
        assertThat(DatabaseFailures.unavailable(serialization)).isFalse();
        assertThat(DatabaseFailures.aborted(serialization)).isTrue();
        assertThat(DatabaseFailures.aborted(new RuntimeException(deadlock))).isTrue();
    }

    @Test
    void readsAWrongStatementOrAViolatedConstraintAsNeither() {
        var syntax = new SQLException("syntax error", "42601");
        var check = new SQLException("violates check constraint", "23514");

        for (var failure : new Throwable[] {syntax, check, new IllegalStateException("a bug"), null}) {
            assertThat(DatabaseFailures.unavailable(failure)).as("%s", failure).isFalse();
            assertThat(DatabaseFailures.transientFailure(failure)).as("%s", failure).isFalse();
        }
    }

    /** A loopback port nobody listens on: bound and released, so the connection is refused at once. */
    private static String closedPortUrl() throws Exception {
        int port;
        try (var socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        return "jdbc:postgresql://127.0.0.1:" + port + "/ledger?connectTimeout=2";
    }
}
