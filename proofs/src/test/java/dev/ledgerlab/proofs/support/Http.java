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

    /** {@code statusCode} 0: no answer (connection refused or broken, or the request timed out). */
    public record Response(int statusCode, String body, java.util.Map<String, java.util.List<String>> headers) {
        public JsonNode json() {
            return JSON.readTree(body);
        }

        public String header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .flatMap(e -> e.getValue().stream()).findFirst().orElse(null);
        }

        /** The problem type of a problem+json answer, or null. */
        public String problemType() {
            try {
                var type = json().get("type");
                return type == null ? null : type.asString();
            } catch (RuntimeException e) {
                return null;
            }
        }
    }

    private Http() {
    }

    public static Response get(int port, String path) {
        return send(HttpRequest.newBuilder(uri(port, path)).GET());
    }

    /** @param headers more request headers, as name, value, name, value ... */
    public static Response post(int port, String path, String json, String... headers) {
        var request = HttpRequest.newBuilder(uri(port, path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        for (int i = 0; i + 1 < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return send(request);
    }

    public static Response delete(int port, String path) {
        return send(HttpRequest.newBuilder(uri(port, path)).DELETE());
    }

    private static URI uri(int port, String path) {
        return URI.create("http://localhost:" + port + path);
    }

    private static Response send(HttpRequest.Builder request) {
        try {
            var response = CLIENT.send(request.timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return new Response(response.statusCode(), response.body(), response.headers().map());
        } catch (java.io.IOException e) {
            return new Response(0, e.toString(), java.util.Map.of());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
