package dev.ledgerlab.proofs.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/** What a service's fault seam said when it fired: its {@code FAULT:} line, and the batch it names. */
public final class Faults {

    private static final Pattern RANGE = Pattern.compile("(\\d+)=\\[(\\d+), (\\d+)]");
    private static final Pattern RECORDS = Pattern.compile("\\((\\d+) records\\)");

    private Faults() {
    }

    /** Waits for the process to stop by its seam (exit code 99) and returns the FAULT line it printed. */
    public static String awaitHalt(ServiceProcess process, Duration timeout) {
        assertThat(process.awaitExit(timeout)).as("%s halted by its fault seam:%n%s", process, process.tail())
                .isEqualTo(99);
        return faultLine(process);
    }

    public static String faultLine(ServiceProcess process) {
        var lines = process.logLines("FAULT: ");
        assertThat(lines).as("the FAULT line of %s", process).isNotEmpty();
        return lines.get(lines.size() - 1);
    }

    /**
     * The FAULT line of a process that froze itself, once it is seen frozen, asserting it is frozen still: it goes on
     * only once the test releases it ({@link ServiceProcess#thaw()}), and a proof that needs it frozen must not run on
     * if it did.
     */
    public static String awaitFrozen(ServiceProcess process, Duration timeout) {
        await().atMost(timeout).until(process::isFrozen);
        var freezing = process.logLines("FAULT: ").stream().filter(line -> line.contains("freezing (SIGSTOP)"))
                .toList();
        assertThat(freezing).as("the freezing FAULT line of %s", process).hasSize(1);
        assertFrozen(process);
        return freezing.get(0);
    }

    /** That the process is stopped (state T) and has not gone on with its batch: called before the test wakes it. */
    public static void assertFrozen(ServiceProcess process) {
        assertThat(process.isFrozen() && process.logLines("resumed (SIGCONT)").isEmpty())
                .as("%s frozen until the test releases it:%n%s", process, process.tail(5)).isTrue();
    }

    /** {partition: [first offset, last offset]} of the batch a projector's FAULT line names. */
    public static Map<Integer, long[]> batchRanges(String faultLine) {
        var ranges = new TreeMap<Integer, long[]>();
        var matcher = RANGE.matcher(faultLine.substring(faultLine.lastIndexOf('{')));
        while (matcher.find()) {
            ranges.put(Integer.parseInt(matcher.group(1)),
                    new long[] {Long.parseLong(matcher.group(2)), Long.parseLong(matcher.group(3))});
        }
        assertThat(ranges).as("batch ranges in %s", faultLine).isNotEmpty();
        return ranges;
    }

    /** The record count of the batch a relay's FAULT line names. */
    public static int batchRecords(String faultLine) {
        var matcher = RECORDS.matcher(faultLine);
        assertThat(matcher.find()).as("a record count in %s", faultLine).isTrue();
        return Integer.parseInt(matcher.group(1));
    }
}
