package dev.ledgerlab.problems;

import java.util.Map;
import org.springframework.http.ProblemDetail;

/** A request refused (or unanswerable) before anything was written, with its RFC 9457 problem. */
public final class ApiProblem extends RuntimeException {

    private final ProblemDetail problem;

    public ApiProblem(ProblemType type, String detail) {
        this(type, detail, Map.of());
    }

    /** @param properties extension members of the problem, e.g. the current version or the account's balance */
    public ApiProblem(ProblemType type, String detail, Map<String, ?> properties) {
        super(detail, null, false, false);
        this.problem = type.problem(detail);
        properties.forEach(problem::setProperty);
    }

    public ProblemDetail problem() {
        return problem;
    }
}
