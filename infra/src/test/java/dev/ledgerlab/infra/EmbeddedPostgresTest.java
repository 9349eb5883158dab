package dev.ledgerlab.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class EmbeddedPostgresTest {

    private static final Map<String, String> TEST_SETTINGS = Map.of("fsync", "off", "synchronous_commit", "off");

    private static EmbeddedPostgres shared;

    @BeforeAll
    static void startSharedServer() {
        shared = EmbeddedPostgres.start(TestDirectories.newDirectory("shared").resolve("postgres"),
                EmbeddedStack.freePort(), TEST_SETTINGS);
    }

    @AfterAll
    static void stopSharedServer() {
        if (shared != null) {
            shared.close();
        }
    }

    @Test
    void startsPostgresWithLogicalWalAndNeverAsRoot() throws Exception {
        assertThat(Sql.query(shared.jdbcUrl(), "SHOW wal_level")).isEqualTo("logical");
        assertThat(Sql.query(shared.jdbcUrl(), "SHOW fsync")).isEqualTo("off");
        assertThat(Sql.query(shared.jdbcUrl(), "SELECT current_database()")).isEqualTo("ledger");

        int postmasterUid = uidOf(shared.pid());
        if (OsUser.currentUid() == 0) {
            assertThat(postmasterUid).isEqualTo(OsUser.NOBODY);
            assertThat(OsUser.ownerUid(shared.dataDirectory())).isEqualTo(OsUser.NOBODY);
        }
        else {
            assertThat(postmasterUid).isEqualTo(OsUser.currentUid());
        }
    }

    @Test
    void listensOnTcpOnlySoNoSocketFileIsShared() throws Exception {
        assertThat(Sql.query(shared.jdbcUrl(), "SHOW unix_socket_directories")).isEmpty();
        assertThat(Sql.query(shared.jdbcUrl(), "SHOW listen_addresses")).isEqualTo("127.0.0.1");
    }

    @Test
    void refusesASecondServerOnTheSameDataDirectory() {
        assertThatThrownBy(() -> EmbeddedPostgres.start(shared.dataDirectory(), EmbeddedStack.freePort(), TEST_SETTINGS))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is in use by another running embedded stack");
    }

    @Test
    void keepsPostgresDataAcrossRestart() throws Exception {
        Path data = TestDirectories.newDirectory("restart").resolve("postgres");
        int port = EmbeddedStack.freePort();
        long firstPid;
        int firstUid;
        try (EmbeddedPostgres postgres = EmbeddedPostgres.start(data, port, TEST_SETTINGS)) {
            firstPid = postgres.pid();
            firstUid = uidOf(firstPid);
            Sql.execute(postgres.jdbcUrl(), "CREATE TABLE kept (id int PRIMARY KEY, note text)");
            Sql.execute(postgres.jdbcUrl(), "INSERT INTO kept VALUES (1, 'written before the restart')");
        }
        try (EmbeddedPostgres postgres = EmbeddedPostgres.start(data, port, TEST_SETTINGS)) {
            assertThat(postgres.pid()).isNotEqualTo(firstPid);
            assertThat(uidOf(postgres.pid())).as("the same uid owns the files on every start").isEqualTo(firstUid);
            assertThat(Sql.query(postgres.jdbcUrl(), "SELECT note FROM kept WHERE id = 1")).isEqualTo("written before the restart");
        }
    }

    @Test
    void keepsEveryCommittedRowThroughAKillOfThePostmasterWhenDurable() throws Exception {
        Path data = TestDirectories.newDirectory("crash").resolve("postgres");
        try (EmbeddedPostgres postgres = EmbeddedPostgres.start(data, EmbeddedStack.freePort(),
                Map.of("fsync", "on", "synchronous_commit", "on"))) {
            Sql.execute(postgres.jdbcUrl(), "CREATE TABLE committed (id int PRIMARY KEY)");
            for (int i = 1; i <= 50; i++) {
                Sql.execute(postgres.jdbcUrl(), "INSERT INTO committed VALUES (" + i + ")");
            }
            long killed = postgres.pid();

            postgres.kill();

            assertThat(ProcessHandle.of(killed).filter(ProcessHandle::isAlive)).as("the postmaster is gone").isEmpty();
            assertThatThrownBy(() -> Sql.query(postgres.jdbcUrl(), "SELECT 1")).as("nothing answers")
                    .isInstanceOf(java.sql.SQLException.class);
            postgres.restart();
            assertThat(postgres.pid()).isNotEqualTo(killed);
            assertThat(Sql.query(postgres.jdbcUrl(), "SELECT count(*) FROM committed")).isEqualTo("50");
            assertThat(Sql.query(postgres.jdbcUrl(), "SHOW fsync")).isEqualTo("on");
        }
    }

    @Test
    void runsAnExistingClusterAsTheUserWhoOwnsIt() throws Exception {
        assumeThat(OsUser.currentUid()).as("only a root JVM chooses the uid").isZero();
        Path data = TestDirectories.newDirectory("owner").resolve("postgres");
        int port = EmbeddedStack.freePort();
        EmbeddedPostgres.start(data, port, TEST_SETTINGS).close();
        int owner = 4242;
        Process chown = new ProcessBuilder("chown", "-R", owner + ":" + owner, data.toString(),
                data.resolveSibling("postgres.log").toString()).inheritIO().start();
        assertThat(chown.waitFor()).isZero();

        try (EmbeddedPostgres postgres = EmbeddedPostgres.start(data, port, TEST_SETTINGS)) {
            assertThat(uidOf(postgres.pid())).isEqualTo(owner);
        }
        assertThat(OsUser.ownerUid(data)).isEqualTo(owner);
    }

    @Test
    void refusesAPortUsedByAnotherProcess() throws IOException {
        Path data = TestDirectories.newDirectory("port-taken").resolve("postgres");
        try (ServerSocket stranger = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            int port = stranger.getLocalPort();

            assertThatThrownBy(() -> EmbeddedPostgres.start(data, port, TEST_SETTINGS))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("port " + port + " is in use by another process");
        }
        assertThat(data).doesNotExist();
        try (DirectoryLock released = DirectoryLock.acquire(data.getParent().resolve(".lock"))) {
            assertThat(released.file()).exists();
        }
    }

    @Test
    void namesTheDirectoryThatTheUnprivilegedUserCannotEnter() throws IOException {
        assumeThat(OsUser.currentUid()).as("only a root JVM drops privileges").isZero();
        Path closed = TestDirectories.newDirectory("closed");
        Files.createDirectories(closed);
        Files.setPosixFilePermissions(closed, PosixFilePermissions.fromString("rwx------"));
        Path data = closed.resolve("postgres");

        assertThatThrownBy(() -> EmbeddedPostgres.start(data, EmbeddedStack.freePort(), TEST_SETTINGS))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("uid 65534 cannot enter " + closed)
                .hasMessageContaining("chmod o+x " + closed);
        assertThat(data).doesNotExist();
    }

    /**
     * The real uid of a process, from the kernel's own record rather than anything the process reports about itself.
     */
    static int uidOf(long pid) throws IOException {
        return Files.readAllLines(Path.of("/proc", Long.toString(pid), "status")).stream()
                .filter(line -> line.startsWith("Uid:"))
                .map(line -> Integer.parseInt(line.split("\\s+")[1]))
                .findFirst()
                .orElseThrow();
    }
}
