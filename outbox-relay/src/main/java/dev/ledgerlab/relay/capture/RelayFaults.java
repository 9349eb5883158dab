package dev.ledgerlab.relay.capture;

import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fault injection for the proofs, off by default: with {@code relay.faults.halt-after-acknowledged-batch=N} the
 * process halts (no shutdown hook, no offset flush, like a power cut) right after Kafka acknowledged every record of
 * the N-th batch that carried events, before any of it is marked processed. Its records are then in the topic while
 * the stored offset still points before them: the next relay publishes them again. Only for a relay running as a
 * process of its own, since it takes the whole JVM.
 */
public final class RelayFaults {

    private static final Logger log = LoggerFactory.getLogger(RelayFaults.class);

    private final int haltAfterAcknowledgedBatch;
    private final AtomicInteger batches = new AtomicInteger();

    public RelayFaults(int haltAfterAcknowledgedBatch) {
        if (haltAfterAcknowledgedBatch < 0) {
            throw new IllegalArgumentException("relay.faults.halt-after-acknowledged-batch must not be negative");
        }
        this.haltAfterAcknowledgedBatch = haltAfterAcknowledgedBatch;
        if (haltAfterAcknowledgedBatch > 0) {
            log.warn("fault injection armed: this process halts after Kafka acknowledges batch {}, before marking it"
                    + " processed", haltAfterAcknowledgedBatch);
        }
    }

    /** Called once every record of a batch is acknowledged, before the batch is marked processed. */
    void acknowledged(int records) {
        if (haltAfterAcknowledgedBatch > 0 && records > 0
                && batches.incrementAndGet() == haltAfterAcknowledgedBatch) {
            System.err.println("FAULT: relay halting after Kafka acknowledged batch " + haltAfterAcknowledgedBatch
                    + " (" + records + " records), before marking it processed");
            System.err.flush();
            Runtime.getRuntime().halt(99);
        }
    }
}
