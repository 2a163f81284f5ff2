package io.sluice.rpc.compiler;

/**
 * The {@code --sluice_opt} parameters: {@code flavor=reactor}, {@code annotations=javax|jakarta|none}
 * and {@code lite}.
 */
final class PluginOptions {
  static final String HELP =
      "flavor=reactor|futures|grpc|rxjava|mutiny|blocking (default reactor; repeat the option for several),"
          + " annotations=none|javax|jakarta (default none),"
          + " lite (the messages come from --java_out=lite:)";

  /** The flavors the plugin can generate. */
  static final java.util.List<String> FLAVORS =
      java.util.List.of("reactor", "futures", "grpc", "rxjava", "mutiny", "blocking");

  enum Annotations {
    NONE(null),
    JAVAX("javax.annotation.Generated"),
    JAKARTA("jakarta.annotation.Generated");

    final String type;

    Annotations(String type) {
      this.type = type;
    }
  }

  /** The first flavor asked for. */
  final String flavor;
  /** Every flavor asked for, in order, without duplicates. */
  final java.util.List<String> flavors;
  final Annotations annotations;
  /**
   * The message classes are protoc's lite ones ({@code --java_out=lite:}), whose outer classes
   * have no {@code getDescriptor()}: the generated server names no file descriptor, as for a file
   * with {@code optimize_for = LITE_RUNTIME}.
   */
  final boolean lite;

  private PluginOptions(java.util.List<String> flavors, Annotations annotations, boolean lite) {
    this.flavor = flavors.get(0);
    this.flavors = java.util.List.copyOf(flavors);
    this.annotations = annotations;
    this.lite = lite;
  }

  /** Parses the comma-separated parameter; throws {@link IllegalArgumentException} with the reason. */
  static PluginOptions parse(String parameter) {
    java.util.LinkedHashSet<String> flavors = new java.util.LinkedHashSet<>();
    Annotations annotations = Annotations.NONE;
    boolean lite = false;
    if (parameter != null && !parameter.isBlank()) {
      for (String part : parameter.split(",")) {
        String p = part.trim();
        if (p.isEmpty()) {
          continue;
        }
        if (p.equals("lite")) { // as protoc's own --java_out=lite: and protoc-gen-grpc-java's
          lite = true;
          continue;
        }
        int eq = p.indexOf('=');
        if (eq < 0) {
          throw new IllegalArgumentException("option '" + p + "' is not key=value; options: " + HELP);
        }
        String key = p.substring(0, eq).trim();
        String value = p.substring(eq + 1).trim();
        switch (key) {
          case "flavor":
            if (!FLAVORS.contains(value)) {
              throw new IllegalArgumentException(
                  "flavor '" + value + "' is not supported; one of " + String.join(", ", FLAVORS));
            }
            flavors.add(value);
            break;
          case "annotations":
            switch (value) {
              case "none":
                annotations = Annotations.NONE;
                break;
              case "javax":
                annotations = Annotations.JAVAX;
                break;
              case "jakarta":
                annotations = Annotations.JAKARTA;
                break;
              default:
                throw new IllegalArgumentException(
                    "annotations '" + value + "' is not one of none, javax, jakarta");
            }
            break;
          case "lite":
            if (!value.equals("true") && !value.equals("false")) {
              throw new IllegalArgumentException("lite '" + value + "' is not true or false");
            }
            lite = value.equals("true");
            break;
          default:
            throw new IllegalArgumentException("unknown option '" + key + "'; options: " + HELP);
        }
      }
    }
    if (flavors.isEmpty()) {
      flavors.add("reactor");
    }
    return new PluginOptions(new java.util.ArrayList<>(flavors), annotations, lite);
  }
}
