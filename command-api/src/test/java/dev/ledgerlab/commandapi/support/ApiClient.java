package dev.ledgerlab.commandapi.support;

import dev.ledgerlab.testkit.TestHttp;
import java.net.URI;
import java.net.http.HttpRequest;
import java.util.UUID;

/** The command API's requests, as a client would send them, over the tests' one HTTP client. Thread-safe. */
public final class ApiClient {

    private final TestHttp http;

    ApiClient(int port) {
        this.http = TestHttp.at(port);
    }

    public TestHttp.Response get(String path) {
        return http.get(path);
    }

    /** POST with a JSON body; headers as name, value pairs. */
    public TestHttp.Response post(String path, String json, String... headers) {
        return http.post(path, json, headers);
    }

    /** POST whose body is sent chunked, without a Content-Length. */
    public TestHttp.Response postChunked(String path, byte[] body) {
        return http.postChunked(path, body);
    }

    public TestHttp.Response send(HttpRequest.Builder request) {
        return http.send(request);
    }

    public URI uri(String path) {
        return http.uri(path);
    }

    public UUID openAccount(String owner) {
        var response = post("/accounts", "{\"owner\":\"" + owner + "\"}");
        if (response.status() != 201) {
            throw new IllegalStateException("could not open an account: " + response.status() + " " + response.body());
        }
        return UUID.fromString(response.json().get("accountId").asString());
    }

    public TestHttp.Response deposit(UUID account, long amount, String... headers) {
        return post("/accounts/" + account + "/deposits", "{\"amount\":" + amount + "}", headers);
    }

    public TestHttp.Response withdraw(UUID account, long amount, String... headers) {
        return post("/accounts/" + account + "/withdrawals", "{\"amount\":" + amount + "}", headers);
    }

    public TestHttp.Response transfer(UUID from, UUID to, long amount, String... headers) {
        return post("/transfers", "{\"from\":\"" + from + "\",\"to\":\"" + to + "\",\"amount\":" + amount + "}",
                headers);
    }
}
