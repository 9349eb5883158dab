package dev.ledgerlab.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
        assertThat(LabOptions.parse("--processes").runsEverythingInThisJvm()).as("the services in JVMs of their own")
                .isFalse();
        assertThat(LabOptions.parse("--processes").processes()).isTrue();
        assertThat(LabOptions.parse().processes()).isFalse();
        assertThat(LabOptions.parse("--processes", "--projectors=3").projectors()).isEqualTo(3);
        assertThatThrownBy(() -> LabOptions.parse("--projectors=2")).hasMessageContaining("needs --processes");
        assertThatThrownBy(() -> LabOptions.parse("--processes", "--projectors=7")).hasMessageContaining("1 to 6");
    }

    @Test
    void readsEveryOptionAndPassesSpringPropertiesToTheServices() {
        var options = LabOptions.parse("--data-dir=/tmp/elsewhere", "--postgres-port=25432", "--command-api-port=9080",
                "--postgres-setting=fsync=off", "--postgres-setting=work_mem=8MB", "--bind=0.0.0.0",
                "--spring.kafka.consumer.max-poll-records=500", "--fresh");
        assertThat(options.stack().baseDirectory()).hasToString("/tmp/elsewhere");
        assertThat(options.stack().postgresPort()).isEqualTo(25432);
        assertThat(options.stack().fresh()).isTrue();
        assertThat(options.stack().postgresSettings()).containsEntry("fsync", "off").containsEntry("work_mem", "8MB");
        assertThat(options.ports().commandApi()).isEqualTo(9080);
        assertThat(options.bind()).isEqualTo("0.0.0.0");
        assertThat(options.passThrough()).containsExactly("--spring.kafka.consumer.max-poll-records=500");
    }

    @Test
    void refusesWhatIsNeitherAnOptionNorASpringProperty() {
        assertThatThrownBy(() -> LabOptions.parse("fresh")).hasMessageContaining("unknown option fresh");
        assertThatThrownBy(() -> LabOptions.parse("--services=projector,ledger"))
                .hasMessageContaining("not ledger");
        assertThatThrownBy(() -> LabOptions.parse("--postgres-port=many")).hasMessageContaining("--postgres-port");
        assertThatThrownBy(() -> LabOptions.parse("--help")).hasMessageContaining("Usage: ./ledger-lab");
        // Empty values: the current directory (which --fresh would empty), every interface, a nameless setting.
        assertThatThrownBy(() -> LabOptions.parse("--data-dir=", "--fresh")).hasMessageContaining("--data-dir");
        assertThatThrownBy(() -> LabOptions.parse("--bind=")).hasMessageContaining("--bind");
        assertThatThrownBy(() -> LabOptions.parse("--postgres-setting==off"))
                .hasMessageContaining("--postgres-setting");
    }

    @Test
    void takesTheLastValueOfAnOptionGivenTwiceAndAddsUpListsGivenTwice() {
        assertThat(LabOptions.parse("--kafka-port=29092", "--kafka-port=39092").stack().kafkaPort()).isEqualTo(39092);
        assertThat(LabOptions.parse("--services=command-api", "--services=projector").services())
                .containsExactlyInAnyOrder("command-api", "projector");
    }
}
