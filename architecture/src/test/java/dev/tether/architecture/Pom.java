package dev.tether.architecture;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;

/**
 * What one {@code pom.xml} says about the module structure, read literally (no inheritance, no interpolation):
 * its coordinates, its parent, its {@code <modules>} and every {@code <dependency>} element anywhere in it
 * ({@code <dependencies>}, {@code <dependencyManagement>}, profiles, plugin dependencies). Immutable.
 *
 * @param artifactId the module's artifactId
 * @param parentArtifactId the parent's artifactId, or empty when the pom has no parent
 * @param modules the {@code <module>} entries, directories relative to this pom, in declaration order
 * @param dependencies every dependency element, in document order
 */
record Pom(String artifactId, Optional<String> parentArtifactId, List<String> modules, List<Dependency> dependencies) {

    Pom {
        modules = List.copyOf(modules);
        dependencies = List.copyOf(dependencies);
    }

    /**
     * One {@code <dependency>} element as written. An absent {@code type} reads as {@code jar} and an absent
     * {@code scope} as {@code compile}: the strictest reading, since a default inherited from a
     * {@code <dependencyManagement>} is not visible here.
     *
     * @param exclusions {@code groupId:artifactId} of each {@code <exclusion>}
     * @param section where the element sits: {@code dependencies}, {@code dependencyManagement}, {@code plugin} or
     *     {@code profile}
     */
    record Dependency(String groupId, String artifactId, String type, String scope, List<String> exclusions,
                      String section) {

        Dependency {
            exclusions = List.copyOf(exclusions);
        }

        /**
         * Whether this only orders the reactor: the pom of the module, test scope, every transitive dependency
         * excluded. It puts nothing on any classpath, so it is how a module whose tests run another module's
         * packaged jar makes Maven build that module first.
         */
        boolean ordersTheReactorOnly() {
            return type.equals("pom") && scope.equals("test") && exclusions.equals(List.of("*:*"));
        }

        String describe() {
            return groupId + ":" + artifactId + " (type " + type + ", scope " + scope
                    + (exclusions.isEmpty() ? ", no exclusions" : ", exclusions " + exclusions) + ", in <" + section + ">)";
        }
    }

    static Pom read(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return parse(new InputSource(in), file.toString());
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + file, e);
        }
    }

    static Pom parse(String xml) {
        return parse(new InputSource(new StringReader(xml)), "(string)");
    }

    private static Pom parse(InputSource source, String name) {
        Document document;
        try {
            document = builder().parse(source);
        } catch (SAXException | IOException e) {
            throw new IllegalStateException("cannot parse " + name + ": " + e.getMessage(), e);
        }
        Element project = document.getDocumentElement();
        Optional<Element> parent = child(project, "parent");
        String artifactId = child(project, "artifactId").map(Pom::text)
                .orElseThrow(() -> new IllegalStateException(name + " has no <artifactId>"));
        List<String> modules = child(project, "modules").map(m -> children(m, "module").stream().map(Pom::text).toList())
                .orElse(List.of());
        List<Dependency> dependencies = new ArrayList<>();
        NodeList elements = project.getElementsByTagName("dependency");
        for (int i = 0; i < elements.getLength(); i++) {
            dependencies.add(dependency((Element) elements.item(i)));
        }
        return new Pom(artifactId, parent.flatMap(p -> child(p, "artifactId")).map(Pom::text), modules, dependencies);
    }

    private static Dependency dependency(Element element) {
        List<String> exclusions = child(element, "exclusions")
                .map(x -> children(x, "exclusion").stream()
                        .map(e -> textOf(e, "groupId", "") + ":" + textOf(e, "artifactId", ""))
                        .toList())
                .orElse(List.of());
        return new Dependency(textOf(element, "groupId", ""), textOf(element, "artifactId", ""),
                textOf(element, "type", "jar"), textOf(element, "scope", "compile"), exclusions, section(element));
    }

    private static String section(Element dependency) {
        for (Node n = dependency.getParentNode(); n != null; n = n.getParentNode()) {
            String name = n.getNodeName();
            if (name.equals("plugin") || name.equals("dependencyManagement") || name.equals("profile")) {
                return name;
            }
        }
        return "dependencies";
    }

    private static DocumentBuilder builder() {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            return factory.newDocumentBuilder();
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException("the JDK's XML parser refuses its own configuration", e);
        }
    }

    private static String textOf(Element parent, String name, String absent) {
        return child(parent, name).map(Pom::text).orElse(absent);
    }

    private static String text(Element element) {
        return element.getTextContent().strip();
    }

    private static Optional<Element> child(Element parent, String name) {
        List<Element> found = children(parent, name);
        return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> found = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                found.add(e);
            }
        }
        return found;
    }
}
