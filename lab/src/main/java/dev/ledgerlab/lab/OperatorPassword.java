package dev.ledgerlab.lab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * The operator's password for the lab's services: the one given ({@code --ledger.lab.operator.password=} or
 * {@code LEDGER_LAB_OPERATOR_PASSWORD}), else the one the lab generated before into its data directory, else a new
 * one written there, readable by its owner only. Spring Security checks it; this only chooses it.
 *
 * @param source where it came from, for the banner
 */
record OperatorPassword(String password, String source) {

    static final String ENVIRONMENT = "LEDGER_LAB_OPERATOR_PASSWORD";
    static final String ARGUMENT = "--ledger.lab.operator.password=";
    static final String FILE = "operator-password";

    static OperatorPassword choose(List<String> passThrough, Map<String, String> environment, Path dataDirectory) {
        for (var arg : passThrough) {
            if (arg.startsWith(ARGUMENT) && !arg.substring(ARGUMENT.length()).isBlank()) {
                return new OperatorPassword(arg.substring(ARGUMENT.length()), "the command line");
            }
        }
        var given = environment.get(ENVIRONMENT);
        if (given != null && !given.isBlank()) {
            return new OperatorPassword(given, ENVIRONMENT);
        }
        var file = dataDirectory.resolve(FILE);
        try {
            if (Files.exists(file)) {
                return new OperatorPassword(Files.readString(file, StandardCharsets.UTF_8).strip(), "kept in " + file);
            }
            var bytes = new byte[18];
            new SecureRandom().nextBytes(bytes);
            var generated = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
            Files.createDirectories(dataDirectory);
            Files.writeString(Files.createFile(file, PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rw-------"))), generated + "\n", StandardCharsets.UTF_8);
            return new OperatorPassword(generated, "generated into " + file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot keep the operator password in " + file, e);
        }
    }

    /** The services' arguments with the password among them, given once. */
    List<String> into(List<String> passThrough) {
        var args = new java.util.ArrayList<String>();
        passThrough.stream().filter(arg -> !arg.startsWith(ARGUMENT)).forEach(args::add);
        args.add(ARGUMENT + password);
        return List.copyOf(args);
    }
}
