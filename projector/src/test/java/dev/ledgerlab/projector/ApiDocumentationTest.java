package dev.ledgerlab.projector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledgerlab.testkit.ApiDescription;
import dev.ledgerlab.testkit.ApiDescription.Endpoint;
import dev.ledgerlab.testkit.TestHttp;
import org.junit.jupiter.api.Test;

/**
 * The projector's OpenAPI document (springdoc) describes every endpoint docs/http-api.md lists for it, with the
 * problem types each may answer (the operator's among them), each of which that page's catalogue explains.
 */
class ApiDocumentationTest extends ProjectorIntegrationTest {

    private static final String BASE = "urn:ledgerlab:problem:";

    @Test
    void describesEveryDocumentedEndpointAndTheProblemTypesItMayAnswer() {
        var response = TestHttp.at(port()).get("/v3/api-docs");
        assertThat(response.status()).as("open without credentials").isEqualTo(200);
        var description = new ApiDescription(response.json());

        var documented = ApiDescription.documented("Projector", "port 8082");
        assertThat(documented).as("rows of docs/http-api.md").hasSizeGreaterThanOrEqualTo(12);
        assertThat(documented).allSatisfy(endpoint -> assertThat(description.describes(endpoint))
                .as("%s in /v3/api-docs", endpoint).isTrue());

        var replay = new Endpoint("POST", "/projection/replay");
        assertThat(description.problemTypes(replay, 401)).containsExactly(BASE + "operator-credentials-required");
        assertThat(description.problemTypes(replay, 409)).containsExactly(BASE + "replay-in-progress");
        var release = new Endpoint("POST", "/projection/parked/{id}/release");
        assertThat(description.problemTypes(release, 409)).contains(BASE + "event-still-missing",
                BASE + "unknown-schema-version", BASE + "rebuild-in-progress");
        assertThat(description.problemTypes(new Endpoint("GET", "/accounts/{id}/balance"), 503))
                .contains(BASE + "projection-behind", BASE + "projection-rebuilding", BASE + "database-unavailable");

        var catalogue = ApiDescription.page();
        assertThat(description.allProblemTypes()).isNotEmpty().allSatisfy(type ->
                assertThat(catalogue).as("%s explained in docs/http-api.md", type).contains("`" + type + "`"));
    }
}
