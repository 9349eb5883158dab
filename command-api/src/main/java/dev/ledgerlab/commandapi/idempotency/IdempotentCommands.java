package dev.ledgerlab.commandapi.idempotency;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import dev.ledgerlab.db.DatabaseFailures;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
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
