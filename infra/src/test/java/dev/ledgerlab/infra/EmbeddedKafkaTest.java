package dev.ledgerlab.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class EmbeddedKafkaTest {

    @Test
    void keepsKafkaRecordsAcrossRestart() throws Exception {
        Path logDir = TestDirectories.newDirectory("kafka-restart").resolve("kafka");
        int port = EmbeddedStack.freePort();
        int controllerPort = EmbeddedStack.freePort();
        try (EmbeddedKafka kafka = EmbeddedKafka.start(logDir, port, controllerPort)) {
            KafkaRoundTrip.createTopic(kafka.bootstrapServers(), "kept");
            KafkaRoundTrip.send(kafka.bootstrapServers(), "kept", "account-1", "before the restart");
        }
        assertThat(logDir.resolve("meta.properties")).exists();

        try (EmbeddedKafka kafka = EmbeddedKafka.start(logDir, port, controllerPort)) {
            KafkaRoundTrip.send(kafka.bootstrapServers(), "kept", "account-1", "after the restart");

            assertThat(KafkaRoundTrip.readValues(kafka.bootstrapServers(), "kept", 2))
                    .containsExactly("before the restart", "after the restart");
        }
    }

    @Test
    void refusesAPortUsedByAnotherProcess() throws IOException {
        Path logDir = TestDirectories.newDirectory("kafka-port-taken").resolve("kafka");
        try (ServerSocket stranger = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            int port = stranger.getLocalPort();

            assertThatThrownBy(() -> EmbeddedKafka.start(logDir, port, EmbeddedStack.freePort()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("port " + port + " is in use by another process");
        }
        assertThat(logDir).doesNotExist();
    }
}
