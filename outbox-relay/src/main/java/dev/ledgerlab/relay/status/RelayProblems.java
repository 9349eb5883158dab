package dev.ledgerlab.relay.status;

import dev.ledgerlab.problems.ProblemResponses;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/** The relay's refusals as problem+json, like the other services': an unknown route, wrong credentials. */
@RestControllerAdvice
class RelayProblems extends ProblemResponses {
}
