package dev.ledgerlab.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TestInfrastructureTest {

    @Test
    void startsOncePerJvm() {
        assertThat(TestInfrastructure.get()).isSameAs(TestInfrastructure.get());
    }

    @Test
    void servesPostgresWithLogicalWalAndKafka() throws Exception {
        Infrastructure infrastructure = TestInfrastructure.get();

        assertThat(infrastructure.jdbcUrl()).endsWith("/ledger");
        RoundTrips.assertPostgresAnswersWithLogicalWal(infrastructure);
        RoundTrips.assertKafkaRoundTrip(infrastructure, "testkit.round-trip");
    }

    @Test
    void rejectsAnUnknownChoice() {
        assertThatThrownBy(() -> TestInfrastructure.choose("docker"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ledgerlab.test.infra must be embedded, containers or auto");
    }
}
