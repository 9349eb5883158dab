package dev.ledgerlab.relay;

import dev.ledgerlab.events.Replication;
import dev.ledgerlab.problems.OperatorAccess;
import dev.ledgerlab.relay.capture.ConnectorSettings;
import dev.ledgerlab.relay.capture.OutboxEngine;
import dev.ledgerlab.relay.capture.PostgresSource;
import dev.ledgerlab.relay.capture.RelayFaults;
import dev.ledgerlab.relay.capture.Resnapshot;
import dev.ledgerlab.relay.kafka.OutboxProducer;
import dev.ledgerlab.relay.kafka.OutboxTopic;
import dev.ledgerlab.relay.leadership.RelayLeadership;
import dev.ledgerlab.relay.status.RelayStatus;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.security.web.servlet.util.matcher.PathPatternRequestMatcher;

/**
 * Wires the relay from the usual Spring Boot properties ({@code spring.datasource.*},
 * {@code spring.kafka.bootstrap-servers}) and {@code relay.*}. Everything is a bean of this context, nothing static,
 * so several relays can run in one JVM.
 */
@Configuration(proxyBeanMethods = false)
class RelayConfiguration {

    @Bean
    RelayStatus relayStatus(RelayProperties relay) {
        return new RelayStatus(relay.slotName(), relay.topic());
    }

    @Bean
    PostgresSource postgresSource(@Value("${spring.datasource.url}") String url,
            @Value("${spring.datasource.username}") String username,
            @Value("${spring.datasource.password:}") String password) {
        return new PostgresSource(url, username, password);
    }

    @Bean
    OutboxTopic outboxTopic(RelayProperties relay,
            @Value("${spring.kafka.bootstrap-servers}") String bootstrapServers) {
        return new OutboxTopic(bootstrapServers, relay.topic(), relay.partitions(),
                Replication.of(relay.replicationFactor()));
    }

    @Bean
    OutboxEngine outboxEngine(RelayProperties relay, PostgresSource source, RelayStatus status,
            @Value("${spring.kafka.bootstrap-servers}") String bootstrapServers,
            @Value("${relay.faults.halt-after-acknowledged-batch:0}") int haltAfterAcknowledgedBatch,
            MeterRegistry meters) {
        String clientId = ConnectorSettings.engineName(relay);
        return new OutboxEngine(relay, source,
                () -> OutboxProducer.create(bootstrapServers, clientId, relay.linger(), relay.deliveryTimeout()),
                status, new RelayFaults(haltAfterAcknowledgedBatch), meters);
    }

    @Bean
    RelayLeadership relayLeadership(RelayProperties relay, PostgresSource source, OutboxTopic topic,
            OutboxEngine engine, RelayStatus status) {
        return new RelayLeadership(source, relay.slotName(), relay.standbyPollInterval(), topic, engine, status);
    }

    @Bean
    Resnapshot resnapshot(OutboxEngine engine, PostgresSource source, RelayStatus status, RelayProperties relay) {
        return new Resnapshot(engine, source, status, relay);
    }

    /** The relay's operator call: taking the events table again after the slot was lost. */
    @Bean
    OperatorAccess.OperatorCalls operatorCalls() {
        return new OperatorAccess.OperatorCalls(
                PathPatternRequestMatcher.withDefaults().matcher(HttpMethod.POST, "/relay/resnapshot"));
    }
}
