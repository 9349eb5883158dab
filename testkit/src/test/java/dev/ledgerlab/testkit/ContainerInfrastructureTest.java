package dev.ledgerlab.testkit;

import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Testcontainers;

@Testcontainers(disabledWithoutDocker = true)
class ContainerInfrastructureTest {

    @Test
    void servesPostgresWithLogicalWalAndKafkaFromContainers() throws Exception {
        try (ContainerInfrastructure containers = ContainerInfrastructure.start()) {
            Infrastructure infrastructure = containers.infrastructure();

            RoundTrips.assertPostgresAnswersWithLogicalWal(infrastructure);
            RoundTrips.assertKafkaRoundTrip(infrastructure, "containers.round-trip");
        }
    }
}
