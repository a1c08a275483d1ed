package dev.tether.tools;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;

/**
 * Whether an address is on the public internet, for {@code http_fetch}'s check of what an allowed host name resolves
 * to ({@link HttpFetchPolicy#privateAddresses()}). Not public: the unspecified, loopback, private (RFC 1918, IPv6
 * unique local), shared (carrier-grade NAT), link-local (a cloud's metadata service at 169.254.169.254), IETF protocol,
 * benchmarking, multicast and reserved ranges, and an IPv6 address that embeds an IPv4 address which is not public
 * (IPv4-mapped and -compatible, NAT64, 6to4). Stateless.
 */
final class PublicAddress {

    /** IPv4 ranges that are not public, as {address, prefix length}. */
    private static final int[][] NOT_PUBLIC_V4 = {
            {ipv4(0, 0, 0, 0), 8}, {ipv4(10, 0, 0, 0), 8}, {ipv4(100, 64, 0, 0), 10}, {ipv4(127, 0, 0, 0), 8},
            {ipv4(169, 254, 0, 0), 16}, {ipv4(172, 16, 0, 0), 12}, {ipv4(192, 0, 0, 0), 24}, {ipv4(192, 168, 0, 0), 16},
            {ipv4(198, 18, 0, 0), 15}, {ipv4(224, 0, 0, 0), 4}, {ipv4(240, 0, 0, 0), 4}};

    private PublicAddress() {}

    static boolean isPublic(InetAddress address) {
        if (address instanceof Inet4Address) {
            return isPublicV4(toInt(address.getAddress(), 0));
        }
        if (!(address instanceof Inet6Address)) {
            return false;
        }
        byte[] bytes = address.getAddress();
        int first = Byte.toUnsignedInt(bytes[0]);
        if (address.isAnyLocalAddress() || address.isLoopbackAddress() || address.isLinkLocalAddress()
                || address.isSiteLocalAddress() || address.isMulticastAddress() || (first & 0xfe) == 0xfc) {
            return false; // ::, ::1, fe80::/10, fec0::/10, ff00::/8, fc00::/7
        }
        if (allZero(bytes, 0, 10) && ((bytes[10] == (byte) 0xff && bytes[11] == (byte) 0xff) || allZero(bytes, 10, 12))) {
            return isPublicV4(toInt(bytes, 12)); // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible)
        }
        if (startsWith(bytes, 0x00, 0x64, 0xff, 0x9b) && allZero(bytes, 4, 12)) {
            return isPublicV4(toInt(bytes, 12)); // 64:ff9b::/96, NAT64
        }
        if (startsWith(bytes, 0x20, 0x02)) {
            return isPublicV4(toInt(bytes, 2)); // 2002::/16, 6to4
        }
        return true;
    }

    private static boolean isPublicV4(int address) {
        for (int[] range : NOT_PUBLIC_V4) {
            int mask = -1 << (32 - range[1]);
            if ((address & mask) == range[0]) {
                return false;
            }
        }
        return true;
    }

    private static int ipv4(int a, int b, int c, int d) {
        return a << 24 | b << 16 | c << 8 | d;
    }

    private static int toInt(byte[] bytes, int from) {
        return Byte.toUnsignedInt(bytes[from]) << 24 | Byte.toUnsignedInt(bytes[from + 1]) << 16
                | Byte.toUnsignedInt(bytes[from + 2]) << 8 | Byte.toUnsignedInt(bytes[from + 3]);
    }

    private static boolean allZero(byte[] bytes, int from, int to) {
        for (int i = from; i < to; i++) {
            if (bytes[i] != 0) {
                return false;
            }
        }
        return true;
    }

    private static boolean startsWith(byte[] bytes, int... prefix) {
        for (int i = 0; i < prefix.length; i++) {
            if (Byte.toUnsignedInt(bytes[i]) != prefix[i]) {
                return false;
            }
        }
        return true;
    }
}
