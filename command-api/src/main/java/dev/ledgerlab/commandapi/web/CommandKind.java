package dev.ledgerlab.commandapi.web;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** Marks a handler method as a command endpoint, and names its kind in {@code ledger_commands_total}. */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface CommandKind {

    /** open, deposit, withdraw or transfer. */
    String value();
}
