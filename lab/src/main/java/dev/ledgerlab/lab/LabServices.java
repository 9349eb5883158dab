package dev.ledgerlab.lab;

import dev.ledgerlab.commandapi.CommandApiApplication;
import dev.ledgerlab.projector.ProjectorApplication;
import dev.ledgerlab.relay.OutboxRelayApplication;
import jakarta.servlet.Filter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.MDC;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;

/**
 * The three services as Spring Boot applications in this JVM, pointed at one PostgreSQL and one Kafka. The same
 * applications run as separate processes when given the same properties (spring.datasource.*,
 * spring.kafka.bootstrap-servers, server.port) another way.
 */
public final class LabServices implements AutoCloseable {

    public record Infrastructure(String jdbcUrl, String username, String password, String bootstrapServers) {
    }

    public record Ports(int commandApi, int projector, int relay) {
        public static final Ports DEFAULT = new Ports(8080, 8081, 8082);
    }

    /** Each service's name in the log, by its configuration name. */
    private static final Map<String, String> SERVICES = Map.of(
            CommandApiApplication.CONFIG_NAME, "command-api",
            OutboxRelayApplication.CONFIG_NAME, "outbox-relay",
            ProjectorApplication.CONFIG_NAME, "projector");
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

    private LabServices(List<ConfigurableApplicationContext> running) {
        this.running = running;
    }

    /** Starts the command API (which migrates the ledger schema), then the relay, then the projector. */
    public static LabServices start(Infrastructure infrastructure, Ports ports, List<String> passThrough) {
        var running = new ArrayList<ConfigurableApplicationContext>();
        try {
            running.add(run(CommandApiApplication.class, CommandApiApplication.CONFIG_NAME, infrastructure,
                    ports.commandApi(), passThrough));
            running.add(run(OutboxRelayApplication.class, OutboxRelayApplication.CONFIG_NAME, infrastructure,
                    ports.relay(), passThrough));
            // The pipeline page's browser sends its commands to the command API's actual port (0 picks one).
            var projectorArgs = new ArrayList<>(passThrough);
            projectorArgs.add(0, "--projector.page.command-api-url=http://localhost:" + port(running.get(0)));
            running.add(run(ProjectorApplication.class, ProjectorApplication.CONFIG_NAME, infrastructure,
                    ports.projector(), projectorArgs));
            return new LabServices(running);
        } catch (RuntimeException e) {
            new LabServices(running).close();
            throw e;
        }
    }

    /** Starts one more instance of a service, e.g. a relay to replace one that was stopped. */
    public static ConfigurableApplicationContext run(Class<?> application, String configName,
            Infrastructure infrastructure, int port, List<String> passThrough) {
        var service = SERVICES.get(configName);
        ServiceNames.threads(service, THREADS.get(configName));
        if (port > 0) {
            // Tomcat's threads, by port: the request filter names requests, not what Tomcat logs around them.
            ServiceNames.threads(service, "nio-" + port + "-");
        }
        var args = new ArrayList<>(passThrough);
        // Command-line arguments outrank each service's application.yml, so the lab's infrastructure wins.
        args.add("--spring.datasource.url=" + infrastructure.jdbcUrl());
        // The embedded server's admin user migrates; each service connects as its own role (its application.yml).
        args.add("--spring.flyway.user=" + infrastructure.username());
        args.add("--spring.flyway.password=" + infrastructure.password());
        args.add("--spring.kafka.bootstrap-servers=" + infrastructure.bootstrapServers());
        args.add("--server.port=" + port);
        // The lines logged while it starts are its own; so are those of each request it serves.
        MDC.put(ServiceNames.MDC_KEY, service);
        try {
            return new SpringApplicationBuilder(application)
                    .properties("spring.config.name=" + configName)
                    .initializers(context -> ((GenericApplicationContext) context).registerBean("labServiceLogNames",
                            Filter.class, () -> ServiceNames.requestFilter(service)))
                    .run(args.toArray(String[]::new));
        } finally {
            MDC.remove(ServiceNames.MDC_KEY);
        }
    }

    public ConfigurableApplicationContext commandApi() {
        return running.get(0);
    }

    public ConfigurableApplicationContext relay() {
        return running.get(1);
    }

    public ConfigurableApplicationContext projector() {
        return running.get(2);
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
