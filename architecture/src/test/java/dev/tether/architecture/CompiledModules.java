package dev.tether.architecture;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import dev.tether.architecture.Reactor.Module;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The main classes of every module that has main code, imported from the modules' {@code target/classes}, and the
 * module each class was compiled in. Refuses to exist when a module's classes are missing, so no rule can pass
 * for want of classes, or when one class name is compiled in two modules, which would make membership ambiguous.
 * Immutable.
 */
final class CompiledModules implements Membership {

    private final JavaClasses classes;
    private final Map<String, Module> moduleByClassName;
    private final List<Module> modules;

    private CompiledModules(JavaClasses classes, Map<String, Module> moduleByClassName, List<Module> modules) {
        this.classes = classes;
        this.moduleByClassName = Map.copyOf(moduleByClassName);
        this.modules = List.copyOf(modules);
    }

    static CompiledModules of(Reactor reactor) {
        List<Module> withCode = reactor.modules().stream().filter(Module::hasMainCode).toList();
        List<String> missing = withCode.stream().filter(m -> classFiles(m).isEmpty())
                .map(m -> reactor.root().relativize(m.classes()).toString()).toList();
        if (!missing.isEmpty()) {
            throw new IllegalStateException("no compiled classes in " + missing + ": these tests read every module's"
                    + " target/classes, so build the modules first (bin/mvn install -DskipTests; in the whole build"
                    + " the reactor does it, this module comes last)");
        }
        Map<String, Module> moduleByClassName = new HashMap<>();
        Map<String, Set<String>> duplicates = new TreeMap<>();
        for (Module module : withCode) {
            for (String className : classFiles(module)) {
                Module earlier = moduleByClassName.putIfAbsent(className, module);
                if (earlier != null) {
                    duplicates.computeIfAbsent(className, c -> new TreeSet<>(Set.of(earlier.dir()))).add(module.dir());
                }
            }
        }
        if (!duplicates.isEmpty()) {
            throw new IllegalStateException("classes compiled in more than one module: " + duplicates);
        }
        JavaClasses classes = new ClassFileImporter().importPaths(withCode.stream().map(Module::classes).toList());
        return new CompiledModules(classes, moduleByClassName, withCode);
    }

    /** Names of the classes compiled in a module ({@code a.b.C$D}), excluding {@code module-info}. */
    private static List<String> classFiles(Module module) {
        Path root = module.classes();
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(root)) {
            List<String> names = new ArrayList<>();
            files.filter(f -> f.getFileName().toString().endsWith(".class"))
                    .map(f -> root.relativize(f).toString().replace('\\', '/'))
                    .filter(name -> !name.equals("module-info.class"))
                    .forEach(name -> names.add(name.substring(0, name.length() - ".class".length()).replace('/', '.')));
            return names;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + root, e);
        }
    }

    JavaClasses classes() {
        return classes;
    }

    /** The modules whose classes were imported, in the reactor's order. */
    List<Module> modules() {
        return modules;
    }

    /** How many classes each module contributed, by module directory. */
    Map<String, Long> classCounts() {
        Map<String, Long> counts = new TreeMap<>();
        moduleByClassName.values().forEach(m -> counts.merge(m.dir(), 1L, Long::sum));
        return counts;
    }

    @Override
    public Optional<String> moduleOf(JavaClass javaClass) {
        return Optional.ofNullable(moduleByClassName.get(javaClass.getBaseComponentType().getName())).map(Module::dir);
    }

    @Override
    public boolean isService(String module) {
        return modules.stream().anyMatch(m -> m.dir().equals(module) && m.isService());
    }
}
