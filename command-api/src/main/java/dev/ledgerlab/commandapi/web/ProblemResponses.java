package dev.ledgerlab.commandapi.web;

import dev.ledgerlab.commandapi.account.Rejection;
import dev.ledgerlab.commandapi.account.VersionMismatch;
import dev.ledgerlab.commandapi.idempotency.CommitOutcomeUnknown;
import dev.ledgerlab.commandapi.idempotency.IdempotencyKeyReused;
import dev.ledgerlab.commandapi.web.ApiProblem.ProblemType;
import dev.ledgerlab.db.DatabaseFailures;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Every refusal as {@code application/problem+json} with a stable type. Spring's own errors (unknown route,
 * wrong method) come through {@link ResponseEntityExceptionHandler} as problems too.
 */
@RestControllerAdvice
public class ProblemResponses extends ResponseEntityExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(ProblemResponses.class);
    /** The pool's connection timeout is 2 s: retrying sooner than that only queues behind the failing attempts. */
    private static final String RETRY_AFTER_SECONDS = "2";

    @ExceptionHandler(ApiProblem.class)
    ResponseEntity<ProblemDetail> apiProblem(ApiProblem e) {
        return respond(e.problem());
    }

    @ExceptionHandler(Rejection.class)
    ResponseEntity<ProblemDetail> rejection(Rejection e) {
        if (e instanceof Rejection.InsufficientFunds funds) {
            var problem = ProblemType.INSUFFICIENT_FUNDS.problem(e.getMessage());
            problem.setProperty("balance", funds.balance());
            problem.setProperty("amount", funds.amount());
            return respond(problem);
        }
        if (e instanceof Rejection.BalanceOverflow) {
            return respond(ProblemType.BALANCE_OVERFLOW.problem(e.getMessage()));
        }
        if (e instanceof Rejection.NotOpened) {
            return respond(ProblemType.ACCOUNT_NOT_FOUND.problem(e.getMessage()));
        }
        return respond(ProblemType.CONCURRENT_MODIFICATION.problem(e.getMessage()));
    }

    @ExceptionHandler(VersionMismatch.class)
    ResponseEntity<ProblemDetail> versionMismatch(VersionMismatch e) {
        var problem = ProblemType.VERSION_MISMATCH.problem(e.getMessage());
        problem.setProperty("currentVersion", e.currentVersion());
        return ResponseEntity.status(problem.getStatus())
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .header(HttpHeaders.ETAG, "\"" + e.currentVersion() + "\"")
                .body(problem);
    }

    @ExceptionHandler(IdempotencyKeyReused.class)
    ResponseEntity<ProblemDetail> keyReused(IdempotencyKeyReused e) {
        return respond(ProblemType.IDEMPOTENCY_KEY_REUSED.problem(e.getMessage()));
    }

    /** The row lock makes this unreachable for one writer; it still refuses rather than overwrite history. */
    @ExceptionHandler(DuplicateKeyException.class)
    ResponseEntity<ProblemDetail> duplicateKey(DuplicateKeyException e) {
        log.warn("unique constraint refused a write", e);
        return respond(ProblemType.CONCURRENT_MODIFICATION.problem("another command wrote this account first"));
    }

    @ExceptionHandler(Exception.class)
    ResponseEntity<ProblemDetail> unexpected(Exception e) {
        if (DatabaseFailures.unavailable(e)) {
            return databaseUnavailable(e);
        }
        log.error("unexpected error", e);
        return respond(ProblemType.INTERNAL_ERROR.problem("the command failed and wrote nothing"));
    }

    /**
     * The connection broke while the command committed: PostgreSQL may have applied it. Same status and type as any
     * outage, so that clients need one rule (retry later, with the same Idempotency-Key), and an honest detail.
     */
    @ExceptionHandler(CommitOutcomeUnknown.class)
    ResponseEntity<ProblemDetail> commitOutcomeUnknown(CommitOutcomeUnknown e) {
        log.warn("database connection broke while a command committed: {}", e.getCause().getMessage());
        var problem = ProblemType.DATABASE_UNAVAILABLE.problem("the connection to the database broke while the"
                + " command committed: it may or may not have been applied; retry with the same Idempotency-Key to"
                + " find out (it replays the first answer or runs the command once)");
        problem.setProperty("outcome", "unknown");
        return unavailable(problem);
    }

    /**
     * PostgreSQL could not be reached within the pool's connection timeout (2 s), or the connection broke before the
     * commit: the transaction rolled back and nothing was written.
     */
    private static ResponseEntity<ProblemDetail> databaseUnavailable(Exception e) {
        log.warn("database unavailable: {}", e.getMessage());
        var problem = ProblemType.DATABASE_UNAVAILABLE.problem(
                "the database cannot be reached; nothing was written: retry later");
        problem.setProperty("outcome", "not-applied");
        return unavailable(problem);
    }

    private static ResponseEntity<ProblemDetail> unavailable(ProblemDetail problem) {
        return ResponseEntity.status(problem.getStatus()).contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .header(HttpHeaders.RETRY_AFTER, RETRY_AFTER_SECONDS).body(problem);
    }

    static ResponseEntity<ProblemDetail> respond(ProblemDetail problem) {
        return ResponseEntity.status(problem.getStatus()).contentType(MediaType.APPLICATION_PROBLEM_JSON).body(problem);
    }

}
