package dev.ledgerlab.projector.replay;

import dev.ledgerlab.projector.ProjectorProperties;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Every instance looks at projection.replays at a steady pace: it joins a running rebuild (starts its rebuild
 * container), leaves one that ended (stops it), and logs the progress of whatever runs.
 */
@Component
public class ReplayCoordinator implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(ReplayCoordinator.class);

    private final ReplayQueries replays;
    private final KafkaListenerEndpointRegistry registry;
    private final ProjectorProperties.Replay properties;
    // Containers are not stopped from their own consumer thread: that thread would wait for itself.
    private final ExecutorService soon = Executors.newSingleThreadExecutor(r -> new Thread(r, "replay-coordinator"));
    private Instant lastLogged = Instant.EPOCH;
    private Long lastRunLogged;
    private boolean failing;

    public ReplayCoordinator(ReplayQueries replays, KafkaListenerEndpointRegistry registry,
            ProjectorProperties properties) {
        this.replays = replays;
        this.registry = registry;
        this.properties = properties.replay();
    }

    @Scheduled(fixedDelayString = "${projector.replay.coordination-interval:1s}")
    public synchronized void reconcile() {
        try {
            reconcileNow();
            if (failing) {
                log.info("replay coordination works again");
                failing = false;
            }
        } catch (RuntimeException e) {
            // PostgreSQL away: nothing to coordinate until it is back. Said once, not every second.
            if (!failing) {
                log.warn("cannot look at projection.replays ({}); trying every {}", e.getMessage(),
                        properties.coordinationInterval());
                failing = true;
            }
        }
    }

    private void reconcileNow() {
        var container = registry.getListenerContainer(RebuildListener.ID);
        var running = replays.running();
        boolean rebuilding = running.isPresent() && "rebuild".equals(running.get().kind());
        if (container != null && rebuilding && !container.isRunning()) {
            log.info("joining rebuild {}: starting the rebuild consumers", running.get().id());
            container.start();
        } else if (container != null && !rebuilding && container.isRunning()) {
            log.info("no rebuild runs: stopping the rebuild consumers");
            container.stop();
        }
        logProgress(running.orElse(null));
    }

    /** Reconciles now, off the calling thread (a consumer thread must not stop its own container). */
    public void reconcileSoon() {
        soon.execute(this::reconcile);
    }

    private void logProgress(ReplayQueries.Running running) {
        var now = Instant.now();
        if (running != null && Duration.between(lastLogged, now).compareTo(properties.progressInterval()) >= 0) {
            log.info("{}", replays.progress(running.id()).summary());
            lastLogged = now;
            lastRunLogged = running.id();
        } else if (running == null && lastRunLogged != null) {
            // The end of a run this instance reported on: say how it ended, once.
            var ended = replays.progress(lastRunLogged);
            log.info("{}", ended.summary());
            lastRunLogged = null;
        }
    }

    @Override
    public void destroy() {
        soon.shutdownNow();
    }
}
