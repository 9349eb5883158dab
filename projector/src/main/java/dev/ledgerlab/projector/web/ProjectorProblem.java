package dev.ledgerlab.projector.web;

import java.net.URI;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;

/** A refused or unanswerable request of the read side, with a stable problem type. */
public final class ProjectorProblem extends RuntimeException {

    public static final String BASE = "urn:ledgerlab:problem:";

    private final ProblemDetail problem;

    public ProjectorProblem(HttpStatus status, String type, String title, String detail,
            Map<String, Object> properties) {
        super(detail, null, false, false);
        problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setType(URI.create(BASE + type));
        problem.setTitle(title);
        properties.forEach(problem::setProperty);
    }

    public ProblemDetail problem() {
        return problem;
    }

    public static ProjectorProblem invalidAccountId(String id) {
        var shown = id.length() > 64 ? id.substring(0, 64) + "..." : id;
        return new ProjectorProblem(HttpStatus.BAD_REQUEST, "invalid-account-id", "Account id is not a UUID",
                "\"" + shown + "\" is not an account id (a UUID)", Map.of());
    }
}
