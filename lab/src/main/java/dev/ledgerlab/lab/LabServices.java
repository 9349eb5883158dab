package dev.ledgerlab.lab;

import dev.ledgerlab.commandapi.CommandApiApplication;
import dev.ledgerlab.projector.ProjectorApplication;
import dev.ledgerlab.relay.OutboxRelayApplication;
import jakarta.servlet.Filter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.slf4j.MDC;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.event.ApplicationContextInitializedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.boot.context.logging.LoggingApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;

/**
 * The three services as Spring Boot applications in this JVM, pointed at one PostgreSQL and one Kafka. The same
 * applications run as separate processes when given the same properties (spring.datasource.*,
 * spring.kafka.bootstrap-servers, server.port) another way.
 */
public final class LabServices implements RunningServices {

    public record Infrastructure(String jdbcUrl, String username, String password, String bootstrapServers) {
    }

    public record Ports(int commandApi, int projector, int relay) {
        public static final Ports DEFAULT = new Ports(8080, 8081, 8082);
    }

    public static final String COMMAND_API = "command-api";
    public static final String OUTBOX_RELAY = "outbox-relay";
    public static final String PROJECTOR = "projector";
    /** Every service a lab can run, in the order the usage names them. */
    static final List<String> ALL = List.of(COMMAND_API, OUTBOX_RELAY, PROJECTOR);

    private static final String MAX_POLL_RECORDS = "spring.kafka.consumer.max-poll-records";
    /**
     * The projector's poll size in the lab, instead of its own 20,000: the lab's services and broker share one
     * 256 MiB heap (lab/jvm.options), and two consumers holding 20,000 records each filled it, so a replay ran in
     * full collections, three quarters of its time (~25,000 events/s; 2,000: ~75,000/s once compiled, one full
     * collection per replay; docs/performance.md). A projector on its own keeps its 20,000. The lab's command line
     * may set it all the same.
     */
    private static final int LAB_MAX_POLL_RECORDS = 2_000;
    /** Each service's name in the log, by its configuration name. */
    private static final Map<String, String> SERVICES = Map.of(
            CommandApiApplication.CONFIG_NAME, COMMAND_API,
            OutboxRelayApplication.CONFIG_NAME, OUTBOX_RELAY,
            ProjectorApplication.CONFIG_NAME, PROJECTOR);
    /**
     * The threads each service's libraries start, by a fragment of their names: its connection pool (named after the
     * service in its configuration), its Kafka clients, its listener containers, Debezium's threads.
     */
    private static final Map<String, String[]> THREADS = Map.of(
            CommandApiApplication.CONFIG_NAME, new String[] {"command-api"},
            OutboxRelayApplication.CONFIG_NAME, new String[] {"outbox-relay", "debezium", "blocking-snapshot"},
            ProjectorApplication.CONFIG_NAME, new String[] {"projector", "projection-listener",
                "projection-rebuild-listener", "replay-coordinator", "scheduling-"});

    private final List<ConfigurableApplicationContext> running;
    private final ConfigurableApplicationContext commandApi;
    private final ConfigurableApplicationContext relay;
    private final ConfigurableApplicationContext projector;

    private LabServices(List<ConfigurableApplicationContext> running, ConfigurableApplicationContext commandApi,
            ConfigurableApplicationContext relay, ConfigurableApplicationContext projector) {
        this.running = running;
        this.commandApi = commandApi;
        this.relay = relay;
        this.projector = projector;
    }

    /** Starts the command API (which migrates the ledger schema), then the relay and the projector side by side. */
    public static LabServices start(Infrastructure infrastructure, Ports ports, List<String> passThrough) {
        return start(infrastructure, ports, passThrough, Set.copyOf(ALL), () -> { });
    }

