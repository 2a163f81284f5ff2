package io.sluice.buildchecks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.lang.module.ResolvedModule;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The published modules and what users see of them: sluice-bom lists exactly them, each names its
 * root package as {@code sluice.module.name}, each jar carries that name as Automatic-Module-Name,
 * and the jars resolve together on the module path.
 *
 * <p>A module of the root pom (any profile) that inherits sluice-parent is published unless it
 * sets {@code maven.deploy.skip}. Modules only built on JDK 21+ (the root pom's jdk21 profile) are
 * checked in the bom and their pom everywhere, and as jars only when this JVM is 21+.
 */
class PublishedModulesTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  /** A module of the root pom: its folder, artifactId, and whether the build needs JDK 21+. */
  record Module(String dir, String artifactId, Element pom, boolean jdk21Only) {
    String property(String name) {
      return childText(child(pom, "properties"), name);
    }

    boolean published() {
      return !"true".equals(property("maven.deploy.skip"));
    }

    boolean builtHere() {
      return !jdk21Only || Runtime.version().feature() >= 21;
    }
  }

  static Element read(Path pom) throws Exception {
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setNamespaceAware(false);
    Document d = f.newDocumentBuilder().parse(pom.toFile());
    return d.getDocumentElement();
  }

  static Element child(Element e, String name) {
    if (e == null) {
      return null;
    }
    for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element && n.getNodeName().equals(name)) {
        return (Element) n;
      }
    }
    return null;
  }

  static String childText(Element e, String name) {
    Element c = child(e, name);
    return c == null ? null : c.getTextContent().strip();
  }

  static List<String> texts(Element e, String tag) {
    List<String> out = new ArrayList<>();
    NodeList nodes = e.getElementsByTagName(tag);
    for (int i = 0; i < nodes.getLength(); i++) {
      out.add(nodes.item(i).getTextContent().strip());
    }
    return out;
  }

  /** The modules of the root pom that inherit sluice-parent, jar-packaged (the bom is not). */
  static List<Module> modules() throws Exception {
    Element root = read(ROOT.resolve("pom.xml"));
    Map<String, Boolean> dirs = new LinkedHashMap<>();
    texts(child(root, "modules"), "module").forEach(m -> dirs.put(m, false));
    Element profiles = child(root, "profiles");
    if (profiles != null) {
      for (Node p = profiles.getFirstChild(); p != null; p = p.getNextSibling()) {
        if (p instanceof Element) {
          Element profileModules = child((Element) p, "modules");
          if (profileModules == null) {
            continue; // a profile of properties and dependencies only (native-io)
          }
          Element activation = child((Element) p, "activation");
          boolean jdk21 = activation != null && "[21,)".equals(childText(activation, "jdk"));
          texts(profileModules, "module").forEach(m -> dirs.putIfAbsent(m, jdk21));
        }
      }
    }
    List<Module> modules = new ArrayList<>();
    for (Map.Entry<String, Boolean> d : dirs.entrySet()) {
      Element pom = read(ROOT.resolve(d.getKey()).resolve("pom.xml"));
      Element parent = child(pom, "parent");
      String packaging = childText(pom, "packaging");
      if (parent == null
          || !"sluice-parent".equals(childText(parent, "artifactId"))
          || "pom".equals(packaging)) {
        continue; // the bom, and the rsocket-java peer on its own netty 4.1 classpath
      }
      modules.add(new Module(d.getKey(), childText(pom, "artifactId"), pom, d.getValue()));
    }
    return modules;
  }

  static List<Module> published() throws Exception {
    return modules().stream().filter(Module::published).collect(Collectors.toList());
  }

  @Test
  void theBomListsExactlyThePublishedModules() throws Exception {
    Element bom = read(ROOT.resolve("sluice-bom/pom.xml"));
    Set<String> listed = new TreeSet<>(texts(child(bom, "dependencyManagement"), "artifactId"));
    Set<String> published =
        published().stream().map(Module::artifactId).collect(Collectors.toCollection(TreeSet::new));
    assertThat(published).as("published modules").isNotEmpty().contains("sluice-core");
    assertThat(listed)
        .as("sluice-bom's artifacts vs. the published modules (no maven.deploy.skip)")
        .isEqualTo(published);
  }

  @Test
  void theProjectAndTheBomCarryTheApacheLicence() throws Exception {
    assertThat(Files.readString(ROOT.resolve("LICENSE")))
        .as("LICENSE at the root")
        .contains("Apache License")
        .contains("Version 2.0, January 2004")
        .contains("TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION");
    // Every published module inherits sluice-parent's <licenses>; the bom does not inherit it.
    for (String pom : List.of("pom.xml", "sluice-bom/pom.xml")) {
      Element license = child(child(read(ROOT.resolve(pom)), "licenses"), "license");
      assertThat(childText(license, "name")).as("licence of " + pom).isEqualTo("Apache License, Version 2.0");
      assertThat(childText(license, "url"))
          .as("licence URL of " + pom)
          .isEqualTo("https://www.apache.org/licenses/LICENSE-2.0.txt");
    }
    for (Module m : published()) {
      assertThat(child(m.pom(), "licenses"))
          .as(m.dir() + " inherits sluice-parent's licence and must not name another")
          .isNull();
    }
  }

  @Test
  void everyModuleHasAModuleNameAndPublishedOnesTheirRootPackage() throws Exception {
    Map<String, String> names = new TreeMap<>();
    for (Module m : modules()) {
      String name = m.property("sluice.module.name");
      assertThat(name).as("sluice.module.name of " + m.dir()).isNotBlank();
      assertThat(isModuleName(name)).as(name + " is a module name").isTrue();
      assertThat(names.put(name, m.dir())).as(name + " used twice").isNull();
      if (!m.published()) {
        continue;
      }
      Path sources = ROOT.resolve(m.dir()).resolve("src/main/java");
      Set<String> packages = new TreeSet<>();
      try (Stream<Path> files = Files.walk(sources)) {
        files
            .filter(p -> p.toString().endsWith(".java"))
            .forEach(p -> packages.add(sources.relativize(p.getParent()).toString().replace(File.separatorChar, '.')));
      }
      // sluice-api (io.sluice, io.sluice.exceptions) and sluice-core (io.sluice.core,
      // io.sluice.internal, io.sluice.transport) share the root io.sluice; every other module's
      // packages are under its name.
      String root = Set.of("io.sluice.api", "io.sluice.core").contains(name) ? "io.sluice" : name;
      assertThat(packages)
          .as("packages of " + m.dir() + " under " + root)
          .isNotEmpty()
          .allSatisfy(p -> assertThat(p.equals(root) || p.startsWith(root + ".")).as(p).isTrue());
    }
  }

  @Test
  void thisModuleDependsOnEveryPublishedModuleSoTheirJarsComeFirst() throws Exception {
    Element self = read(Path.of("pom.xml"));
    Set<String> deps = new TreeSet<>(texts(self, "artifactId"));
    for (Module m : published()) {
      assertThat(deps)
          .as("sluice-build-checks/pom.xml must depend (test scope) on " + m.artifactId())
          .contains(m.artifactId());
    }
  }

  /** The jar of each published module on this test's class path, when the reactor packaged it. */
  static Map<Module, Path> publishedJars() throws Exception {
    List<Path> classPath =
        Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
            .map(Path::of)
            .collect(Collectors.toList());
    Map<Module, Path> jars = new LinkedHashMap<>();
    for (Module m : published()) {
      if (!m.builtHere()) {
        continue;
      }
      Path entry =
          classPath.stream()
              .filter(p -> p.getFileName().toString().startsWith(m.artifactId() + "-")
                  || p.toAbsolutePath().normalize().startsWith(ROOT.resolve(m.dir()).resolve("target")))
              .filter(p -> p.getFileName().toString().matches(
                  java.util.regex.Pattern.quote(m.artifactId()) + "-\\d.*\\.jar|classes"))
              .findFirst()
              .orElseThrow(() -> new AssertionError(m.artifactId() + " is not on the test class path"));
      if (Files.isRegularFile(entry)) {
        jars.put(m, entry);
      }
    }
    return jars;
  }

  @Test
  void everyPublishedJarCarriesItsModuleName() throws Exception {
    Map<Module, Path> jars = publishedJars();
    // mvn test stops before the jars exist (the class path then has target/classes)
    Assumptions.assumeFalse(jars.isEmpty(), "no published jar packaged yet (mvn test)");
    for (Map.Entry<Module, Path> e : jars.entrySet()) {
      String expected = e.getKey().property("sluice.module.name");
      try (JarFile jar = new JarFile(e.getValue().toFile())) {
        assertThat(jar.getManifest().getMainAttributes().getValue("Automatic-Module-Name"))
            .as("Automatic-Module-Name of " + e.getValue())
            .isEqualTo(expected);
      }
      ModuleReference ref = ModuleFinder.of(e.getValue()).findAll().iterator().next();
      assertThat(ref.descriptor().name()).isEqualTo(expected);
      assertThat(ref.descriptor().isAutomatic()).isTrue();
    }
  }

  /** On the module path together: no two published jars share a package (or a name). */
  @Test
  void thePublishedJarsResolveTogetherAsModules() throws Exception {
    Map<Module, Path> jars = publishedJars();
    Assumptions.assumeFalse(jars.isEmpty(), "no published jar packaged yet (mvn test)");
    ModuleFinder finder = ModuleFinder.of(jars.values().toArray(new Path[0]));
    Set<String> names =
        finder.findAll().stream().map(r -> r.descriptor().name()).collect(Collectors.toSet());
    assertThat(names).hasSize(jars.size());
    Configuration cf =
        ModuleLayer.boot().configuration().resolve(finder, ModuleFinder.of(), names);
    Map<String, String> owner = new TreeMap<>();
    for (ResolvedModule m : cf.modules()) {
      ModuleDescriptor d = m.reference().descriptor();
      for (String p : d.packages()) {
        String other = owner.put(p, d.name());
        assertThat(other).as("package " + p + " in " + d.name() + " and " + other).isNull();
      }
    }
  }

  static boolean isModuleName(String name) {
    for (String part : name.split("\\.", -1)) {
      if (part.isEmpty()
          || !Character.isJavaIdentifierStart(part.charAt(0))
          || !part.chars().skip(1).allMatch(Character::isJavaIdentifierPart)) {
        return false;
      }
    }
    return true;
  }
}
