package dev.ledgerlab.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.StringSerializer;
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

    /**
     * Topics are created by whoever owns them, with their partition count: a client that merely names a missing topic
     * (a producer, which asks the broker to create it unless told otherwise) must not get one of the broker's default
     * single partition.
     */
    @Test
    void createsNoTopicThatAClientMerelyNames() throws Exception {
        Path logDir = TestDirectories.newDirectory("kafka-no-auto-create").resolve("kafka");
        try (EmbeddedKafka kafka = EmbeddedKafka.start(logDir, EmbeddedStack.freePort(), EmbeddedStack.freePort());
                var producer = new KafkaProducer<String, String>(Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                        ProducerConfig.MAX_BLOCK_MS_CONFIG, 3000,
                        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class));
                var admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            assertThatThrownBy(() -> producer.send(new ProducerRecord<>("named.only", "k", "v")).get())
                    .hasCauseInstanceOf(TimeoutException.class).hasMessageContaining("not present in metadata");
            assertThat(admin.listTopics().names().get()).doesNotContain("named.only");
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
