package dev.ledgerlab.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledgerlab.events.Replication;
import dev.ledgerlab.infra.EmbeddedStack;
import dev.ledgerlab.testkit.Scrape;
import dev.ledgerlab.testkit.TestHttp;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.config.ConfigResource;
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

    @Test
    void runsOnAClusterOfThreeKafkaNodeProcessesThatKeepThreeCopiesOutliveOneKilledAndStopWithIt() throws Exception {
        var data = EmbeddedStack.scratchDirectory("lab-cluster-test");
        try {
            int[] ports = clusterPorts();
            var args = new String[] {"--data-dir=" + data, "--postgres-port=" + ports[0], "--kafka-port=" + ports[1],
                "--controller-port=" + ports[2], "--command-api-port=" + ports[3], "--projector-port=" + ports[4],
                "--relay-port=" + ports[5], "--kafka-nodes=3", "--fresh", "--processes", "--lab-port=" + ports[6],
                TestHttp.OPERATOR_PASSWORD_ARGUMENT};
            var nodePids = new java.util.ArrayList<Long>();
            try (var lab = LedgerLab.start(LabOptions.parse(args))) {
                var banner = lab.banner(1);
                var pids = java.util.regex.Pattern.compile("node (\\d) 127\\.0\\.0\\.1:(\\d+) .*?, pid (\\d+)")
                        .matcher(banner).results().toList();
                assertThat(pids).as(banner).hasSize(3);
                assertThat(pids).extracting(m -> Integer.parseInt(m.group(2)))
                        .containsExactly(ports[1], ports[1] + 10, ports[1] + 20);
                pids.forEach(m -> nodePids.add(Long.parseLong(m.group(3))));
                assertThat(nodePids).doesNotHaveDuplicates().doesNotContain(ProcessHandle.current().pid())
                        .allSatisfy(pid -> assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).contains(true));
                assertThat(banner).contains("3 copies, a write needs 2");

                var opened = post(ports[3], "/accounts", "{\"owner\":\"alice\"}");
                assertThat(opened.status()).isEqualTo(201);
                var accountPath = opened.header("Location");
                assertThat(post(ports[3], accountPath + "/deposits", "{\"amount\":700}").status()).isEqualTo(200);
                var projected = get(ports[4], accountPath + "/balance?minVersion=2");
                assertThat(projected.status()).as(projected.body()).isEqualTo(200);

                var bootstrap = "127.0.0.1:" + ports[1] + ",127.0.0.1:" + (ports[1] + 10);
                try (var admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
                    for (var topic : List.of("accounts.events", "accounts.events.dlt")) {
                        var description = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS)
                                .get(topic);
                        assertThat(description.partitions()).as(topic)
                                .allSatisfy(p -> assertThat(p.replicas()).hasSize(3));
                        var resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
                        var config = admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS)
                                .get(resource);
                        Replication.of(3).topicConfigs().forEach((name, value) ->
                                assertThat(config.get(name).value()).as("%s of %s", name, topic).isEqualTo(value));
                    }

                    // Node 2 killed from the command line: two of three keep every write; restarted, it catches up.
                    var killed = breakNode(ports[6], "kill", "kafka-node", "2");
                    assertThat(killed).contains("exited with code 137", "2 of 3 nodes run");
                    assertThat(ProcessHandle.of(nodePids.get(1)).map(ProcessHandle::isAlive)).as("node 2's process")
                            .isNotEqualTo(java.util.Optional.of(true));
                    assertThat(post(ports[3], accountPath + "/deposits", "{\"amount\":50}").status()).isEqualTo(200);
                    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(60)).until(() ->
                            get(ports[4], accountPath + "/balance?minVersion=3").status() == 200);
                    var restarted = breakNode(ports[6], "restart", "kafka-node-2");
                    assertThat(restarted).contains("started again");
                    nodePids.add(Long.parseLong(restarted.replaceFirst("(?s).*started again \\(pid (\\d+)\\).*",
                            "$1")));
                    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(60)).ignoreExceptions()
                            .until(() -> admin.describeTopics(List.of("accounts.events")).allTopicNames()
                                    .get(10, TimeUnit.SECONDS).get("accounts.events").partitions().stream()
                                    .allMatch(p -> p.isr().size() == 3));
                }
            }
            assertThat(nodePids).as("every node stopped with the lab")
                    .allSatisfy(pid -> assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
                            .isFalse());

            var single = java.util.Arrays.stream(args).filter(arg -> !arg.startsWith("--kafka-nodes")
                    && !arg.equals("--fresh")).toArray(String[]::new);
            assertThatThrownBy(() -> LedgerLab.start(LabOptions.parse(single))).hasMessageContaining(
                    "holds the data of a Kafka cluster of 3 nodes").hasMessageContaining("--kafka-nodes=3");
        } finally {
            EmbeddedStack.deleteIfAbandoned(data);
        }
    }

    /** {@code ./ledger-lab break ...} against the lab on {@code labPort}; what it printed, once it succeeded. */
    private static String breakNode(int labPort, String... args) {
        var run = BreakCommand.run(labPort, args);
        assertThat(run.exitCode()).as(run.out()).isZero();
        return run.out();
    }

    /** Seven ports for the lab whose Kafka port and controller port are free 10 and 20 above too, for nodes 2 and 3. */
    private static int[] clusterPorts() {
        var random = new java.util.Random();
        while (true) {
            int base = 20_000 + 10 * random.nextInt(3_000);
            int[] ports = {base + 1, base + 2, base + 3, base + 4, base + 5, base + 6, base + 7};
            var needed = java.util.stream.IntStream.of(ports[0], ports[1], ports[1] + 10, ports[1] + 20, ports[2],
                    ports[2] + 10, ports[2] + 20, ports[3], ports[4], ports[5], ports[6]);
            if (needed.allMatch(LedgerLabTest::free)) {
                return ports;
            }
        }
    }

    private static boolean free(int port) {
        try (var socket = new java.net.ServerSocket(port, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
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
        assertThatThrownBy(() -> LabOptions.parse("--kafka-nodes=0")).hasMessageContaining("node count");
        assertThat(LabOptions.parse("--kafka-nodes=3").stack().kafkaNodes()).isEqualTo(3);
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
