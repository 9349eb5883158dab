package dev.ledgerlab.projector.apply;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.kafka.autoconfigure.DefaultKafkaConsumerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Kafka 4's consumer rebalance protocol ({@code spring.kafka.consumer.properties.group.protocol=consumer}, KIP-848):
 * the group coordinator then assigns the partitions and keeps the session, so the client settings of the classic
 * protocol that projector.yml sets (session timeout, heartbeat interval) are refused by the consumer and are dropped
 * here; the broker's {@code group.consumer.session.timeout.ms} and {@code group.consumer.heartbeat.interval.ms}
 * decide instead. With the classic protocol (the default) nothing changes.
 */
@Configuration(proxyBeanMethods = false)
class GroupProtocolConfiguration {

    private static final Logger log = LoggerFactory.getLogger(GroupProtocolConfiguration.class);

    @Bean
    DefaultKafkaConsumerFactoryCustomizer consumerProtocolSettings() {
        return factory -> {
            var protocol = factory.getConfigurationProperties().get(ConsumerConfig.GROUP_PROTOCOL_CONFIG);
            if (protocol != null && "consumer".equalsIgnoreCase(protocol.toString())) {
                for (var classicOnly : new String[] {ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG,
                    ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG}) {
                    if (factory.getConfigurationProperties().containsKey(classicOnly)) {
                        factory.removeConfig(classicOnly);
                        log.info("group.protocol=consumer: {} is the broker's to decide, not set on the consumer",
                                classicOnly);
                    }
                }
            }
        };
    }
}
