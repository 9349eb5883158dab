package dev.ledgerlab.commandapi.idempotency;

/**
 * The command ran and its transaction was being committed when the connection to the database broke: PostgreSQL may
 * have committed it or not, and no one can tell this client which. A retry with the same Idempotency-Key finds out.
 */
public final class CommitOutcomeUnknown extends RuntimeException {

    public CommitOutcomeUnknown(RuntimeException cause) {
        super("the connection to the database broke while the command committed", cause);
    }
}
