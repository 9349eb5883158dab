package dev.ledgerlab.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ledgerlab.infra.EmbeddedStack;
import dev.ledgerlab.testkit.CommandApiClient;
import dev.ledgerlab.testkit.ProjectorClient;
import dev.ledgerlab.testkit.TestHttp;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * {@code ./ledger-lab --processes}: each service a JVM of its own, supervised by the lab's. A service killed with
 * {@code SIGKILL} is started again by the lab, and what the pipeline was given meanwhile is projected, once.
 */
class LabProcessesTest {

    private static final Path DATA = EmbeddedStack.scratchDirectory("lab-processes-test");

    @AfterAll
    static void deleteData() {
        EmbeddedStack.deleteIfAbandoned(DATA);
    }

    @Test
    void startsAKilledRelayAgainAndProjectsWhatWasDepositedWhileItWasDown() throws Exception {
        int[] ports = java.util.stream.IntStream.generate(EmbeddedStack::freePort).distinct().limit(6).toArray();
        var args = new String[] {"--data-dir=" + DATA, "--postgres-port=" + ports[0], "--kafka-port=" + ports[1],
            "--controller-port=" + ports[2], "--command-api-port=" + ports[3], "--projector-port=" + ports[4],
            "--relay-port=" + ports[5], "--fresh", "--processes", TestHttp.OPERATOR_PASSWORD_ARGUMENT};
        var pids = new ArrayList<Long>();
        ServiceProcesses services;
        try (var lab = LedgerLab.start(LabOptions.parse(args))) {
            services = (ServiceProcesses) lab.services();
            for (var service : LabServices.ALL) {
                long pid = services.pid(service).orElseThrow();
                var process = ProcessHandle.of(pid).orElseThrow();
                assertThat(process.isAlive()).isTrue();
                assertThat(process.parent().map(ProcessHandle::pid)).as("started by the lab's JVM")
                        .contains(ProcessHandle.current().pid());
                assertThat(commandLine(pid)).containsSequence(ServiceMain.class.getName(), service);
                assertThat(lab.banner(1)).contains("pid " + pid);
                pids.add(pid);
            }
            assertThat(pids).doesNotHaveDuplicates();
            var commands = CommandApiClient.at(ports[3]);
            var account = commands.openAccount("alice");
            assertThat(commands.deposit(account, 100).status()).isEqualTo(200);

            long relay = services.pid(LabServices.OUTBOX_RELAY).orElseThrow();
            assertThat(ProcessHandle.of(relay).orElseThrow().destroyForcibly()).as("SIGKILL sent").isTrue();
            var supervised = services;
            await().atMost(Duration.ofSeconds(30)).until(() -> supervised.lastExit(LabServices.OUTBOX_RELAY) == 137);
            // Commands keep being accepted while the relay is down: their events wait in the outbox.
            var meanwhile = new ArrayList<UUID>();
            for (int i = 0; i < 5; i++) {
                var opened = commands.openAccount("bob");
                assertThat(commands.deposit(opened, 10 + i).status()).isEqualTo(200);
                meanwhile.add(opened);
            }

            await().atMost(Duration.ofSeconds(120)).until(() -> supervised.restarts(LabServices.OUTBOX_RELAY) == 1
                    && ProjectorClient.at(ports[4]).balance(meanwhile.get(4), 2).status() == 200);
            long restarted = services.pid(LabServices.OUTBOX_RELAY).orElseThrow();
            assertThat(restarted).as("a new relay process").isNotEqualTo(relay);
            assertThat(ProcessHandle.of(relay)).as("the killed one is gone").isEmpty();
            for (int i = 0; i < meanwhile.size(); i++) {
                assertThat(ProjectorClient.at(ports[4]).balance(meanwhile.get(i), 2).json().get("balance").asLong())
                        .isEqualTo(10 + i);
            }
            assertThat(ProjectorClient.at(ports[4]).balance(account, 2).json().get("balance").asLong()).isEqualTo(100);
            var invariants = TestHttp.at(ports[4]).asOperator().get("/projection/invariants").json();
            assertThat(invariants.get("ok").asBoolean()).as(invariants.toString()).isTrue();
            assertThat(invariants.get("eventsApplied").asLong()).as("each event applied once")
                    .isEqualTo(invariants.get("eventsStored").asLong());
            pids.add(restarted);
        }
        assertThat(services.signalledToStop()).as("services that needed a signal once their pipe from the lab ended")
                .isZero();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(pids)
                .as("no service outlives its lab").allSatisfy(pid -> assertThat(ProcessHandle.of(pid)
                        .filter(ProcessHandle::isAlive)).isEmpty()));
    }

    /** Its arguments as the kernel has them (ProcessHandle.Info cuts a long command line short). */
    private static java.util.List<String> commandLine(long pid) throws java.io.IOException {
        var raw = java.nio.file.Files.readString(Path.of("/proc", Long.toString(pid), "cmdline"));
        return java.util.List.of(raw.split("\0"));
    }
}
