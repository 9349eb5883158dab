package dev.ledgerlab.lab;

import dev.ledgerlab.commandapi.CommandApiApplication;
import dev.ledgerlab.infra.EmbeddedStack;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Starts the whole lab in one JVM: PostgreSQL, Kafka, then the services against them. Stops them in reverse
 * order on Ctrl-C. Data stays in one directory, so a restart continues where the last run stopped.
 */
public final class LedgerLab implements AutoCloseable {

    private final EmbeddedStack stack;
    private final List<ConfigurableApplicationContext> services;

    private LedgerLab(EmbeddedStack stack, List<ConfigurableApplicationContext> services) {
        this.stack = stack;
        this.services = services;
    }

    public static void main(String[] args) {
        LabOptions options;
        try {
            options = LabOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        long started = System.nanoTime();
        var lab = start(options);
        Runtime.getRuntime().addShutdownHook(new Thread(lab::close, "ledger-lab-shutdown"));
        System.out.println(lab.banner((System.nanoTime() - started) / 1_000_000));
    }

    static LedgerLab start(LabOptions options) {
        var stack = EmbeddedStack.start(options.stack());
        var services = new ArrayList<ConfigurableApplicationContext>();
        try {
            var postgres = stack.postgres();
            var args = new ArrayList<>(options.passThrough());
            // Command-line arguments outrank each service's application.yml, so the lab's infrastructure wins.
            args.add("--spring.datasource.url=" + postgres.jdbcUrl());
            args.add("--spring.datasource.username=" + postgres.username());
            args.add("--spring.datasource.password=" + postgres.password());
            args.add("--server.port=" + options.commandApiPort());
            services.add(new SpringApplicationBuilder(CommandApiApplication.class).run(args.toArray(String[]::new)));
            return new LedgerLab(stack, services);
        } catch (RuntimeException e) {
            services.forEach(ConfigurableApplicationContext::close);
            stack.close();
            throw e;
        }
    }

    String banner(long startMillis) {
        var postgres = stack.postgres();
        var settings = stack.settings();
        var commandApi = services.get(0).getEnvironment().getProperty("local.server.port");
        return """

                Ledger Lab is up in %.1f s. Data: %s (restart continues from it; --fresh starts afresh)
                  command API   http://localhost:%s   POST /accounts, POST /accounts/{id}/deposits|withdrawals
                  PostgreSQL    %s   user %s, schema ledger
                  Kafka         %s
                  not built yet: outbox relay and projector (the pipeline issue)
                Try:  curl -si -X POST localhost:%s/accounts -H 'Content-Type: application/json' -d '{"owner":"alice"}'
                Stop: Ctrl-C
                """.formatted(startMillis / 1000.0, settings.baseDirectory(), commandApi, postgres.jdbcUrl(),
                postgres.username(), stack.kafka().bootstrapServers(), commandApi);
    }

    @Override
    public void close() {
        for (int i = services.size() - 1; i >= 0; i--) {
            services.get(i).close();
        }
        stack.close();
    }
}
