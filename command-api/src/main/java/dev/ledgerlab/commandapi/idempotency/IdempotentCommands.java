package dev.ledgerlab.commandapi.idempotency;

import dev.ledgerlab.db.DatabaseFailures;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.springframework.core.retry.RetryException;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * Runs a command under an Idempotency-Key. The key row is claimed first, in the command's own transaction, so:
 * a key exists exactly when its command committed; a concurrent retry with the same key blocks on the claim until
 * the first attempt ends, then replays its response; a rejected command rolls its claim back and can be retried.
 */
@Component
public class IdempotentCommands {

    private static final TypeReference<Map<String, String>> HEADERS = new TypeReference<>() {
    };

    private final JdbcClient jdbc;
    private final TransactionTemplate transactions;
    private final JsonMapper json;
    /**
     * A transaction PostgreSQL aborted (deadlock, serialization failure, lock timeout) wrote nothing, claim included,
     * so it is run again, a few times, shortly: the rules say a transient failure waits and retries. Spring's core
     * retry, not a loop: its back-off, jitter and predicate are what is needed here. An unreachable database is not
     * retried here (the pool already waited its 2 s): the client gets 503 and retries with its key.
     */
    private final RetryTemplate retries = new RetryTemplate(RetryPolicy.builder()
            .predicate(DatabaseFailures::aborted)
            .maxRetries(3)
            .delay(Duration.ofMillis(20))
            .multiplier(2)
            .jitter(Duration.ofMillis(10))
            .build());

    public IdempotentCommands(JdbcClient jdbc, TransactionTemplate transactions, JsonMapper json) {
        this.jdbc = jdbc;
        this.transactions = transactions;
        this.json = json;
    }

    /**
     * @param key the client's Idempotency-Key, or null to run the command without one
     * @param request what identifies the request (method, path, canonical command): a retry must send the same
     */
    public CommandResponse run(String key, String request, Supplier<CommandResponse> command) {
        try {
            return retries.execute(() -> once(key, request, command));
        } catch (RetryException e) {
            // Exhausted, or a failure that is not an abort: the last attempt's own exception, as if never retried.
            if (e.getCause() instanceof RuntimeException last) {
                throw last;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    private CommandResponse once(String key, String request, Supplier<CommandResponse> command) {
        var committing = new AtomicBoolean();
        try {
            return transactions.execute(tx -> {
                var response = claimAndRun(key, request, command);
                // Past this point only the commit can fail, and a broken connection then leaves its outcome unknown.
                committing.set(true);
                return response;
            });
        } catch (RuntimeException e) {
            if (committing.get() && DatabaseFailures.unavailable(e)) {
                throw new CommitOutcomeUnknown(e);
            }
            throw e;
        }
    }

    private CommandResponse claimAndRun(String key, String request, Supplier<CommandResponse> command) {
        if (key == null) {
            return command.get();
        }
        var hash = sha256(request);
        int claimed = jdbc.sql("""
                INSERT INTO ledger.idempotency_keys (idempotency_key, request_hash) VALUES (?, ?)
                ON CONFLICT (idempotency_key) DO NOTHING""")
                .params(key, hash)
                .update();
        if (claimed == 0) {
            return replay(key, hash);
        }
        var response = command.get();
        jdbc.sql("""
                UPDATE ledger.idempotency_keys SET response_status = ?, response_body = ?, response_headers = ?::jsonb
                WHERE idempotency_key = ?""")
                .params(response.status(), response.body(), json.writeValueAsString(response.headers()), key)
                .update();
        return response;
    }

    private CommandResponse replay(String key, byte[] hash) {
        return jdbc.sql("""
                SELECT request_hash, response_status, response_body, response_headers::text
                FROM ledger.idempotency_keys WHERE idempotency_key = ?""")
                .param(key)
                .query((rs, row) -> {
                    if (!Arrays.equals(rs.getBytes(1), hash)) {
                        throw new IdempotencyKeyReused(key);
                    }
                    return new CommandResponse(rs.getInt(2), json.readValue(rs.getString(4), HEADERS),
                            rs.getString(3), true);
                })
                .single();
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
