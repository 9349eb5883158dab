package dev.ledgerlab.commandapi.web;

import dev.ledgerlab.problems.ProblemType;
import dev.ledgerlab.problems.Refusals;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The refusals every command shares, declared once: its JSON body ({@link CommandBodies}), its Idempotency-Key, and a
 * transaction PostgreSQL aborted. A command endpoint carries this and {@link Refusals} of its own.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Refusals({ProblemType.MALFORMED_JSON, ProblemType.UNKNOWN_FIELD, ProblemType.BODY_TOO_LARGE,
        ProblemType.UNSUPPORTED_MEDIA_TYPE, ProblemType.INVALID_IDEMPOTENCY_KEY, ProblemType.IDEMPOTENCY_KEY_REUSED,
        ProblemType.TRANSACTION_ABORTED})
public @interface CommandRefusals {
}
