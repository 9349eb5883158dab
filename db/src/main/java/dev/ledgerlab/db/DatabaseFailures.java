package dev.ledgerlab.db;

import java.io.EOFException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.sql.SQLTransientException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.springframework.transaction.TransactionSystemException;

/**
 * Reads a failure for what it says about PostgreSQL, by the SQLSTATE of the {@link SQLException} (or the socket
 * error) somewhere in its causes. Spring's translated exceptions and Hikari's timeouts keep the driver's exception as
 * a cause, so one rule serves the web layers and the projector alike. Only JDK types are named here: the services
 * classify the same way whatever wraps the driver's exception. One Spring type is looked into: a
 * {@link TransactionSystemException} keeps the failure that started the rollback apart from its causes (the pool's
 * "Connection is closed", with no SQLSTATE, once the broken connection was evicted).
 *
 * <p>Written by hand because neither Spring's exception hierarchy nor the driver draws this line: Spring files a
 * refused connection under {@code DataAccessResourceFailureException}, a <em>non</em>-transient exception, while for
 * a pipeline that waits out an outage it is the most transient failure there is.
 */
public final class DatabaseFailures {

    /** SQLSTATE classes and codes that mean the server is unreachable, going away, starting, or out of resources. */
    private static final Set<String> UNAVAILABLE_CLASSES = Set.of(
            // connection_exception: refused, broken, or the protocol gave up
            "08",
            // insufficient_resources: too many connections, disk full, out of memory
            "53");
    private static final Set<String> UNAVAILABLE_CODES = Set.of(
            // admin_shutdown, crash_shutdown (a backend died and the server restarts), cannot_connect_now (starting up)
            "57P01", "57P02", "57P03",
            // idle_in_transaction_session_timeout: the server ended a session that sat in its transaction too long (a
            // process frozen mid-batch, its rows locked); its work was rolled back, a new connection may do it again
            "25P03");
    /** Aborted because of what other transactions did, or by a timeout: the same statement may succeed next time. */
    private static final Set<String> RETRY_CODES = Set.of(
            // serialization_failure, deadlock_detected, lock_not_available (lock_timeout), query_canceled (statement_timeout)
            "40001", "40P01", "55P03", "57014");

    private DatabaseFailures() {
    }

    /**
     * The database cannot be reached right now: a connection was refused, broken or timed out, or the server is
     * shutting down, recovering or out of connections. Nothing about the request itself is wrong.
     */
    public static boolean unavailable(Throwable failure) {
        for (var cause : causes(failure)) {
            if (cause instanceof SQLException sql) {
                var state = sql.getSQLState();
                if (state != null && (UNAVAILABLE_CODES.contains(state)
                        || state.length() >= 2 && UNAVAILABLE_CLASSES.contains(state.substring(0, 2)))) {
                    return true;
                }
                if (sql instanceof SQLTransientConnectionException || sql instanceof SQLRecoverableException) {
                    return true;
                }
            }
            if (cause instanceof ConnectException || cause instanceof SocketTimeoutException
                    || cause instanceof SocketException || cause instanceof EOFException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Worth trying again unchanged: the database is {@link #unavailable unavailable}, or the transaction was aborted
     * by a concurrent one (serialization failure, deadlock) or by a lock or statement timeout.
     */
    public static boolean transientFailure(Throwable failure) {
        return unavailable(failure) || aborted(failure);
    }

    /**
     * The database rolled the transaction back because of what concurrent transactions did (a serialization failure,
     * a deadlock) or at a lock or statement timeout, and is reachable: the same transaction may well succeed if run
     * again, and nothing of it was written.
     */
    public static boolean aborted(Throwable failure) {
        // Hikari's connection timeout is an SQLTransientException too: an unreachable database is not an abort.
        if (unavailable(failure)) {
            return false;
        }
        for (var cause : causes(failure)) {
            if (cause instanceof SQLTransientException) {
                return true;
            }
            if (cause instanceof SQLException sql && sql.getSQLState() != null
                    && RETRY_CODES.contains(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    /** The failure and its causes (and what SQLExceptions and rollbacks chain beside them), each once. */
    private static List<Throwable> causes(Throwable failure) {
        var seen = Collections.newSetFromMap(new IdentityHashMap<Throwable, Boolean>());
        var pending = new ArrayDeque<Throwable>();
        if (failure != null) {
            pending.add(failure);
        }
        var ordered = new ArrayList<Throwable>();
        while (!pending.isEmpty()) {
            var next = pending.poll();
            if (!seen.add(next)) {
                continue;
            }
            ordered.add(next);
            if (next.getCause() != null) {
                pending.add(next.getCause());
            }
            if (next instanceof SQLException sql && sql.getNextException() != null) {
                pending.add(sql.getNextException());
            }
            if (next instanceof TransactionSystemException tx && tx.getApplicationException() != null) {
                pending.add(tx.getApplicationException());
            }
        }
        return ordered;
    }
}
