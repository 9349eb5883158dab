package dev.ledgerlab.lab;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.ledgerlab.infra.EmbeddedStack;
import dev.ledgerlab.infra.KafkaCluster;
import dev.ledgerlab.problems.ProblemType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import tools.jackson.databind.json.JsonMapper;

/**
 * The lab's own operator endpoint, with {@code --processes}: {@code POST /break/{fault}/{service}} does one fault to
 * one of the processes this lab started ({@link ServiceProcesses#fault}; {@link PostgresFaults} for {@code postgres},
 * {@link KafkaNodeFaults} for a node of a Kafka cluster) and answers what it did and what to watch;
 * without the operator's credentials, {@code 401} and nothing is done. {@code ./ledger-lab break} calls it
 * ({@link LabBreak}).
 *
 * <p>The JDK's own HTTP server: the lab's JVM runs no web framework of its own (its services do, in their processes),
 * and this endpoint is one route.
 */
final class LabControl implements AutoCloseable {

    static final String PATH = "/break/";
    /** What runs: open to all, as the projection's status is; nothing in it is the operator's. */
    static final String PROCESSES = "/processes";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final HttpServer server;

    private LabControl(HttpServer server) {
        this.server = server;
    }

    static LabControl start(String bind, int port, String operatorPassword, ServiceProcesses services,
            EmbeddedStack stack, PoisonFault.Topics topics) {
        try {
            var server = HttpServer.create(new InetSocketAddress(bind, port), 16);
            var expected = ("operator:" + operatorPassword).getBytes(StandardCharsets.UTF_8);
            server.createContext(PATH, exchange -> {
                try (exchange) {
                    if (!preflight(exchange, services)) {
                        handle(exchange, expected, services, stack, topics);
                    }
                }
            });
            server.createContext(PROCESSES, exchange -> {
                try (exchange) {
                    if (preflight(exchange, services)) {
                        return;
                    }
                    if (exchange.getRequestMethod().equals("GET")) {
                        send(exchange, 200, "application/json", processes(services, stack));
                    } else {
                        problem(exchange, ProblemType.UNKNOWN_FAULT, "GET " + PROCESSES + " says what runs; faults are"
                                + " POST " + PATH + "{fault}/{service}");
                    }
                }
            });
            server.setExecutor(Executors.newSingleThreadExecutor(runnable -> {
                var thread = new Thread(runnable, "ledger-lab-control");
                thread.setDaemon(true);
                return thread;
            }));
            server.start();
            return new LabControl(server);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on " + bind + ":" + port + " for the lab's faults", e);
        }
    }

    int port() {
        return server.getAddress().getPort();
    }

    private static void handle(HttpExchange exchange, byte[] expected, ServiceProcesses services,
            EmbeddedStack stack, PoisonFault.Topics topics) throws IOException {
        if (!authorized(exchange, expected)) {
            exchange.getResponseHeaders().add("WWW-Authenticate", "Basic realm=\"ledger-lab\"");
            problem(exchange, ProblemType.OPERATOR_CREDENTIALS_REQUIRED,
                    "the lab's faults are the operator's: user operator and its password; nothing was done");
            return;
        }
        var parts = exchange.getRequestURI().getPath().substring(PATH.length()).split("/");
        var verb = parts.length == 2 ? parts[0] : "";
        var target = parts.length == 2 ? parts[1] : "";
        var action = exchange.getRequestMethod().equals("POST") ? action(verb, target, services, stack, topics) : null;
        if (action == null) {
            problem(exchange, ProblemType.UNKNOWN_FAULT, "POST " + PATH + "{kill|freeze|thaw|restart}/{"
                    + String.join("|", services.names()) + "}, " + PATH + "{kill|restart}/{" + PostgresFaults.TARGET
                    + "|" + KafkaNodeFaults.TARGET + "-N} (Kafka nodes with --kafka-nodes=3: a lab of one node runs"
                    + " it inside its own JVM), " + PATH + "add/" + LabServices.PROJECTOR + " or " + PATH
                    + PoisonFault.NAME + "/" + LabServices.PROJECTOR + "; nothing was done");
            return;
        }
        Map<String, Object> done;
        try {
            done = action.get();
        } catch (RuntimeException e) {
            // Otherwise the JDK's server drops the connection, and the command line could only say nobody answered.
            problem(exchange, ProblemType.INTERNAL_ERROR, verb + " " + target + " failed: " + e.getMessage());
            return;
        }
        send(exchange, 200, "application/json", done);
    }

