package dev.ledgerlab.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledgerlab.problems.ProblemType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The README is the front door and docs/ the depth; both stay true to the repository: every relative link names a
 * file that exists (and a heading that exists, when it names one), the README stays short, and the table of problem
 * types is the catalogue the services answer with.
 */
class DocumentationTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("(?m)^#{1,6} (.+)$");
    private static final Pattern PROBLEM_ROW = Pattern.compile("(?m)^\\| (\\d{3}) \\| `urn:ledgerlab:problem:([a-z-]+)` \\|");

    /**
     * The front door and the benchmark's page, each short enough to read in one sitting: the full table of guarantees
     * lives in docs/proofs.md, the history of every measurement in git and bench-results/.
     */
    @Test
    void keepsTheReadmeAndThePerformancePageUnderTwelveKilobytes() throws IOException {
        assertThat(Files.size(ROOT.resolve("README.md"))).isLessThanOrEqualTo(12 * 1024);
        assertThat(Files.size(ROOT.resolve("docs/performance.md"))).isLessThanOrEqualTo(12 * 1024);
    }

    /** The README's map of the code names the files of a deposit's journey, each linked, from HTTP to the balance. */
    @Test
    void mapsTheFilesOfADepositsJourneyInTheReadme() throws IOException {
        var readme = Files.readString(ROOT.resolve("README.md"));
        var map = readme.substring(readme.indexOf("## Read the code"), readme.indexOf("## A short tour"));
        assertThat(map).contains("AccountController.java", "AccountCommands.java", "AccountStore.java",
                "OutboxPublisher.java", "ProjectionWriter.java", "BatchDecision.java", "BalanceController.java");
    }

    @Test
    void resolvesEveryRelativeLinkOfTheReadmeAndTheDocs() throws IOException {
        var broken = new ArrayList<String>();
        for (var page : pages()) {
            var text = Files.readString(page);
            var matcher = LINK.matcher(text);
            while (matcher.find()) {
                var target = matcher.group(1);
                if (target.matches("^[a-z]+:.*")) {
                    continue;
                }
                var hash = target.indexOf('#');
                var file = hash < 0 ? target : target.substring(0, hash);
                var anchor = hash < 0 ? null : target.substring(hash + 1);
                var resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                if (!Files.exists(resolved)) {
                    broken.add(ROOT.relativize(page) + ": " + target + " (no such file)");
                } else if (anchor != null && !anchors(resolved).contains(anchor)) {
                    broken.add(ROOT.relativize(page) + ": " + target + " (no such heading)");
                }
            }
        }
        assertThat(broken).isEmpty();
    }

    @Test
    void listsExactlyTheProblemTypesOfTheCatalogueWithTheirStatus() throws IOException {
        var documented = new TreeMap<String, Integer>();
        var matcher = PROBLEM_ROW.matcher(Files.readString(ROOT.resolve("docs/http-api.md")));
        while (matcher.find()) {
            assertThat(documented.put(matcher.group(2), Integer.parseInt(matcher.group(1))))
                    .as("%s listed once", matcher.group(2)).isNull();
        }
        var catalogue = new TreeMap<String, Integer>();
        Arrays.stream(ProblemType.values()).forEach(type -> catalogue.put(type.slug(), type.status().value()));

        assertThat(documented).isEqualTo(catalogue);
    }

    private static List<Path> pages() throws IOException {
        var pages = new ArrayList<Path>();
        pages.add(ROOT.resolve("README.md"));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    /** The anchors GitHub makes of a page's headings: lower case, punctuation dropped, spaces to dashes. */
    private static Set<String> anchors(Path page) throws IOException {
        var anchors = new HashSet<String>();
        if (!page.toString().endsWith(".md")) {
            return anchors;
        }
        var matcher = HEADING.matcher(Files.readString(page));
        while (matcher.find()) {
            anchors.add(matcher.group(1).trim().toLowerCase(Locale.ROOT)
                    .replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-'));
        }
        return anchors;
    }
}
