package dev.ledgerlab.testkit;

import java.net.URI;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The command API's requests, as a client sends them, over the tests' one HTTP client ({@link TestHttp}): the one
 * client of the command API that every module's tests use. The commands answer as they are (a refusal is an answer
 * too, for the test to assert); opening an account, which every scenario needs, fails the test unless it is 201.
 * Thread-safe.
 */
public final class CommandApiClient {

    private final TestHttp http;

    private CommandApiClient(TestHttp http) {
        this.http = http;
    }

    /** The command API on this port of localhost. */
    public static CommandApiClient at(int port) {
        return new CommandApiClient(TestHttp.at(port));
    }

    /** Through this HTTP client, for instance with the operator's credentials. */
    public static CommandApiClient over(TestHttp http) {
        return new CommandApiClient(http);
    }

    public UUID openAccount(String owner) {
        var response = http.post("/accounts", "{\"owner\":\"" + owner + "\"}");
        if (response.status() != 201) {
            throw new IllegalStateException("could not open an account: " + response.status() + " " + response.body());
        }
        return UUID.fromString(response.json().get("accountId").asString());
    }

    /** Opens {@code count} accounts, one after the other. */
    public List<UUID> openAccounts(int count) {
        var accounts = new ArrayList<UUID>();
        for (int i = 0; i < count; i++) {
            accounts.add(openAccount("owner-" + i));
        }
        return accounts;
    }

    /** @param headers request headers as name, value pairs (Idempotency-Key, If-Match, traceparent ...) */
    public TestHttp.Response deposit(UUID account, long amount, String... headers) {
        return http.post(accountPath(account) + "/deposits", amount(amount), headers);
    }

    public TestHttp.Response withdraw(UUID account, long amount, String... headers) {
        return http.post(accountPath(account) + "/withdrawals", amount(amount), headers);
    }

    public TestHttp.Response transfer(UUID from, UUID to, long amount, String... headers) {
        return http.post("/transfers", "{\"from\":\"" + from + "\",\"to\":\"" + to + "\",\"amount\":" + amount + "}",
                headers);
    }

    /** The account as the command side holds it: owner, balance, version. */
    public TestHttp.Response account(UUID account) {
        return http.get(accountPath(account));
    }

    /** The account's events, the outbox rows the relay reads. */
    public TestHttp.Response events(UUID account) {
        return http.get(accountPath(account) + "/events");
    }

    /** Any other request of the command API, for what the typed ones above do not send (a bad body, a bad id). */
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

    private static String accountPath(UUID account) {
        return "/accounts/" + account;
    }

    private static String amount(long amount) {
        return "{\"amount\":" + amount + "}";
    }
}
