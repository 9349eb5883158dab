package dev.ledgerlab.commandapi.idempotency;

/** The key was already used for a different request: replaying its response would answer the wrong question. */
public final class IdempotencyKeyReused extends RuntimeException {

    public IdempotencyKeyReused(String key) {
        super("Idempotency-Key '" + key + "' was already used for a different request", null, false, false);
    }
}
