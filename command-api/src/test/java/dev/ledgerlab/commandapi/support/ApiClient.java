package dev.ledgerlab.commandapi.support;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Real HTTP calls to the command API, as a client would make them. Thread-safe. */
public final class ApiClient {

    private static final HttpClient HTTP = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final String base;

    ApiClient(String base) {
        this.base = base;
    }

    public record Response(int status, java.net.http.HttpHeaders headers, String body) {
        public JsonNode json() {
            return JSON.readTree(body);
        }

        public String header(String name) {
            return headers.firstValue(name).orElse(null);
        }

        public String contentType() {
            return header("Content-Type");
        }
    }

    public Response get(String path) {
        return send(HttpRequest.newBuilder(URI.create(base + path)).GET());
    }

    /** POST with a JSON body; headers as name, value pairs. */
    public Response post(String path, String json, String... headers) {
        var request = HttpRequest.newBuilder(URI.create(base + path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        for (int i = 0; i < headers.length; i += 2) {
            request.setHeader(headers[i], headers[i + 1]);
        }
        return send(request);
    }

    /** POST whose body is sent chunked, without a Content-Length. */
    public Response postChunked(String path, byte[] body) {
        return send(HttpRequest.newBuilder(URI.create(base + path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body))));
    }

    public Response send(HttpRequest.Builder request) {
        try {
            var response = HTTP.send(request.timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return new Response(response.statusCode(), response.headers(), response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public URI uri(String path) {
        return URI.create(base + path);
    }

    public UUID openAccount(String owner) {
        var response = post("/accounts", "{\"owner\":\"" + owner + "\"}");
        if (response.status() != 201) {
            throw new IllegalStateException("could not open an account: " + response.status() + " " + response.body());
        }
        return UUID.fromString(response.json().get("accountId").asString());
    }

    public Response deposit(UUID account, long amount, String... headers) {
        return post("/accounts/" + account + "/deposits", "{\"amount\":" + amount + "}", headers);
    }

    public Response withdraw(UUID account, long amount, String... headers) {
        return post("/accounts/" + account + "/withdrawals", "{\"amount\":" + amount + "}", headers);
    }
}
