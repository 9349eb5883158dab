package dev.ledgerlab.projector.replay;

import dev.ledgerlab.projector.ProjectorProperties;
import org.springframework.context.SmartLifecycle;
import org.springframework.kafka.listener.AbstractMessageListenerContainer;
import org.springframework.stereotype.Component;

/**
 * The command-line switch {@code --projector.replay.on-start=true}: replays in place after the migrations and
 * before this instance's listener consumes anything. Refuses to start the instance while another replay or rebuild
 * runs, rather than starting without the replay it was asked for.
 */
@Component
class ReplayOnStart implements SmartLifecycle {

    private final ProjectorProperties.Replay properties;
    private final Replays replays;
    private volatile boolean running;

    ReplayOnStart(ProjectorProperties properties, Replays replays) {
        this.properties = properties.replay();
        this.replays = replays;
    }

    @Override
    public void start() {
        if (properties.onStart()) {
            try {
                replays.startReplay(InstanceName.of() + " (--projector.replay.on-start)");
            } catch (ReplayRefused e) {
                throw new IllegalStateException("--projector.replay.on-start: refused, " + e.getMessage(), e);
            }
        }
        running = true;
    }

    @Override
    public void stop() {
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Before the listener containers start. */
    @Override
    public int getPhase() {
        return AbstractMessageListenerContainer.DEFAULT_PHASE - 1;
    }
}
