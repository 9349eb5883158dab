package dev.ledgerlab.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledgerlab.testkit.TestHttp;
import java.util.UUID;
import tools.jackson.databind.JsonNode;

/** The requests the lab's tests make of running services, each checked for the answer a working pipeline gives. */
final class LabRequests {

    private LabRequests() {
    }

    /** Opens an account through the command API; its id. */
    static UUID openAccount(TestHttp commandApi, String owner) {
        var response = commandApi.post("/accounts", "{\"owner\":\"" + owner + "\"}");
        assertThat(response.status()).as(response.body()).isEqualTo(201);
        return UUID.fromString(response.json().get("accountId").asString());
    }

    /** Deposits through the command API; its answer (version, balance). */
    static JsonNode deposit(TestHttp commandApi, UUID account, long amount) {
        var response = commandApi.post("/accounts/" + account + "/deposits", "{\"amount\":" + amount + "}");
        assertThat(response.status()).as(response.body()).isEqualTo(200);
        return response.json();
    }

    /** The projector's {balance, version} of the account, or {-1, -1} while it has none. */
    static long[] projected(TestHttp projector, UUID account) {
        var response = projector.get("/accounts/" + account + "/balance");
        if (response.status() != 200) {
            return new long[] {-1, -1};
        }
        var body = response.json();
        return new long[] {body.get("balance").asLong(), body.get("version").asLong()};
    }
}
