package io.sluice.rpc.compiler;

/** The {@code --sluice_opt} parameters: {@code flavor=reactor}, {@code annotations=javax|jakarta|none}. */
final class PluginOptions {
  static final String HELP = "flavor=reactor (default), annotations=none|javax|jakarta (default none)";

  enum Annotations {
    NONE(null),
    JAVAX("javax.annotation.Generated"),
    JAKARTA("jakarta.annotation.Generated");

    final String type;

    Annotations(String type) {
      this.type = type;
    }
  }

  final String flavor;
  final Annotations annotations;

  private PluginOptions(String flavor, Annotations annotations) {
    this.flavor = flavor;
    this.annotations = annotations;
  }

  /** Parses the comma-separated parameter; throws {@link IllegalArgumentException} with the reason. */
  static PluginOptions parse(String parameter) {
    String flavor = "reactor";
    Annotations annotations = Annotations.NONE;
    if (parameter != null && !parameter.isBlank()) {
      for (String part : parameter.split(",")) {
        String p = part.trim();
        if (p.isEmpty()) {
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
            if (!value.equals("reactor")) {
              throw new IllegalArgumentException(
                  "flavor '" + value + "' is not supported; only flavor=reactor is available for now");
            }
            flavor = value;
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
          default:
            throw new IllegalArgumentException("unknown option '" + key + "'; options: " + HELP);
        }
      }
    }
    return new PluginOptions(flavor, annotations);
  }
}
