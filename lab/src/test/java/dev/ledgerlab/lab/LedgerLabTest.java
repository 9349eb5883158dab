package dev.ledgerlab.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledgerlab.infra.EmbeddedStack;
import dev.ledgerlab.testkit.Scrape;
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
        String password;
        try (var lab = LedgerLab.start(LabOptions.parse(args))) {
            var opened = post(ports[3], "/accounts", "{\"owner\":\"alice\"}");
            assertThat(opened.status()).isEqualTo(201);
            accountPath = opened.header("Location");
            assertThat(post(ports[3], accountPath + "/deposits", "{\"amount\":4200}").status()).isEqualTo(200);
            assertThat(lab.banner(1)).contains("http://localhost:" + ports[3]).contains(DATA.toAbsolutePath().toString());
            var passwordFile = DATA.resolve("operator-password");
            assertThat(Files.getPosixFilePermissions(passwordFile)).as("readable by its owner only")
                    .isEqualTo(java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
            password = Files.readString(passwordFile).strip();
            assertThat(password).hasSizeGreaterThanOrEqualTo(24);
            assertThat(lab.banner(1)).contains("password " + password).contains("listen on 127.0.0.1 only");
            assertThat(TestHttp.at(ports[4]).post("/projection/rebuild", "{}").status()).isEqualTo(401);
            assertThat(TestHttp.at(ports[4]).withBasic("operator", password).get("/projection/invariants").status())
                    .isEqualTo(200);
            // Each service its own scrape, open like health, with its own meters.
            assertThat(Scrape.of(ports[3]).value("ledger_commands_total", "kind", "deposit", "outcome", "accepted"))
                    .isOne();
            assertThat(Scrape.of(ports[4]).has("ledger_projection_lag_seconds")).isTrue();
            assertThat(Scrape.of(ports[5]).has("ledger_relay_slot_lag_bytes")).isTrue();
            assertThat(Scrape.of(ports[3]).has("ledger_relay_slot_lag_bytes")).isFalse();
            for (var address : nonLoopbackAddresses()) {
                assertThat(reachable(address, ports[3])).as("command API on %s", address).isFalse();
            }
        }

        var restart = java.util.Arrays.copyOf(args, args.length - 1);
        try (var lab = LedgerLab.start(LabOptions.parse(restart))) {
            assertThat(lab.banner(1)).as("a restart keeps the password").contains("password " + password);
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

    private static java.util.List<java.net.InetAddress> nonLoopbackAddresses() throws java.net.SocketException {
        return java.util.Collections.list(java.net.NetworkInterface.getNetworkInterfaces()).stream()
                .flatMap(i -> java.util.Collections.list(i.getInetAddresses()).stream())
                .filter(a -> a instanceof java.net.Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress())
                .toList();
    }

    private static boolean reachable(java.net.InetAddress address, int port) {
        try (var socket = new java.net.Socket()) {
            socket.connect(new java.net.InetSocketAddress(address, port), 1000);
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
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
