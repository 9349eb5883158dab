package dev.ledgerlab.proofs.support;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Watches the events the live group has applied (projection.offsets), every 100 ms, and remembers the longest time it
 * did not move: how long the pipeline made no progress while a fault lasted.
 */
public final class ProgressWatch implements AutoCloseable {

    private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(runnable -> {
        var thread = new Thread(runnable, "progress-watch");
        thread.setDaemon(true);
        return thread;
    });
    private long lastValue = -1;
    private long lastChange;
    private long longestStallNanos;

    public ProgressWatch(Pipeline pipeline) {
        sampler.scheduleAtFixedRate(() -> sample(pipeline), 0, 100, TimeUnit.MILLISECONDS);
    }

    private synchronized void sample(Pipeline pipeline) {
        long now = System.nanoTime();
        long value;
        try {
            value = pipeline.applied();
        } catch (Exception unreadable) {
            return;
        }
        if (value != lastValue) {
            lastValue = value;
            lastChange = now;
        }
        longestStallNanos = Math.max(longestStallNanos, now - lastChange);
    }

    /** The longest stretch without a new application, so far. */
    public synchronized long longestStallMillis() {
        return longestStallNanos / 1_000_000;
    }

    /** Stops watching; the figure stays as it was. */
    @Override
    public void close() {
        sampler.shutdownNow();
    }
}
