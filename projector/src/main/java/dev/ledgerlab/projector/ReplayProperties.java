package dev.ledgerlab.projector;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * @param onStart replay in place when this instance starts, before its listener consumes anything (the command-line
 *        switch {@code --projector.replay.on-start=true})
 * @param rebuildGroupId the consumer group that fills the shadow tables of a rebuild; its offsets are stored in
 *        projection.offsets under this name
 * @param progressInterval how often a running replay or rebuild logs its progress
 * @param coordinationInterval how often each instance looks at projection.replays to join or leave a rebuild
 * @param swapLockTimeout how long the swap waits for its locks before it gives up and tries again later; reads of
 *        the balances wait at most this long during a swap
 */
@ConfigurationProperties("projector.replay")
public record ReplayProperties(
        @DefaultValue("false") boolean onStart,
        @DefaultValue("projection-rebuild") String rebuildGroupId,
        @DefaultValue("5s") Duration progressInterval,
        @DefaultValue("1s") Duration coordinationInterval,
        @DefaultValue("2s") Duration swapLockTimeout) {
}
