package dev.ledgerlab.lab;

import dev.ledgerlab.infra.EmbeddedStack;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Unmatched;

/**
 * The lab's own command-line options; every other argument goes to the services as Spring Boot properties.
 *
 * @param passThrough arguments such as {@code --logging.level.root=DEBUG}, given to every service
 */
record LabOptions(EmbeddedStack.Settings stack, LabServices.Ports ports, String bind, Set<String> services,
        boolean processes, int projectors, int labPort, List<String> passThrough) {

    /** The lab's own operator endpoint, with --processes: {@code ./ledger-lab break} (LabControl). */
    static final int DEFAULT_LAB_PORT = 8083;

    /** The services listen on the loopback interface only, unless told otherwise. */
    static final String DEFAULT_BIND = "127.0.0.1";

    /** The options as picocli reads them; {@link #parse} checks what it cannot (ranges, the services' names). */
    @Command(name = "./ledger-lab", customSynopsis = "./ledger-lab [options] [--spring.property=value ...]",
            sortOptions = false, usageHelpWidth = 110, description = {"", "Any other --name=value goes to every "
                    + "service as a Spring Boot property, e.g. --logging.level.root=DEBUG.", ""})
    static final class Cli {

        @Option(names = "--fresh", description = "delete the lab's data and start afresh")
        boolean fresh;

        @Option(names = "--data-dir", paramLabel = "DIR",
                description = "where PostgreSQL and Kafka keep their data, default ${DEFAULT-VALUE}")
        Path dataDir = Path.of("lab-data");

        @Option(names = "--postgres-port", paramLabel = "N", description = "default ${DEFAULT-VALUE}")
        int postgresPort = EmbeddedStack.Settings.DEFAULT_POSTGRES_PORT;

        @Option(names = "--kafka-port", paramLabel = "N", description = "default ${DEFAULT-VALUE}")
        int kafkaPort = EmbeddedStack.Settings.DEFAULT_KAFKA_PORT;

        @Option(names = "--controller-port", paramLabel = "N",
                description = "Kafka's KRaft controller, default ${DEFAULT-VALUE}")
        int controllerPort = EmbeddedStack.Settings.DEFAULT_CONTROLLER_PORT;

        @Option(names = "--kafka-nodes", paramLabel = "N", description = {"1 (default): one broker in the lab's JVM; "
                + "3: a cluster of three node processes, each topic kept on all three, a write needing two; node i "
                + "listens on --kafka-port + 10 * (i - 1), its controller likewise"})
        int kafkaNodes = 1;

        @Option(names = "--command-api-port", paramLabel = "N", description = "default ${DEFAULT-VALUE}")
        int commandApiPort = LabServices.Ports.DEFAULT.commandApi();

        @Option(names = "--projector-port", paramLabel = "N", description = "default ${DEFAULT-VALUE}")
        int projectorPort = LabServices.Ports.DEFAULT.projector();

        @Option(names = "--relay-port", paramLabel = "N", description = "default ${DEFAULT-VALUE}")
        int relayPort = LabServices.Ports.DEFAULT.relay();

        @Option(names = "--bind", paramLabel = "ADDRESS",
                description = "where the services listen, default ${DEFAULT-VALUE} (this machine only)")
        String bind = DEFAULT_BIND;

        @Option(names = "--services", paramLabel = "NAME", split = ",",
                description = "which to start, default command-api,outbox-relay,projector")
        List<String> services = List.copyOf(LabServices.ALL);

        @Option(names = "--processes", description = {"each service in a JVM of its own, as in production: kill one "
                + "(its pid is in the banner) and watch the pipeline absorb it while the lab starts it again"})
        boolean processes;

        @Option(names = "--projectors", paramLabel = "N", description = "with --processes, this many projectors in "
                + "the consumer group (projector, projector-2, ...), default 1")
        int projectors = 1;

        @Option(names = "--lab-port", paramLabel = "N", description = "with --processes, where ./ledger-lab break "
                + "reaches the lab (operator only), default ${DEFAULT-VALUE}")
        int labPort = DEFAULT_LAB_PORT;

        @Option(names = "--postgres-setting", paramLabel = "NAME=VALUE", description = "a PostgreSQL server setting "
                + "(repeatable), e.g. fsync=off for speed at the cost of durability")
        Map<String, String> postgresSettings = new LinkedHashMap<>();

        @Option(names = {"-h", "--help"}, usageHelp = true, description = "this text")
        boolean help;

        /** Everything else: Spring Boot properties for the services, checked to be --name=value. */
        @Unmatched
        List<String> passThrough = new ArrayList<>();
    }

    static final String USAGE = new CommandLine(new Cli()).getUsageMessage(CommandLine.Help.Ansi.OFF);

    /**
     * Whether this lab loads every class a lab can: all three services and the broker in this JVM (not
     * {@code --processes}). Only such a lab's class data archive is worth keeping for every later start (see
     * {@link LedgerLab}).
     */
    boolean runsEverythingInThisJvm() {
        return services.containsAll(LabServices.ALL) && stack.kafkaNodes() == 1 && !processes;
    }

    /**
     * The lab's options from its command line. picocli reads them; a mistake, or {@code --help}, is an
     * IllegalArgumentException whose message says what to do, the usage included.
     */
    static LabOptions parse(String... args) {
        var cli = new Cli();
        // As before picocli: an option given twice takes its last value.
        var line = new CommandLine(cli).setOverwrittenOptionsAllowed(true);
        try {
            line.parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            throw new IllegalArgumentException(e.getMessage() + "\n" + USAGE, e);
        }
        if (line.isUsageHelpRequested()) {
            throw new IllegalArgumentException(USAGE);
        }
        // picocli takes "--data-dir=" as an empty value: the current directory, which --fresh would empty.
        required("--data-dir", cli.dataDir.toString());
        // An empty address would make the services listen on every interface.
        required("--bind", cli.bind);
        cli.postgresSettings.keySet().forEach(name -> required("--postgres-setting's name", name));
        for (var arg : cli.passThrough) {
            if (!arg.startsWith("--") || arg.indexOf('=') < 0) {
                throw new IllegalArgumentException("unknown option " + arg + "\n" + USAGE);
            }
        }
        var stack = EmbeddedStack.Settings.under(cli.dataDir)
                .withPostgresPort(port("--postgres-port", cli.postgresPort))
                .withKafkaPort(port("--kafka-port", cli.kafkaPort))
                .withControllerPort(port("--controller-port", cli.controllerPort))
                .withFresh(cli.fresh)
                .withKafkaNodes(kafkaNodes(cli.kafkaNodes));
        for (var setting : cli.postgresSettings.entrySet()) {
            stack = stack.withPostgresSetting(setting.getKey(), setting.getValue());
        }
        var ports = new LabServices.Ports(port("--command-api-port", cli.commandApiPort),
                port("--projector-port", cli.projectorPort), port("--relay-port", cli.relayPort));
        if (cli.projectors < 1 || cli.projectors > 6 || cli.projectors > 1 && !cli.processes) {
            throw new IllegalArgumentException("--projectors takes 1 to 6 (the topic's partitions), and more than one"
                    + " needs --processes; got " + cli.projectors + "\n" + USAGE);
        }
        return new LabOptions(stack, ports, cli.bind, services(cli.services), cli.processes, cli.projectors,
                port("--lab-port", cli.labPort), List.copyOf(cli.passThrough));
    }

    private static String required(String name, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(name + " needs a value\n" + USAGE);
        }
        return value;
    }

    private static Set<String> services(List<String> names) {
        var chosen = new LinkedHashSet<String>();
        for (var service : names) {
            if (!LabServices.ALL.contains(service.strip())) {
                throw new IllegalArgumentException("--services takes " + String.join(", ", LabServices.ALL)
                        + ", not " + service);
            }
            chosen.add(service.strip());
        }
        return Set.copyOf(chosen);
    }

    private static int kafkaNodes(int nodes) {
        if (nodes < 1 || nodes > 5) {
            throw new IllegalArgumentException("--kafka-nodes must be a node count from 1 to 5 (3 for a cluster), got "
                    + nodes);
        }
        return nodes;
    }

    private static int port(String name, int port) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException(name + " must be a port between 1 and 65535, got " + port);
        }
        return port;
    }
}
