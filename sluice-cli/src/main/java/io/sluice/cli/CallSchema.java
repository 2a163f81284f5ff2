package io.sluice.cli;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.DescriptorValidationException;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.Descriptors.GenericDescriptor;
import com.google.protobuf.Descriptors.MethodDescriptor;
import com.google.protobuf.Descriptors.ServiceDescriptor;
import com.google.protobuf.ExtensionRegistry;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.TypeRegistry;
import io.sluice.rpc.proto.SluiceOptions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * What {@code ./sluice call} knows of a server's services: protobuf files, from the server's
 * reflection service ({@link CallReflection}) or from {@code --proto} ({@link CallProtoFiles}), built
 * into descriptors and indexed by full name. Not thread-safe: one command uses it from one thread.
 */
final class CallSchema {
  /** Parses {@code (sluice.method)} options, so fire-and-forget and idempotent methods are seen. */
  static final ExtensionRegistry EXTENSIONS = extensions();

  private final Map<String, FileDescriptorProto> protos = new LinkedHashMap<>();
  private final Map<String, FileDescriptor> built = new HashMap<>();
  private final Map<String, GenericDescriptor> symbols = new HashMap<>();
  private final Function<String, List<FileDescriptorProto>> fetchFile;

  /**
   * @param fetchFile fetches a file by name and what it imports (null if nothing can fetch)
   */
  CallSchema(Function<String, List<FileDescriptorProto>> fetchFile) {
    this.fetchFile = fetchFile;
  }

  private static ExtensionRegistry extensions() {
    ExtensionRegistry r = ExtensionRegistry.newInstance();
    SluiceOptions.registerAllExtensions(r);
    return r;
  }

  /** Parses a serialized {@code FileDescriptorProto} with Sluice's method options known. */
  static FileDescriptorProto parse(byte[] bytes) {
    try {
      return FileDescriptorProto.parseFrom(bytes, EXTENSIONS);
    } catch (InvalidProtocolBufferException e) {
      throw new CallException("the server sent a file descriptor that does not parse: " + e.getMessage());
    }
  }

  /** Adds files (each name once: the first one wins) and indexes what they declare. */
  void add(List<FileDescriptorProto> files) {
    for (FileDescriptorProto f : files) {
      protos.putIfAbsent(f.getName(), f);
    }
    for (FileDescriptorProto f : files) {
      index(build(f.getName(), new ArrayList<>()));
    }
  }

  private FileDescriptor build(String name, List<String> path) {
    FileDescriptor done = built.get(name);
    if (done != null) {
      return done;
    }
    if (path.contains(name)) {
      throw new CallException("the protobuf files import each other in a cycle: " + path + " -> " + name);
    }
    FileDescriptorProto proto = protos.get(name);
    if (proto == null && fetchFile != null) {
      for (FileDescriptorProto f : fetchFile.apply(name)) {
        protos.putIfAbsent(f.getName(), f);
      }
      proto = protos.get(name);
    }
    if (proto == null) {
      throw new CallException("the protobuf file " + name + " is missing (imported by " + path + ")");
    }
    path.add(name);
    FileDescriptor[] deps = new FileDescriptor[proto.getDependencyCount()];
    for (int i = 0; i < deps.length; i++) {
      deps[i] = build(proto.getDependency(i), path);
    }
    path.remove(path.size() - 1);
    try {
      FileDescriptor f = FileDescriptor.buildFrom(proto, deps);
      built.put(name, f);
      return f;
    } catch (DescriptorValidationException e) {
      throw new CallException("the protobuf file " + name + " does not build: " + e.getMessage());
    }
  }

  private void index(FileDescriptor f) {
    if (symbols.containsKey("file:" + f.getName())) {
      return;
    }
    symbols.put("file:" + f.getName(), f);
    for (FileDescriptor d : f.getDependencies()) {
      index(d);
    }
    for (Descriptor m : f.getMessageTypes()) {
      indexMessage(m);
    }
    for (EnumDescriptor e : f.getEnumTypes()) {
      symbols.putIfAbsent(e.getFullName(), e);
    }
    for (FieldDescriptor x : f.getExtensions()) {
      symbols.putIfAbsent(x.getFullName(), x);
    }
    for (ServiceDescriptor s : f.getServices()) {
      symbols.putIfAbsent(s.getFullName(), s);
      for (MethodDescriptor m : s.getMethods()) {
        symbols.putIfAbsent(m.getFullName(), m);
      }
    }
  }

  private void indexMessage(Descriptor m) {
    symbols.putIfAbsent(m.getFullName(), m);
    for (Descriptor n : m.getNestedTypes()) {
      indexMessage(n);
    }
    for (EnumDescriptor e : m.getEnumTypes()) {
      symbols.putIfAbsent(e.getFullName(), e);
    }
    for (FieldDescriptor f : m.getFields()) {
      symbols.putIfAbsent(f.getFullName(), f);
    }
  }

  /** The descriptor of a symbol already added (a leading dot is allowed), or null. */
  GenericDescriptor find(String symbol) {
    String s = symbol.startsWith(".") ? symbol.substring(1) : symbol;
    return s.startsWith("file:") ? null : symbols.get(s);
  }

  /** Every service of the files added, in the order added. */
  List<ServiceDescriptor> services() {
    List<ServiceDescriptor> out = new ArrayList<>();
    for (GenericDescriptor d : symbols.values()) {
      if (d instanceof ServiceDescriptor) {
        out.add((ServiceDescriptor) d);
      }
    }
    return out;
  }

  /** Every message type known, for JSON's {@code Any}. */
  TypeRegistry typeRegistry() {
    TypeRegistry.Builder b = TypeRegistry.newBuilder();
    for (GenericDescriptor d : symbols.values()) {
      if (d instanceof Descriptor) {
        b.add((Descriptor) d);
      }
    }
    return b.build();
  }
}
