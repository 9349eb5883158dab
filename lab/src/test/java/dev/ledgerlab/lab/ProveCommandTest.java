package dev.ledgerlab.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code ./ledger-lab prove NAME} runs one proof on its own: every name it knows still names a test class and
 * scenarios that exist, every class of the proofs table is accepted as it is written there, and an unknown name is
 * refused with the list instead of running nothing.
 */
class ProveCommandTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    /** {@code    name) test=Class#scenario ;;} or {@code test='Class#first*+second*'} in the script. */
    private static final Pattern ALIAS = Pattern.compile("(?m)^\\s+([a-z-]+)\\) test='?([A-Za-z#*+]+)'? ;;$");
    private static final Pattern PROOF_LINK = Pattern.compile("\\[`([A-Z][A-Za-z]*Test)(?:\\.[a-zA-Z]+)?`]");
    private static final Map<String, Path> TEST_SOURCES = testSources();

    @Test
    void namesOnlyTestClassesAndScenariosThatExist() throws IOException {
        var aliases = aliases();
        assertThat(aliases).containsKeys("hundred-deposits", "crash-mid-batch", "two-projectors");
        aliases.forEach((name, test) -> {
            var parts = test.split("#", 2);
            var source = testSource(parts[0]);
            assertThat(source).as("%s: the class %s", name, parts[0]).isNotNull();
            if (parts.length == 2) {
                var text = read(source);
                for (var scenario : parts[1].split("\\+")) {
                    var prefix = scenario.replace("*", "");
                    assertThat(text).as("%s: a scenario %s in %s", name, scenario, parts[0])
                            .containsPattern("void " + Pattern.quote(prefix) + "[A-Za-z]*\\(");
                }
            }
        });
    }

    @Test
    void acceptsEveryClassOfTheProofsTableAndRefusesAnUnknownName() throws Exception {
        var table = PROOF_LINK.matcher(read(ROOT.resolve("docs/proofs.md"))).results().map(m -> m.group(1))
                .distinct().toList();
        assertThat(table).contains("ConcurrencyProofTest", "KafkaClusterProofTest");
        for (var proof : table) {
            assertThat(testSource(proof)).as("%s of the proofs table", proof).isNotNull();
        }
        var listing = run("prove");
        assertThat(listing.exit()).isZero();
        assertThat(listing.output()).contains("hundred-deposits", "crash-mid-batch", "two-projectors");
        var unknown = run("prove", "NoSuchProofTest");
        assertThat(unknown.exit()).isEqualTo(2);
        assertThat(unknown.output()).contains("no test class NoSuchProofTest");
        var misspelt = run("prove", "crash-mid-batches");
        assertThat(misspelt.exit()).isEqualTo(2);
        assertThat(misspelt.output()).contains("usage: ./ledger-lab prove");
    }

    private static Map<String, String> aliases() throws IOException {
        var aliases = new LinkedHashMap<String, String>();
        ALIAS.matcher(read(ROOT.resolve("ledger-lab"))).results().forEach(m -> aliases.put(m.group(1), m.group(2)));
        return aliases;
    }

    /** The source of a test class in any module, as the script finds it; null if there is none. */
    private static Path testSource(String simpleName) {
        return TEST_SOURCES.get(simpleName + ".java");
    }

    /** Every test source of every module by file name, read once. */
    private static Map<String, Path> testSources() {
        try (Stream<Path> modules = Files.list(ROOT)) {
            var sources = new HashMap<String, Path>();
            var testDirectories = modules.map(module -> module.resolve("src/test/java")).filter(Files::isDirectory)
                    .toList();
            for (var tests : testDirectories) {
                try (Stream<Path> files = Files.walk(tests)) {
                    files.forEach(file -> sources.putIfAbsent(file.getFileName().toString(), file));
                }
            }
            return sources;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private record Result(int exit, String output) {
    }

    /** The script with arguments that answer before anything is built. */
    private static Result run(String... args) throws Exception {
        var command = new ArrayList<>(List.of("sh", ROOT.resolve("ledger-lab").toString()));
        command.addAll(List.of(args));
        var process = new ProcessBuilder(command).redirectErrorStream(true).start();
        var output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new Result(process.exitValue(), output);
    }
}
