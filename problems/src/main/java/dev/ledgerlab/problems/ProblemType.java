package dev.ledgerlab.problems;

import java.net.URI;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;

/**
 * Every problem either service answers with, as RFC 9457 {@code application/problem+json}. The type URIs are stable:
 * clients may switch on them. The table in docs/http-api.md is checked against this list by DocumentationTest.
 */
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
    INVALID_TRANSFER_ID(HttpStatus.BAD_REQUEST, "invalid-transfer-id", "Transfer id is not a UUID"),
    SAME_ACCOUNT_TRANSFER(HttpStatus.BAD_REQUEST, "same-account-transfer", "A transfer needs two different accounts"),
    INVALID_MIN_VERSION(HttpStatus.BAD_REQUEST, "invalid-min-version", "minVersion must be a positive integer"),
    INVALID_VERSION(HttpStatus.BAD_REQUEST, "invalid-version", "The version in the path must be a positive integer"),
    INVALID_AFTER(HttpStatus.BAD_REQUEST, "invalid-after", "after must be the instant of a reading (ISO-8601)"),
    ACCOUNT_NOT_FOUND(HttpStatus.NOT_FOUND, "account-not-found", "No such account"),
    TRANSFER_NOT_FOUND(HttpStatus.NOT_FOUND, "transfer-not-found", "No such transfer"),
    EVENT_NOT_FOUND(HttpStatus.NOT_FOUND, "event-not-found", "No such event in the ledger"),
    ACCOUNT_NOT_PARKED(HttpStatus.NOT_FOUND, "account-not-parked", "The account is not parked"),
    REPLAY_NOT_FOUND(HttpStatus.NOT_FOUND, "replay-not-found", "No such run of the projection has happened"),
    UNKNOWN_FAULT(HttpStatus.NOT_FOUND, "unknown-fault", "No such fault, or no such service in this lab"),
    OPERATOR_CREDENTIALS_REQUIRED(HttpStatus.UNAUTHORIZED, "operator-credentials-required",
            "This call needs the operator's credentials"),
    OPERATOR_NOT_CONFIGURED(HttpStatus.FORBIDDEN, "operator-not-configured",
            "No operator password is configured, so operator calls are refused"),
    INSUFFICIENT_FUNDS(HttpStatus.CONFLICT, "insufficient-funds", "Insufficient funds"),
    BALANCE_OVERFLOW(HttpStatus.CONFLICT, "balance-overflow", "Balance would overflow"),
    CONCURRENT_MODIFICATION(HttpStatus.CONFLICT, "concurrent-modification",
            "The account changed while the command ran; retry it"),
    EVENT_STILL_MISSING(HttpStatus.CONFLICT, "event-still-missing", "The missing event has not arrived"),
    UNKNOWN_SCHEMA_VERSION(HttpStatus.CONFLICT, "unknown-schema-version",
            "A held event is of a schema version this projector does not know"),
    REPLAY_IN_PROGRESS(HttpStatus.CONFLICT, "replay-in-progress", "Another replay or rebuild runs"),
    REBUILD_IN_PROGRESS(HttpStatus.CONFLICT, "rebuild-in-progress", "A rebuild runs"),
    REBUILD_NOT_RUNNING(HttpStatus.CONFLICT, "rebuild-not-running", "No rebuild runs"),
    RELAY_NOT_ACTIVE(HttpStatus.CONFLICT, "relay-not-active", "This relay is on standby; the active one does this"),
    SLOT_NOT_LOST(HttpStatus.CONFLICT, "slot-not-lost", "The replication slot still has its WAL"),
    VERSION_MISMATCH(HttpStatus.PRECONDITION_FAILED, "version-mismatch", "The account has moved on"),
    BODY_TOO_LARGE(HttpStatus.CONTENT_TOO_LARGE, "body-too-large", "Request body is too large"),
    UNSUPPORTED_MEDIA_TYPE(HttpStatus.UNSUPPORTED_MEDIA_TYPE, "unsupported-media-type",
            "Request body must be application/json"),
    IDEMPOTENCY_KEY_REUSED(HttpStatus.UNPROCESSABLE_CONTENT, "idempotency-key-reused",
            "Idempotency-Key was already used for a different request"),
    INTERNAL_ERROR(HttpStatus.INTERNAL_SERVER_ERROR, "internal-error", "Internal error"),
    PROJECTION_BEHIND(HttpStatus.SERVICE_UNAVAILABLE, "projection-behind",
            "The projection has not reached that version yet"),
    PROJECTION_REBUILDING(HttpStatus.SERVICE_UNAVAILABLE, "projection-rebuilding", "The projection is being rebuilt"),
    DATABASE_UNAVAILABLE(HttpStatus.SERVICE_UNAVAILABLE, "database-unavailable",
            "The database is unavailable; retry later"),
    TRANSACTION_ABORTED(HttpStatus.SERVICE_UNAVAILABLE, "transaction-aborted",
            "The database aborted the transaction again and again; retry later");

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

    public String slug() {
        return slug;
    }

    public String title() {
        return title;
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
