package dev.tether.tools.sandbox;

import com.sun.security.auth.module.UnixSystem;

/**
 * A Unix user and group: the one a command runs as, which is also the owner of every file and directory the tools
 * create in a workspace, so that commands can change them.
 *
 * @param uid the user id, {@code >= 0}
 * @param gid the group id, {@code >= 0}
 */
public record SandboxUser(int uid, int gid) {

    /** {@code nobody:nogroup} on Debian and most distributions: the default user commands run as under root. */
    public static final SandboxUser NOBODY = new SandboxUser(65534, 65534);

    public SandboxUser {
        if (uid < 0 || gid < 0) {
            throw new IllegalArgumentException("uid and gid must be >= 0, got " + uid + ":" + gid);
        }
    }

    /** The user and group this JVM runs as. */
    public static SandboxUser current() {
        var system = new UnixSystem();
        return new SandboxUser(Math.toIntExact(system.getUid()), Math.toIntExact(system.getGid()));
    }

    /** Whether this is the superuser. */
    public boolean isRoot() {
        return uid == 0;
    }

    @Override
    public String toString() {
        return uid + ":" + gid;
    }
}
