package io.sluice.rpc.compiler;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.DescriptorProtos.Edition;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.MethodDescriptorProto;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import com.google.protobuf.WireFormat;
import com.google.protobuf.compiler.PluginProtos.CodeGeneratorRequest;
import com.google.protobuf.compiler.PluginProtos.CodeGeneratorResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns a {@code CodeGeneratorRequest} into a {@code CodeGeneratorResponse}: a pure function, so
 * golden tests call it directly.
 *
 * <p><b>Threads.</b> In {@code protoc-gen-sluice} it runs inside the protoc plugin process, on its
 * one thread. It keeps no state between calls. Holds no buffers.
 */
public final class Generator {
  /** Field number of {@code (sluice.method)} in {@code google.protobuf.MethodOptions}. */
  public static final int METHOD_OPTIONS_FIELD = 52701;

  private static final int SERVICE_FIELD = 6; // FileDescriptorProto.service
  private static final int METHOD_FIELD = 2; // ServiceDescriptorProto.method

  private Generator() {}

  /** Leading comments by source path ("6,0,2,1" = method 1 of service 0). */
  private static Map<String, String> comments(FileDescriptorProto file) {
    Map<String, String> out = new HashMap<>();
    for (com.google.protobuf.DescriptorProtos.SourceCodeInfo.Location l :
        file.getSourceCodeInfo().getLocationList()) {
      if (l.hasLeadingComments() && !l.getLeadingComments().isBlank()) {
        StringBuilder key = new StringBuilder();
        for (int i = 0; i < l.getPathCount(); i++) {
          if (i > 0) {
            key.append(',');
          }
          key.append(l.getPath(i));
        }
        out.put(key.toString(), l.getLeadingComments().strip());
      }
    }
    return out;
  }

  /** Generates code for every service of the files to generate; errors go into the response. */
  public static CodeGeneratorResponse generate(CodeGeneratorRequest request) {
    CodeGeneratorResponse.Builder out = supported(CodeGeneratorResponse.newBuilder());
    try {
      PluginOptions options = PluginOptions.parse(request.getParameter());
      Map<String, FileDescriptorProto> byName = new HashMap<>();
      for (FileDescriptorProto f : request.getProtoFileList()) {
        byName.put(f.getName(), f);
      }
      JavaNames names = new JavaNames(request.getProtoFileList());
      for (String fileName : request.getFileToGenerateList()) {
        FileDescriptorProto file = byName.get(fileName);
        if (file == null) {
          throw new IllegalArgumentException("file to generate " + fileName + " is not in the request");
        }
        Map<String, String> comments = comments(file);
        for (int si = 0; si < file.getServiceCount(); si++) {
          ServiceDescriptorProto service = file.getService(si);
          List<Method> methods = new ArrayList<>();
          for (int mi = 0; mi < service.getMethodCount(); mi++) {
            Method m = Method.of(file, service, service.getMethod(mi), names);
            m.comment = comments.getOrDefault(SERVICE_FIELD + "," + si + "," + METHOD_FIELD + "," + mi, "");
            methods.add(m);
          }
          Method.distinctNames(methods);
          for (String flavor : options.flavors) {
            if (flavor.equals("reactor")) {
              out.addAllFile(new ReactorGenerator(file, service, methods, options).files());
            } else {
              out.addAllFile(
                  new FlavorGenerator(FlavorGenerator.Flavor.of(flavor), file, service, methods, options).files());
            }
          }
        }
      }
    } catch (IllegalArgumentException e) {
      return supported(CodeGeneratorResponse.newBuilder()).setError("protoc-gen-sluice: " + e.getMessage()).build();
    }
    return out.build();
  }

  /**
   * What the plugin handles: proto3 {@code optional}, and editions from proto2 up to 2024, the
   * editions whose Java class names {@link JavaNames} follows. protoc refuses a later edition's
   * file with a message naming the plugin.
   */
  private static CodeGeneratorResponse.Builder supported(CodeGeneratorResponse.Builder b) {
    return b.setSupportedFeatures(
            CodeGeneratorResponse.Feature.FEATURE_PROTO3_OPTIONAL_VALUE
                | CodeGeneratorResponse.Feature.FEATURE_SUPPORTS_EDITIONS_VALUE)
        .setMinimumEdition(Edition.EDITION_PROTO2_VALUE)
        .setMaximumEdition(Edition.EDITION_2024_VALUE);
  }

  /** What the generator needs of one method. */
  static final class Method {
    final String protoName;
    /** The Java method name; unique in the service (see {@link #distinctNames}). */
    String javaName;
    /** The descriptor's field name; with {@code METHOD_} before it, the name's. */
    String constant;
    final Kind kind;
    final String requestType;
    final String responseType;
    final boolean idempotent;
    final int rank;
    /** The method's leading comment in the .proto, or empty. */
    String comment = "";

