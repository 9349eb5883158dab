package dev.ledgerlab.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ledgerlab.infra.EmbeddedStack;
import dev.ledgerlab.testkit.CommandApiClient;
import dev.ledgerlab.testkit.ProjectorClient;
import dev.ledgerlab.testkit.TestHttp;
import dev.ledgerlab.testkit.TopicReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code ./ledger-lab --processes}: each service a JVM of its own, supervised by the lab's, and the faults of
 * {@code ./ledger-lab break} against it ({@link LabBreak}, called as the script calls it). Every fault is checked in
 * the process itself (its exit code, its state in /proc), and the pipeline's invariants after.
 */
class LabProcessesTest {

    private static final Path DATA = EmbeddedStack.scratchDirectory("lab-processes-test");
    private static final String SECOND_PROJECTOR = LabServices.PROJECTOR + "-2";
    private static int[] ports;
    private static LedgerLab lab;
    private static ServiceProcesses services;
    /** Every service process the lab started, to check that none outlives it. */
    private static final List<Long> PIDS = new ArrayList<>();

    @BeforeAll
    static void start() {
        ports = java.util.stream.IntStream.generate(EmbeddedStack::freePort).distinct().limit(7).toArray();
        lab = LedgerLab.start(LabOptions.parse("--data-dir=" + DATA, "--postgres-port=" + ports[0],
                "--kafka-port=" + ports[1], "--controller-port=" + ports[2], "--command-api-port=" + ports[3],
                "--projector-port=" + ports[4], "--relay-port=" + ports[5], "--lab-port=" + ports[6], "--fresh",
                "--processes", "--projectors=2", TestHttp.OPERATOR_PASSWORD_ARGUMENT));
        services = (ServiceProcesses) lab.services();
    }

