package dev.ledgerlab.testkit;

import java.util.UUID;
import tools.jackson.databind.JsonNode;

/**
 * The projector's queries, as a client sends them, over {@link TestHttp}: the one client of the read side that every
 * module's tests use. Thread-safe.
 */
public final class ProjectorClient {

    private final TestHttp http;

    private ProjectorClient(TestHttp http) {
        this.http = http;
    }

    /** The projector on this port of localhost. */
    public static ProjectorClient at(int port) {
        return new ProjectorClient(TestHttp.at(port));
    }

    /** Through this HTTP client, for instance with the operator's credentials. */
    public static ProjectorClient over(TestHttp http) {
        return new ProjectorClient(http);
    }

    /** {@code GET /accounts/{id}/balance}: the balance as projected now. */
    public TestHttp.Response balance(UUID account) {
        return http.get(balancePath(account));
    }

    /** The same, read-your-writes: answered once the projection has applied {@code minVersion}, 503 if not soon. */
    public TestHttp.Response balance(UUID account, long minVersion) {
        return http.get(balancePath(account) + "?minVersion=" + minVersion);
    }

    /** The account's projected {balance, version}, or {-1, -1} while the projection does not know it. */
    public long[] projected(UUID account) {
        var response = balance(account);
        if (response.status() != 200) {
            return new long[] {-1, -1};
        }
        var body = response.json();
        return new long[] {body.get("balance").asLong(), body.get("version").asLong()};
    }

    /** {@code GET /projection/status}: per partition the stored offset, the log end, the lag; the counts. */
    public JsonNode status() {
        return http.get("/projection/status").json();
    }

    private static String balancePath(UUID account) {
        return "/accounts/" + account + "/balance";
    }
}