    enum Kind {
      UNARY("unary, RSocket request-response", "unary"),
      SERVER_STREAMING("server-streaming, RSocket request-stream", "serverStreaming"),
      CLIENT_STREAMING("client-streaming, RSocket request-channel", "clientStreaming"),
      BIDI_STREAMING("bidi-streaming, RSocket request-channel", "bidiStreaming"),
      FIRE_AND_FORGET("fire-and-forget, RSocket fire-and-forget", "fireAndForget");

      /** How generated javadoc names the kind and the RSocket interaction it maps to. */
      final String interaction;
      /** The runtime's per-kind method name ({@code ClientCalls.unary}, ...). */
      final String camel;

      Kind(String interaction, String camel) {
        this.interaction = interaction;
        this.camel = camel;
      }
    }

    private Method(
        String protoName, Kind kind, String requestType, String responseType, boolean idempotent, int rank) {
      this.protoName = protoName;
      this.javaName = Keywords.safe(JavaNames.camel(protoName, false));
      this.constant = upperSnake(protoName);
      this.kind = kind;
      this.requestType = requestType;
      this.responseType = responseType;
      this.idempotent = idempotent;
      this.rank = rank;
    }

    static Method of(
        FileDescriptorProto file, ServiceDescriptorProto service, MethodDescriptorProto m, JavaNames names) {
      boolean fnf = false;
      boolean idempotent = false;
      int rank = 0;
      UnknownFieldSet.Field f = m.getOptions().getUnknownFields().getField(METHOD_OPTIONS_FIELD);
      if (f != null) {
        for (ByteString bytes : f.getLengthDelimitedList()) {
          CodedInputStream in = bytes.newCodedInput();
          try {
            for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
              int field = WireFormat.getTagFieldNumber(tag);
              if (field == 1 && WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_VARINT) {
                fnf = in.readBool();
              } else if (field == 2 && WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_VARINT) {
                idempotent = in.readBool();
              } else if (field == 3 && WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_VARINT) {
                rank = in.readInt32();
              } else {
                in.skipField(tag);
              }
            }
          } catch (IOException e) {
            throw new IllegalArgumentException("cannot read (sluice.method) of " + m.getName() + ": " + e);
          }
        }
      }
      String where = file.getName() + ": " + service.getName() + "." + m.getName();
      Kind kind;
      if (m.getClientStreaming()) {
        kind = m.getServerStreaming() ? Kind.BIDI_STREAMING : Kind.CLIENT_STREAMING;
      } else {
        kind = m.getServerStreaming() ? Kind.SERVER_STREAMING : Kind.UNARY;
      }
      if (fnf) {
        if (kind != Kind.UNARY) {
          throw new IllegalArgumentException(
              where + " is " + kind + "; (sluice.method).fire_and_forget needs a unary method");
        }
        kind = Kind.FIRE_AND_FORGET;
      }
      return new Method(
          m.getName(),
          kind,
          names.javaType(m.getInputType()),
          names.javaType(m.getOutputType()),
          idempotent,
          rank);
    }

    /**
     * Gives each method of a service its own constants and Java method name. rpc names that
     * differ only in case or underscores ({@code GetItem}, {@code Get_Item}, {@code getItem}) map
     * to the same ones, and a method's constant can be another's name constant ({@code MethodInfo}
     * and {@code METHOD_INFO} of {@code Info}) or {@code SERVICE}. In .proto order, a name already
     * taken gets underscores appended until it is free, so a method keeps its names when others
     * are added after it.
     */
    static void distinctNames(List<Method> methods) {
      Set<String> fields = new HashSet<>();
      fields.add("SERVICE");
      Set<String> javaNames = new HashSet<>();
      for (Method m : methods) {
        String c = m.constant;
        while (fields.contains(c) || fields.contains("METHOD_" + c)) {
          c += "_";
        }
        fields.add(c);
        fields.add("METHOD_" + c);
        m.constant = c;
        String j = m.javaName;
        while (!javaNames.add(j)) {
          j += "_";
        }
        m.javaName = j;
      }
    }

    static String upperSnake(String name) {
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < name.length(); i++) {
        char c = name.charAt(i);
        if (Character.isUpperCase(c) && i > 0) {
          char p = name.charAt(i - 1);
          if (Character.isLowerCase(p) || Character.isDigit(p)) {
            b.append('_');
          }
        }
        b.append(c == '-' || c == '.' ? '_' : Character.toUpperCase(c));
      }
      return b.toString();
    }
  }
}
