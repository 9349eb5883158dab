package dev.ledgerlab.projector.apply;

import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Component;

/**
 * Wakes a reader waiting for an account's version as soon as a batch of this process that touched the account
 * commits. Only the readers of the accounts in the batch wake, each reads its account again once: with every reader
 * woken by every commit, a reader waiting 100 ms while 100 batches a second commit read the database ten times for
 * nothing, and under load the waiting readers' reads slowed the projection they were waiting for.
 *
 * <p>Written here rather than taken from a library: what it keys on (the accounts of a committed batch) is the
 * projector's own; the JDK's monitors do the waiting.
 */
@Component
public class ProjectionSignals {

    /** Per account with at least one waiting reader: those readers, and this process's commits that touched it. */
    private static final class Watch {
        private int readers;
        private long commits;
    }

    private final ConcurrentHashMap<String, Watch> watched = new ConcurrentHashMap<>();

    /**
     * A reader of {@code account} starts to watch it, before it reads the account: a commit between its read and its
     * wait is then not missed. Returns the commits seen so far, for {@link #awaitCommitAfter}; end with
     * {@link #unwatch}.
     */
    public long watch(String account) {
        var watch = watched.compute(account, (key, existing) -> {
            var w = existing == null ? new Watch() : existing;
            w.readers++;
            return w;
        });
        synchronized (watch) {
            return watch.commits;
        }
    }

    /** The reader of {@code account} has stopped waiting. */
    public void unwatch(String account) {
        watched.computeIfPresent(account, (key, watch) -> --watch.readers == 0 ? null : watch);
    }

    /**
     * A batch of this process committed: wakes the readers of the accounts it touched (the records' keys). Read only
     * while someone waits, so the listener passes a view, not a list it builds for every batch.
     */
    public void committed(Iterable<String> accounts) {
        if (watched.isEmpty()) {
            return;
        }
        for (var account : accounts) {
            var watch = account == null ? null : watched.get(account);
            if (watch != null) {
                synchronized (watch) {
                    watch.commits++;
                    watch.notifyAll();
                }
            }
        }
    }

    /**
     * Waits until a commit of this process touched {@code account} after {@code seen} (as {@link #watch} or the last
     * call returned), or {@code maxMillis}, whichever comes first. Returns the commits seen now.
     */
    public long awaitCommitAfter(String account, long seen, long maxMillis) throws InterruptedException {
        var watch = watched.get(account);
        if (watch == null) {
            throw new IllegalStateException("not watching " + account);
        }
        synchronized (watch) {
            long deadline = System.nanoTime() + maxMillis * 1_000_000;
            long remaining = maxMillis;
            while (watch.commits == seen && remaining > 0) {
                watch.wait(remaining);
                remaining = (deadline - System.nanoTime()) / 1_000_000;
            }
            return watch.commits;
        }
    }
}
