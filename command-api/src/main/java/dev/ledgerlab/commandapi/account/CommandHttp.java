package dev.ledgerlab.commandapi.account;

import dev.ledgerlab.commandapi.idempotency.CommandResponse;
import dev.ledgerlab.problems.ApiProblem;
import dev.ledgerlab.problems.ProblemType;
import java.util.regex.Pattern;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;

/** What every command endpoint reads from the request line and headers, and how it answers. */
final class CommandHttp {

    private static final Pattern IDEMPOTENCY_KEY = Pattern.compile("[\\x21-\\x7e]{1,255}");

    private CommandHttp() {
    }

    static ResponseEntity<String> http(CommandResponse response) {
        var builder = ResponseEntity.status(response.status()).contentType(MediaType.APPLICATION_JSON);
        response.headers().forEach(builder::header);
        if (response.replayed()) {
            builder.header("Idempotent-Replayed", "true");
        }
        return builder.body(response.body());
    }

    static String etag(Account account) {
        return "\"" + account.version() + "\"";
    }

    static String idempotencyKey(String key) {
        if (key != null && !IDEMPOTENCY_KEY.matcher(key).matches()) {
            throw new ApiProblem(ProblemType.INVALID_IDEMPOTENCY_KEY,
                    "Idempotency-Key must be 1 to 255 visible ASCII characters");
        }
        return key;
    }

    static IfMatch ifMatch(String header) {
        try {
            return IfMatch.parse(header);
        } catch (IllegalArgumentException e) {
            throw new ApiProblem(ProblemType.INVALID_IF_MATCH, e.getMessage());
        }
    }

    static String truncate(String s) {
        return s.length() > 64 ? s.substring(0, 64) + "..." : s;
    }
}
