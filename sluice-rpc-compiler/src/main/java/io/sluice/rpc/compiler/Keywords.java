package io.sluice.rpc.compiler;

import java.util.Set;

/**
 * The words javac rejects as a method name: a generated method name that is one gets an underscore
 * appended ({@code rpc Default} becomes {@code default_()}).
 *
 * <p>That is the reserved keywords of JLS 17 section 3.9 (with {@code _}) and the literals {@code
 * true}, {@code false} and {@code null} (sections 3.10.3 and 3.10.8), and nothing else. The
 * contextual keywords ({@code var}, {@code yield}, {@code record}, {@code sealed}, {@code permits},
 * {@code module}, {@code open}, {@code with}, ...) are legal method names and stay as they are, as
 * grpc-java keeps them. Generated code only calls such a method qualified ({@code service::yield},
 * {@code client.yield(...)}), since javac refuses an unqualified {@code yield(...)}.
 */
final class Keywords {
  private static final Set<String> RESERVED =
      Set.of(
          "abstract", "assert", "boolean", "break", "byte", "case", "catch", "char", "class",
          "const", "continue", "default", "do", "double", "else", "enum", "extends", "final",
          "finally", "float", "for", "goto", "if", "implements", "import", "instanceof", "int",
          "interface", "long", "native", "new", "package", "private", "protected", "public",
          "return", "short", "static", "strictfp", "super", "switch", "synchronized", "this",
          "throw", "throws", "transient", "try", "void", "volatile", "while", "_",
          "true", "false", "null");

  private Keywords() {}

  static String safe(String identifier) {
    return RESERVED.contains(identifier) ? identifier + "_" : identifier;
  }
}
