package io.sluice.rpc.services;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.Descriptors.MethodDescriptor;
import com.google.protobuf.Descriptors.ServiceDescriptor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What server reflection can tell, looked up by file name, symbol and extension: the files of the
 * registered services and everything they import, indexed and serialized once when the service is
 * built. Not changed after construction (and published through final fields), so safe to share
 * between threads. Where two files share a name, or two symbols a full name, the first one added
 * wins.
 */
final class ReflectionIndex {
  private final Map<String, FileDescriptor> files = new LinkedHashMap<>();
  private final Map<String, FileDescriptor> symbols = new HashMap<>();
  /** Extended message full name to extension number to the file declaring the extension. */
  private final Map<String, Map<Integer, FileDescriptor>> extensions = new HashMap<>();
  private final Set<String> messages = new HashSet<>();
  /** Each file serialized as a FileDescriptorProto, by name. */
  private final Map<String, ByteString> serialized = new HashMap<>();

  ReflectionIndex(Iterable<FileDescriptor> roots) {
    for (FileDescriptor f : roots) {
      add(f);
    }
  }

  private void add(FileDescriptor f) {
    if (files.putIfAbsent(f.getName(), f) != null) {
      return;
    }
    serialized.put(f.getName(), f.toProto().toByteString());
    for (FileDescriptor d : f.getDependencies()) {
      add(d);
    }
    for (Descriptor m : f.getMessageTypes()) {
      addMessage(f, m);
    }
    for (EnumDescriptor e : f.getEnumTypes()) {
      symbols.putIfAbsent(e.getFullName(), f);
    }
    for (ServiceDescriptor s : f.getServices()) {
      symbols.putIfAbsent(s.getFullName(), f);
      for (MethodDescriptor m : s.getMethods()) {
        symbols.putIfAbsent(m.getFullName(), f);
      }
    }
    for (FieldDescriptor x : f.getExtensions()) {
      addExtension(f, x);
    }
  }

  private void addMessage(FileDescriptor f, Descriptor m) {
    symbols.putIfAbsent(m.getFullName(), f);
    messages.add(m.getFullName());
    for (Descriptor n : m.getNestedTypes()) {
      addMessage(f, n);
    }
    for (EnumDescriptor e : m.getEnumTypes()) {
      symbols.putIfAbsent(e.getFullName(), f);
    }
    for (FieldDescriptor x : m.getExtensions()) {
      addExtension(f, x);
    }
  }

  private void addExtension(FileDescriptor f, FieldDescriptor x) {
    symbols.putIfAbsent(x.getFullName(), f);
    extensions
        .computeIfAbsent(x.getContainingType().getFullName(), t -> new TreeMap<>())
        .putIfAbsent(x.getNumber(), f);
  }

  /** The file named {@code name}, or null. */
  FileDescriptor file(String name) {
    return files.get(name);
  }

  /**
   * The file declaring {@code symbol}: a message, enum, service, extension (full names) or a method
   * ({@code package.Service.Method}); null if none.
   */
  FileDescriptor fileOfSymbol(String symbol) {
    return symbols.get(symbol);
  }

  /** The file declaring extension {@code number} of message {@code type}, or null. */
  FileDescriptor fileOfExtension(String type, int number) {
    Map<Integer, FileDescriptor> byNumber = extensions.get(type);
    return byNumber == null ? null : byNumber.get(number);
  }

  /** Whether {@code type} is the full name of a known message. */
  boolean isMessage(String type) {
    return messages.contains(type);
  }

  /** The extension numbers of message {@code type} that the known files declare, ascending. */
  List<Integer> extensionNumbers(String type) {
    Map<Integer, FileDescriptor> byNumber = extensions.get(type);
    return byNumber == null ? List.of() : new ArrayList<>(byNumber.keySet());
  }

  /**
   * {@code file} and, after it, every file it imports directly or not, each serialized as a {@code
   * FileDescriptorProto}: what a reflection client needs to rebuild it.
   */
  List<ByteString> withDependencies(FileDescriptor file) {
    Map<String, FileDescriptor> all = new LinkedHashMap<>();
    collect(file, all);
    List<ByteString> out = new ArrayList<>(all.size());
    for (String name : all.keySet()) {
      out.add(serialized.get(name));
    }
    return out;
  }

  private static void collect(FileDescriptor f, Map<String, FileDescriptor> into) {
    if (into.putIfAbsent(f.getName(), f) == null) {
      for (FileDescriptor d : f.getDependencies()) {
        collect(d, into);
      }
    }
  }
}
