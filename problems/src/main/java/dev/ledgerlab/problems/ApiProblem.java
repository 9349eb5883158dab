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

    /** The refusal of a path segment that should be an account id; long input is cut in the detail. */
    public static ApiProblem invalidAccountId(String id) {
        var shown = id.length() > 64 ? id.substring(0, 64) + "..." : id;
        return new ApiProblem(ProblemType.INVALID_ACCOUNT_ID, "\"" + shown + "\" is not an account id (a UUID)");
    }
}
