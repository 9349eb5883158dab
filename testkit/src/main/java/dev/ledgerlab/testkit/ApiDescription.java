package dev.ledgerlab.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * A service's OpenAPI document ({@code /v3/api-docs}) held against {@code docs/http-api.md}: the endpoints that page's
 * table lists under a heading, and the problem types its catalogue names.
 */
public final class ApiDescription {

    /** One row of an endpoint table: {@code | `POST /accounts/{id}/deposits` ...}. */
    public record Endpoint(String method, String path) {
        @Override
        public String toString() {
            return method + " " + path;
        }
    }

    private static final Path PAGE = Path.of("..", "docs", "http-api.md");
    private static final Pattern ROW = Pattern.compile("^\\| `(GET|POST|PUT|DELETE) (/[^`?\\s]*)[^|]*\\|",
            Pattern.MULTILINE);

    private final JsonNode document;

    public ApiDescription(JsonNode document) {
        this.document = document;
    }

    /**
     * The endpoints of the table under {@code ## <heading>}, except those of another port and the ones every service
     * has from its libraries (actuator, the API description itself).
     */
    public static List<Endpoint> documented(String heading, String otherPortMark) {
        var page = page();
        int start = page.indexOf("\n## " + heading);
        if (start < 0) {
            throw new IllegalStateException("docs/http-api.md has no heading " + heading);
        }
        int end = page.indexOf("\n## ", start + 1);
        var section = page.substring(start, end < 0 ? page.length() : end);
        var endpoints = new ArrayList<Endpoint>();
        var matcher = ROW.matcher(section);
        while (matcher.find()) {
            var row = matcher.group();
            var path = matcher.group(2);
            boolean infrastructure = path.startsWith("/actuator") || path.startsWith("/v3/api-docs")
                    || path.startsWith("/swagger-ui");
            if (!infrastructure && (otherPortMark == null || !row.contains(otherPortMark))) {
                endpoints.add(new Endpoint(matcher.group(1), matcher.group(2)));
            }
        }
        return endpoints;
    }

    /** The text of docs/http-api.md. */
    public static String page() {
        try {
            return Files.readString(PAGE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether the document describes this method on this path. */
    public boolean describes(Endpoint endpoint) {
        return document.path("paths").path(endpoint.path()).has(endpoint.method().toLowerCase(Locale.ROOT));
    }

    /** The operation of an endpoint. */
    public JsonNode operation(Endpoint endpoint) {
        return document.path("paths").path(endpoint.path()).path(endpoint.method().toLowerCase(Locale.ROOT));
    }

    /** The problem types one answer of an endpoint may carry: its problem+json schema's {@code type} values. */
    public TreeSet<String> problemTypes(Endpoint endpoint, int status) {
        var types = new TreeSet<String>();
        operation(endpoint).path("responses").path(Integer.toString(status)).path("content")
                .path("application/problem+json").path("schema").path("properties").path("type").path("enum")
                .forEach(type -> types.add(type.asString()));
        return types;
    }

    /** Every problem type any answer of any endpoint may carry. */
    public TreeSet<String> allProblemTypes() {
        var types = new TreeSet<String>();
        for (var path : document.path("paths")) {
            for (var operation : path) {
                for (var response : operation.path("responses")) {
                    response.path("content").path("application/problem+json").path("schema").path("properties")
                            .path("type").path("enum").forEach(type -> types.add(type.asString()));
                }
            }
        }
        return types;
    }
}
