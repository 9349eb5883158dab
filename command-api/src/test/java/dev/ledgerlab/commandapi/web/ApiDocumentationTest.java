package dev.ledgerlab.commandapi.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledgerlab.commandapi.support.CommandApiIntegrationTest;
import dev.ledgerlab.testkit.ApiDescription.Endpoint;
import dev.ledgerlab.testkit.ApiDescription;
import org.junit.jupiter.api.Test;

/**
 * The command API's OpenAPI document (springdoc) describes every endpoint docs/http-api.md lists, with the body it
 * takes and the problem types it may answer, each of which that page's catalogue explains.
 */
class ApiDocumentationTest extends CommandApiIntegrationTest {

    private static final String BASE = "urn:ledgerlab:problem:";

    @Test
    void describesEveryDocumentedEndpointWithItsBodyAndTheProblemTypesItMayAnswer() {
        var response = api.get("/v3/api-docs");
        assertThat(response.status()).as("open without credentials").isEqualTo(200);
        var description = new ApiDescription(response.json());

        var documented = ApiDescription.documented("Command API", null);
        assertThat(documented).as("rows of docs/http-api.md").hasSizeGreaterThanOrEqualTo(8);
        assertThat(documented).allSatisfy(endpoint -> assertThat(description.describes(endpoint))
                .as("%s in /v3/api-docs", endpoint).isTrue());

        var withdrawal = new Endpoint("POST", "/accounts/{id}/withdrawals");
        assertThat(description.problemTypes(withdrawal, 409)).contains(BASE + "insufficient-funds",
                BASE + "concurrent-modification");
        assertThat(description.problemTypes(withdrawal, 412)).containsExactly(BASE + "version-mismatch");
        assertThat(description.problemTypes(withdrawal, 503)).contains(BASE + "database-unavailable",
                BASE + "transaction-aborted");
        assertThat(description.problemTypes(withdrawal, 500)).containsExactly(BASE + "internal-error");
        assertThat(description.operation(withdrawal).at("/requestBody/content/application~1json/schema/$ref")
                .asString()).endsWith("AmountBody");
        assertThat(response.json().at("/components/schemas/AmountBody/properties/amount/type").asString())
                .isEqualTo("integer");
        assertThat(description.problemTypes(new Endpoint("POST", "/transfers"), 400))
                .contains(BASE + "same-account-transfer", BASE + "invalid-amount");

        var catalogue = ApiDescription.page();
        assertThat(description.allProblemTypes()).isNotEmpty().allSatisfy(type ->
                assertThat(catalogue).as("%s explained in docs/http-api.md", type).contains("`" + type + "`"));
        assertThat(api.get("/swagger-ui/index.html").status()).as("Swagger UI").isEqualTo(200);
    }
}
