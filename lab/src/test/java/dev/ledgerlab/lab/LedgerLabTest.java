package dev.ledgerlab.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledgerlab.infra.EmbeddedStack;
import dev.ledgerlab.testkit.TestHttp;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

class LedgerLabTest {

    private static final Path DATA = EmbeddedStack.scratchDirectory("lab-test");

    @AfterAll
    static void deleteData() {
        EmbeddedStack.deleteIfAbandoned(DATA);
    }

    @Test
    void keepsAccountsAndTheirProjectionAcrossARestartAndForgetsThemWhenStartedFresh() throws Exception {
        int[] ports = java.util.stream.IntStream.generate(EmbeddedStack::freePort).distinct().limit(6).toArray();
        var args = new String[] {"--data-dir=" + DATA, "--postgres-port=" + ports[0], "--kafka-port=" + ports[1],
            "--controller-port=" + ports[2], "--command-api-port=" + ports[3], "--projector-port=" + ports[4],
            "--relay-port=" + ports[5], "--fresh"};
        String accountPath;
        try (var lab = LedgerLab.start(LabOptions.parse(args))) {
            var opened = post(ports[3], "/accounts", "{\"owner\":\"alice\"}");
            assertThat(opened.status()).isEqualTo(201);
            accountPath = opened.header("Location");
            assertThat(post(ports[3], accountPath + "/deposits", "{\"amount\":4200}").status()).isEqualTo(200);
            assertThat(lab.banner(1)).contains("http://localhost:" + ports[3]).contains(DATA.toAbsolutePath().toString());
        }

        var restart = java.util.Arrays.copyOf(args, args.length - 1);
        try (var lab = LedgerLab.start(LabOptions.parse(restart))) {
            var account = get(ports[3], accountPath);
            assertThat(account.status()).isEqualTo(200);
            assertThat(account.body()).contains("\"balance\":4200").contains("\"version\":2");
            var projected = get(ports[4], accountPath + "/balance?minVersion=2");
            assertThat(projected.status()).as(projected.body()).isEqualTo(200);
            assertThat(projected.body()).contains("\"balance\":4200");
        }

        try (var lab = LedgerLab.start(LabOptions.parse(args))) {
            assertThat(get(ports[3], accountPath).status()).isEqualTo(404);
        }
        assertThat(Files.isDirectory(DATA.resolve("postgres"))).isTrue();
    }

    @Test
    void refusesUnknownOptionsWithItsUsage() {
        assertThatThrownBy(() -> LabOptions.parse("--frsh")).hasMessageContaining("unknown option --frsh")
                .hasMessageContaining("--fresh");
        assertThatThrownBy(() -> LabOptions.parse("--postgres-port=99999")).hasMessageContaining("between 1 and 65535");
        assertThat(LabOptions.parse("--logging.level.root=WARN").passThrough()).containsExactly("--logging.level.root=WARN");
        assertThat(LabOptions.USAGE).contains("--data-dir");
    }

    private static TestHttp.Response post(int port, String path, String json) {
        return TestHttp.at(port).post(path, json);
    }

    private static TestHttp.Response get(int port, String path) {
        return TestHttp.at(port).get(path);
    }
}
