package dev.ledgerlab.lab;

import dev.ledgerlab.testkit.TestHttp;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** {@code ./ledger-lab break ...} as the script runs it ({@link LabBreak}), with the tests' operator password. */
record BreakCommand(int exitCode, String out) {

    /** Runs it against the lab on {@code labPort}; what it printed is echoed to the test's output too. */
    static BreakCommand run(int labPort, String... args) {
        var out = new ByteArrayOutputStream();
        var all = new ArrayList<>(List.of(args));
        all.add("--lab-port=" + labPort);
        int code = LabBreak.run(Map.of(OperatorPassword.ENVIRONMENT, TestHttp.OPERATOR_PASSWORD),
                new PrintStream(out, true, StandardCharsets.UTF_8), System.err, all.toArray(String[]::new));
        var printed = out.toString(StandardCharsets.UTF_8);
        System.out.print(printed);
        return new BreakCommand(code, printed);
    }
}
