package dev.ledgerlab.lab;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LabOptionsTest {

    @Test
    void keepsTheClassArchiveOfALabRunningEveryServiceAndTheBrokerInItsJvm() {
        assertThat(LabOptions.parse().runsEverythingInThisJvm()).isTrue();
        assertThat(LabOptions.parse("--fresh", "--services=projector,command-api,outbox-relay")
                .runsEverythingInThisJvm()).isTrue();
    }

    @Test
    void keepsNoClassArchiveOfALabThatLoadsOnlyPartOfTheClasses() {
        assertThat(LabOptions.parse("--services=command-api").runsEverythingInThisJvm()).isFalse();
        assertThat(LabOptions.parse("--services=outbox-relay,projector").runsEverythingInThisJvm()).isFalse();
        assertThat(LabOptions.parse("--kafka-nodes=3").runsEverythingInThisJvm()).isFalse();
    }
}
