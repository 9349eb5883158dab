package dev.ledgerlab.commandapi.web;

import java.net.URI;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;

/** A request refused before anything was written, with its RFC 9457 problem. */
public final class ApiProblem extends RuntimeException {

    private final ProblemDetail problem;

    public ApiProblem(ProblemType type, String detail) {
        this(type, detail, Map.of());
    }

    public ApiProblem(ProblemType type, String detail, Map<String, Object> properties) {
        super(detail, null, false, false);
        this.problem = type.problem(detail);
        properties.forEach(problem::setProperty);
    }

    public ProblemDetail problem() {
        return problem;
    }

    /** Every problem this API answers with. The type URIs are stable: clients may switch on them. */
    public enum ProblemType {
        MALFORMED_JSON(HttpStatus.BAD_REQUEST, "malformed-json", "Request body is not valid JSON"),
        UNKNOWN_FIELD(HttpStatus.BAD_REQUEST, "unknown-field", "Request body has a field this command does not take"),
        INVALID_AMOUNT(HttpStatus.BAD_REQUEST, "invalid-amount", "Amount must be a positive whole number of minor units"),
        AMOUNT_TOO_LARGE(HttpStatus.BAD_REQUEST, "amount-too-large", "Amount is above the largest one command may move"),
        INVALID_OWNER(HttpStatus.BAD_REQUEST, "invalid-owner", "Owner must be a non-blank string of at most 200 characters"),
        INVALID_ACCOUNT_ID(HttpStatus.BAD_REQUEST, "invalid-account-id", "Account id is not a UUID"),
        INVALID_IF_MATCH(HttpStatus.BAD_REQUEST, "invalid-if-match", "If-Match is not a list of entity tags"),
        INVALID_IDEMPOTENCY_KEY(HttpStatus.BAD_REQUEST, "invalid-idempotency-key",
                "Idempotency-Key must be 1 to 255 visible ASCII characters"),
        BODY_TOO_LARGE(HttpStatus.CONTENT_TOO_LARGE, "body-too-large", "Request body is too large"),
        UNSUPPORTED_MEDIA_TYPE(HttpStatus.UNSUPPORTED_MEDIA_TYPE, "unsupported-media-type",
                "Request body must be application/json"),
        ACCOUNT_NOT_FOUND(HttpStatus.NOT_FOUND, "account-not-found", "No such account"),
        INSUFFICIENT_FUNDS(HttpStatus.CONFLICT, "insufficient-funds", "Insufficient funds"),
        BALANCE_OVERFLOW(HttpStatus.CONFLICT, "balance-overflow", "Balance would overflow"),
        CONCURRENT_MODIFICATION(HttpStatus.CONFLICT, "concurrent-modification",
                "The account changed while the command ran; retry it"),
        VERSION_MISMATCH(HttpStatus.PRECONDITION_FAILED, "version-mismatch", "The account has moved on"),
        IDEMPOTENCY_KEY_REUSED(HttpStatus.UNPROCESSABLE_CONTENT, "idempotency-key-reused",
                "Idempotency-Key was already used for a different request"),
        DATABASE_UNAVAILABLE(HttpStatus.SERVICE_UNAVAILABLE, "database-unavailable",
                "The database is unavailable; retry later"),
        INTERNAL_ERROR(HttpStatus.INTERNAL_SERVER_ERROR, "internal-error", "Internal error");

        public static final String BASE = "urn:ledgerlab:problem:";

        private final HttpStatus status;
        private final String slug;
        private final String title;

        ProblemType(HttpStatus status, String slug, String title) {
            this.status = status;
            this.slug = slug;
            this.title = title;
        }

        public HttpStatus status() {
            return status;
        }

        public URI uri() {
            return URI.create(BASE + slug);
        }

        public ProblemDetail problem(String detail) {
            var problem = ProblemDetail.forStatusAndDetail(status, detail);
            problem.setType(uri());
            problem.setTitle(title);
            return problem;
        }
    }
}
