package dev.tether.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.UnknownHostException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PublicAddressTest {

    @ParameterizedTest
    @ValueSource(strings = {"93.184.216.34", "8.8.8.8", "1.1.1.1", "100.63.255.255", "100.128.0.0", "172.15.255.255",
            "172.32.0.0", "169.253.255.255", "192.0.1.1", "198.20.0.0", "223.255.255.255",
            "2606:4700:4700::1111", "2001:db9::1", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1"})
    void isPublic(String address) throws UnknownHostException {
        assertThat(PublicAddress.isPublic(InetAddress.getByName(address))).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"0.0.0.0", "0.1.2.3", "10.0.0.1", "10.255.255.255", "100.64.0.1", "100.127.255.255",
            "127.0.0.1", "127.255.255.254", "169.254.169.254", "172.16.0.1", "172.31.255.255", "192.0.0.8",
            "192.168.1.1", "198.18.0.1", "198.19.255.255", "224.0.0.1", "239.255.255.250", "240.0.0.1",
            "255.255.255.255", "::", "::1", "fe80::1", "fec0::1", "fc00::1", "fd12:3456::1", "ff02::1",
            "::ffff:127.0.0.1", "::ffff:169.254.169.254", "::10.0.0.1", "64:ff9b::a00:1", "2002:a00:1::1",
            "2002:7f00:1::"})
    void isNotPublic(String address) throws UnknownHostException {
        assertThat(PublicAddress.isPublic(InetAddress.getByName(address))).isFalse();
    }
}
