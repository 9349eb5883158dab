package dev.ledgerlab.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ledgerlab.testkit.CommandApiClient;
import dev.ledgerlab.testkit.ProjectorClient;
import dev.ledgerlab.testkit.TestHttp;
import dev.ledgerlab.testkit.TopicReader;
import java.io.IOException;
import java.time.Duration;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * The pipeline page in a real browser: headless Chromium (the system's, through its chromedriver: nothing is
 * downloaded) against the lab's three services on this JVM's PostgreSQL and Kafka. What the page shows is checked
 * against the services themselves, so a page that showed made-up numbers would fail. Screenshots go to
 * {@code target/screenshots/}. Without Chromium the class is skipped, saying how to install it.
 */
class PipelinePageTest {

    private static final Pattern PUBLISHED = Pattern.compile("partition (\\d+), offset (\\d+), [+-]\\d+ ms");

    private static OwnPipeline pipeline;
    private static LabServices services;
    private static ChromeDriver browser;

    @BeforeAll
    static void start() throws IOException {
        // Skipped (or failed, under .ci/run) before anything starts when there is no Chromium.
        browser = Chromium.open();
        // Its own database and names: its replay and its slot touch no other test's pipeline.
        pipeline = OwnPipeline.create("pipeline_page", TestHttp.OPERATOR_PASSWORD_ARGUMENT,
                "--management.tracing.export.enabled=false");
        services = pipeline.start();
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (services != null) {
            services.close();
        }
        if (pipeline != null) {
            pipeline.dropSlot();
        }
    }

    @BeforeEach
    void openThePage() {
        browser.get("http://localhost:" + LabServices.port(services.projector()) + "/");
        await().atMost(Duration.ofSeconds(30)).until(() -> text("command-api-url").startsWith("http://localhost:"));
    }

