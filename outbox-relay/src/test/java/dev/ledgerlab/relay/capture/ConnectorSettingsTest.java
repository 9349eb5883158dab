package dev.ledgerlab.relay.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledgerlab.relay.RelayProperties;
import io.debezium.config.Configuration;
import io.debezium.connector.postgresql.PostgresConnectorConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

class ConnectorSettingsTest {

    private static final PostgresSource SOURCE = new PostgresSource("jdbc:postgresql://127.0.0.1:5432/ledger",
            "ledger_relay", "secret");

    @Test
    void pollsDebeziumEveryFiveMillisecondsUnlessTold() {
        assertThat(ConnectorSettings.of(relay(Map.of()), SOURCE).getProperty("poll.interval.ms"))
                .isEqualTo(RelayProperties.DEFAULT_POLL_INTERVAL_MS).isEqualTo("5");
    }

    @Test
    void handsTheConfiguredPollIntervalToDebezium() {
        assertThat(ConnectorSettings.of(relay(Map.of("relay.poll-interval", "2ms")), SOURCE)
                .getProperty("poll.interval.ms")).isEqualTo("2");
    }

    @Test
    void refusesAPollIntervalUnderAMillisecond() {
        for (var interval : new String[] {"0ms", "500us"}) {
            assertThatThrownBy(() -> relay(Map.of("relay.poll-interval", interval)))
                    .isInstanceOf(BindException.class)
                    .rootCause().hasMessageContaining("relay.poll-interval must be at least 1ms");
        }
    }

    @Test
    void leavesOnlyTheColumnsTheRelayPublishesInDebeziumsChangeRecords() {
        // The filter as the connector builds it from these settings.
        var columns = new PostgresConnectorConfig(Configuration.from(ConnectorSettings.of(relay(Map.of()), SOURCE)))
                .getColumnFilter();
        assertThat(columns.matches("ledger", "ledger", "events", "occurred_at")).isFalse();
        assertThat(columns.matches("ledger", "ledger", "events", "position")).isFalse();
        for (var published : new String[] {"id", "account_id", "version", "type", "schema_version", "payload",
                "aggregatetype", "traceparent", "tracestate"}) {
            assertThat(columns.matches("ledger", "ledger", "events", published)).as(published).isTrue();
        }
        assertThat(columns.matches("ledger", "ledger", "relay_heartbeat", "beat_at")).isTrue();
    }

    private static RelayProperties relay(Map<String, String> settings) {
        return new Binder(new MapConfigurationPropertySource(settings)).bindOrCreate("relay", RelayProperties.class);
    }
}
