package dev.ledgerlab.commandapi.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledgerlab.commandapi.support.CommandApiIntegrationTest;
import java.net.http.HttpRequest;
import org.junit.jupiter.api.Test;

/**
 * The pipeline page (the projector's port) sends commands from the browser: the command API lets pages of
 * localhost and 127.0.0.1 read its answers, without credentials, and refuses other origins before anything is done.
 */
class PageCorsTest extends CommandApiIntegrationTest {

    @Test
    void letsAPageOfLocalhostSendCommandsWithoutCredentialsAndRefusesOtherOriginsBeforeAnythingIsWritten() {
        var preflight = api.send(HttpRequest.newBuilder(api.uri("/accounts/0195f3a8-0000-7000-8000-000000000001/deposits"))
                .method("OPTIONS", HttpRequest.BodyPublishers.noBody())
                .header("Origin", "http://localhost:8081")
                .header("Access-Control-Request-Method", "POST")
                .header("Access-Control-Request-Headers", "content-type,idempotency-key"));
        assertThat(preflight.status()).isEqualTo(200);
        assertThat(preflight.header("Access-Control-Allow-Origin")).isEqualTo("http://localhost:8081");
        assertThat(preflight.header("Access-Control-Allow-Headers")).contains("idempotency-key");
        assertThat(preflight.header("Access-Control-Allow-Credentials")).as("no credentials, ever").isNull();

        var opened = api.send(HttpRequest.newBuilder(api.uri("/accounts"))
                .header("Origin", "http://127.0.0.1:43210").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"owner\":\"page\"}")));
        assertThat(opened.status()).as(opened.body()).isEqualTo(201);
        assertThat(opened.header("Access-Control-Allow-Origin")).isEqualTo("http://127.0.0.1:43210");
        assertThat(opened.header("Access-Control-Expose-Headers")).contains("ETag");

        var before = snapshot();
        var elsewhere = api.send(HttpRequest.newBuilder(api.uri("/accounts"))
                .header("Origin", "http://pages.example").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"owner\":\"elsewhere\"}")));
        assertThat(elsewhere.status()).isEqualTo(403);
        assertThat(elsewhere.header("Access-Control-Allow-Origin")).isNull();
        assertThat(snapshot()).as("nothing written").isEqualTo(before);
    }

    @Test
    void letsAPageOfLocalhostReadTheCommandCountersAndNoOtherOrigin() {
        var read = api.send(HttpRequest.newBuilder(api.uri("/actuator/prometheus"))
                .header("Origin", "http://localhost:8081"));
        assertThat(read.status()).isEqualTo(200);
        assertThat(read.header("Access-Control-Allow-Origin")).isEqualTo("http://localhost:8081");
        assertThat(read.header("Access-Control-Allow-Credentials")).as("no credentials, ever").isNull();
        assertThat(read.body()).contains("ledger_commands_total{");

        var elsewhere = api.send(HttpRequest.newBuilder(api.uri("/actuator/prometheus"))
                .header("Origin", "http://pages.example"));
        assertThat(elsewhere.status()).isEqualTo(403);
        assertThat(elsewhere.header("Access-Control-Allow-Origin")).isNull();
    }
}
