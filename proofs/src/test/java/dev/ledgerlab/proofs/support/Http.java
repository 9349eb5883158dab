package dev.ledgerlab.proofs.support;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Plain HTTP against the services on localhost; a refused connection reads as status 0. */
public final class Http {

    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    public record Response(int statusCode, String body) {
        public JsonNode json() {
            return JSON.readTree(body);
        }
    }

    private Http() {
    }

    public static Response get(int port, String path) {
        return send(HttpRequest.newBuilder(uri(port, path)).GET());
    }

    public static Response post(int port, String path, String json) {
        return send(HttpRequest.newBuilder(uri(port, path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    private static URI uri(int port, String path) {
        return URI.create("http://localhost:" + port + path);
    }

    private static Response send(HttpRequest.Builder request) {
        try {
            var response = CLIENT.send(request.timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return new Response(response.statusCode(), response.body());
        } catch (java.io.IOException e) {
            return new Response(0, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