    /**
     * The pipeline page of one of this lab's projectors calls this port from the browser, another origin: CORS lets
     * exactly those pages through ({@code http://localhost} or {@code 127.0.0.1} on a projector's port), no other. The
     * JDK's server has no CORS of its own, and this is the one exchange that needs it. Answers a preflight
     * ({@code OPTIONS}) itself and returns true; otherwise marks the answer for an allowed page and returns false.
     */
    private static boolean preflight(HttpExchange exchange, ServiceProcesses services) throws IOException {
        var origin = exchange.getRequestHeaders().getFirst("Origin");
        boolean allowed = false;
        if (origin != null) {
            try {
                var page = URI.create(origin);
                allowed = "http".equals(page.getScheme()) && List.of("localhost", "127.0.0.1").contains(page.getHost())
                        && services.projectorPorts().contains(page.getPort());
            } catch (IllegalArgumentException notAnOrigin) {
                allowed = false;
            }
        }
        var headers = exchange.getResponseHeaders();
        if (allowed) {
            headers.add("Access-Control-Allow-Origin", origin);
            headers.add("Vary", "Origin");
        }
        if (!exchange.getRequestMethod().equals("OPTIONS")) {
            return false;
        }
        if (allowed) {
            headers.add("Access-Control-Allow-Methods", "GET, POST");
            headers.add("Access-Control-Allow-Headers", "Authorization");
            headers.add("Access-Control-Max-Age", "600");
        }
        exchange.sendResponseHeaders(allowed ? 204 : 403, -1);
        return true;
    }

    /** Each process the lab started, as it is now: its services, its PostgreSQL and, in a cluster, its Kafka nodes. */
    private static Map<String, Object> processes(ServiceProcesses services, EmbeddedStack stack) {
        var answer = new LinkedHashMap<String, Object>();
        answer.put("services", services.describe());
        var postgres = stack.postgres();
        answer.put("postgres", Map.of("pid", postgres.pid(), "state", postgres.isRunning() ? "running" : "down"));
        if (stack.kafka() instanceof KafkaCluster cluster) {
            answer.put("kafkaNodes", cluster.nodes().stream().map(node -> Map.of("node", node.id(),
                    "pid", cluster.pid(node.id()), "state", cluster.isRunning(node.id()) ? "running" : "down"))
                    .toList());
        }
        return answer;
    }

    /** What {@code POST /break/{verb}/{target}} does, or null when it names no fault of this lab. */
    private static Supplier<Map<String, Object>> action(String verb, String target, ServiceProcesses services,
            EmbeddedStack stack, PoisonFault.Topics topics) {
        var fault = ServiceProcesses.Fault.named(verb);
        boolean killOrRestart = fault == ServiceProcesses.Fault.KILL || fault == ServiceProcesses.Fault.RESTART;
        if (verb.equals(PoisonFault.NAME) && target.equals(LabServices.PROJECTOR)) {
            return () -> PoisonFault.publish(stack.kafka().bootstrapServers(), topics);
        }
        if (fault == ServiceProcesses.Fault.ADD) {
            return target.equals(LabServices.PROJECTOR) ? services::addProjector : null;
        }
        if (killOrRestart && target.equals(PostgresFaults.TARGET)) {
            return () -> PostgresFaults.fault(fault, stack.postgres());
        }
        if (killOrRestart && KafkaNodeFaults.isNode(target, stack.kafka())) {
            return () -> KafkaNodeFaults.fault(fault, (KafkaCluster) stack.kafka(), KafkaNodeFaults.node(target));
        }
        return fault != null && services.pid(target).isPresent() ? () -> services.fault(fault, target) : null;
    }

    private static boolean authorized(HttpExchange exchange, byte[] expected) {
        var header = exchange.getRequestHeaders().getFirst("Authorization");
        if (header == null || !header.startsWith("Basic ")) {
            return false;
        }
        try {
            return MessageDigest.isEqual(Base64.getDecoder().decode(header.substring(6).strip()), expected);
        } catch (IllegalArgumentException notBase64) {
            return false;
        }
    }

    private static void problem(HttpExchange exchange, ProblemType type, String detail) throws IOException {
        var body = new LinkedHashMap<String, Object>();
        body.put("type", type.uri().toString());
        body.put("title", type.title());
        body.put("status", type.status().value());
        body.put("detail", detail);
        send(exchange, type.status().value(), "application/problem+json", body);
    }

    private static void send(HttpExchange exchange, int status, String contentType, Map<String, ?> body)
            throws IOException {
        var bytes = JSON.writeValueAsBytes(body);
        exchange.getResponseHeaders().add("Content-Type", contentType);
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
