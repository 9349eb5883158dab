package dev.ledgerlab.projector.apply;

import org.springframework.stereotype.Component;

/** Wakes readers waiting for a version as soon as a batch of this process commits. */
@Component
public class ProjectionSignals {

    private long generation;

    public synchronized void changed() {
        generation++;
        notifyAll();
    }

    public synchronized long generation() {
        return generation;
    }

    /** Waits until a commit after {@code seen}, or {@code maxMillis}, whichever comes first. */
    public synchronized void awaitChangeAfter(long seen, long maxMillis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + maxMillis;
        long remaining = maxMillis;
        while (generation == seen && remaining > 0) {
            wait(remaining);
            remaining = deadline - System.currentTimeMillis();
        }
    }
}