    @AfterAll
    static void stop() {
        services.names().forEach(service -> services.pid(service).ifPresent(PIDS::add));
        lab.close();
        assertThat(services.signalledToStop()).as("services that needed a signal once their pipe from the lab ended")
                .isZero();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(PIDS)
                .as("no service outlives its lab").allSatisfy(pid -> assertThat(ProcessHandle.of(pid)
                        .filter(ProcessHandle::isAlive)).isEmpty()));
        EmbeddedStack.deleteIfAbandoned(DATA);
    }

    @Test
    void runsEachServiceInAProcessOfItsOwnStartedByTheLab() throws Exception {
        var seen = new ArrayList<Long>();
        // projector-3 too, once addsAProjectorToTheGroupFromTheCommandLine has run.
        assertThat(services.names()).startsWith(LabServices.COMMAND_API, LabServices.OUTBOX_RELAY,
                LabServices.PROJECTOR, SECOND_PROJECTOR);
        for (var service : services.names()) {
            long pid = services.pid(service).orElseThrow();
            var process = ProcessHandle.of(pid).orElseThrow();
            assertThat(process.parent().map(ProcessHandle::pid)).as("started by the lab's JVM")
                    .contains(ProcessHandle.current().pid());
            assertThat(commandLine(pid)).containsSequence(ServiceMain.class.getName(), service);
            assertThat(TestHttp.at(services.port(service)).get("/actuator/health/readiness").status()).isEqualTo(200);
            assertThat(lab.banner(1)).contains("pid " + pid);
            seen.add(pid);
        }
        assertThat(seen).doesNotHaveDuplicates();
    }

    @Test
    void startsARelayKilledFromTheCommandLineAgainAndProjectsWhatWasDepositedMeanwhile() throws Exception {
        var commands = CommandApiClient.at(ports[3]);
        var account = commands.openAccount("alice");
        assertThat(commands.deposit(account, 100).status()).isEqualTo(200);
        long relay = services.pid(LabServices.OUTBOX_RELAY).orElseThrow();
        int restarts = services.restarts(LabServices.OUTBOX_RELAY);

        var killed = breakIt("kill", LabServices.OUTBOX_RELAY);
        assertThat(killed.exitCode()).isZero();
        assertThat(killed.out()).contains("exited with code 137");
        assertThat(services.lastExit(LabServices.OUTBOX_RELAY)).as("the exit the lab saw").isEqualTo(137);
        PIDS.add(relay);
        // Commands keep being accepted while the relay is down: their events wait in the outbox.
        var meanwhile = new ArrayList<UUID>();
        for (int i = 0; i < 5; i++) {
            var opened = commands.openAccount("bob");
            assertThat(commands.deposit(opened, 10 + i).status()).isEqualTo(200);
            meanwhile.add(opened);
        }

        await().atMost(Duration.ofSeconds(120)).until(() -> services.restarts(LabServices.OUTBOX_RELAY) == restarts + 1
                && ProjectorClient.at(ports[4]).balance(meanwhile.get(4), 2).status() == 200);
        assertThat(services.pid(LabServices.OUTBOX_RELAY).orElseThrow()).as("a new relay process").isNotEqualTo(relay);
        assertThat(ProcessHandle.of(relay)).as("the killed one is gone").isEmpty();
        for (int i = 0; i < meanwhile.size(); i++) {
            assertThat(ProjectorClient.at(ports[4]).balance(meanwhile.get(i), 2).json().get("balance").asLong())
                    .isEqualTo(10 + i);
        }
        assertThat(ProjectorClient.at(ports[4]).balance(account, 2).json().get("balance").asLong()).isEqualTo(100);
        assertInvariantsHold();
    }

    @Test
    void freezesAndThawsTheProjectorFromTheCommandLineAndItCatchesUp() throws Exception {
        long projector = services.pid(LabServices.PROJECTOR).orElseThrow();
        var frozen = breakIt("freeze", LabServices.PROJECTOR);
        UUID account;
        try {
            assertThat(frozen.exitCode()).isZero();
            assertThat(state(projector)).as("SIGSTOP: stopped").isEqualTo('T');
            account = CommandApiClient.at(ports[3]).openAccount("carol");
            assertThat(CommandApiClient.at(ports[3]).deposit(account, 7).status()).isEqualTo(200);
            assertThat(state(projector)).as("still frozen").isEqualTo('T');
            assertThat(status()).as("./ledger-lab break status").containsPattern(
                    "(?m)^projector +pid " + projector + " +port \\d+ +stopped ");
        } catch (AssertionError | RuntimeException e) {
            // Left frozen, it would hold its partitions through the scenarios after this one, failing them too.
            new ProcessBuilder("kill", "-CONT", Long.toString(projector)).inheritIO().start().waitFor();
            throw e;
        }

        assertThat(breakIt("thaw", LabServices.PROJECTOR).exitCode()).isZero();
        assertThat(state(projector)).as("SIGCONT: running").isNotEqualTo('T');
        var deposited = account;
        await().atMost(Duration.ofSeconds(60)).until(() ->
                ProjectorClient.at(ports[4]).balance(deposited, 2).status() == 200);
        assertThat(services.pid(LabServices.PROJECTOR).orElseThrow()).as("the same process").isEqualTo(projector);
        // What it read again below the stored offsets, as the lab's processes (and the page's panel) show it.
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() -> {
            var shown = new ArrayList<Long>();
            TestHttp.at(ports[6]).get(LabControl.PROCESSES).json().get("services").forEach(service -> {
                if (service.get("service").asString().equals(LabServices.PROJECTOR)) {
                    shown.add(service.get("redelivered").asLong());
                }
            });
            assertThat(shown).containsExactly(
                    ProjectorClient.at(ports[4]).status().get("redeliveredSinceStart").asLong());
        });
        assertInvariantsHold();
    }

    /**
     * The course's rebalance exercise, live: the killed member's partitions wait until the group gives them to a
     * live member, and the page's readings measure that pause (GET /pipeline, asked every second as the page asks).
     */
    @Test
    void givesAKilledProjectorsPartitionsToTheOtherMemberOfTheGroupAndThePageMeasuresTheirPause() throws Exception {
        var first = ProjectorClient.at(ports[4]);
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            assertThat(assigned(LabServices.PROJECTOR)).isNotEmpty();
            assertThat(assigned(SECOND_PROJECTOR)).isNotEmpty();
        });
        var held = assigned(SECOND_PROJECTOR);
        var commands = CommandApiClient.at(ports[3]);
        // An account whose events go to a partition the member about to be killed holds (the page's journey names
        // the partition the relay's producer will choose).
        UUID account = null;
        int partition = -1;
        for (int i = 0; i < 40 && account == null; i++) {
            var opened = commands.openAccount("erin");
            partition = TestHttp.at(ports[4]).get("/pipeline/events/" + opened + "/1").json().get("partition").asInt();
            if (held.contains(partition)) {
                account = opened;
            }
        }
        assertThat(account).as("an account on one of %s", held).isNotNull();
        var target = account;
        int paused = partition;
        await().atMost(Duration.ofSeconds(60)).until(() -> first.balance(target, 1).status() == 200);
        TestHttp.at(ports[4]).get("/pipeline"); // the page is open: readings from now on

        long second = services.pid(SECOND_PROJECTOR).orElseThrow();
        var killed = breakIt("kill", SECOND_PROJECTOR);
        assertThat(killed.out()).contains("exited with code 137");
        PIDS.add(second);
        long at = System.nanoTime();
        var deposited = new java.util.concurrent.atomic.AtomicInteger();
        // A deposit a second into its partition, read by nobody until a live member holds it: one pause, measured.
        var pause = await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofSeconds(1)).until(() -> {
            if (commands.deposit(target, 1).status() == 200) {
                deposited.incrementAndGet();
            }
            var found = new ArrayList<tools.jackson.databind.JsonNode>();
            TestHttp.at(ports[4]).get("/pipeline").json().get("pauses").forEach(found::add);
            return found.stream().filter(p -> p.get("partition").asInt() == paused
                    && !p.get("ongoing").asBoolean()).findFirst().orElse(null);
        }, java.util.Objects::nonNull);
        System.out.printf("projector-2 killed: partition %d paused %s s (%s -> %s), its partitions had a live member"
                + " %d ms after the kill; %d deposits meanwhile; redelivered: %s%n", paused,
                pause.get("seconds"), pause.get("from").asString(), pause.get("to").asString(),
                (System.nanoTime() - at) / 1_000_000, deposited.get(), TestHttp.at(ports[6])
                        .get(LabControl.PROCESSES).json().get("services").findValues("redelivered"));
        assertThat(pause.get("seconds").asDouble()).as("a pause spans readings a second apart").isGreaterThan(1.0);
        await().atMost(Duration.ofSeconds(60)).until(() ->
                first.balance(target, 1 + deposited.get()).status() == 200);
        assertInvariantsHold();
    }

    @Test
    void addsAProjectorToTheGroupFromTheCommandLine() throws Exception {
        var added = breakIt("add", LabServices.PROJECTOR);
        assertThat(added.exitCode()).isZero();
        var third = LabServices.PROJECTOR + "-3";
        assertThat(added.out()).contains("started " + third, "member 3");
        long pid = services.pid(third).orElseThrow();
        assertThat(ProcessHandle.of(pid).flatMap(ProcessHandle::parent).map(ProcessHandle::pid))
                .as("started by the lab's JVM").contains(ProcessHandle.current().pid());
        assertThat(commandLine(pid)).containsSequence(ServiceMain.class.getName(), third);
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().untilAsserted(() ->
                assertThat(assigned(third)).as("partitions of the new member").isNotEmpty());
        // What the lab says each member holds (GET /processes, the page's panel): every partition, once.
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().untilAsserted(() -> {
            var held = new ArrayList<Integer>();
            TestHttp.at(ports[6]).get(LabControl.PROCESSES).json().get("services").forEach(service -> {
                if (service.get("service").asString().startsWith(LabServices.PROJECTOR)) {
                    service.get("partitions").forEach(partition -> held.add(partition.asInt()));
                }
            });
            assertThat(held).as("partitions held across the group").containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5);
        });
        var account = CommandApiClient.at(ports[3]).openAccount("grace");
        assertThat(CommandApiClient.at(ports[3]).deposit(account, 9).status()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(60)).until(() ->
                ProjectorClient.at(ports[4]).balance(account, 2).status() == 200);
        assertInvariantsHold();
    }

    @Test
    void deadLettersAPoisonPublishedFromTheCommandLineAndItsPartitionReadsOn() throws Exception {
        var poisoned = breakIt("poison", LabServices.PROJECTOR);
        assertThat(poisoned.exitCode()).isZero();
        var where = java.util.regex.Pattern.compile("partition (\\d+), offset (\\d+) \\(key ([0-9a-f-]{36})")
                .matcher(poisoned.out()).results().findFirst().orElseThrow();
        int partition = Integer.parseInt(where.group(1));
        var key = where.group(3);
        var bootstrap = "127.0.0.1:" + ports[1];
        try (var deadLetters = new TopicReader(bootstrap, "accounts.events.dlt")) {
            var letters = TopicReader.keyed(deadLetters.readUntil(all -> !TopicReader.keyed(all, key).isEmpty(),
                    Duration.ofSeconds(60)), key);
            assertThat(letters).as("the poison, dead-lettered").hasSize(1);
            assertThat(TopicReader.header(letters.get(0), "kafka_dlt-original-topic")).as("by the projector, from")
                    .isEqualTo("accounts.events");
            // Spring Kafka writes the original offset as eight bytes.
            assertThat(java.nio.ByteBuffer.wrap(letters.get(0).headers().lastHeader("kafka_dlt-original-offset")
                    .value()).getLong()).isEqualTo(Long.parseLong(where.group(2)));
        }
        // An account of the poisoned partition (Kafka's default partitioner: murmur2 of the key) is still projected.
        var commands = CommandApiClient.at(ports[3]);
        int partitions = TopicReader.endOffsets(bootstrap, "accounts.events").size();
        UUID account;
        do {
            account = commands.openAccount("heidi");
        } while (org.apache.kafka.common.utils.Utils.toPositive(org.apache.kafka.common.utils.Utils.murmur2(
                account.toString().getBytes(StandardCharsets.UTF_8))) % partitions != partition);
        assertThat(commands.deposit(account, 11).status()).isEqualTo(200);
        var projected = account;
        await().atMost(Duration.ofSeconds(60)).until(() ->
                ProjectorClient.at(ports[4]).balance(projected, 2).status() == 200);
        try (var events = new TopicReader(bootstrap, "accounts.events")) {
            assertThat(TopicReader.keyed(events.readToEnd(), projected)).extracting(r -> r.partition())
                    .as("its events, on the poisoned partition").containsOnly(partition);
        }
        assertInvariantsHold();
    }

    /**
     * The page, in Chromium: under a deposit loop, the relay killed from its "Break it" panel. The relay's stage is
     * marked down and the slot, inactive, falls behind while it is; the lab starts it again, the backlog drains, the
     * page's duplicates are the projector's own, and the invariant check from the page says ok.
     */
    @Test
    void killsTheRelayFromThePageUnderLoadAndShowsItDownTheSlotBehindThenDrained() throws Exception {
        var browser = Chromium.open();
        var commands = CommandApiClient.at(ports[3]);
        var account = commands.openAccount("ivan");
        var stop = new java.util.concurrent.atomic.AtomicBoolean();
        var accepted = new java.util.concurrent.atomic.AtomicLong();
        // Bounded in count and time: it stops by itself even if the test fails before it says so.
        var loop = new Thread(() -> {
            long until = System.nanoTime() + Duration.ofSeconds(180).toNanos();
            for (int i = 0; i < 20_000 && !stop.get() && System.nanoTime() < until; i++) {
                if (commands.deposit(account, 1).status() == 200) {
                    accepted.incrementAndGet();
                } else {
                    // Refused at once while PostgreSQL is down: a client that waits a little before it asks again.
                    java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
                }
            }
        }, "page-test-deposits");
        try {
            browser.get("http://localhost:" + ports[4] + "/");
            var page = new Page(browser);
            await().atMost(Duration.ofSeconds(30)).until(() -> page.element("break").isDisplayed()
                    && "running".equals(page.processState(LabServices.OUTBOX_RELAY)));
            page.type("operator-password", TestHttp.OPERATOR_PASSWORD);
            page.element("login").click();
            var kill = browser.findElement(org.openqa.selenium.By.cssSelector(
                    "#break button[data-fault='kill'][data-service='outbox-relay']"));
            await().atMost(Duration.ofSeconds(30)).until(kill::isEnabled);
            assertThat(kill.getDomAttribute("title")).as("the button says what it will do").contains("SIGKILL");
            loop.start();
            await().atMost(Duration.ofSeconds(30)).until(() -> accepted.get() > 20);

            long relay = services.pid(LabServices.OUTBOX_RELAY).orElseThrow();
            kill.click();
            await().atMost(Duration.ofSeconds(30)).until(() -> page.text("break-did").contains("exited with code 137"));
            PIDS.add(relay);
            await().atMost(Duration.ofSeconds(30)).until(() -> page.isDown("stage-relay"));
            await().atMost(Duration.ofSeconds(30)).until(() -> page.text("slots").contains("inactive")
                    && page.slotBehind() > 0);
            Chromium.screenshot(browser, "break-it-relay-down");

            await().atMost(Duration.ofSeconds(60)).until(() -> "running".equals(
                    page.processState(LabServices.OUTBOX_RELAY)) && !page.isDown("stage-relay"));
            assertThat(services.pid(LabServices.OUTBOX_RELAY).orElseThrow()).as("a new relay").isNotEqualTo(relay);
            // The command API's answers, from its own counters: accepted all along; and the new relay streaming
            // (its slot active), past its start, which needs PostgreSQL (beside a busy suite, half a minute or more).
            await().atMost(Duration.ofSeconds(90)).until(() -> page.decimal("answers-accepted") > 0
                    && page.decimal("answers-failed") == 0 && page.text("slots").contains(": active,"));

            // PostgreSQL killed from the page: the commands fail with 503 and the page shows them failing.
            page.element("break").findElement(org.openqa.selenium.By.cssSelector(
                    "button[data-fault='kill'][data-service='postgres']")).click();
            await().atMost(Duration.ofSeconds(30)).until(() -> page.text("break-did").contains("SIGKILL"));
            await().atMost(Duration.ofSeconds(30)).until(() -> page.decimal("answers-failed") > 0
                    && page.text("answers-failed-types").contains("database-unavailable")
                    && page.isDown("stage-outbox")
                    && String.valueOf(page.element("stage-command-api").getDomAttribute("class")).contains("failing"));
            Chromium.screenshot(browser, "break-it-postgres-down");
            String failing = page.text("answers");
            page.element("break").findElement(org.openqa.selenium.By.cssSelector(
                    "button[data-fault='restart'][data-service='postgres']")).click();
            await().atMost(Duration.ofSeconds(30)).until(() -> page.text("break-did").contains("started again"));
            long before = accepted.get();
            await().atMost(Duration.ofSeconds(60)).until(() -> accepted.get() > before + 20
                    && page.decimal("answers-accepted") > 0 && page.decimal("answers-failed") == 0);

            stop.set(true);
            loop.join(Duration.ofSeconds(30).toMillis());
            await().atMost(Duration.ofSeconds(60)).until(() -> page.text("lag").equals("0")
                    && page.text("slots").contains(": active,"));
            await().atMost(Duration.ofSeconds(10)).until(() -> page.number("duplicates")
                    == ProjectorClient.at(ports[4]).status().get("duplicates").asLong());
            // Nobody clicks: once the pipeline is quiet the page asks the invariant check by itself.
            await().atMost(Duration.ofSeconds(60)).until(() -> page.text("invariants-verdict").startsWith("ok: ")
                    && "asked by itself: quiet for 5 s".equals(page.element("invariants-verdict")
                            .getDomAttribute("data-how")));
            Chromium.screenshot(browser, "break-it-drained");
            System.out.printf("relay killed from the page under %d deposits: %s; PostgreSQL killed: %s; page:"
                    + " duplicates %s, %s%n", accepted.get(), page.text("break-did"), failing, page.text("duplicates"),
                    page.text("invariants-verdict"));
        } finally {
            stop.set(true);
            browser.quit();
            if (!lab.postgres().isRunning()) {
                // Left down by a failure above, it would fail every scenario after this one too.
                breakIt("restart", PostgresFaults.TARGET);
            }
        }
        assertInvariantsHold();
    }

    /** What the test reads of the page: elements by id, the processes table, the slot's figure. */
    private record Page(org.openqa.selenium.chrome.ChromeDriver browser) {

        org.openqa.selenium.WebElement element(String id) {
            return browser.findElement(org.openqa.selenium.By.id(id));
        }

        String text(String id) {
            return element(id).getText().trim();
        }

        long number(String id) {
            return Long.parseLong(text(id).replace(",", ""));
        }

        /** A rate the page shows, such as "12.5"; -1 while it shows none ("–" or "?"). */
        double decimal(String id) {
            var shown = text(id).replace(",", "");
            return shown.matches("\\d+(\\.\\d+)?") ? Double.parseDouble(shown) : -1;
        }

        void type(String id, String value) {
            element(id).clear();
            element(id).sendKeys(value);
        }

        boolean isDown(String stage) {
            return String.valueOf(element(stage).getDomAttribute("class")).contains("down");
        }

        String processState(String process) {
            var rows = browser.findElements(org.openqa.selenium.By.cssSelector(
                    "#processes tr[data-process='" + process + "']"));
            try {
                return rows.isEmpty() ? null : rows.get(0).getDomAttribute("data-state");
            } catch (org.openqa.selenium.StaleElementReferenceException redrawn) {
                // The page redraws the table every second: the row found may be gone; the next poll reads the new one.
                return null;
            }
        }

        /** The relay's slot: bytes of WAL it has not confirmed, as the page shows them. */
        long slotBehind() {
            var matcher = java.util.regex.Pattern.compile("([\\d,]+) B behind").matcher(text("slots"));
            return matcher.find() ? Long.parseLong(matcher.group(1).replace(",", "")) : -1;
        }
    }

    private static List<Integer> assigned(String projector) {
        var set = new ArrayList<Integer>();
        ProjectorClient.at(services.port(projector)).status().get("assignedHere").forEach(n -> set.add(n.asInt()));
        return set;
    }

    @Test
    void restartsTheCommandApiFromTheCommandLine() throws Exception {
        long api = services.pid(LabServices.COMMAND_API).orElseThrow();
        var restarted = breakIt("restart", LabServices.COMMAND_API);
        assertThat(restarted.exitCode()).isZero();
        assertThat(restarted.out()).contains("exit code 0");
        PIDS.add(api);
        await().atMost(Duration.ofSeconds(120)).ignoreExceptions().until(() ->
                services.pid(LabServices.COMMAND_API).orElseThrow() != api
                && CommandApiClient.at(ports[3]).openAccount("dave") != null);
        assertInvariantsHold();
    }

    @Test
    void keepsPostgresKilledFromTheCommandLineDownUntilRestartedAndTheServicesResumeByThemselves() throws Exception {
        var commands = CommandApiClient.at(ports[3]);
        var account = commands.openAccount("frank");
        assertThat(commands.deposit(account, 40).status()).isEqualTo(200);
        var servicePids = new ArrayList<Long>();
        services.names().forEach(service -> servicePids.add(services.pid(service).orElseThrow()));
        var postgres = lab.postgres();
        long postmaster = postgres.pid();

        var killed = breakIt("kill", PostgresFaults.TARGET);
        assertThat(killed.exitCode()).isZero();
        assertThat(killed.out()).contains("SIGKILL", "pid " + postmaster);
        assertThat(ProcessHandle.of(postmaster)).as("the postmaster is gone").isEmpty();
        var refused = commands.deposit(account, 5);
        assertThat(refused.status()).as("a deposit while it is down").isEqualTo(503);
        assertThat(refused.body()).contains("urn:ledgerlab:problem:database-unavailable");
        await().atMost(Duration.ofSeconds(30)).until(() ->
                TestHttp.at(ports[3]).get("/actuator/health/readiness").status() == 503);
        assertThat(breakIt("kill", PostgresFaults.TARGET).out()).as("killed twice").contains("down already");
        assertThat(status()).containsPattern("(?m)^postgres +pid " + postmaster + " +down$")
                .containsPattern("(?m)^command-api +pid \\d+ +port " + ports[3] + " +running ");

        var restarted = breakIt("restart", PostgresFaults.TARGET);
        assertThat(restarted.exitCode()).isZero();
        assertThat(restarted.out()).contains("started again");
        assertThat(postgres.pid()).as("a new postmaster").isNotEqualTo(postmaster);
        var key = UUID.randomUUID().toString();
        await().atMost(Duration.ofSeconds(60)).until(() ->
                commands.deposit(account, 2, "Idempotency-Key", key).status() == 200);
        await().atMost(Duration.ofSeconds(60)).until(() ->
                ProjectorClient.at(ports[4]).balance(account, 3).status() == 200);
        assertThat(ProjectorClient.at(ports[4]).balance(account, 3).json().get("balance").asLong())
                .as("the deposit refused with 503 was never written").isEqualTo(42);
        var after = new ArrayList<Long>();
        services.names().forEach(service -> after.add(services.pid(service).orElseThrow()));
        assertThat(after).as("nobody restarted a service").isEqualTo(servicePids);
        assertInvariantsHold();
    }

    @Test
    void refusesAFaultWithoutTheOperatorsPasswordAndDoesNothing() throws Exception {
        long relay = services.pid(LabServices.OUTBOX_RELAY).orElseThrow();
        var refused = TestHttp.at(ports[6]).post(LabControl.PATH + "kill/" + LabServices.OUTBOX_RELAY, "{}");
        assertThat(refused.status()).isEqualTo(401);
        assertThat(refused.body()).contains("urn:ledgerlab:problem:operator-credentials-required");
        var wrong = LabBreak.run(Map.of(OperatorPassword.ENVIRONMENT, "not-the-password"), quiet(), quiet(),
                "freeze", LabServices.OUTBOX_RELAY, "--lab-port=" + ports[6]);
        assertThat(wrong).as("the command line's exit code").isOne();
        assertThat(services.pid(LabServices.OUTBOX_RELAY).orElseThrow()).as("nothing killed").isEqualTo(relay);
        assertThat(state(relay)).as("nothing frozen").isNotEqualTo('T');
        assertThat(TestHttp.at(ports[6]).asOperator().post(LabControl.PATH + "explode/projector", "{}").status())
                .as("no such fault").isEqualTo(404);
        assertThat(TestHttp.at(ports[6]).asOperator().post(LabControl.PATH + "freeze/postgres", "{}").status())
                .as("PostgreSQL's faults are kill and restart").isEqualTo(404);
        // Only the projectors' pages may call the lab from a browser: another origin gets no CORS grant.
        var client = java.net.http.HttpClient.newHttpClient();
        for (var origin : List.of("http://example.com", "http://localhost:" + ports[4])) {
            var preflight = client.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:"
                    + ports[6] + LabControl.PATH + "kill/" + LabServices.OUTBOX_RELAY)).header("Origin", origin)
                    .method("OPTIONS", java.net.http.HttpRequest.BodyPublishers.noBody()).build(),
                    java.net.http.HttpResponse.BodyHandlers.discarding());
            boolean page = origin.endsWith(":" + ports[4]);
            assertThat(preflight.statusCode()).as("preflight from %s", origin).isEqualTo(page ? 204 : 403);
            assertThat(preflight.headers().firstValue("Access-Control-Allow-Origin")).as(origin)
                    .isEqualTo(page ? java.util.Optional.of(origin) : java.util.Optional.empty());
        }
    }

    /** {@code ./ledger-lab break status}, with no password: what it printed. */
    private static String status() {
        var out = new ByteArrayOutputStream();
        assertThat(LabBreak.run(Map.of(), new PrintStream(out, true, StandardCharsets.UTF_8), System.err, "status",
                "--lab-port=" + ports[6])).isZero();
        System.out.print(out.toString(StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8);
    }

    /** {@code ./ledger-lab break FAULT SERVICE} against this class's lab. */
    private static BreakCommand breakIt(String fault, String service) {
        return BreakCommand.run(ports[6], fault, service);
    }

    private static void assertInvariantsHold() {
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            var invariants = TestHttp.at(ports[4]).asOperator().get("/projection/invariants").json();
            assertThat(invariants.get("ok").asBoolean()).as(invariants.toString()).isTrue();
            assertThat(invariants.get("eventsApplied").asLong()).as("each event applied once")
                    .isEqualTo(invariants.get("eventsStored").asLong());
        });
    }

    private static PrintStream quiet() {
        return new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    }

    /** The process's state letter in /proc: T when stopped. */
    private static char state(long pid) throws IOException {
        var stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        return stat.charAt(stat.lastIndexOf(')') + 2);
    }

    /** Its arguments as the kernel has them (ProcessHandle.Info cuts a long command line short). */
    private static List<String> commandLine(long pid) throws IOException {
        return List.of(Files.readString(Path.of("/proc", Long.toString(pid), "cmdline")).split("\0"));
    }
}
