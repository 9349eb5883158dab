package dev.ledgerlab.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.HttpHeaders;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.StringEntity;
import org.apache.hc.core5.util.Timeout;
import tools.jackson.databind.json.JsonMapper;

/**
 * What the benchmark asks of the lab over HTTP, with keep-alive connections (Apache HttpClient's pool, one connection
 * per client thread): open accounts, deposit, wait for a balance to be visible. Answers are read with a few
 * {@code indexOf}s rather than a JSON parser, so that the client spends as little of the two cores as it can.
 */
final class CommandClient implements AutoCloseable {

    /** For the projector's progress answers only, which are few: the deposits' answers are read with indexOf. */
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final CloseableHttpClient http;
    private final String commandApi;
    private final String projector;

    /** What an accepted deposit answered. */
    record Deposit(UUID eventId, long version) {
    }

    /** How a replay in place ended: its events (the log end at its start) and its stored start and end. */
    record Replay(long id, long events, double seconds) {
    }

    CommandClient(int commandApiPort, int projectorPort) {
        this.commandApi = "http://127.0.0.1:" + commandApiPort;
        this.projector = "http://127.0.0.1:" + projectorPort;
        var connections = PoolingHttpClientConnectionManagerBuilder.create().setMaxConnTotal(1024)
                .setMaxConnPerRoute(1024).setDefaultConnectionConfig(ConnectionConfig.custom()
                        .setConnectTimeout(Timeout.ofSeconds(5)).setSocketTimeout(Timeout.ofSeconds(60)).build())
                .build();
        this.http = HttpClients.custom().setConnectionManager(connections).disableAutomaticRetries()
                .disableCookieManagement().disableRedirectHandling().build();
    }

    List<UUID> openAccounts(int count) {
        var accounts = new ArrayList<UUID>();
        for (int i = 0; i < count; i++) {
            var body = post(commandApi + "/accounts", "{\"owner\":\"bench-" + i + "\"}", 201);
            accounts.add(UUID.fromString(field(body, "accountId")));
        }
        return accounts;
    }

    Deposit deposit(UUID account, long amount) {
        var body = post(commandApi + "/accounts/" + account + "/deposits", "{\"amount\":" + amount + "}", 200);
        return new Deposit(UUID.fromString(field(body, "eventId")), Long.parseLong(field(body, "version")));
    }

    /** Waits (the projector's read-your-writes wait, then again) until the projection shows this version. */
    void awaitVisible(UUID account, long version) {
        var request = projector + "/accounts/" + account + "/balance?minVersion=" + version;
        for (int attempt = 0; attempt < 12; attempt++) {
            try {
                int status = http.execute(new HttpGet(request), response -> {
                    EntityUtils.consume(response.getEntity());
                    return response.getCode();
                });
                if (status == 200) {
                    return;
                }
                if (status != 503) {
                    throw new IllegalStateException(request + " answered " + status);
                }
            }
            catch (IOException e) {
                throw new UncheckedIOException(request, e);
            }
        }
        throw new IllegalStateException(request + " was not visible within a minute");
    }

    /**
     * Asks the projector, as its operator, for a replay in place and waits for its end (a look every 200 ms, for at
     * most {@code limit}). A replay that ends other than completed stops the benchmark with what it said.
     *
     * <p>Only the request carries the operator's credentials (each check is a BCrypt hash in the lab's JVM; the
     * progress is open to anyone), and the looks are few: looks every 50 ms with the credentials took 13 of the lab's
     * 93 Java samples during its replays, 6 of them in BCrypt. The rate comes from the run's stored start and end,
     * not from these looks.
     */
    Replay replayInPlace(String operatorPassword, Duration limit) {
        var authorization = "Basic " + Base64.getEncoder().encodeToString(
                ("operator:" + operatorPassword).getBytes(StandardCharsets.UTF_8));
        var started = new HttpPost(projector + "/projection/replay");
        started.setHeader(HttpHeaders.AUTHORIZATION, authorization);
        var progress = JSON.readTree(send(started, 202));
        long deadline = System.nanoTime() + limit.toNanos();
        while ("running".equals(progress.get("state").asString())) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("replay still running after " + limit + ": " + progress);
            }
            Pause.millis(200);
            progress = JSON.readTree(send(new HttpGet(projector + "/projection/replay"), 200));
        }
        if (!"completed".equals(progress.get("state").asString())) {
            throw new IllegalStateException("the replay ended " + progress);
        }
        var seconds = Duration.between(Instant.parse(progress.get("startedAt").asString()),
                Instant.parse(progress.get("finishedAt").asString())).toNanos() / 1e9;
        return new Replay(progress.get("id").asLong(), progress.get("target").asLong(), seconds);
    }

    private String post(String uri, String json, int expected) {
        var post = new HttpPost(uri);
        post.setEntity(new StringEntity(json, ContentType.APPLICATION_JSON));
        return send(post, expected);
    }

    private String send(ClassicHttpRequest request, int expected) {
        var uri = request.getRequestUri();
        try {
            return http.execute(request, response -> {
                var body = EntityUtils.toString(response.getEntity());
                if (response.getCode() != expected) {
                    throw new IllegalStateException(uri + " answered " + response.getCode() + ": " + body);
                }
                return body;
            });
        }
        catch (IOException e) {
            throw new UncheckedIOException(uri, e);
        }
    }

    /** The value of a string or number field of a small JSON object (the first field of that name). */
    static String field(String json, String name) {
        int at = json.indexOf("\"" + name + "\":");
        if (at < 0) {
            throw new IllegalStateException("no " + name + " in " + json);
        }
        int start = at + name.length() + 3;
        // PostgreSQL's jsonb text, as the relay publishes it, puts a space after each colon.
        while (Character.isWhitespace(json.charAt(start))) {
            start++;
        }
        if (json.charAt(start) == '"') {
            return json.substring(start + 1, json.indexOf('"', start + 1));
        }
        int end = start;
        while (end < json.length() && (Character.isDigit(json.charAt(end)) || json.charAt(end) == '-')) {
            end++;
        }
        return json.substring(start, end);
    }

    @Override
    public void close() {
        try {
            http.close();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