    /**
     * Starts the named services ({@value #COMMAND_API}, {@value #OUTBOX_RELAY}, {@value #PROJECTOR}) side by side:
     * the command API at once (it needs only PostgreSQL), the relay and the projector once {@code kafkaReady} returns.
     * Spring Boot applications starting at once on two cores are ready sooner than one after the other: much of a
     * start waits (on PostgreSQL, the broker, a consumer group's join). Logging is set up once, by the first of them;
     * the others start after it has, and leave it alone (each would otherwise reset it while the others log).
     */
    public static LabServices start(Infrastructure infrastructure, Ports ports, List<String> passThrough,
            Set<String> services, Runnable kafkaReady) {
        var unknown = new java.util.TreeSet<>(services);
        unknown.removeAll(ALL);
        if (!unknown.isEmpty() || services.isEmpty()) {
            throw new IllegalArgumentException("services are " + String.join(", ", ALL) + ", not " + services);
        }
        // Threads of their own: the common pool has a single thread on two cores.
        var starters = java.util.concurrent.Executors.newFixedThreadPool(3);
        var loggingReady = new java.util.concurrent.CountDownLatch(1);
        var first = services.contains(COMMAND_API) ? COMMAND_API : services.contains(OUTBOX_RELAY) ? OUTBOX_RELAY
                : PROJECTOR;
        CompletableFuture<ConfigurableApplicationContext> commandApi = start(services, COMMAND_API, first, starters,
                loggingReady, () -> run(CommandApiApplication.class, CommandApiApplication.CONFIG_NAME, infrastructure,
                        ports.commandApi(), passThrough, first.equals(COMMAND_API), loggingReady::countDown));
        CompletableFuture<ConfigurableApplicationContext> relay = start(services, OUTBOX_RELAY, first, starters,
                loggingReady, () -> {
                    kafkaReady.run();
                    return run(OutboxRelayApplication.class, OutboxRelayApplication.CONFIG_NAME, infrastructure,
                            ports.relay(), passThrough, first.equals(OUTBOX_RELAY), loggingReady::countDown);
                });
        CompletableFuture<ConfigurableApplicationContext> projector = start(services, PROJECTOR, first, starters,
                loggingReady, () -> {
                    kafkaReady.run();
                    // The pipeline page's browser sends its commands to the command API's actual port (0: the one it
                    // picked, known once it has started).
                    int apiPort = ports.commandApi() != 0 || !services.contains(COMMAND_API) ? ports.commandApi()
                            : port(commandApi.join());
                    return run(ProjectorApplication.class, ProjectorApplication.CONFIG_NAME, infrastructure,
                            ports.projector(), projectorArguments(apiPort, passThrough), first.equals(PROJECTOR),
                            loggingReady::countDown);
                });
        var running = new ArrayList<ConfigurableApplicationContext>();
        var commandApiContext = joined(commandApi, running);
        var relayContext = joined(relay, running);
        var projectorContext = joined(projector, running);
        starters.shutdown();
        if (commandApiContext == null && services.contains(COMMAND_API)
                || relayContext == null && services.contains(OUTBOX_RELAY)
                || projectorContext == null && services.contains(PROJECTOR)) {
            new LabServices(running, null, null, null).close();
            throw failure(commandApi, relay, projector);
        }
        return new LabServices(running, commandApiContext, relayContext, projectorContext);
    }

    /** Starts one service on its own thread, after logging is set up unless it is the one to set it up. */
    private static CompletableFuture<ConfigurableApplicationContext> start(Set<String> services, String service,
            String first, java.util.concurrent.Executor starters, java.util.concurrent.CountDownLatch loggingReady,
            java.util.function.Supplier<ConfigurableApplicationContext> run) {
        if (!services.contains(service)) {
            return CompletableFuture.completedFuture(null);
        }
        return CompletableFuture.supplyAsync(() -> {
            if (!service.equals(first)) {
                try {
                    loggingReady.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted before " + service + " started", e);
                }
            }
            try {
                return run.get();
            } finally {
                // A first service that failed before setting up logging must not hold the others forever.
                if (service.equals(first)) {
                    loggingReady.countDown();
                }
            }
        }, starters);
    }

    /** The service that started, added to {@code running}; null when it did not start or was not asked for. */
    private static ConfigurableApplicationContext joined(CompletableFuture<ConfigurableApplicationContext> start,
            List<ConfigurableApplicationContext> running) {
        try {
            var context = start.join();
            if (context != null) {
                running.add(context);
            }
            return context;
        } catch (java.util.concurrent.CompletionException failed) {
            return null;
        }
    }

    private static RuntimeException failure(CompletableFuture<?>... starts) {
        for (var start : starts) {
            try {
                start.join();
            } catch (java.util.concurrent.CompletionException e) {
                return e.getCause() instanceof RuntimeException runtime ? runtime : new IllegalStateException(e.getCause());
            }
        }
        return new IllegalStateException("a service did not start");
    }

