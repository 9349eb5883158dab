package dev.ledgerlab.commandapi.account;

/** If-Match named versions the account is no longer at: the client decided on stale state. Nothing is written. */
public final class VersionMismatch extends RuntimeException {

    private final long currentVersion;

    public VersionMismatch(String expected, long currentVersion) {
        super("the account is at version " + currentVersion + ", not " + expected, null, false, false);
        this.currentVersion = currentVersion;
    }

    public long currentVersion() {
        return currentVersion;
    }
}
