package dev.ledgerlab.commandapi.web;

import dev.ledgerlab.commandapi.account.Rejection;
import dev.ledgerlab.commandapi.account.VersionMismatch;
import dev.ledgerlab.commandapi.idempotency.CommitOutcomeUnknown;
import dev.ledgerlab.commandapi.idempotency.IdempotencyKeyReused;
import dev.ledgerlab.problems.ProblemResponses;
import dev.ledgerlab.problems.ProblemType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/** The command API's refusals on top of the shared ones: the decider's rejections, preconditions, keys. */
@RestControllerAdvice
public class CommandProblems extends ProblemResponses {

    private static final Logger log = LoggerFactory.getLogger(CommandProblems.class);

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
        if (e instanceof Rejection.SameAccount) {
            return respond(ProblemType.SAME_ACCOUNT_TRANSFER.problem(e.getMessage()));
        }
        if (e instanceof Rejection.TransferAccountMissing missing) {
            var problem = ProblemType.ACCOUNT_NOT_FOUND.problem(e.getMessage());
            problem.setProperty("side", missing.side());
            problem.setProperty("accountId", missing.accountId().toString());
            return respond(problem);
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
        var response = respond(problem);
        return ResponseEntity.status(response.getStatusCode()).headers(response.getHeaders())
                .header(HttpHeaders.ETAG, "\"" + e.currentVersion() + "\"").body(problem);
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
        return respond(problem);
    }
}
