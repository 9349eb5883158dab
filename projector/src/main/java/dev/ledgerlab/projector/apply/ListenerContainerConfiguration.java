package dev.ledgerlab.projector.apply;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.config.ContainerCustomizer;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;

/**
 * Two departures from Spring Kafka's defaults for the projection's containers:
 * <ul>
 *   <li>Idle events (spring.kafka.listener.idle-event-interval) are how a member that receives no records notices a
 *       reset of the projection (see {@link PositionedListener}); they come at the same pace before its first record
 *       as after it, not five times slower.</li>
 *   <li>Kafka's offset commit after a batch is asynchronous: the offsets stored with the balances are the truth and
 *       the commit only spares a seek, so the consumer need not wait a round trip to the group coordinator per
 *       batch, which bounded a replay more than the database did (see the replay benchmark).</li>
 * </ul>
 */
@Configuration(proxyBeanMethods = false)
class ListenerContainerConfiguration {

    @Bean
    ContainerCustomizer<Object, Object, ConcurrentMessageListenerContainer<Object, Object>> projectionContainers() {
        return container -> {
            container.getContainerProperties().setIdleBeforeDataMultiplier(1.0);
            container.getContainerProperties().setSyncCommits(false);
        };
    }
}
