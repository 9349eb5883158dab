package dev.ledgerlab.relay.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledgerlab.relay.RelayProperties;
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

    private static RelayProperties relay(Map<String, String> settings) {
        return new Binder(new MapConfigurationPropertySource(settings)).bindOrCreate("relay", RelayProperties.class);
    }
}
