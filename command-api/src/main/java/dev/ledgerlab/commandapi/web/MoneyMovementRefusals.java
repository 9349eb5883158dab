package dev.ledgerlab.commandapi.web;

import dev.ledgerlab.problems.ProblemType;
import dev.ledgerlab.problems.Refusals;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The refusals of a command that moves an amount on an existing account (a deposit, a withdrawal, a transfer), besides
 * those of every command: the amount, the account's id and existence, If-Match, and a version that moved.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
@CommandRefusals
@Refusals({ProblemType.INVALID_AMOUNT, ProblemType.AMOUNT_TOO_LARGE, ProblemType.INVALID_ACCOUNT_ID,
        ProblemType.INVALID_IF_MATCH, ProblemType.ACCOUNT_NOT_FOUND, ProblemType.CONCURRENT_MODIFICATION,
        ProblemType.VERSION_MISMATCH})
public @interface MoneyMovementRefusals {
}
