package dev.ledgerlab.relay.capture;

import dev.ledgerlab.relay.RelayProperties;
import dev.ledgerlab.relay.status.RelayStatus;
import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.format.ChangeEventFormat;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.Producer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * Runs Debezium's embedded engine on its own thread for as long as this relay is active, and starts a new engine
 * (with a new producer) after a failure, waiting longer after each consecutive failure. A new engine resumes from the
 * stored offset, so whatever the failed one had not marked processed is published again.
 */
public final class OutboxEngine {

    private static final Logger log = LoggerFactory.getLogger(OutboxEngine.class);
    /**
     * The longest a run's producer may take to close. What it still has to send belongs to records not marked
     * processed, which the next run publishes again from the stored offset, so a close never waits longer than the
     * relay waits for an acknowledgement either: during a Kafka outage each failed run otherwise spent 10 s closing.
     */
    private static final Duration PRODUCER_CLOSE_TIMEOUT = Duration.ofSeconds(10);

    private final Properties connectorProperties;
    private final Supplier<Producer<String, String>> producers;
    private final OutboxRecords records;
    private final RelayStatus status;
    private final Duration firstBackoff;
    private final Duration maxBackoff;
    private final Duration acknowledgementTimeout;
    private final Duration producerCloseTimeout;
    private final String threadName;
    private final RelayFaults faults;
    private final EngineMeters meters;
    private final LostSlotCheck slotCheck;

    private final Object lifecycle = new Object();
    private Thread supervisor;
    private CountDownLatch stopSignal;
    private volatile DebeziumEngine<?> current;

    /**
     * @param relay the relay's settings: the topic, the restart back-off, the acknowledgement deadline
     * @param source where the connector reads and the slot check asks
     * @param producers a new producer for each engine run
     */
    public OutboxEngine(RelayProperties relay, PostgresSource source, Supplier<Producer<String, String>> producers,
            RelayStatus status, RelayFaults faults, MeterRegistry registry) {
        this.connectorProperties = ConnectorSettings.of(relay, source);
        this.producers = producers;
        this.records = new OutboxRecords(relay.topic());
        this.status = status;
        this.firstBackoff = relay.restartBackoff();
        this.maxBackoff = relay.restartBackoffMax();
        this.acknowledgementTimeout = relay.deliveryTimeout();
        this.producerCloseTimeout = PRODUCER_CLOSE_TIMEOUT.compareTo(acknowledgementTimeout) < 0 ? PRODUCER_CLOSE_TIMEOUT
                : acknowledgementTimeout;
        this.threadName = "outbox-relay-engine-" + relay.slotName();
        this.faults = faults;
        this.meters = new EngineMeters(registry);
        this.slotCheck = new LostSlotCheck(source, relay.slotName());
    }

    public void start() {
        synchronized (lifecycle) {
            if (supervisor != null) {
                throw new IllegalStateException("the engine is already running");
            }
            var signal = new CountDownLatch(1);
            stopSignal = signal;
            supervisor = new Thread(() -> superviseRuns(signal), threadName);
            supervisor.start();
        }
    }

    /** Stops the engine, which stores the offsets of every acknowledged record, and waits until it has. */
    public void stop() {
        Thread running;
        synchronized (lifecycle) {
            running = supervisor;
            supervisor = null;
            if (running == null) {
                return;
            }
            stopSignal.countDown();
        }
        try {
            while (running.isAlive()) {
                closeEngine(current);
                running.join(200);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            log.warn("Interrupted while waiting for the engine to stop");
        }
    }

    /**
     * Runs the engine again and again until asked to stop, waiting between runs by Spring's {@link ExponentialBackOff}
     * (first back-off doubling to the maximum; a run that lasted longer than the maximum starts the sequence again).
     * Not Spring's {@code RetryTemplate}: its wait can only be cut short by interrupting this thread, and this thread
     * runs the engine, whose shutdown (storing the acknowledged offsets) an interrupt could break. Waiting on the stop
     * signal instead ends the wait the moment the relay is asked to stop.
     */
    private void superviseRuns(CountDownLatch stopSignal) {
        var backOff = new ExponentialBackOff(firstBackoff.toMillis(), 2.0);
        backOff.setMaxInterval(maxBackoff.toMillis());
        // An engine is restarted for as long as this relay is active, however often it fails.
        backOff.setMaxElapsedTime(Long.MAX_VALUE);
        backOff.setMaxAttempts(Long.MAX_VALUE);
        var delays = backOff.start();
        while (stopSignal.getCount() > 0) {
            long started = System.nanoTime();
            String outcome = runOnce(stopSignal);
            if (stopSignal.getCount() == 0) {
                return;
            }
            if (Duration.ofNanos(System.nanoTime() - started).compareTo(maxBackoff) > 0) {
                delays = backOff.start();
            }
            long delay = delays.nextBackOff();
            status.engineRestarted();
            log.warn("The engine stopped without being asked to ({}). Starting a new one in {} from the last stored offset.",
                    outcome, Duration.ofMillis(delay));
            try {
                if (stopSignal.await(delay, TimeUnit.MILLISECONDS)) {
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private String runOnce(CountDownLatch stopSignal) {
        var lost = slotCheck.reasonNotToStart();
        status.slotLost(lost.isPresent());
        if (lost.isPresent()) {
            status.engineFailed(lost.get());
            return lost.get();
        }
        var outcome = new String[] {"it completed"};
        Producer<String, String> producer = null;
        KafkaClientMetrics producerMetrics = null;
        try {
            producer = producers.get();
            producerMetrics = meters.bind(producer);
            // using(Properties) must come before notifying(...): the builder reads the properties there.
            var engine = DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
                    .using(connectorProperties)
                    .using((success, message, error) -> {
                        // Closing an engine that is still starting makes it fail: that is no failure of ours.
                        if (!success && stopSignal.getCount() > 0) {
                            outcome[0] = summary(error == null ? message : error.toString());
                            status.engineFailed(outcome[0]);
                            log.error("The Debezium engine failed: {}", message, error);
                        }
                    })
                    .notifying(new OutboxPublisher(producer, records, status, faults, meters.publishLatency(),
                            acknowledgementTimeout))
                    .build();
            current = engine;
            // stop() may have looked at current just before it was set; it has signalled, so do not run.
            if (stopSignal.getCount() > 0) {
                status.engineRunning(true);
                engine.run();
            }
        } catch (RuntimeException e) {
            outcome[0] = summary(e.toString());
            status.engineFailed(outcome[0]);
            log.error("The Debezium engine could not run", e);
        } finally {
            current = null;
            status.engineRunning(false);
            if (producerMetrics != null) {
                producerMetrics.close();
            }
            if (producer != null) {
                producer.close(producerCloseTimeout);
            }
        }
        return outcome[0];
    }

    /** Some Debezium errors carry the whole connector configuration in their message; the log has that already. */
    private static String summary(String error) {
        return error.length() <= 300 ? error : error.substring(0, 300) + "...";
    }

    private static void closeEngine(DebeziumEngine<?> engine) {
        if (engine == null) {
            return;
        }
        try {
            engine.close();
        } catch (IllegalStateException notNow) {
            // The engine refuses to close while its tasks are starting, or is already closing: ask again shortly.
            log.debug("Engine not closable yet: {}", notNow.getMessage());
        } catch (Exception e) {
            log.warn("Closing the engine failed", e);
        }
    }
}
