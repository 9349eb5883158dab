package dev.ledgerlab.testkit;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Real HTTP/1.1 calls to a service, as a client would make them: the one HTTP client of every module's tests.
 * Thread-safe. A call that gets no answer (connection refused or broken, 30 s without a response) answers status 0
 * with the exception as its body, so that load and fault tests can tell "no answer" from any status.
 */
public final class TestHttp {

    private static final HttpClient CLIENT = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** {@code status} 0: no answer. */
    public record Response(int status, Map<String, List<String>> headers, String body) {

        public JsonNode json() {
            return JSON.readTree(body);
        }

        /** This response, if it has that status; otherwise the test fails with what it got. */
        public Response expect(int expectedStatus) {
            if (status != expectedStatus) {
                throw new AssertionError("expected " + expectedStatus + ", got " + status + ": " + body);
            }
            return this;
        }

        public String header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .flatMap(e -> e.getValue().stream()).findFirst().orElse(null);
        }

        public String contentType() {
            return header("Content-Type");
        }

        /** The type of a problem+json answer, or null. */
        public String problemType() {
            try {
                var type = json().get("type");
                return type == null ? null : type.asString();
            } catch (RuntimeException e) {
                return null;
            }
        }
    }

    /** The operator password every test gives its services ({@code ledger.lab.operator.password}). */
    public static final String OPERATOR_PASSWORD = "operator-password-of-the-tests";
    /** The property that carries it, as a command-line argument. */
    public static final String OPERATOR_PASSWORD_ARGUMENT = "--ledger.lab.operator.password=" + OPERATOR_PASSWORD;

    private final String base;
    /** Sent with every request: the operator's credentials, or none. */
    private final String authorization;

    private TestHttp(String base, String authorization) {
        this.base = base;
        this.authorization = authorization;
    }

    /** A service on localhost. */
    public static TestHttp at(int port) {
        return new TestHttp("http://localhost:" + port, null);
    }

    /** The same service, called with the operator's HTTP Basic credentials. */
    public TestHttp asOperator() {
        return withBasic("operator", OPERATOR_PASSWORD);
    }

    /** The same service, called with these HTTP Basic credentials. */
    public TestHttp withBasic(String user, String password) {
        return new TestHttp(base, "Basic " + java.util.Base64.getEncoder().encodeToString(
                (user + ":" + password).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    public URI uri(String path) {
        return URI.create(base + path);
    }

    /** @param headers request headers, as name, value, name, value ... */
    public Response get(String path, String... headers) {
        return send(withHeaders(HttpRequest.newBuilder(uri(path)).GET(), headers));
    }

    /** POST with a JSON body. */
    public Response post(String path, String json, String... headers) {
        return send(withHeaders(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)), headers));
    }

    /** POST without a body. */
    public Response post(String path) {
        return send(HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.noBody()));
    }

    /** POST whose body is sent chunked, without a Content-Length. */
    public Response postChunked(String path, byte[] body) {
        return send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body))));
    }

    public Response delete(String path) {
        return send(HttpRequest.newBuilder(uri(path)).DELETE());
    }

    /** Any request; a timeout of 30 s unless it has one. */
    public Response send(HttpRequest.Builder request) {
        try {
            if (authorization != null) {
                request.setHeader("Authorization", authorization);
            }
            var response = CLIENT.send(request.timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return new Response(response.statusCode(), response.headers().map(), response.body());
        } catch (IOException e) {
            return new Response(0, Map.of(), e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static HttpRequest.Builder withHeaders(HttpRequest.Builder request, String... headers) {
        if (headers.length % 2 != 0) {
            throw new IllegalArgumentException("headers come as name, value pairs");
        }
        for (int i = 0; i < headers.length; i += 2) {
            request.setHeader(headers[i], headers[i + 1]);
        }
        return request;
    }
}
