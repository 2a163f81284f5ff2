package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./sluice --help} tells the truth: the commands it lists are the ones the script and this
 * jar dispatch, each answers {@code COMMAND --help} with its usage and exit code 0 (through the
 * script too, without building anything), and every option a command's help lists is one its
 * parser accepts, and the other way round.
 */
class HelpTest {
  private static final Pattern OPTION = Pattern.compile("--([a-z][a-z0-9_-]*)");
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    out.reset();
    err.reset();
    return Main.run(
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  /** The command names of the "commands:" section of {@code ./sluice --help}. */
  static Set<String> listedCommands() {
    Set<String> names = new TreeSet<>();
    boolean inCommands = false;
    for (String line : Main.USAGE.split("\n")) {
      if (line.equals("commands:")) {
        inCommands = true;
      } else if (inCommands && line.isBlank()) {
        break;
      } else if (inCommands) {
        Matcher m = Pattern.compile("^  ([a-z][a-z-]*)  ").matcher(line);
        if (m.find()) {
          names.add(m.group(1));
        }
      }
    }
    return names;
  }

  private static Set<String> options(String help) {
    Set<String> names = new TreeSet<>();
    Matcher m = OPTION.matcher(help);
    while (m.find()) {
      names.add(m.group(1));
    }
    names.remove("help");
    return names;
  }

  @Test
  void theCommandsListedAreTheCommandsDispatched() {
    Set<String> dispatched = new TreeSet<>(Main.COMMANDS.keySet());
    dispatched.addAll(Main.SCRIPT_COMMANDS);
    assertThat(listedCommands()).isEqualTo(dispatched);
    // The jar's bench is the in-JVM loop; ./sluice bench never reaches it.
    assertThat(Main.SCRIPT_COMMANDS).contains("bench");
  }

  @Test
  void helpExitsZeroAndPrintsTheOverview() {
    for (String help : List.of("--help", "-h", "help")) {
      assertThat(run(help)).isZero();
      assertThat(out.toString(StandardCharsets.UTF_8)).startsWith("usage: ./sluice <command>");
    }
    assertThat(run()).isEqualTo(2);
    assertThat(out.toString(StandardCharsets.UTF_8)).startsWith("usage: ./sluice <command>");
  }

  @Test
  void everyCommandOfTheJarAnswersHelp() {
    for (Main.Command c : Main.COMMANDS.values()) {
      assertThat(run(c.name(), "--help")).as(c.name()).isZero();
      String printed = out.toString(StandardCharsets.UTF_8);
      assertThat(printed).as(c.name()).startsWith("usage: ").contains(" " + c.name() + " ");
      assertThat(printed.strip()).isEqualTo(c.help());
      assertThat(run("help", c.name())).isZero();
      assertThat(out.toString(StandardCharsets.UTF_8).strip()).isEqualTo(c.help());
    }
  }

  @Test
  void everyOptionAHelpListsIsOneItsParserTakes() {
    for (Main.Command c : Main.COMMANDS.values()) {
      Set<String> accepted = new TreeSet<>(c.options());
      accepted.addAll(c.flags());
      assertThat(options(c.help())).as("options in %s's help", c.name()).isEqualTo(accepted);
      for (String option : c.options()) {
        assertThatCode(() -> c.parse(new String[] {c.name(), "--" + option, "1"}))
            .as(c.name() + " --" + option).doesNotThrowAnyException();
      }
      for (String flag : c.flags()) {
        assertThatCode(() -> c.parse(new String[] {c.name(), "--" + flag}))
            .as(c.name() + " --" + flag).doesNotThrowAnyException();
      }
    }
  }

  @Test
  void aUsageErrorPrintsThatCommandsHelp() {
    assertThat(run("soak", "--hours", "1")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("unknown option --hours")
        .contains(Main.COMMANDS.get("soak").help());
  }

  /**
   * The script's side: {@code ./sluice COMMAND --help} for every listed command, with {@code mvn}
   * and {@code java} replaced by stubs that fail, so help that would build or start a JVM fails.
   */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void theScriptAnswersHelpForEveryListedCommandWithoutBuilding(@TempDir Path stubs)
      throws Exception {
    for (String tool : List.of("mvn", "java")) {
      Path stub = stubs.resolve(tool);
      Files.writeString(stub, "#!/bin/sh\necho \"stub " + tool + " must not run for --help\" >&2\nexit 97\n");
      Files.setPosixFilePermissions(stub, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
    Script top = script(stubs, "--help");
    assertThat(top.exit).as(top.err).isZero();
    assertThat(top.out.strip()).isEqualTo(Main.USAGE);
    assertThat(script(stubs).exit).isEqualTo(2);

    for (String command : listedCommands()) {
      Script s = script(stubs, command, "--help");
      assertThat(s.exit).as("./sluice %s --help: %s", command, s.err).isZero();
      assertThat(s.out).as(command).startsWith("usage: ./sluice " + command);
      Main.Command jar = Main.COMMANDS.get(command);
      if (jar != null && !Main.SCRIPT_COMMANDS.contains(command)) {
        assertThat(s.out.strip()).isEqualTo(jar.help());
      }
      Script viaHelp = script(stubs, "help", command);
      assertThat(viaHelp.exit).as("./sluice help %s: %s", command, viaHelp.err).isZero();
      assertThat(viaHelp.out).isEqualTo(s.out);
    }
    // Help anywhere among the options, as the parsers see it.
    Script late = script(stubs, "bench", "--impl", "sluice", "--help");
    assertThat(late.exit).isZero();
    assertThat(late.out).startsWith("usage: ./sluice bench");
  }

  private record Script(int exit, String out, String err) {}

  private static Script script(Path stubs, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("bash", ROOT.resolve("sluice").toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().put("PATH", stubs + ":" + System.getenv("PATH"));
    pb.environment().put("SLUICE_JAVA", stubs.resolve("java").toString());
    pb.environment().put("SLUICE_MVN", stubs.resolve("mvn").toString());
    Path outFile = Files.createTempFile(stubs, "out", ".txt");
    Path errFile = Files.createTempFile(stubs, "err", ".txt");
    pb.redirectOutput(outFile.toFile()).redirectError(errFile.toFile());
    Process p = pb.start();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("./sluice " + String.join(" ", args) + " did not finish");
    }
    return new Script(
        p.exitValue(),
        Files.readString(outFile, StandardCharsets.UTF_8),
        Files.readString(errFile, StandardCharsets.UTF_8));
  }
}
