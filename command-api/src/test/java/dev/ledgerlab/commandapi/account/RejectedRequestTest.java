package dev.ledgerlab.commandapi.account;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledgerlab.commandapi.support.CommandApiIntegrationTest;
import dev.ledgerlab.testkit.TestHttp;
import java.net.http.HttpRequest;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every kind of bad input gets its problem type and leaves the database exactly as it was. */
class RejectedRequestTest extends CommandApiIntegrationTest {

    private static final String PROBLEM = "urn:ledgerlab:problem:";

    private UUID account;

    @BeforeEach
    void accountWithMoney() {
        account = api.openAccount("alice");
        api.deposit(account, 1_000);
    }

    static Stream<Arguments> badAmounts() {
        return Stream.of(
                Arguments.of("malformed JSON", "{\"amount\": ", 400, "malformed-json"),
                Arguments.of("empty body", "", 400, "malformed-json"),
                Arguments.of("JSON array", "[1]", 400, "malformed-json"),
                Arguments.of("JSON null", "null", 400, "malformed-json"),
                Arguments.of("trailing garbage", "{\"amount\": 5} x", 400, "malformed-json"),
                Arguments.of("missing amount", "{}", 400, "invalid-amount"),
                Arguments.of("null amount", "{\"amount\": null}", 400, "invalid-amount"),
                Arguments.of("fractional amount", "{\"amount\": 1.5}", 400, "invalid-amount"),
                Arguments.of("integral float", "{\"amount\": 100.0}", 400, "invalid-amount"),
                Arguments.of("exponent", "{\"amount\": 1e3}", 400, "invalid-amount"),
                Arguments.of("quoted number", "{\"amount\": \"100\"}", 400, "invalid-amount"),
                Arguments.of("boolean", "{\"amount\": true}", 400, "invalid-amount"),
                Arguments.of("zero", "{\"amount\": 0}", 400, "invalid-amount"),
                Arguments.of("negative", "{\"amount\": -5}", 400, "invalid-amount"),
                Arguments.of("above the maximum", "{\"amount\": 1000000000001}", 400, "amount-too-large"),
                Arguments.of("beyond a long", "{\"amount\": 99999999999999999999}", 400, "amount-too-large"),
                Arguments.of("unknown field", "{\"amount\": 5, \"currency\": \"EUR\"}", 400, "unknown-field"),
                Arguments.of("misspelt field", "{\"amout\": 5}", 400, "unknown-field"),
                Arguments.of("oversized body", "{\"amount\": 5, \"pad\": \"" + "x".repeat(5_000) + "\"}", 413,
                        "body-too-large"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badAmounts")
    void rejectsABadDepositOrWithdrawalAndWritesNothing(String name, String body, int status, String type) {
        for (var command : new String[] {"deposits", "withdrawals"}) {
            var before = snapshot();

            var response = api.post("/accounts/" + account + "/" + command, body);

            assertProblem(response, status, type);
            assertThat(snapshot()).isEqualTo(before);
        }
    }

    @Test
    void acceptsTheLargestDocumentedAmount() {
        assertThat(api.deposit(account, 1_000_000_000_000L).status()).isEqualTo(200);
    }

    @Test
    void rejectsAnOversizedChunkedBodyWithoutALength() {
        var before = snapshot();
        var body = ("{\"amount\": 5, \"pad\": \"" + "x".repeat(10_000) + "\"}").getBytes();

        var response = api.postChunked("/accounts/" + account + "/deposits", body);

        assertProblem(response, 413, "body-too-large");
        assertThat(snapshot()).isEqualTo(before);
    }

    @Test
    void rejectsABodyThatIsNotJson() {
        var before = snapshot();

        var response = api.send(HttpRequest.newBuilder(api.uri("/accounts/" + account + "/deposits"))
                .header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString("amount=5")));

        assertProblem(response, 415, "unsupported-media-type");
        assertThat(snapshot()).isEqualTo(before);
    }

    @Test
    void rejectsAnInvalidOwner() {
        for (var body : new String[] {"{}", "{\"owner\": \"\"}", "{\"owner\": \"  \"}", "{\"owner\": 42}",
            "{\"owner\": \"" + "x".repeat(201) + "\"}", "{\"owner\": \"alice\", \"admin\": true}"}) {
            var before = snapshot();

            var response = api.post("/accounts", body);

            assertThat(response.status()).as(body).isEqualTo(400);
            assertThat(response.json().get("type").asString()).as(body)
                    .isIn(PROBLEM + "invalid-owner", PROBLEM + "unknown-field");
            assertThat(snapshot()).isEqualTo(before);
        }
    }

    @Test
    void rejectsAnAccountIdThatIsNotAUuid() {
        var before = snapshot();

        assertProblem(api.deposit(null, 5), 400, "invalid-account-id");
        assertProblem(api.post("/accounts/12345/withdrawals", "{\"amount\":5}"), 400, "invalid-account-id");
        assertProblem(api.get("/accounts/not-a-uuid"), 400, "invalid-account-id");
        assertThat(snapshot()).isEqualTo(before);
    }

    @Test
    void rejectsAMalformedIfMatchOrIdempotencyKey() {
        var before = snapshot();

        assertProblem(api.deposit(account, 5, "If-Match", "2"), 400, "invalid-if-match");
        assertProblem(api.deposit(account, 5, "Idempotency-Key", "x".repeat(256)), 400, "invalid-idempotency-key");
        assertProblem(api.deposit(account, 5, "Idempotency-Key", "has space"), 400, "invalid-idempotency-key");
        assertThat(snapshot()).isEqualTo(before);
    }

    @Test
    void answersAnUnknownRouteAsAProblem() {
        var response = api.get("/nothing-here");

        assertThat(response.status()).isEqualTo(404);
        assertThat(response.contentType()).startsWith("application/problem+json");
    }

    private static void assertProblem(TestHttp.Response response, int status, String type) {
        assertThat(response.status()).as(response.body()).isEqualTo(status);
        assertThat(response.contentType()).startsWith("application/problem+json");
        var problem = response.json();
        assertThat(problem.get("type").asString()).isEqualTo(PROBLEM + type);
        assertThat(problem.get("status").asInt()).isEqualTo(status);
        assertThat(problem.get("title").asString()).isNotBlank();
        assertThat(problem.get("detail").asString()).isNotBlank();
    }
}
