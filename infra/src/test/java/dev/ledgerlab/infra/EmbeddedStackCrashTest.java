package dev.ledgerlab.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class EmbeddedStackCrashTest {

    private Process child;

    @AfterEach
    void killChild() {
        if (child != null) {
            child.destroyForcibly();
        }
    }

    @Test
    void recoversAfterTheJvmIsKilled() throws Exception {
        EmbeddedStack.Settings settings = EmbeddedStack.Settings.under(TestDirectories.newDirectory("crash"))
                .withFreePorts()
                .withPostgresSetting("fsync", "off");
        List<String> childOutput = new CopyOnWriteArrayList<>();
        child = startChildJvm(settings, childOutput);
        await().atMost(Duration.ofSeconds(90))
                .failFast("the child JVM exited", () -> !child.isAlive())
                .until(() -> childOutput.contains("READY pg=" + settings.postgresPort() + " kafka=" + settings.kafkaPort()));

        String bootstrap = "127.0.0.1:" + settings.kafkaPort();
        String childJdbcUrl = "jdbc:postgresql://127.0.0.1:" + settings.postgresPort() + "/ledger";
        Sql.execute(childJdbcUrl, "CREATE TABLE survivor (note text)");
        Sql.execute(childJdbcUrl, "INSERT INTO survivor VALUES ('written before kill -9')");
        KafkaRoundTrip.createTopic(bootstrap, "survivors");
        KafkaRoundTrip.send(bootstrap, "survivors", "account-1", "acknowledged before kill -9");
        long orphanPid = EmbeddedPostgres.postmasterPid(settings.postgresDirectory()).orElseThrow();

        child.destroyForcibly();
        assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(ProcessHandle.of(orphanPid).map(ProcessHandle::isAlive))
                .as("the postmaster outlives its JVM")
                .contains(true);

        try (EmbeddedStack stack = EmbeddedStack.start(settings)) {
            assertThat(stack.postgres().pid()).isNotEqualTo(orphanPid);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> ProcessHandle.of(orphanPid).map(ProcessHandle::isAlive).orElse(false) == false);
            assertThat(Sql.query(stack.postgres().jdbcUrl(), "SELECT note FROM survivor"))
                    .isEqualTo("written before kill -9");

            KafkaRoundTrip.send(stack.kafka().bootstrapServers(), "survivors", "account-1", "sent after the restart");
            assertThat(KafkaRoundTrip.readValues(stack.kafka().bootstrapServers(), "survivors", 2))
                    .containsExactly("acknowledged before kill -9", "sent after the restart");
        }
    }

    private static Process startChildJvm(EmbeddedStack.Settings settings, List<String> output) throws IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process process = new ProcessBuilder(java.toString(),
                "-cp", System.getProperty("java.class.path"),
                "-Dledgerlab.stack.dir=" + settings.baseDirectory(),
                "-Dledgerlab.stack.pg-port=" + settings.postgresPort(),
                "-Dledgerlab.stack.kafka-port=" + settings.kafkaPort(),
                "-Dledgerlab.stack.controller-port=" + settings.controllerPort(),
                "-Dledgerlab.stack.pg.fsync=off",
                EmbeddedStackMain.class.getName())
                .redirectErrorStream(true)
                .start();
        Thread reader = new Thread(() -> {
            try (BufferedReader lines = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                    output.add(line);
                    System.out.println("[child] " + line);
                }
            }
            catch (IOException ignored) {
                // the child was killed: its output simply ends
            }
        }, "child-jvm-output");
        reader.setDaemon(true);
        reader.start();
        return process;
    }
}
