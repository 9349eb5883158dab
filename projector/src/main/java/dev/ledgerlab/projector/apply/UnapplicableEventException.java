package dev.ledgerlab.projector.apply;

import java.util.UUID;

/**
 * An event that does not follow its account's last applied version (a gap), or that cannot follow it at all (an
 * invalid transition such as a withdrawal below zero). Never skipped: retried, then the account is parked.
 */
public final class UnapplicableEventException extends RuntimeException {

    static final String GAP = "gap";

    private final UUID accountId;
    private final long expectedVersion;
    private final long receivedVersion;
    private final String reason;

    UnapplicableEventException(UUID accountId, long expectedVersion, long receivedVersion, String reason) {
        super("account " + accountId + ": expected version " + expectedVersion + ", received " + receivedVersion
                + " (" + reason + ")", null, false, false);
        this.accountId = accountId;
        this.expectedVersion = expectedVersion;
        this.receivedVersion = receivedVersion;
        this.reason = reason;
    }

    public UUID accountId() {
        return accountId;
    }

    public long expectedVersion() {
        return expectedVersion;
    }

    public long receivedVersion() {
        return receivedVersion;
    }

    public String reason() {
        return reason;
    }

    /** A version is missing before this one: it may still arrive. */
    public boolean isGap() {
        return reason.equals(GAP);
    }
}
