package dev.ledgerlab.relay.status;

public enum RelayRole {
    /** Not yet decided: the relay has not asked for the lock. */
    STARTING,
    /** Holds the advisory lock and runs the engine. */
    ACTIVE,
    /** Another relay holds the lock; this one polls for it and takes over when it is released. */
    STANDBY,
    /** Shutting down or shut down. */
    STOPPED
}
