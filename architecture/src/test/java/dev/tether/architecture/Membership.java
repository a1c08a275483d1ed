package dev.tether.architecture;

import com.tngtech.archunit.core.domain.JavaClass;
import java.util.Optional;

/** Which module of the build a class was compiled in, and which modules are services. */
interface Membership {

    /**
     * The module (its directory, e.g. {@code session-service}) whose main classes hold this class; empty for a
     * class from outside the build (the JDK, a library). An array type answers for its component type.
     */
    Optional<String> moduleOf(JavaClass javaClass);

    boolean isService(String module);
}
