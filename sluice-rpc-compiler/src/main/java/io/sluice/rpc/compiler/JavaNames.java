package io.sluice.rpc.compiler;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.Edition;
import com.google.protobuf.DescriptorProtos.EnumDescriptorProto;
import com.google.protobuf.DescriptorProtos.FeatureSet;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import com.google.protobuf.UnknownFieldSet;
import com.google.protobuf.WireFormat;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * Maps proto type names to the Java class names protoc's Java generator gives them: {@code
 * java_package} (or the proto package), then the outer class unless the type is its own class.
 *
 * <p>The outer class is {@code java_outer_classname}, or else the file name in CamelCase: before
 * edition 2024 with {@code OuterClass} appended when a message, enum or service of the file, at any
 * depth of nesting, has exactly that name; from edition 2024 with {@code Proto} appended. A
 * top-level type is its own class when the file sets {@code java_multiple_files} (before edition
 * 2024), or unless it sets {@code features.(pb.java).nest_in_file_class = YES} (from edition 2024).
 */
final class JavaNames {
  /** Field number of {@code (pb.java)} in {@code google.protobuf.FeatureSet}. */
  private static final int JAVA_FEATURES_FIELD = 1001;
  /** Field number of {@code nest_in_file_class} in {@code pb.JavaFeatures}. */
  private static final int NEST_IN_FILE_CLASS_FIELD = 5;
  /** {@code pb.JavaFeatures.NestInFileClassFeature.NestInFileClass.YES}. */
  private static final int NEST_YES = 2;

  private final Map<String, String> javaTypes = new HashMap<>();

  JavaNames(Iterable<FileDescriptorProto> files) {
    for (FileDescriptorProto f : files) {
      String protoPrefix = f.getPackage().isEmpty() ? "." : "." + f.getPackage() + ".";
      String javaPackage = javaPackage(f).isEmpty() ? "" : javaPackage(f) + ".";
      String inOuter = javaPackage + outerClassName(f) + ".";
      boolean editions2024 = edition(f) >= Edition.EDITION_2024_VALUE;
      boolean multipleFiles = f.getOptions().getJavaMultipleFiles();
      for (DescriptorProto m : f.getMessageTypeList()) {
        boolean nested = editions2024 ? nestedByFeature(m.getOptions().getFeatures()) : !multipleFiles;
        addMessage(protoPrefix + m.getName(), (nested ? inOuter : javaPackage) + m.getName(), m);
      }
      for (EnumDescriptorProto e : f.getEnumTypeList()) {
        boolean nested = editions2024 ? nestedByFeature(e.getOptions().getFeatures()) : !multipleFiles;
        javaTypes.put(protoPrefix + e.getName(), (nested ? inOuter : javaPackage) + e.getName());
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

  /**
   * The file's edition as protoc numbers it ({@code EDITION_PROTO2}, {@code EDITION_PROTO3},
   * {@code EDITION_2023}, ...).
   */
  static int edition(FileDescriptorProto f) {
    switch (f.getSyntax()) {
      case "editions":
        return f.getEdition().getNumber();
      case "proto3":
        return Edition.EDITION_PROTO3_VALUE;
      default:
        return Edition.EDITION_PROTO2_VALUE;
    }
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
    if (edition(f) >= Edition.EDITION_2024_VALUE) {
      return outer + "Proto";
    }
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
   * Whether a top-level type's features say {@code (pb.java).nest_in_file_class = YES}; protoc
   * sends the type's own features, and from edition 2024 the default is {@code NO}. Read from the
   * unknown fields, as protoc's request is parsed without extensions.
   */
  private static boolean nestedByFeature(FeatureSet features) {
    UnknownFieldSet.Field java = features.getUnknownFields().getField(JAVA_FEATURES_FIELD);
    int nest = 0;
    if (java != null) {
      for (ByteString bytes : java.getLengthDelimitedList()) {
        CodedInputStream in = bytes.newCodedInput();
        try {
          for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            if (WireFormat.getTagFieldNumber(tag) == NEST_IN_FILE_CLASS_FIELD
                && WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_VARINT) {
              nest = in.readEnum();
            } else {
              in.skipField(tag);
            }
          }
        } catch (IOException e) {
          throw new IllegalArgumentException("cannot read features.(pb.java): " + e);
        }
      }
    }
    return nest == NEST_YES;
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
