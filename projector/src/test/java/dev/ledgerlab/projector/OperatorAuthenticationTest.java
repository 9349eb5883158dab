package dev.ledgerlab.projector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ledgerlab.events.MoneyDeposited;
import dev.ledgerlab.problems.OperatorAccess;
import dev.ledgerlab.testkit.ProjectorClient;
import dev.ledgerlab.testkit.TestHttp;
import dev.ledgerlab.testkit.TestInfrastructure;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;

/**
 * Every call that changes the projection or reads the whole event store needs the operator: without credentials
 * or with wrong ones it answers 401 problem+json before anything runs, and nothing happens. A projector without an
 * operator password refuses those calls instead of leaving them open.
 */
class OperatorAuthenticationTest extends ProjectorIntegrationTest {

    private static final String UNCONFIGURED_TOPIC = "operator-test.accounts.events";

    @org.springframework.beans.factory.annotation.Value("${spring.datasource.url}")
    private String datasourceUrl;

    private record Call(String name, Function<TestHttp, TestHttp.Response> send) {
    }

    private static List<Call> operatorCalls(UUID parked) {
        return List.of(
                new Call("POST /projection/replay", http -> http.post("/projection/replay", "{}")),
                new Call("POST /projection/rebuild", http -> http.post("/projection/rebuild", "{}")),
                new Call("DELETE /projection/rebuild", http -> http.delete("/projection/rebuild")),
                new Call("POST /projection/parked/{id}/release",
                        http -> http.post("/projection/parked/" + parked + "/release")),
                new Call("GET /projection/invariants", http -> http.get("/projection/invariants")));
    }

    @Test
    void refusesEveryOperatorCallWithoutTheOperatorsCredentialsAndDoesNothing() {
        var parked = openedAccount();
        publish(parked, 3, new MoneyDeposited(20));
        await().atMost(Duration.ofSeconds(30)).until(() -> isParked(parked));
        long runs = replayRuns();
        var anonymous = TestHttp.at(port());
        var wrong = TestHttp.at(port()).withBasic("operator", "not-the-password");
        var stranger = TestHttp.at(port()).withBasic("admin", TestHttp.OPERATOR_PASSWORD);

        for (var call : operatorCalls(parked)) {
            for (var caller : List.of(anonymous, wrong, stranger)) {
                var response = call.send().apply(caller);
                assertThat(response.status()).as(call.name()).isEqualTo(401);
                assertThat(response.contentType()).as(call.name()).startsWith("application/problem+json");
                assertThat(response.problemType()).as(call.name())
                        .isEqualTo("urn:ledgerlab:problem:operator-credentials-required");
            }
        }

        assertThat(replayRuns()).as("no replay or rebuild started").isEqualTo(runs);
        assertThat(isParked(parked)).as("nothing released").isTrue();
        assertThat(projected(parked)).containsExactly(0, 1);
        assertThat(operator().post("/projection/parked/" + parked + "/release").problemType())
                .as("the operator gets through to the call itself").isEqualTo("urn:ledgerlab:problem:event-still-missing");
        assertThat(anonymous.get("/projection/status").status()).as("reads stay open").isEqualTo(200);
        assertThat(ProjectorClient.over(anonymous).balance(parked).status()).isEqualTo(200);
        assertThat(anonymous.get("/projection/parked").status()).isEqualTo(200);
        assertThat(anonymous.get("/actuator/health").json().has("components")).isFalse();
        assertThat(operator().get("/actuator/health").json().has("components")).isTrue();
    }

    @Test
    void refusesOperatorCallsOutrightWhenNoOperatorPasswordIsConfigured() {
        var infra = TestInfrastructure.get();
        isolate("ledger", UNCONFIGURED_TOPIC);
        try (var projector = new SpringApplicationBuilder(ProjectorApplication.class)
                .properties("spring.config.name=" + ProjectorApplication.CONFIG_NAME)
                .run("--spring.datasource.url=" + datasourceUrl, "--spring.datasource.username=" + infra.username(),
                        "--spring.datasource.password=" + infra.password(),
                        "--spring.kafka.bootstrap-servers=" + infra.bootstrapServers(), "--server.port=0",
                        "--projector.topic=" + UNCONFIGURED_TOPIC, "--projector.group-id=operator-test",
                        "--projector.replay.rebuild-group-id=operator-test-rebuild",
                        // No password, whatever the environment says (LEDGER_LAB_OPERATOR_PASSWORD binds to it).
                        "--" + OperatorAccess.PASSWORD_PROPERTY + "=")) {
            var http = TestHttp.at(Integer.parseInt(projector.getEnvironment().getProperty("local.server.port")));
            long runs = replayRuns();

            for (var call : operatorCalls(UUID.randomUUID())) {
                for (var caller : List.of(http, http.asOperator())) {
                    var response = call.send().apply(caller);
                    assertThat(response.status()).as(call.name()).isEqualTo(403);
                    assertThat(response.problemType()).as(call.name())
                            .isEqualTo("urn:ledgerlab:problem:operator-not-configured");
                }
            }
            assertThat(replayRuns()).isEqualTo(runs);
            assertThat(http.get("/projection/status").status()).isEqualTo(200);
        }
    }

    private boolean isParked(UUID account) {
        return jdbc.sql("SELECT count(*) FROM projection.parked_accounts WHERE account_id = ?").param(account)
                .query(Long.class).single() == 1;
    }

    private long replayRuns() {
        return jdbc.sql("SELECT count(*) FROM projection.replays").query(Long.class).single();
    }
}
