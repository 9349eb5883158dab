package dev.ledgerlab.projector.replay;

/** Another replay or rebuild runs: one at a time, whichever instance was asked. */
public final class ReplayRefused extends RuntimeException {

    private final Progress running;

    ReplayRefused(Progress running) {
        super(running == null ? "another replay or rebuild is starting"
                : "%s %d is %s, started %s".formatted(running.kind(), running.id(), running.state(), running.startedAt()),
                null, false, false);
        this.running = running;
    }

    /** The run in the way, or null when it could not be read (it started and ended meanwhile). */
    public Progress running() {
        return running;
    }
}
