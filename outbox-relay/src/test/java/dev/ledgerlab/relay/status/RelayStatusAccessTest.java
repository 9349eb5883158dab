package dev.ledgerlab.relay.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledgerlab.relay.support.RelayIntegrationTest;
import dev.ledgerlab.testkit.TestHttp;
import org.junit.jupiter.api.Test;

class RelayStatusAccessTest extends RelayIntegrationTest {

    @Test
    void showsTheLastEngineErrorAndHealthDetailsToTheOperatorOnly() {
        var relay = startRelay();
        awaitRole(relay, RelayRole.ACTIVE);
        relay.getBean(RelayStatus.class).engineFailed("connector refused: database.password=hunter2");
        var http = TestHttp.at(Integer.parseInt(relay.getEnvironment().getProperty("local.server.port")));

        var open = http.get("/relay/status");
        assertThat(open.status()).isEqualTo(200);
        assertThat(open.json().get("lastEngineError").asString()).isEqualTo("(shown to the operator only)");
        assertThat(open.json().get("role").asString()).isEqualTo("ACTIVE");
        assertThat(http.asOperator().get("/relay/status").json().get("lastEngineError").asString())
                .contains("hunter2");

        var wrong = http.withBasic("operator", "not-the-password").get("/relay/status");
        assertThat(wrong.status()).isEqualTo(401);
        assertThat(wrong.contentType()).startsWith("application/problem+json");
        assertThat(wrong.problemType()).isEqualTo("urn:ledgerlab:problem:operator-credentials-required");
        assertThat(wrong.body()).doesNotContain("hunter2");

        assertThat(http.get("/actuator/health").json().has("components")).as("details to the operator only").isFalse();
        assertThat(http.get("/actuator/health").json().get("status").asString()).isEqualTo("UP");
        assertThat(http.asOperator().get("/actuator/health").json().at("/components/relay/details/role").asString())
                .isEqualTo("ACTIVE");
        assertThat(http.get("/actuator/metrics").status()).as("actuator shows health, info and prometheus only").isEqualTo(404);
    }
}
