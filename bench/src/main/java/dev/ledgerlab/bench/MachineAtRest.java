package dev.ledgerlab.bench;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;

/**
 * Waits for the whole machine to be nearly idle before a latency run. After minutes of load, PostgreSQL goes on
 * working for a while (autovacuum of the tables the deposits updated, a checkpoint of what they wrote) and so does the
 * lab (its compiler); a run that shares the machine with that measures it: the first of three open-loop runs right
 * after the throughput runs gave p50 119 ms and p99 1,104 ms, the next two 39-50 ms and 180-223 ms.
 */
final class MachineAtRest {

    /** Below this share of all cores, over {@link #QUIET} in a row: an idle lab's relay alone polls ~10 % of two. */
    private static final double IDLE = 0.25;
    private static final int QUIET = 3;

    private MachineAtRest() {
    }

    /** Waits until every core was nearly idle for three seconds in a row, or {@code limit}; returns seconds waited. */
    static double await(Duration limit) {
        var os = ManagementFactory.getPlatformMXBean(OperatingSystemMXBean.class);
        long started = System.nanoTime();
        // The load is that of the time since the previous call: the first call only starts the window.
        os.getCpuLoad();
        int quiet = 0;
        while (quiet < QUIET && System.nanoTime() - started < limit.toNanos()) {
            Pause.millis(1000);
            quiet = os.getCpuLoad() < IDLE ? quiet + 1 : 0;
        }
        return Math.round((System.nanoTime() - started) / 1e8) / 10.0;
    }
}
