package dev.ledgerlab.problems;

import dev.ledgerlab.db.DatabaseFailures;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Every refusal as {@code application/problem+json} with a stable type; each service's {@code @RestControllerAdvice}
 * extends this with the refusals of its own domain. Spring's own errors (unknown route, wrong method) come through
 * {@link ResponseEntityExceptionHandler} as problems too. A 503 carries {@code Retry-After}.
 */
public abstract class ProblemResponses extends ResponseEntityExceptionHandler {

    /** The request attribute naming the type of the problem a request was answered with (its URI), for metrics. */
    public static final String PROBLEM_TYPE_ATTRIBUTE = ProblemResponses.class.getName() + ".type";

    private static final Logger log = LoggerFactory.getLogger(ProblemResponses.class);
    /** The pools' connection timeout is 2 s: retrying sooner than that only queues behind the failing attempts. */
    private static final String DATABASE_RETRY_AFTER_SECONDS = "2";
    private static final String RETRY_AFTER_SECONDS = "1";

    @ExceptionHandler(ApiProblem.class)
    ResponseEntity<ProblemDetail> apiProblem(ApiProblem e) {
        return respond(e.problem());
    }

    /**
     * PostgreSQL unreachable within the pool's connection timeout, or the connection broke: 503, never a 500 that a
     * client cannot tell from a bug; likewise a transaction the database kept aborting. Anything else unexpected is a
     * bug: 500, logged.
     */
    @ExceptionHandler(Exception.class)
    ResponseEntity<ProblemDetail> unexpected(Exception e) {
        if (DatabaseFailures.unavailable(e)) {
            log.warn("database unavailable: {}", e.getMessage());
            var problem = ProblemType.DATABASE_UNAVAILABLE.problem("the database cannot be reached; nothing was"
                    + " written: retry later");
            problem.setProperty("outcome", "not-applied");
            return respond(problem);
        }
        if (DatabaseFailures.aborted(e)) {
            log.warn("transaction aborted by the database: {}", e.getMessage());
            var problem = ProblemType.TRANSACTION_ABORTED.problem("the database rolled the transaction back (a"
                    + " deadlock, a serialization failure or a lock timeout), more often than the service retries it;"
                    + " nothing was written: retry later");
            problem.setProperty("outcome", "not-applied");
            return respond(problem);
        }
        log.error("unexpected error", e);
        return respond(ProblemType.INTERNAL_ERROR.problem("the request failed and wrote nothing"));
    }

    /**
     * The problem with its status, media type, and Retry-After when it is a 503; its type is also left on the request
     * ({@link #PROBLEM_TYPE_ATTRIBUTE}), where a service's metrics read what a request was refused for.
     */
    public static ResponseEntity<ProblemDetail> respond(ProblemDetail problem) {
        var request = RequestContextHolder.getRequestAttributes();
        if (request != null) {
            request.setAttribute(PROBLEM_TYPE_ATTRIBUTE, problem.getType(), RequestAttributes.SCOPE_REQUEST);
        }
        var response = ResponseEntity.status(problem.getStatus()).contentType(MediaType.APPLICATION_PROBLEM_JSON);
        if (problem.getStatus() == HttpStatus.SERVICE_UNAVAILABLE.value()) {
            response.header(HttpHeaders.RETRY_AFTER,
                    ProblemType.DATABASE_UNAVAILABLE.uri().equals(problem.getType()) ? DATABASE_RETRY_AFTER_SECONDS
                            : RETRY_AFTER_SECONDS);
        }
        return response.body(problem);
    }
}
