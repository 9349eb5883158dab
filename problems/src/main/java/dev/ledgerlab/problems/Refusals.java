package dev.ledgerlab.problems;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The problem types an endpoint may answer with, for its OpenAPI description ({@link ApiDocumentationConfiguration}).
 * On a controller, they apply to each of its endpoints, besides the method's own; on an annotation, wherever that
 * annotation is, so that refusals several endpoints share are declared once.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE, ElementType.ANNOTATION_TYPE})
public @interface Refusals {

    ProblemType[] value();
}