    /**
     * A deposit made through the page's form, and the page showing its journey: committed at a position of the
     * outbox, published at a partition and offset where Kafka really holds that very event, applied with the balance
     * the projector answers. The lag chart holds points meanwhile; a withdrawal the account cannot cover shows its
     * problem type and changes nothing.
     */
    @Test
    void showsADepositMadeThroughTheFormTravellingToTheProjectionWithItsPartitionAndOffset() throws IOException {
        type("owner", "page-test");
        browser.findElement(By.id("open-account")).click();
        await().atMost(Duration.ofSeconds(30)).until(() -> !value("account-id").isEmpty());
        var account = UUID.fromString(value("account-id"));
        assertThat(text("command-status")).isEqualTo("201");

        await().atMost(Duration.ofSeconds(60)).until(() -> done("journey-applied"));
        type("amount", "125");
        browser.findElement(By.id("deposit")).click();
        await().atMost(Duration.ofSeconds(60)).until(() -> text("journey-link").endsWith("/" + account + "/2")
                && done("journey-applied") && done("journey-published"));
        assertThat(text("command-status")).isEqualTo("200");
        assertThat(text("projected-balance")).isEqualTo("125 at version 2");
        var projector = TestHttp.at(LabServices.port(services.projector()));
        assertThat(ProjectorClient.over(projector).projected(account)).as("the projector's own answer")
                .containsExactly(125L, 2L);
        assertThat(cell("journey-committed")).startsWith("MoneyDeposited, position ");

        var published = PUBLISHED.matcher(cell("journey-published"));
        assertThat(published.matches()).as(cell("journey-published")).isTrue();
        int partition = Integer.parseInt(published.group(1));
        long offset = Long.parseLong(published.group(2));
        var records = TopicReader.keyed(TopicReader.readAll(pipeline.infrastructure().bootstrapServers(),
                pipeline.topic()), account);
        var deposit = records.stream().filter(r -> "2".equals(TopicReader.header(r, "version"))).findFirst()
                .orElseThrow();
        assertThat(deposit.partition()).as("the partition the page names").isEqualTo(partition);
        assertThat(deposit.offset()).as("the offset the page names").isEqualTo(offset);

        // The stages' figures, as the pipeline itself has them once quiet.
        var admin = pipeline.admin();
        long head = admin.sql("SELECT max(position) FROM ledger.events").query(Long.class).single();
        long applied = admin.sql("SELECT sum(applied) FROM projection.offsets WHERE group_id = ?")
                .param(pipeline.name()).query(Long.class).single();
        long inKafka = TopicReader.readAll(pipeline.infrastructure().bootstrapServers(), pipeline.topic()).size();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(figure("outbox-head")).as("outbox head").isEqualTo(head);
            assertThat(figure("published")).as("records in Kafka").isEqualTo(inKafka);
            assertThat(figure("applied")).as("events applied").isEqualTo(applied);
            assertThat(figure("lag")).as("lag").isZero();
            assertThat(text("slots")).startsWith("pipeline_page: active, reserved, ");
        });
        await().atMost(Duration.ofSeconds(30)).until(() -> points("lag-chart") >= 3 && points("throughput-chart") >= 3);
        assertThat(browser.findElements(By.cssSelector("#partitions tbody tr"))).hasSize(6);
        screenshot("pipeline-page");

        type("amount", "1000000");
        browser.findElement(By.id("withdraw")).click();
        await().atMost(Duration.ofSeconds(30)).until(() -> text("command-status").equals("409"));
        assertThat(text("problem-type")).isEqualTo("urn:ledgerlab:problem:insufficient-funds");
        assertThat(ProjectorClient.over(projector).projected(account)).as("nothing changed").containsExactly(125L, 2L);
        assertThat(CommandApiClient.at(LabServices.port(services.commandApi())).account(account).json()
                .get("version").asLong()).isEqualTo(2);
    }

    /**
     * The operator's part: a wrong password is refused with its problem type and leaves the buttons disabled; the
     * right one enables them; a replay started from the page runs to its end, as the projector itself reports it,
     * and the invariant check then gives its verdict.
     */
    @Test
    void logsInAsOperatorRunsAReplayToItsEndAndChecksTheInvariants() throws IOException {
        type("operator-password", "not-the-password");
        browser.findElement(By.id("login")).click();
        await().atMost(Duration.ofSeconds(30)).until(() -> text("operator-state").startsWith("refused"));
        assertThat(text("operator-state")).isEqualTo("refused: 401 urn:ledgerlab:problem:operator-credentials-required");
        assertThat(browser.findElement(By.id("start-replay")).isEnabled()).isFalse();

        type("operator-password", TestHttp.OPERATOR_PASSWORD);
        browser.findElement(By.id("login")).click();
        await().atMost(Duration.ofSeconds(30)).until(() -> browser.findElement(By.id("start-replay")).isEnabled());
        assertThat(text("operator-state")).isEqualTo("logged in as operator");

        browser.findElement(By.id("start-replay")).click();
        await().atMost(Duration.ofSeconds(120)).until(() -> "completed".equals(state("run-state", "state")));
        var replay = TestHttp.at(LabServices.port(services.projector())).get("/projection/replay").json();
        assertThat(replay.get("state").asString()).isEqualTo("completed");
        assertThat(state("run-state", "id")).as("the run the page started and followed")
                .isEqualTo(replay.get("id").asString());
        assertThat(text("run-state")).startsWith("replay #" + replay.get("id").asString() + " completed: 100.0 %");

        browser.findElement(By.id("check-invariants")).click();
        await().atMost(Duration.ofSeconds(60)).until(() -> !text("invariants-verdict").startsWith("checking")
                && !text("invariants-verdict").equals("–"));
        assertThat(text("invariants-verdict")).startsWith("ok: ");
        screenshot("pipeline-page-operator");
    }

    private static void type(String id, String text) {
        WebElement field = browser.findElement(By.id(id));
        field.clear();
        field.sendKeys(text);
    }

    private static String text(String id) {
        return browser.findElement(By.id(id)).getText().trim();
    }

    private static String value(String id) {
        return browser.findElement(By.id(id)).getDomProperty("value");
    }

    private static String state(String id, String data) {
        return browser.findElement(By.id(id)).getDomAttribute("data-" + data);
    }

    private static boolean done(String row) {
        return String.valueOf(browser.findElement(By.id(row)).getDomAttribute("class")).contains("done");
    }

    private static String cell(String row) {
        return browser.findElement(By.cssSelector("#" + row + " .where")).getText().trim();
    }

    /** A figure of the page, as a number. */
    private static long figure(String id) {
        return Long.parseLong(text(id).replace(",", ""));
    }

    private static int points(String chart) {
        return Integer.parseInt(state(chart, "points"));
    }

    private static void screenshot(String name) {
        Chromium.screenshot(browser, name);
    }
}
