package dev.ledgerlab.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Headless Chromium for the page tests: the system's, through its chromedriver (nothing is downloaded). Without them
 * a test is skipped, saying how to install them; where {@code .ci/run} installed them, a missing browser fails.
 * Screenshots go to {@code target/screenshots/}.
 */
final class Chromium {

    private static final Path BINARY = Path.of(System.getProperty("ledgerlab.chromium", "/usr/bin/chromium"));
    private static final Path DRIVER = Path.of(System.getProperty("ledgerlab.chromedriver", "/usr/bin/chromedriver"));
    private static final Path SCREENSHOTS = Path.of("target", "screenshots");

    private Chromium() {
    }

    /** A new browser; skips the test (or fails it, under .ci/run) when Chromium or its driver is missing. */
    static ChromeDriver open() {
        boolean installed = Files.isExecutable(BINARY) && Files.isExecutable(DRIVER);
        var missing = "no Chromium at " + BINARY + " with its driver at " + DRIVER
                + ": apt-get install chromium chromium-driver (.ci/run does when it runs as root)";
        // .ci/run sets this once it has installed them: there, a missing browser is a failure, not a skip.
        assertThat(installed || !"1".equals(System.getenv("LEDGERLAB_REQUIRE_CHROMIUM"))).as(missing).isTrue();
        assumeTrue(installed, missing);
        var options = new ChromeOptions();
        options.setBinary(BINARY.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,1900");
        var driver = new ChromeDriverService.Builder().usingDriverExecutable(DRIVER.toFile()).usingAnyFreePort()
                .build();
        return new ChromeDriver(driver, options);
    }

    /** The page as it is now, in target/screenshots/NAME.png. */
    static void screenshot(ChromeDriver browser, String name) {
        try {
            Files.createDirectories(SCREENSHOTS);
            Files.write(SCREENSHOTS.resolve(name + ".png"), browser.getScreenshotAs(OutputType.BYTES));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
