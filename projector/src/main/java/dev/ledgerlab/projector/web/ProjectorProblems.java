package dev.ledgerlab.projector.web;

import dev.ledgerlab.problems.ProblemResponses;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/** The projector's problems: its endpoints refuse with {@code ApiProblem}s of the shared catalogue only. */
@RestControllerAdvice
public class ProjectorProblems extends ProblemResponses {
}
