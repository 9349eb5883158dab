package dev.ledgerlab.projector.web;

import dev.ledgerlab.db.DatabaseFailures;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

@RestControllerAdvice
public class ProblemResponses extends ResponseEntityExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(ProblemResponses.class);

    @ExceptionHandler(ProjectorProblem.class)
    ResponseEntity<ProblemDetail> problem(ProjectorProblem e) {
        var response = ResponseEntity.status(e.problem().getStatus()).contentType(MediaType.APPLICATION_PROBLEM_JSON);
        if (e.problem().getStatus() == HttpStatus.SERVICE_UNAVAILABLE.value()) {
            response.header(HttpHeaders.RETRY_AFTER, "1");
        }
        return response.body(e.problem());
    }

    @ExceptionHandler(Exception.class)
    ResponseEntity<ProblemDetail> unexpected(Exception e) {
        if (DatabaseFailures.unavailable(e)) {
            // Within the pool's connection timeout (2 s), not Hikari's default 30 s: a reader can tell "later" from "bug".
            log.warn("database unavailable: {}", e.getMessage());
            return problem(new ProjectorProblem(HttpStatus.SERVICE_UNAVAILABLE, "database-unavailable",
                    "The database is unavailable; retry later", "the database cannot be reached: retry later",
                    java.util.Map.of()));
        }
        log.error("unexpected error", e);
        return problem(new ProjectorProblem(HttpStatus.INTERNAL_SERVER_ERROR, "internal-error", "Internal error",
                "the request failed", java.util.Map.of()));
    }
}
