package io.sluice.cli;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.GenericDescriptor;
import com.google.protobuf.Descriptors.MethodDescriptor;
import com.google.protobuf.Descriptors.OneofDescriptor;
import com.google.protobuf.Descriptors.ServiceDescriptor;

/**
 * {@code ./sluice call ADDRESS describe SYMBOL}: a symbol as protobuf source, after a line that
 * says what it is ({@code grpc.testing.TestService is a service:}), as grpcurl prints it. Types are
 * fully qualified with a leading dot. Stateless.
 */
final class CallDescribe {
  private CallDescribe() {}

  static String describe(GenericDescriptor d) {
    StringBuilder b = new StringBuilder();
    b.append(d.getFullName()).append(" is ").append(kind(d)).append(":\n");
    if (d instanceof ServiceDescriptor) {
      service(b, (ServiceDescriptor) d);
    } else if (d instanceof MethodDescriptor) {
      method(b, (MethodDescriptor) d, "");
    } else if (d instanceof Descriptor) {
      message(b, (Descriptor) d, "");
    } else if (d instanceof EnumDescriptor) {
      enumType(b, (EnumDescriptor) d, "");
    } else if (d instanceof FieldDescriptor) {
      field(b, (FieldDescriptor) d, "");
    }
    return b.toString().stripTrailing();
  }

  private static String kind(GenericDescriptor d) {
    if (d instanceof ServiceDescriptor) {
      return "a service";
    } else if (d instanceof MethodDescriptor) {
      return "a method";
    } else if (d instanceof Descriptor) {
      return "a message";
    } else if (d instanceof EnumDescriptor) {
      return "an enum";
    } else if (d instanceof FieldDescriptor) {
      return ((FieldDescriptor) d).isExtension() ? "an extension" : "a field";
    }
    return "a symbol";
  }

  private static void service(StringBuilder b, ServiceDescriptor s) {
    b.append("service ").append(s.getName()).append(" {\n");
    for (MethodDescriptor m : s.getMethods()) {
      method(b, m, "  ");
    }
    b.append("}\n");
  }

  private static void method(StringBuilder b, MethodDescriptor m, String indent) {
    b.append(indent).append("rpc ").append(m.getName()).append(" ( ")
        .append(m.isClientStreaming() ? "stream " : "").append('.').append(m.getInputType().getFullName())
        .append(" ) returns ( ")
        .append(m.isServerStreaming() ? "stream " : "").append('.').append(m.getOutputType().getFullName())
        .append(" );\n");
  }

  private static void message(StringBuilder b, Descriptor m, String indent) {
    b.append(indent).append("message ").append(m.getName()).append(" {\n");
    String inner = indent + "  ";
    OneofDescriptor open = null;
    for (FieldDescriptor f : m.getFields()) {
      OneofDescriptor o = f.getRealContainingOneof();
      if (o != open) {
        if (open != null) {
          b.append(inner).append("}\n");
        }
        if (o != null) {
          b.append(inner).append("oneof ").append(o.getName()).append(" {\n");
        }
        open = o;
      }
      field(b, f, o != null ? inner + "  " : inner);
    }
    if (open != null) {
      b.append(inner).append("}\n");
    }
    for (Descriptor n : m.getNestedTypes()) {
      if (!n.getOptions().getMapEntry()) {
        message(b, n, inner);
      }
    }
    for (EnumDescriptor e : m.getEnumTypes()) {
      enumType(b, e, inner);
    }
    b.append(indent).append("}\n");
  }

  private static void field(StringBuilder b, FieldDescriptor f, String indent) {
    b.append(indent);
    if (f.isMapField()) {
      Descriptor entry = f.getMessageType();
      b.append("map<").append(type(entry.findFieldByNumber(1))).append(", ")
          .append(type(entry.findFieldByNumber(2))).append(">");
    } else {
      if (f.isRepeated()) {
        b.append("repeated ");
      } else if (f.toProto().getProto3Optional()) {
        b.append("optional ");
      }
      b.append(type(f));
    }
    b.append(' ').append(f.getName()).append(" = ").append(f.getNumber()).append(";\n");
  }

  private static String type(FieldDescriptor f) {
    switch (f.getType()) {
      case MESSAGE:
      case GROUP:
        return "." + f.getMessageType().getFullName();
      case ENUM:
        return "." + f.getEnumType().getFullName();
      default:
        return f.getType().name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  private static void enumType(StringBuilder b, EnumDescriptor e, String indent) {
    b.append(indent).append("enum ").append(e.getName()).append(" {\n");
    for (EnumValueDescriptor v : e.getValues()) {
      b.append(indent).append("  ").append(v.getName()).append(" = ").append(v.getNumber()).append(";\n");
    }
    b.append(indent).append("}\n");
  }
}
