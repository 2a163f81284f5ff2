package io.sluice.rpc.compiler;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import java.util.HashMap;
import java.util.Map;

/**
 * Maps proto type names to the Java class names protoc's Java generator gives them: {@code
 * java_package} (or the proto package), {@code java_outer_classname} (or the file name in
 * CamelCase, with {@code OuterClass} appended when a message, enum or service of the file, at any
 * depth of nesting, has exactly that name), and {@code java_multiple_files}.
 */
final class JavaNames {
  private final Map<String, String> javaTypes = new HashMap<>();

  JavaNames(Iterable<FileDescriptorProto> files) {
    for (FileDescriptorProto f : files) {
      String protoPrefix = f.getPackage().isEmpty() ? "." : "." + f.getPackage() + ".";
      String javaPrefix = javaPackage(f).isEmpty() ? "" : javaPackage(f) + ".";
      if (!f.getOptions().getJavaMultipleFiles()) {
        javaPrefix += outerClassName(f) + ".";
      }
      for (DescriptorProto m : f.getMessageTypeList()) {
        addMessage(protoPrefix + m.getName(), javaPrefix + m.getName(), m);
      }
      for (EnumDescriptorProto e : f.getEnumTypeList()) {
        javaTypes.put(protoPrefix + e.getName(), javaPrefix + e.getName());
      }
    }
  }

  private void addMessage(String protoName, String javaName, DescriptorProto m) {
    javaTypes.put(protoName, javaName);
    for (DescriptorProto n : m.getNestedTypeList()) {
      addMessage(protoName + "." + n.getName(), javaName + "." + n.getName(), n);
    }
    for (EnumDescriptorProto e : m.getEnumTypeList()) {
      javaTypes.put(protoName + "." + e.getName(), javaName + "." + e.getName());
    }
  }

  /** The Java class of a fully qualified proto type name such as {@code .demo.Hello}. */
  String javaType(String protoType) {
    String t = javaTypes.get(protoType);
    if (t == null) {
      throw new IllegalArgumentException("type " + protoType + " is not in the request's files");
    }
    return t;
  }

  static String javaPackage(FileDescriptorProto f) {
    return f.getOptions().hasJavaPackage() ? f.getOptions().getJavaPackage() : f.getPackage();
  }

  static String outerClassName(FileDescriptorProto f) {
    if (f.getOptions().hasJavaOuterClassname()) {
      return f.getOptions().getJavaOuterClassname();
    }
    String name = f.getName();
    int slash = name.lastIndexOf('/');
    name = name.substring(slash + 1);
    if (name.endsWith(".protodevel")) {
      name = name.substring(0, name.length() - ".protodevel".length());
    } else if (name.endsWith(".proto")) {
      name = name.substring(0, name.length() - ".proto".length());
    }
    String outer = camel(name, true);
    if (clashes(f, outer)) {
      outer += "OuterClass";
    }
    return outer;
  }

  /** Whether a type of the file, nested at any depth, is named exactly {@code name}. */
  private static boolean clashes(FileDescriptorProto f, String name) {
    for (EnumDescriptorProto e : f.getEnumTypeList()) {
      if (e.getName().equals(name)) {
        return true;
      }
    }
    for (ServiceDescriptorProto s : f.getServiceList()) {
      if (s.getName().equals(name)) {
        return true;
      }
    }
    for (DescriptorProto m : f.getMessageTypeList()) {
      if (clashes(m, name)) {
        return true;
      }
    }
    return false;
  }

  private static boolean clashes(DescriptorProto m, String name) {
    if (m.getName().equals(name)) {
      return true;
    }
    for (DescriptorProto n : m.getNestedTypeList()) {
      if (clashes(n, name)) {
        return true;
      }
    }
    for (EnumDescriptorProto e : m.getEnumTypeList()) {
      if (e.getName().equals(name)) {
        return true;
      }
    }
    return false;
  }

  /**
   * protoc's underscores-to-camel-case: letters after a non-alphanumeric character or a digit are
   * upper-cased, the non-alphanumeric characters are dropped.
   */
  static String camel(String s, boolean capitalizeFirst) {
    StringBuilder b = new StringBuilder(s.length());
    boolean upper = capitalizeFirst;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c >= 'a' && c <= 'z') {
        b.append(upper ? Character.toUpperCase(c) : c);
        upper = false;
      } else if (c >= 'A' && c <= 'Z') {
        b.append(i == 0 && !capitalizeFirst ? Character.toLowerCase(c) : c);
        upper = false;
      } else if (c >= '0' && c <= '9') {
        b.append(c);
        upper = true;
      } else {
        upper = true;
      }
    }
    return b.toString();
  }
}
