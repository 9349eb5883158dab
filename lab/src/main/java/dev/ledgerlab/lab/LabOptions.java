package dev.ledgerlab.lab;

import dev.ledgerlab.infra.EmbeddedStack;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The lab's own command-line options; every other argument goes to the services as Spring Boot properties.
 *
 * @param passThrough arguments such as {@code --logging.level.root=DEBUG}, given to every service
 */
record LabOptions(EmbeddedStack.Settings stack, LabServices.Ports ports, String bind, Set<String> services,
        List<String> passThrough) {

    /** The services listen on the loopback interface only, unless told otherwise. */
    static final String DEFAULT_BIND = "127.0.0.1";

    static final String USAGE = """
            Usage: ./ledger-lab [options] [--spring.property=value ...]
              --fresh                   delete the lab's data and start afresh
              --data-dir=DIR            where PostgreSQL and Kafka keep their data (default: lab-data)
              --postgres-port=N         default %d
              --kafka-port=N            default %d
              --controller-port=N       Kafka's KRaft controller, default %d
              --kafka-nodes=N           1 (default): one broker in the lab's JVM; 3: a cluster of three node
                                        processes, each topic kept on all three, a write needing two; node i
                                        listens on --kafka-port + 10 * (i - 1), its controller likewise
              --command-api-port=N      default 8080
              --projector-port=N        default 8081
              --relay-port=N            default 8082
              --bind=ADDRESS            where the services listen, default %s (this machine only)
              --services=LIST           which to start, default command-api,outbox-relay,projector
              --postgres-setting=N=V    a PostgreSQL server setting (repeatable), e.g. fsync=off for speed at
                                        the cost of durability
              --help                    this text
            """.formatted(EmbeddedStack.Settings.DEFAULT_POSTGRES_PORT, EmbeddedStack.Settings.DEFAULT_KAFKA_PORT,
            EmbeddedStack.Settings.DEFAULT_CONTROLLER_PORT, DEFAULT_BIND);

    /**
     * Whether this lab loads every class a lab can: all three services and the broker in this JVM. Only such a lab's
     * class data archive is worth keeping for every later start (see {@link LedgerLab}).
     */
    boolean runsEverythingInThisJvm() {
        return services.containsAll(LabServices.ALL) && stack.kafkaNodes() == 1;
    }

    static LabOptions parse(String... args) {
        var dataDir = Path.of("lab-data");
        int postgresPort = EmbeddedStack.Settings.DEFAULT_POSTGRES_PORT;
        int kafkaPort = EmbeddedStack.Settings.DEFAULT_KAFKA_PORT;
        int controllerPort = EmbeddedStack.Settings.DEFAULT_CONTROLLER_PORT;
        int commandApiPort = LabServices.Ports.DEFAULT.commandApi();
        int projectorPort = LabServices.Ports.DEFAULT.projector();
        int relayPort = LabServices.Ports.DEFAULT.relay();
        int kafkaNodes = 1;
        boolean fresh = false;
        var bind = DEFAULT_BIND;
        Set<String> services = Set.copyOf(LabServices.ALL);
        var postgresSettings = new java.util.LinkedHashMap<String, String>();
        var passThrough = new ArrayList<String>();
        for (var arg : args) {
            var eq = arg.indexOf('=');
            var name = eq < 0 ? arg : arg.substring(0, eq);
            var value = eq < 0 ? null : arg.substring(eq + 1);
            switch (name) {
                case "--fresh" -> fresh = true;
                case "--data-dir" -> dataDir = Path.of(required(name, value));
                case "--postgres-port" -> postgresPort = port(name, value);
                case "--kafka-port" -> kafkaPort = port(name, value);
                case "--controller-port" -> controllerPort = port(name, value);
                case "--kafka-nodes" -> kafkaNodes = kafkaNodes(name, value);
                case "--command-api-port" -> commandApiPort = port(name, value);
                case "--projector-port" -> projectorPort = port(name, value);
                case "--relay-port" -> relayPort = port(name, value);
                case "--bind" -> bind = required(name, value);
                case "--services" -> services = services(name, value);
                case "--postgres-setting" -> {
                    var setting = required(name, value).split("=", 2);
                    if (setting.length != 2 || setting[0].isBlank()) {
                        throw new IllegalArgumentException(name + " takes NAME=VALUE, not " + value);
                    }
                    postgresSettings.put(setting[0], setting[1]);
                }
                case "--help", "-h" -> throw new IllegalArgumentException(USAGE);
                default -> {
                    if (!arg.startsWith("--") || value == null) {
                        throw new IllegalArgumentException("unknown option " + arg + "\n" + USAGE);
                    }
                    passThrough.add(arg);
                }
            }
        }
        var stack = EmbeddedStack.Settings.under(dataDir)
                .withPostgresPort(postgresPort)
                .withKafkaPort(kafkaPort)
                .withControllerPort(controllerPort)
                .withFresh(fresh)
                .withKafkaNodes(kafkaNodes);
        for (var setting : postgresSettings.entrySet()) {
            stack = stack.withPostgresSetting(setting.getKey(), setting.getValue());
        }
        return new LabOptions(stack, new LabServices.Ports(commandApiPort, projectorPort, relayPort), bind, services,
                List.copyOf(passThrough));
    }

    private static String required(String name, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(name + " needs a value, e.g. " + name + "=...");
        }
        return value;
    }

    private static Set<String> services(String name, String value) {
        var all = List.of(LabServices.COMMAND_API, LabServices.OUTBOX_RELAY, LabServices.PROJECTOR);
        var chosen = new java.util.LinkedHashSet<String>();
        for (var service : required(name, value).split(",")) {
            if (!all.contains(service.strip())) {
                throw new IllegalArgumentException(name + " takes " + String.join(", ", all) + ", not " + service);
            }
            chosen.add(service.strip());
        }
        return Set.copyOf(chosen);
    }

    private static int kafkaNodes(String name, String value) {
        try {
            int nodes = Integer.parseInt(required(name, value));
            if (nodes < 1 || nodes > 5) {
                throw new NumberFormatException();
            }
            return nodes;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a node count from 1 to 5 (3 for a cluster), got " + value);
        }
    }

    private static int port(String name, String value) {
        try {
            int port = Integer.parseInt(required(name, value));
            if (port < 1 || port > 65535) {
                throw new NumberFormatException();
            }
            return port;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a port between 1 and 65535, got " + value);
        }
    }
}
