package dev.ledgerlab.lab;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code ./ledger-lab break FAULT SERVICE}: one fault to one service of a lab running with {@code --processes}, through
 * its operator endpoint ({@link LabControl}), with the operator's password ({@code LEDGER_LAB_OPERATOR_PASSWORD}, else
 * the one the lab keeps in its data directory). Prints what was done and what to watch.
 */
@Command(name = "./ledger-lab break", sortOptions = false, usageHelpWidth = 110, description = {"",
        "Does a fault to a service of a running ./ledger-lab --processes, and says what to watch.", ""})
public final class LabBreak {

    @Parameters(index = "0", paramLabel = "FAULT", description = "status (what runs: pids, states), kill (SIGKILL), "
            + "freeze (SIGSTOP), thaw (SIGCONT), restart (stopped as by Ctrl-C); a killed or restarted service is "
            + "started again by the lab; postgres and kafka-node N: kill (SIGKILL), then restart (it stays down until "
            + "then); add projector: one more member of the group (up to 6); poison projector: a record no contract "
            + "version decodes")
    String fault;

    @Parameters(index = "1", arity = "0..1", paramLabel = "SERVICE", description = "command-api, outbox-relay, "
            + "projector (projector-2, ... with --projectors), postgres or kafka-node N")
    String service;

    @Parameters(index = "2", arity = "0..1", paramLabel = "N", description = "the node, for kafka-node (with "
            + "--kafka-nodes=3): kill kafka-node 2; kafka-node-2 says the same")
    Integer node;

    @Option(names = "--lab-port", paramLabel = "N", description = "the lab's operator port, default ${DEFAULT-VALUE}")
    int labPort = LabOptions.DEFAULT_LAB_PORT;

    @Option(names = "--data-dir", paramLabel = "DIR", description = "where the lab keeps its operator password, "
            + "default ${DEFAULT-VALUE}")
    Path dataDir = Path.of("lab-data");

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "this text")
    boolean help;

    /** {@code ./ledger-lab break status}: what runs, no password needed. */
    static final String STATUS = "status";

    public static void main(String[] args) {
        System.exit(run(System.getenv(), System.out, System.err, args));
    }

    /** Exit code 0 when the fault was done; 1 when the lab refused it or was not there; 2 for a usage mistake. */
    static int run(Map<String, String> environment, PrintStream out, PrintStream err, String... args) {
        var cli = new LabBreak();
        var line = new CommandLine(cli);
        try {
            line.parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            err.println(e.getMessage());
            err.println(line.getUsageMessage(CommandLine.Help.Ansi.OFF));
            return 2;
        }
        if (line.isUsageHelpRequested()) {
            out.println(line.getUsageMessage(CommandLine.Help.Ansi.OFF));
            return 0;
        }
        if (cli.fault.equals(STATUS)) {
            return status(cli.labPort, out, err);
        }
        if (cli.service == null) {
            err.println("which service? " + line.getUsageMessage(CommandLine.Help.Ansi.OFF));
            return 2;
        }
        var password = environment.get(OperatorPassword.ENVIRONMENT);
        if (password == null || password.isBlank()) {
            var file = cli.dataDir.resolve(OperatorPassword.FILE);
            try {
                password = Files.readString(file, StandardCharsets.UTF_8).strip();
            } catch (IOException e) {
                err.println("no operator password: set " + OperatorPassword.ENVIRONMENT + ", or give the --data-dir of"
                        + " a lab that generated one (it keeps it in DIR/" + OperatorPassword.FILE + "; not " + file
                        + ")");
                return 1;
            }
        }
        var target = cli.node == null ? cli.service : cli.service + "-" + cli.node;
        var uri = URI.create("http://127.0.0.1:" + cli.labPort + LabControl.PATH + cli.fault + "/" + target);
        var request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(90))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(("operator:" + password)
                        .getBytes(StandardCharsets.UTF_8)))
                .POST(HttpRequest.BodyPublishers.noBody()).build();
        var response = ask(request, cli.labPort, err);
        if (response == null) {
            return 1;
        }
        var body = JsonMapper.builder().build().readTree(response.body());
        if (response.statusCode() != 200) {
            err.println(response.statusCode() + " " + body.path("type").asString() + ": " + body.path("detail")
                    .asString());
            return 1;
        }
        out.println(body.path("did").asString());
        out.println("watch: " + body.path("watch").asString());
        return 0;
    }

    /** Each process of the lab, a line each: what {@code GET /processes} on the lab's port answers. */
    private static int status(int labPort, PrintStream out, PrintStream err) {
        var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + labPort + LabControl.PROCESSES))
                .timeout(Duration.ofSeconds(10)).GET().build();
        var response = ask(request, labPort, err);
        if (response == null) {
            return 1;
        }
        var body = JsonMapper.builder().build().readTree(response.body());
        body.path("services").forEach(service -> out.printf("%-14s pid %-8s port %-6s %-8s restarts %s%s%n",
                service.path("service").asString(), service.path("pid").asString(), service.path("port").asString(),
                service.path("state").asString(), service.path("restarts").asString(),
                service.has("partitions") ? "  partitions " + service.path("partitions") + "  redelivered "
                        + service.path("redelivered").asString() : ""));
        out.printf("%-14s pid %-8s %s%n", PostgresFaults.TARGET, body.path("postgres").path("pid").asString(),
                body.path("postgres").path("state").asString());
        body.path("kafkaNodes").forEach(node -> out.printf("%-14s pid %-8s %s%n", KafkaNodeFaults.TARGET + "-"
                + node.path("node").asString(), node.path("pid").asString(), node.path("state").asString()));
        return 0;
    }

    /** The lab's answer to {@code request}; null, having said why on {@code err}, when no lab answers. */
    private static HttpResponse<String> ask(HttpRequest request, int labPort, PrintStream err) {
        try {
            return HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build().send(request,
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            err.println("no lab answers on port " + labPort + " (faults need ./ledger-lab --processes): " + e);
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
