package dev.ledgerlab.lab;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

/**
 * An OTLP/HTTP trace endpoint on 127.0.0.1 that keeps what the services export, so a test can read their spans as a
 * collector would receive them. Written here because the OpenTelemetry Collector is a separate (Go) program and
 * the Java SDK ships exporters, not receivers; the JDK's HTTP server and the OTLP protobuf classes suffice.
 */
final class OtlpReceiver implements AutoCloseable {

    /** One received span: its service, ids (hex), name and string/int attributes. */
    record ReceivedSpan(String service, String traceId, String spanId, String parentSpanId, String name,
            Map<String, String> attributes) {
    }

    private final HttpServer server;
    private final List<ReceivedSpan> spans = new CopyOnWriteArrayList<>();

    OtlpReceiver() {
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/v1/traces", exchange -> {
            try (exchange) {
                var request = ExportTraceServiceRequest.parseFrom(exchange.getRequestBody().readAllBytes());
                keep(request);
                var answer = ExportTraceServiceResponse.getDefaultInstance().toByteArray();
                exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
                exchange.sendResponseHeaders(200, answer.length);
                exchange.getResponseBody().write(answer);
            }
        });
        server.start();
    }

    String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1/traces";
    }

    List<ReceivedSpan> spans() {
        return List.copyOf(spans);
    }

    private void keep(ExportTraceServiceRequest request) {
        var hex = HexFormat.of();
        for (var resourceSpans : request.getResourceSpansList()) {
            var service = resourceSpans.getResource().getAttributesList().stream()
                    .filter(a -> a.getKey().equals("service.name")).map(a -> a.getValue().getStringValue())
                    .findFirst().orElse("");
            for (var scopeSpans : resourceSpans.getScopeSpansList()) {
                for (var span : scopeSpans.getSpansList()) {
                    var attributes = span.getAttributesList().stream().collect(Collectors.toMap(
                            a -> a.getKey(),
                            a -> a.getValue().hasIntValue() ? Long.toString(a.getValue().getIntValue())
                                    : a.getValue().getStringValue(),
                            (first, second) -> second));
                    spans.add(new ReceivedSpan(service, hex.formatHex(span.getTraceId().toByteArray()),
                            hex.formatHex(span.getSpanId().toByteArray()),
                            hex.formatHex(span.getParentSpanId().toByteArray()), span.getName(), attributes));
                }
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
