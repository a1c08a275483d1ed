package dev.tether.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.PatternSyntaxException;
import org.junit.jupiter.api.Test;

class GlobTest {

    private static final List<String> PATHS = List.of("App.java", "app.java", "App.javac", "a/App.java",
            "src/main/App.java", "src/App.java", "README", "README.md", "a.b", "a-b", "a^b", "a!b", "x{y}", "x,y",
            "a+b", "a$b", "a(b)", "a|b", "a[b]", "a.txt", "b.txt", "c.txt", "ab", "a\\b", ".hidden", "");

    /** Each glob matches exactly the paths the JDK's glob matcher does. */
    @Test
    void matchesWhatTheJdksGlobMatcherMatches() {
        for (String glob : List.of("*", "**", "*.java", "**/*.java", "src/**", "src/*/*.java", "?pp.java",
                "[Aa]pp.java", "[!A]pp.java", "[a-c].txt", "[^a]*", "{*.md,*.java}", "README{,.md}", "a\\*b",
                "a.b", "a^b", "a!b", "x{y}", "x,y", "a+b", "a$b", "a(b)", "a|b", "a\\[b]", "[a-]*", "[-a]*",
                "a\\\\b", "[.]*", "*}")) {
            var jdk = FileSystems.getDefault().getPathMatcher("glob:" + glob);
            var ours = Glob.compile(glob);
            for (String path : PATHS) {
                assertThat(ours.matcher(path).matches()).as(glob + " on " + path).isEqualTo(jdk.matches(Path.of(path)));
            }
        }
    }

    @Test
    void refusesWhatTheJdkRefuses() {
        for (String glob : List.of("[", "[a", "{a,{b}}", "{a", "a\\", "[a/b]", "[-]", "[z-a]", "[]", "[a-", "[!]")) {
            boolean jdkRefuses = refuses(() -> FileSystems.getDefault().getPathMatcher("glob:" + glob));
            assertThat(refuses(() -> Glob.compile(glob))).as(glob).isEqualTo(jdkRefuses);
        }
        assertThatThrownBy(() -> Glob.compile("{a")).isInstanceOf(PatternSyntaxException.class);
    }

    private static boolean refuses(Runnable compile) {
        try {
            compile.run();
            return false;
        } catch (PatternSyntaxException e) {
            return true;
        }
    }
}
