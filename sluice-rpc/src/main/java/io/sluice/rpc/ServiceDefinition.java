package io.sluice.rpc;

import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.MessageLite;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A service ready to be served: its name, a handler per method and, when known, the protobuf file
 * that declares it. Generated server classes build one from a service implementation. Immutable.
 *
 * <p>Safe to share between threads once built; its {@link Builder} is for one thread. Holds no
 * buffers.
 */
public final class ServiceDefinition implements BindableService {
  private final String name;
  private final Map<String, ServerMethodDefinition<?, ?>> methods;
  private final FileDescriptor fileDescriptor;

  private ServiceDefinition(
      String name, Map<String, ServerMethodDefinition<?, ?>> methods, FileDescriptor fileDescriptor) {
    this.name = name;
    this.methods = Collections.unmodifiableMap(new LinkedHashMap<>(methods));
    this.fileDescriptor = fileDescriptor;
  }

  public static Builder builder(String service) {
    return new Builder(CallMetadata.checkName("service", service));
  }

  /** The fully qualified proto service name. */
  public String name() {
    return name;
  }

  /** The method named {@code method}, or null. */
  public ServerMethodDefinition<?, ?> method(String method) {
    return methods.get(method);
  }

  public Collection<ServerMethodDefinition<?, ?>> methods() {
    return methods.values();
  }

  /**
   * The protobuf file that declares this service (its imports reachable through {@link
   * FileDescriptor#getDependencies()}), or null when unknown: code generated from a {@code .proto}
   * by protoc-gen-sluice sets it, unless the file is {@code optimize_for = LITE_RUNTIME}. Server
   * reflection answers from it.
   */
  public FileDescriptor fileDescriptor() {
    return fileDescriptor;
  }

  @Override
  public ServiceDefinition bindService() {
    return this;
  }

  /** Collects methods; not thread-safe. */
  public static final class Builder {
    private final String name;
    private final Map<String, ServerMethodDefinition<?, ?>> methods = new LinkedHashMap<>();
    private FileDescriptor fileDescriptor;

    private Builder(String name) {
      this.name = name;
    }

    /**
     * The protobuf file that declares the service; optional. It must declare a service of this
     * definition's name.
     */
    public Builder fileDescriptor(FileDescriptor file) {
      Objects.requireNonNull(file, "file");
      String pkg = file.getPackage();
      String simple = pkg.isEmpty() ? name : name.startsWith(pkg + ".") ? name.substring(pkg.length() + 1) : null;
      if (simple == null || file.findServiceByName(simple) == null) {
        throw new IllegalArgumentException(
            "file " + file.getName() + " does not declare service " + name);
      }
      this.fileDescriptor = file;
      return this;
    }

    /** Adds a method of this service; each method once. */
    public <Req extends MessageLite, Resp extends MessageLite> Builder add(
        MethodDescriptor<Req, Resp> method, ServerCallHandler<Req, Resp> handler) {
      Objects.requireNonNull(method, "method");
      if (!method.service().equals(name)) {
        throw new IllegalArgumentException(
            "method " + method.fullName() + " does not belong to service " + name);
      }
      if (methods.putIfAbsent(method.method(), ServerMethodDefinition.of(method, handler)) != null) {
        throw new IllegalArgumentException("method " + method.fullName() + " added twice");
      }
      return this;
    }

    public ServiceDefinition build() {
      return new ServiceDefinition(name, methods, fileDescriptor);
    }
  }
}
