/**
 * {@code protoc-gen-sluice}, the Sluice protoc plugin: {@link
 * io.sluice.rpc.compiler.SluiceProtocPlugin} reads a {@code CodeGeneratorRequest} from stdin and
 * writes a {@code CodeGeneratorResponse}; {@link io.sluice.rpc.compiler.Generator} is the pure
 * function in between. For each {@code service} the reactor flavor emits {@code Reactor<Service>}
 * (interface, constants, method descriptors), {@code Reactor<Service>Client} and {@code
 * Reactor<Service>Server}. Method options {@code (sluice.method)} (field 52701 of {@code
 * google.protobuf.MethodOptions}) are read from the options' unknown fields, so the plugin needs
 * only protobuf-java.
 */
package io.sluice.rpc.compiler;
