package io.sluice.rpc.compiler;

import java.util.Set;

/** Java reserved words: a generated identifier that is one gets an underscore appended. */
final class Keywords {
  private static final Set<String> RESERVED =
      Set.of(
          "abstract", "assert", "boolean", "break", "byte", "case", "catch", "char", "class",
          "const", "continue", "default", "do", "double", "else", "enum", "extends", "final",
          "finally", "float", "for", "goto", "if", "implements", "import", "instanceof", "int",
          "interface", "long", "native", "new", "package", "private", "protected", "public",
          "return", "short", "static", "strictfp", "super", "switch", "synchronized", "this",
          "throw", "throws", "transient", "try", "void", "volatile", "while", "true", "false",
          "null", "var", "record", "yield", "sealed", "permits");

  private Keywords() {}

  static String safe(String identifier) {
    return RESERVED.contains(identifier) ? identifier + "_" : identifier;
  }
}
