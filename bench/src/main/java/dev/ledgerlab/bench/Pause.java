package dev.ledgerlab.bench;

import java.util.concurrent.TimeUnit;

/** The benchmark's waits: polling a process's output or a counter at a fixed rate, outside any test. */
final class Pause {

    private Pause() {
    }

    static void millis(long millis) {
        try {
            TimeUnit.MILLISECONDS.sleep(millis);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
