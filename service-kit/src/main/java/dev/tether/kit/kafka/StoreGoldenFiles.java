package dev.tether.kit.kafka;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.function.BiFunction;
import java.util.stream.Stream;

/**
 * The check each service's {@code StoreGoldenTest} runs on each {@link StoreFormat}: the golden files of every version
 * the format reads, {@code v<version>-<sample>.json} in one directory per store ({@code v0-...} being the unversioned
 * JSON of the releases before versions), are what the format decodes as the samples and what it writes when told to
 * write that version. So a change to a stored type or a step that can no longer read a released encoding, or that
 * writes a different one, fails the build; a new version without golden files fails it too.
 *
 * <p>A golden file is never regenerated once committed: it is the encoding a release wrote. A missing file of the
 * current version is written from today's code and the check fails, so that it is reviewed and committed; a missing
 * file of an older version, or a file of a version or sample the check does not know, fails it.
 */
public final class StoreGoldenFiles {

    private StoreGoldenFiles() {}

    /** {@link #check(StoreFormat, Path, Map, BiFunction)}, every version's files reading as the samples. */
    public static <T> void check(StoreFormat<T> format, Path dir, Map<String, T> samples) {
        check(format, dir, samples, (version, name) -> samples.get(name));
    }

    /**
     * @param format   the format
     * @param dir      its store's golden files
     * @param samples  sample name → the value, as today's code has it; written as each version's file
     * @param readAs   (version, sample name) → the value that version's file must read as: the sample, or, for a version
     *                 that could not hold all of it, the sample as a step carries it up (e.g. with an added field's
     *                 default)
     * @throws AssertionError naming every file that does not read or write as it must
     */
    public static <T> void check(StoreFormat<T> format, Path dir, Map<String, T> samples, BiFunction<Integer, String, T> readAs) {
        var problems = new ArrayList<String>();
        var expected = new TreeSet<String>();
        for (int version = format.oldest(); version <= format.version(); version++) {
            for (var sample : new TreeSet<>(samples.keySet())) {
                String name = "v" + version + "-" + sample + ".json";
                expected.add(name);
                check(format, version, dir.resolve(name), samples.get(sample), readAs.apply(version, sample), problems);
            }
        }
        for (String stray : files(dir)) {
            if (!expected.contains(stray)) {
                problems.add(dir.resolve(stray) + ": a golden file of no version or sample the format has (" + format + ", samples "
                        + new TreeSet<>(samples.keySet()) + ")");
            }
        }
        if (!problems.isEmpty()) {
            throw new AssertionError(String.join("\n", problems));
        }
    }

    private static <T> void check(StoreFormat<T> format, int version, Path file, T sample, T readAs, List<String> problems) {
        String store = format.store();
        try {
            if (!Files.exists(file)) {
                if (version == format.version()) {
                    Files.createDirectories(file.getParent());
                    Files.write(file, format.serialize(store, sample));
                    problems.add(file + ": missing; written from today's code: review it, commit it, run again");
                } else {
                    problems.add(file + ": missing, for version " + version + " (a released encoding: restore it from history)");
                }
                return;
            }
            byte[] golden = Files.readAllBytes(file);
            try {
                T read = format.deserialize(store, golden);
                if (!Objects.equals(read, readAs)) {
                    problems.add(file + ": reads as\n  " + read + "\nnot as\n  " + readAs);
                }
            } catch (StoreFormatException e) {
                problems.add(file + ": no longer reads: " + e.getMessage());
            }
            if (canWrite(format, version)) {
                String written = new String(format.writing(version).serialize(store, sample), StandardCharsets.UTF_8);
                String want = new String(golden, StandardCharsets.UTF_8);
                if (!written.equals(want)) {
                    problems.add(file + ": version " + version + " is now written as\n  " + written + "\nnot as\n  " + want);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean canWrite(StoreFormat<?> format, int version) {
        return format.steps().subList(version - format.oldest(), format.steps().size()).stream().allMatch(s -> s.down().isPresent());
    }

    private static List<String> files(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
