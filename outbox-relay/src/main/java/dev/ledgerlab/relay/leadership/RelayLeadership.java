package dev.ledgerlab.relay.leadership;

import dev.ledgerlab.relay.capture.OutboxEngine;
import dev.ledgerlab.relay.capture.PostgresSource;
import dev.ledgerlab.relay.kafka.OutboxTopic;
import dev.ledgerlab.relay.status.RelayRole;
import dev.ledgerlab.relay.status.RelayStatus;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Decides whether this instance relays. It holds the advisory lock for as long as its engine runs and stops the
 * engine when the lock's connection dies. Should two engines ever overlap in that window, the replication slot
 * itself admits only one reader, so the second cannot stream until the first has let go.
 *
 * <p>On shutdown the engine stops first (storing its acknowledged offsets, closing its producer), then the lock is
 * released, so a standby never starts from an offset older than what this instance published.
 */
public final class RelayLeadership implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(RelayLeadership.class);

    private final PostgresSource source;
    private final String slotName;
    private final Duration pollInterval;
    private final OutboxTopic topic;
    private final OutboxEngine engine;
    private final RelayStatus status;

    private final Object lifecycle = new Object();
    private Thread loop;
    private CountDownLatch stopSignal;

    public RelayLeadership(PostgresSource source, String slotName, Duration pollInterval, OutboxTopic topic,
            OutboxEngine engine, RelayStatus status) {
        this.source = source;
        this.slotName = slotName;
        this.pollInterval = pollInterval;
        this.topic = topic;
        this.engine = engine;
        this.status = status;
    }

    /** One lock per slot: two relays on the same slot exclude each other, relays on different slots do not. */
    public static String lockName(String slotName) {
        return "ledger-lab/outbox-relay/" + slotName;
    }

    @Override
    public void start() {
        synchronized (lifecycle) {
            if (loop != null) {
                return;
            }
            // Before anything else, and on a standby too: a topic with the wrong partition count stops start-up.
            topic.ensureExists();
            var signal = new CountDownLatch(1);
            stopSignal = signal;
            loop = new Thread(() -> lead(signal), "outbox-relay-leadership-" + slotName);
            loop.start();
        }
    }

    @Override
    public void stop() {
        Thread running;
        synchronized (lifecycle) {
            running = loop;
            loop = null;
            if (running == null) {
                return;
            }
            stopSignal.countDown();
        }
        try {
            running.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        status.role(RelayRole.STOPPED);
    }

    @Override
    public boolean isRunning() {
        synchronized (lifecycle) {
            return loop != null;
        }
    }

    private void lead(CountDownLatch stopSignal) {
        // Log a state once when entering it, not at every poll.
        boolean announcedStandby = false;
        boolean announcedUnreachable = false;
        try (var lock = new AdvisoryLock(source, lockName(slotName))) {
            while (stopSignal.getCount() > 0) {
                try {
                    if (!lock.tryAcquire()) {
                        if (!announcedStandby) {
                            log.info("Standby: another relay holds the lock for slot {}; asking again every {}",
                                    slotName, pollInterval);
                            announcedStandby = true;
                        }
                        announcedUnreachable = false;
                        status.role(RelayRole.STANDBY);
                        waitFor(stopSignal);
                        continue;
                    }
                    announcedStandby = false;
                    announcedUnreachable = false;
                    relayWhileHolding(lock, stopSignal);
                } catch (SQLException e) {
                    if (!announcedUnreachable) {
                        log.warn("Cannot ask PostgreSQL for the relay lock ({}); asking again every {}",
                                e.getMessage(), pollInterval);
                        announcedUnreachable = true;
                    }
                    announcedStandby = false;
                    status.role(RelayRole.STANDBY);
                    waitFor(stopSignal);
                } catch (RuntimeException e) {
                    // This thread is the relay: if it ended, the instance would neither relay nor stand by.
                    log.error("Unexpected failure in the relay's leadership loop; trying again in {}", pollInterval, e);
                    status.role(RelayRole.STANDBY);
                    waitFor(stopSignal);
                }
            }
        }
    }

    private void relayWhileHolding(AdvisoryLock lock, CountDownLatch stopSignal) {
        log.info("Active: holding the relay lock for slot {}; starting the engine", slotName);
        status.role(RelayRole.ACTIVE);
        engine.start();
        try {
            while (lock.stillHeld(pollInterval)) {
                if (waitFor(stopSignal)) {
                    return;
                }
            }
            log.warn("Lost the connection that holds the relay lock for slot {}; stopping the engine so that another "
                    + "relay can take over", slotName);
        } finally {
            engine.stop();
            lock.release();
            status.role(stopSignal.getCount() == 0 ? RelayRole.STOPPED : RelayRole.STANDBY);
        }
    }

    /** @return true when asked to stop */
    private boolean waitFor(CountDownLatch stopSignal) {
        try {
            return stopSignal.await(pollInterval.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }
}