    /** Starts one more instance of a service, e.g. a relay to replace one that was stopped. */
    public static ConfigurableApplicationContext run(Class<?> application, String configName,
            Infrastructure infrastructure, int port, List<String> passThrough) {
        return run(application, configName, infrastructure, port, passThrough, true, () -> { });
    }

    private static ConfigurableApplicationContext run(Class<?> application, String configName,
            Infrastructure infrastructure, int port, List<String> passThrough, boolean setsUpLogging,
            Runnable loggingSetUp) {
        var service = SERVICES.get(configName);
        ServiceNames.threads(service, THREADS.get(configName));
        if (port > 0) {
            // Tomcat's threads, by port: the request filter names requests, not what Tomcat logs around them.
            ServiceNames.threads(service, "nio-" + port + "-");
        }
        var args = arguments(infrastructure, port, passThrough);
        // The lines logged while it starts are its own; so are those of each request it serves.
        MDC.put(ServiceNames.MDC_KEY, service);
        try {
            var builder = new SpringApplicationBuilder(application)
                    .properties("spring.config.name=" + configName)
                    .initializers(context -> ((GenericApplicationContext) context).registerBean("labServiceLogNames",
                            Filter.class, () -> ServiceNames.requestFilter(service)));
            if (!setsUpLogging) {
                var listeners = new ArrayList<>(builder.application().getListeners());
                listeners.removeIf(listener -> listener instanceof LoggingApplicationListener);
                builder.application().setListeners(listeners);
            }
            // Logging is set up when the environment is prepared, before the context is initialized.
            builder.listeners((ApplicationListener<ApplicationContextInitializedEvent>) event -> loggingSetUp.run());
            return builder.run(args.toArray(String[]::new));
        } finally {
            MDC.remove(ServiceNames.MDC_KEY);
        }
    }

    /** A service's arguments in this lab: what it is given, then the lab's PostgreSQL, Kafka and its port. */
    static List<String> arguments(Infrastructure infrastructure, int port, List<String> passThrough) {
        var args = new ArrayList<>(passThrough);
        // Command-line arguments outrank each service's application.yml, so the lab's infrastructure wins.
        args.add("--spring.datasource.url=" + infrastructure.jdbcUrl());
        // The embedded server's admin user migrates; each service connects as its own role (its application.yml).
        args.add("--spring.flyway.user=" + infrastructure.username());
        args.add("--spring.flyway.password=" + infrastructure.password());
        args.add("--spring.kafka.bootstrap-servers=" + infrastructure.bootstrapServers());
        args.add("--server.port=" + port);
        return args;
    }

    /** What the projector is given besides: its page's command API, and the lab's poll size unless set. */
    static List<String> projectorArguments(int commandApiPort, List<String> passThrough) {
        var args = new ArrayList<>(passThrough);
        args.add(0, "--projector.page.command-api-url=http://localhost:" + commandApiPort);
        if (passThrough.stream().noneMatch(arg -> arg.startsWith("--" + MAX_POLL_RECORDS + "="))) {
            args.add(0, "--" + MAX_POLL_RECORDS + "=" + LAB_MAX_POLL_RECORDS);
        }
        return args;
    }

    /** Null when the lab was started without it; likewise {@link #relay()} and {@link #projector()}. */
    public ConfigurableApplicationContext commandApi() {
        return commandApi;
    }

    public ConfigurableApplicationContext relay() {
        return relay;
    }

    public ConfigurableApplicationContext projector() {
        return projector;
    }

    @Override
    public int port(String service) {
        var context = switch (service) {
            case COMMAND_API -> commandApi;
            case OUTBOX_RELAY -> relay;
            case PROJECTOR -> projector;
            default -> throw new IllegalArgumentException("no service " + service);
        };
        return context == null ? 0 : port(context);
    }

    /** None of its own: every service runs in the lab's JVM. */
    @Override
    public java.util.OptionalLong pid(String service) {
        return java.util.OptionalLong.empty();
    }

    public static int port(ConfigurableApplicationContext service) {
        return Integer.parseInt(service.getEnvironment().getProperty("local.server.port", "0"));
    }

    /** Stops in reverse order: the projector, the relay (its offsets flushed), then the command API. */
    @Override
    public void close() {
        for (int i = running.size() - 1; i >= 0; i--) {
            running.get(i).close();
        }
    }
}
