package dev.ledgerlab.infra;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;

/**
 * The command line that runs a {@code main} class of this JVM's own classpath in a new JVM: {@code java -cp <classpath>}
 * in tests and from an IDE, or, when this JVM runs from the lab's jar (Spring Boot's {@code PropertiesLauncher}, whose
 * nested jars no plain {@code -cp} can read), {@code java -Dloader.main=<class> -jar <that jar>}.
 */
public final class JavaCommand {

    static final String PROPERTIES_LAUNCHER = "org.springframework.boot.loader.launch.PropertiesLauncher";

    private JavaCommand() {
    }

    public static List<String> of(Class<?> main, List<String> jvmFlags, List<String> args) {
        return of(main.getName(), System.getProperty("java.class.path"), jvmFlags, args);
    }

    public static List<String> of(String main, String classpath, List<String> jvmFlags, List<String> args) {
        var command = new ArrayList<String>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmFlags);
        var launcherJar = launcherJar(classpath);
        if (launcherJar != null) {
            command.add("-Dloader.main=" + main);
            command.add("-jar");
            command.add(launcherJar);
        }
        else {
            command.add("-cp");
            command.add(classpath);
            command.add(main);
        }
        command.addAll(args);
        return List.copyOf(command);
    }

    /** The jar itself when the classpath is one jar started by Spring Boot's PropertiesLauncher; null otherwise. */
    private static String launcherJar(String classpath) {
        if (classpath.contains(File.pathSeparator) || !classpath.endsWith(".jar")) {
            return null;
        }
        try (var jar = new JarFile(classpath)) {
            var manifest = jar.getManifest();
            return manifest != null && PROPERTIES_LAUNCHER.equals(manifest.getMainAttributes().getValue("Main-Class"))
                    ? classpath : null;
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot read the manifest of " + classpath, e);
        }
    }
}
