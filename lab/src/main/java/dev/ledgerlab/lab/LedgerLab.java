package dev.ledgerlab.lab;

import dev.ledgerlab.events.Replication;
import dev.ledgerlab.infra.EmbeddedPostgres;
import dev.ledgerlab.infra.EmbeddedStack;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Starts the whole lab in one JVM: PostgreSQL, Kafka, then the services against them. Stops them in reverse
 * order on Ctrl-C. Data stays in one directory, so a restart continues where the last run stopped.
 */
public final class LedgerLab implements AutoCloseable {

    private final EmbeddedStack stack;
    private final RunningServices services;
    /** With --processes: the endpoint of ./ledger-lab break; null otherwise. */
    private final LabControl control;
    private final OperatorPassword operator;
    private final String bind;

    private LedgerLab(EmbeddedStack stack, RunningServices services, LabControl control, OperatorPassword operator,
            String bind) {
        this.stack = stack;
        this.services = services;
        this.control = control;
        this.operator = operator;
        this.bind = bind;
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
        markClassArchiveWorthKeeping(options);
    }

    /**
     * ./ledger-lab starts a lab without a class data archive with {@code -XX:ArchiveClassesAtExit} and this property;
     * the JVM writes the archive at any exit, and the script keeps it only if this file says the lab came up. A lab of
     * fewer services (or with Kafka nodes of their own) loads only part of the classes, and every later start would
     * map that part and load the rest from the jars: seen, a command API alone left a 111 MB archive without the
     * relay's and the projector's classes.
     */
    private static void markClassArchiveWorthKeeping(LabOptions options) {
        var marker = System.getProperty("ledgerlab.class-archive-up");
        if (marker == null || !options.runsEverythingInThisJvm()) {
            return;
        }
        try {
            Files.writeString(Path.of(marker), "the lab came up: keep the class data archive it writes at exit\n");
        } catch (IOException e) {
            System.err.println("cannot write " + marker + " (the next start writes the class data archive again): " + e);
        }
    }

    /** PostgreSQL and Kafka side by side, the command API as soon as PostgreSQL serves, the rest once Kafka does. */
    static LedgerLab start(LabOptions options) {
        var stack = EmbeddedStack.begin(options.stack());
        try {
            var postgres = stack.postgres();
            var infrastructure = new LabServices.Infrastructure(postgres.jdbcUrl(), postgres.username(),
                    postgres.password(), options.stack().bootstrapServers());
            var operator = OperatorPassword.choose(options.passThrough(), System.getenv(),
                    stack.settings().baseDirectory());
            var args = new java.util.ArrayList<>(operator.into(options.passThrough()));
            args.add("--server.address=" + options.bind());
            // The topics the services create get one copy per node (Replication decides what else that implies),
            // unless told otherwise: a property given twice would reach Spring as a list.
            int nodes = options.stack().kafkaNodes();
            for (var property : List.of("relay.replication-factor", "projector.dead-letter-replication-factor")) {
                if (args.stream().noneMatch(arg -> arg.startsWith("--" + property + "="))) {
                    args.add("--" + property + "=" + nodes);
                }
            }
            if (!options.processes()) {
                return new LedgerLab(stack, LabServices.start(infrastructure, options.ports(), args,
                        options.services(), stack::kafka), null, operator, options.bind());
            }
            var processes = ServiceProcesses.start(infrastructure, options.ports(), options.bind(), args,
                    options.services(), options.projectors(), options.labPort(), stack::kafka);
            try {
                var control = LabControl.start(options.bind(), options.labPort(), operator.password(), processes,
                        stack, PoisonFault.Topics.from(options.passThrough()));
                return new LedgerLab(stack, processes, control, operator, options.bind());
            } catch (RuntimeException e) {
                processes.close();
                throw e;
            }
        } catch (RuntimeException e) {
            stack.close();
            throw e;
        }
    }

    String banner(long startMillis) {
        var postgres = stack.postgres();
        var lines = new StringBuilder("""

                Ledger Lab is up in %.1f s. Data: %s (a restart continues from it; --fresh starts afresh)
                """.formatted(startMillis / 1000.0, stack.settings().baseDirectory()));
        int commandApi = services.port(LabServices.COMMAND_API);
        int projector = services.port(LabServices.PROJECTOR);
        int relay = services.port(LabServices.OUTBOX_RELAY);
        if (commandApi != 0) {
            lines.append("  command API   http://localhost:%d   POST /accounts, POST /accounts/{id}/deposits|withdrawals,"
                    .formatted(commandApi) + " POST /transfers" + pid(LabServices.COMMAND_API) + "\n");
        }
        if (projector != 0) {
            lines.append("  projector     http://localhost:%d   GET /accounts/{id}/balance?minVersion=N, GET /projection/status"
                    .formatted(projector) + pid(LabServices.PROJECTOR) + "\n");
        }
        if (relay != 0) {
            lines.append("  outbox relay  http://localhost:%d   GET /relay/status (Debezium: slot ledger_outbox -> accounts.events)"
                    .formatted(relay) + pid(LabServices.OUTBOX_RELAY) + "\n");
        }
        if (services instanceof ServiceProcesses processes) {
            processes.names().stream().filter(name -> name.startsWith(LabServices.PROJECTOR + "-")).forEach(name ->
                    lines.append("  %-13s http://localhost:%d   another member of the group".formatted(name,
                            processes.port(name)) + pid(name) + "\n"));
        }
        if (projector != 0) {
            lines.append("  pipeline page http://localhost:%d/  watch a deposit travel, lag charts, replays (operator)\n"
                    .formatted(projector));
        }
        lines.append("""
                  PostgreSQL    %s   user %s, schemas ledger and projection
                  Kafka         %s   topic accounts.events%s
                  operator      user operator, password %s (%s)
                The services listen on %s only (--bind=ADDRESS to change).
                """.formatted(postgres.jdbcUrl(), postgres.username(), stack.kafka().bootstrapServers(), kafkaNodes(),
                operator.password(), operator.source(), bind));
        if (commandApi != 0) {
            lines.append("Try:  curl -si -X POST localhost:%d/accounts -H 'Content-Type: application/json' -d '{\"owner\":\"alice\"}'\n"
                    .formatted(commandApi));
        }
        if (services instanceof ServiceProcesses) {
            lines.append("Break: ./ledger-lab break kill|freeze|thaw|restart SERVICE (or kill -9 a pid above): the lab"
                    + " starts a killed one again; docs/break-it.md\n");
        }
        return lines.append("Stop: Ctrl-C\n").toString();
    }

    /** A line under the service's with its pid, when it runs in a process of its own. */
    private String pid(String service) {
        var pid = services.pid(service);
        return pid.isPresent() ? "\n" + " ".repeat(35) + "pid " + pid.getAsLong() + " (a JVM of its own)" : "";
    }

    /** The lab's PostgreSQL server. */
    EmbeddedPostgres postgres() {
        return stack.postgres();
    }

    /** The lab's services, whichever way they run. */
    RunningServices services() {
        return services;
    }

    /** For a cluster: what each copy means, and each node with its process. */
    private String kafkaNodes() {
        var replication = Replication.of(stack.settings().kafkaNodes());
        if (replication.replicas() == 1) {
            return "";
        }
        var lines = new StringBuilder(", %d copies, a write needs %d (min.insync.replicas, acks=all)"
                .formatted(replication.replicas(), replication.minInSyncReplicas()));
        stack.kafka().describeNodes().forEach(node -> lines.append("\n    ").append(node));
        return lines.toString();
    }

    @Override
    public void close() {
        if (control != null) {
            control.close();
        }
        services.close();
        stack.close();
    }
}
