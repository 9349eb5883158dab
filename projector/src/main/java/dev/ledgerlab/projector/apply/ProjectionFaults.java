package dev.ledgerlab.projector.apply;

import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * Fault injection for the crash proofs: with {@code projector.faults.halt-at} set, the process halts (no shutdown
 * hooks, like a power cut) at that point of the batch numbered {@code projector.faults.halt-after-batches}. Off by
 * default; only for a projector running as a process of its own, since it takes the whole JVM down.
 *
 * <ul>
 *   <li>{@code before-db-commit}: the batch's writes are done, its transaction is not committed.</li>
 *   <li>{@code after-db-commit}: the transaction committed, Kafka's offset commit has not happened.</li>
 * </ul>
 */
@Component
public class ProjectionFaults {

    private static final Logger log = LoggerFactory.getLogger(ProjectionFaults.class);

    private final String haltAt;
    private final int haltAfterBatches;
    private final AtomicInteger batches = new AtomicInteger();

    public ProjectionFaults(@Value("${projector.faults.halt-at:}") String haltAt,
            @Value("${projector.faults.halt-after-batches:1}") int haltAfterBatches) {
        if (!haltAt.isEmpty() && !haltAt.equals("before-db-commit") && !haltAt.equals("after-db-commit")) {
            throw new IllegalArgumentException("projector.faults.halt-at must be before-db-commit or after-db-commit");
        }
        this.haltAt = haltAt;
        this.haltAfterBatches = haltAfterBatches;
        if (!haltAt.isEmpty()) {
            log.warn("fault injection armed: this process halts {} of batch {}", haltAt, haltAfterBatches);
        }
    }

    /** Inside the batch's transaction, after its writes. */
    void beforeDbCommit(int appliedInBatch) {
        if (haltAt.equals("before-db-commit") && appliedInBatch > 0
                && batches.incrementAndGet() == haltAfterBatches) {
            halt();
        }
    }

    /** After the batch's transaction committed, before the listener returns and Kafka's offset is committed. */
    void afterDbCommit(int appliedInBatch) {
        if (haltAt.equals("after-db-commit") && appliedInBatch > 0 && batches.incrementAndGet() == haltAfterBatches) {
            halt();
        }
    }

    private void halt() {
        System.err.println("FAULT: projector halting " + haltAt + " of batch " + haltAfterBatches);
        System.err.flush();
        Runtime.getRuntime().halt(99);
    }
}
