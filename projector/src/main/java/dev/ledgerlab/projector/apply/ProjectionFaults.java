package dev.ledgerlab.projector.apply;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * Fault injection for the crash proofs, off by default. With {@code projector.faults.halt-at} set, the process
 * stops at that point of the batch numbered {@code projector.faults.halt-after-batches} (counting batches that
 * applied something): it halts (no shutdown hooks, like a power cut), or for {@code freeze-holding-batch} it sends
 * itself {@code SIGSTOP}. Only for a projector running as a process of its own, since it takes the whole JVM.
 *
 * <ul>
 *   <li>{@code before-db-commit}: a live batch's writes are done, its transaction is not committed.</li>
 *   <li>{@code after-db-commit}: the live batch's transaction committed, Kafka's offset commit has not happened.</li>
 *   <li>{@code rebuild-after-db-commit}: the same for a batch of a rebuild's group, into the shadow tables.</li>
 *   <li>{@code during-swap}: a rebuild's swap has replaced the live tables inside its transaction, not committed.</li>
 *   <li>{@code freeze-holding-batch}: the N-th live batch (counting every non-empty one) has been polled and is
 *       about to be applied; the whole process freezes, to be resumed with {@code SIGCONT} by whoever watches it
 *       (a zombie member: its session expires while it holds the batch).</li>
 *   <li>{@code freeze-before-db-commit}: the same, inside the live batch's transaction after its writes: the
 *       frozen process holds that batch's rows locked.</li>
 * </ul>
 * Each prints one line starting with {@code FAULT:} to standard error, naming the batch's records by partition and
 * offset range, before it acts.
 *
 * <p>A frozen process goes on only once released: with {@code projector.faults.release-file} set, the thread that froze
 * it waits for that file, which the test creates before its {@code SIGCONT}. kill(1) returns as soon as the signal is
 * sent, and the JVM stops only once one of its threads takes the signal: the freezing thread can run a few steps
 * further first, before it is stopped too. Waiting for the file, it does nothing more until the test says so.
 */
@Component
public class ProjectionFaults {

    static final Set<String> POINTS = Set.of("before-db-commit", "after-db-commit", "rebuild-after-db-commit",
            "during-swap", "freeze-holding-batch", "freeze-before-db-commit");

    private static final Logger log = LoggerFactory.getLogger(ProjectionFaults.class);

    private final String haltAt;
    private final int haltAfterBatches;
    private final AtomicInteger batches = new AtomicInteger();
    private final String releaseFile;

    public ProjectionFaults(@Value("${projector.faults.halt-at:}") String haltAt,
            @Value("${projector.faults.halt-after-batches:1}") int haltAfterBatches,
            @Value("${projector.faults.release-file:}") String releaseFile) {
        if (!haltAt.isEmpty() && !POINTS.contains(haltAt)) {
            throw new IllegalArgumentException("projector.faults.halt-at must be one of " + POINTS + ", not " + haltAt);
        }
        this.haltAt = haltAt;
        this.haltAfterBatches = haltAfterBatches;
        this.releaseFile = releaseFile;
        if (!haltAt.isEmpty()) {
            log.warn("fault injection armed: this process stops {} of batch {}", haltAt, haltAfterBatches);
        }
    }

    /** A live batch as polled, before anything is applied. */
    void beforeApply(List<ConsumerRecord<String, String>> records) {
        if (haltAt.equals("freeze-holding-batch") && !records.isEmpty()
                && batches.incrementAndGet() == haltAfterBatches) {
            announce("projector freezing (SIGSTOP) holding batch " + haltAfterBatches + " of " + records.size()
                    + " records " + ranges(records));
            freeze();
        }
    }

    /** Inside the live batch's transaction, after its writes. */
    void beforeDbCommit(int appliedInBatch, List<ConsumerRecord<String, String>> records) {
        haltIfDue("before-db-commit", appliedInBatch, records);
        if (due("freeze-before-db-commit", appliedInBatch)) {
            announce("projector freezing (SIGSTOP) inside the transaction of batch " + haltAfterBatches + " ("
                    + appliedInBatch + " applied) " + ranges(records));
            freeze();
        }
    }

    /** After the live batch's transaction committed, before the listener returns and Kafka's offset is committed. */
    void afterDbCommit(int appliedInBatch, List<ConsumerRecord<String, String>> records) {
        haltIfDue("after-db-commit", appliedInBatch, records);
    }

    /** After a rebuild batch's transaction committed. */
    public void afterRebuildCommit(int appliedInBatch, List<ConsumerRecord<String, String>> records) {
        haltIfDue("rebuild-after-db-commit", appliedInBatch, records);
    }

    /** Inside the swap's transaction, after the live tables were replaced, before the commit. */
    public void duringSwap() {
        if (haltAt.equals("during-swap")) {
            announce("projector halting during-swap, before its commit");
            Runtime.getRuntime().halt(99);
        }
    }

    private void haltIfDue(String point, int appliedInBatch, List<ConsumerRecord<String, String>> records) {
        if (due(point, appliedInBatch)) {
            announce("projector halting " + point + " of batch " + haltAfterBatches + " (" + appliedInBatch
                    + " applied) " + ranges(records));
            Runtime.getRuntime().halt(99);
        }
    }

    /** Whether this is the armed point and the batch it counts to (batches that applied something). */
    private boolean due(String point, int appliedInBatch) {
        return haltAt.equals(point) && appliedInBatch > 0 && batches.incrementAndGet() == haltAfterBatches;
    }

    /** {partition=[first offset, last offset]} of the records. */
    static Map<Integer, List<Long>> ranges(List<ConsumerRecord<String, String>> records) {
        var ranges = new TreeMap<Integer, List<Long>>();
        for (var record : records) {
            ranges.merge(record.partition(), List.of(record.offset(), record.offset()),
                    (a, b) -> List.of(Math.min(a.get(0), b.get(0)), Math.max(a.get(1), b.get(1))));
        }
        return ranges;
    }

    private static void announce(String what) {
        System.err.println("FAULT: " + what);
        System.err.flush();
    }

    /**
     * Stops this very process; with a release file, this thread then waits for it (frozen with the rest of the process
     * meanwhile). There is no signal API in the JDK; kill(1) delivers it to this process.
     */
    private void freeze() {
        stop();
        try {
            while (!releaseFile.isEmpty() && !Files.exists(Path.of(releaseFile))) {
                Thread.sleep(10);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        announce("projector resumed (SIGCONT), applying the batch it held");
    }

    private static void stop() {
        try {
            new ProcessBuilder("kill", "-STOP", Long.toString(ProcessHandle.current().pid())).inheritIO().start()
                    .waitFor();
        } catch (IOException e) {
            throw new IllegalStateException("cannot freeze this process", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
