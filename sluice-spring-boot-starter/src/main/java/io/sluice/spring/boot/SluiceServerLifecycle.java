package io.sluice.spring.boot;

import io.sluice.core.ConnectionOptions;
import io.sluice.rpc.RpcInstrumentation;
import io.sluice.rpc.ServerInterceptor;
import io.sluice.rpc.ServerInterceptors;
import io.sluice.rpc.ServiceDefinition;
import io.sluice.rpc.ServiceRegistry;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.util.ClassUtils;

/**
 * Runs the Sluice server through Spring's lifecycle: binds in {@link #start()}, once every bean
 * exists, serving every Sluice service bean ({@link SluiceServices}); stops in {@link
 * #stop(Runnable)} before the context destroys its beans. With {@code server.shutdown=graceful}
 * (Spring Boot's default) the stop drains: the listener closes at once, live connections are told
 * to start nothing new and their calls in flight may finish within the grace ({@code
 * sluice.server.shutdown-grace}, by default {@code spring.lifecycle.timeout-per-shutdown-phase});
 * with {@code server.shutdown=immediate} connections close at once.
 *
 * <p>Once bound, the port is in the environment as {@code local.sluice.server.port}.
 */
public class SluiceServerLifecycle implements SmartLifecycle, DisposableBean {
  /** The environment property that holds the bound port. */
  public static final String LOCAL_PORT_PROPERTY = "local.sluice.server.port";

  /**
   * The phase: stopped with the web server's graceful shutdown (Spring Boot's is {@code
   * DEFAULT_PHASE - 1024}), before anything of a lower phase, such as the beans its services call.
   */
  public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 1024;

  private static final Log logger = LogFactory.getLog(SluiceServerLifecycle.class);

  /** Where a server is in its life. */
  public enum State {
    NEW,
    RUNNING,
    /** Draining: no longer accepting, calls in flight may finish. */
    STOPPING,
    STOPPED
  }

  private final SluiceServerProperties properties;
  private final ListableBeanFactory beans;
  private final Environment environment;
  private final RpcInstrumentation rsocketInstrumentation;
  private final RpcInstrumentation grpcInstrumentation;
  private final List<ServerInterceptor> interceptors;
  private final List<Consumer<ConnectionOptions.Builder>> customizers;
  private volatile SluiceServerFactory.Handle handle;
  private volatile State state = State.NEW;
  private volatile List<String> services = List.of();

  public SluiceServerLifecycle(
      SluiceServerProperties properties,
      ListableBeanFactory beans,
      Environment environment,
      RpcInstrumentation instrumentation,
      List<SluiceConnectionOptionsCustomizer> customizers) {
    this(properties, beans, environment, instrumentation, customizers, List.of());
  }

  /**
   * @param instrumentation observes every call, on both wires (null: none)
   * @param customizers change the RSocket connections' options, after {@code observability}
   * @param observability metrics and tracing (see {@link SluiceObservability})
   */
  public SluiceServerLifecycle(
      SluiceServerProperties properties,
      ListableBeanFactory beans,
      Environment environment,
      RpcInstrumentation instrumentation,
      List<SluiceConnectionOptionsCustomizer> customizers,
      List<SluiceObservability> observability) {
    this.properties = properties;
    this.beans = beans;
    this.environment = environment;
    List<RpcInstrumentation> rsocket = new ArrayList<>();
    List<RpcInstrumentation> grpc = new ArrayList<>();
    List<ServerInterceptor> chain = new ArrayList<>();
    List<Consumer<ConnectionOptions.Builder>> c = new ArrayList<>();
    rsocket.add(instrumentation);
    grpc.add(instrumentation);
    for (SluiceObservability o : observability) {
      rsocket.add(o.rsocketServer());
      grpc.add(o.grpcServer());
      chain.addAll(o.serverInterceptors());
      c.add(o::customizeConnections);
    }
    this.rsocketInstrumentation = Instrumentations.combine(rsocket);
    this.grpcInstrumentation = Instrumentations.combine(grpc);
    this.interceptors = List.copyOf(chain);
    for (SluiceConnectionOptionsCustomizer customizer : customizers) {
      c.add(customizer::customize);
    }
    this.customizers = List.copyOf(c);
  }

  @Override
  public void start() {
    if (state != State.NEW) {
      return;
    }
    ServiceRegistry registry = intercepted(SluiceServices.registry(beans), interceptors);
    if (properties.isReflection()) {
      registry = withReflection(registry);
    }
    List<String> names = new ArrayList<>();
    for (ServiceDefinition d : registry.services()) {
      names.add(d.name());
    }
    services = List.copyOf(names);
    handle = SluiceServerFactory.start(properties, registry, rsocketInstrumentation, grpcInstrumentation, customizers);
    state = State.RUNNING;
    SocketAddress address = handle.address();
    if (address instanceof InetSocketAddress && environment instanceof ConfigurableEnvironment) {
      publishPort((ConfigurableEnvironment) environment, ((InetSocketAddress) address).getPort());
    }
    logger.info("Sluice server (" + wire() + ") serving " + services + " on " + address);
  }

  /** {@code registry} with every service's calls going through {@code interceptors}. */
  static ServiceRegistry intercepted(ServiceRegistry registry, List<ServerInterceptor> interceptors) {
    if (interceptors.isEmpty()) {
      return registry;
    }
    ServiceRegistry.Builder b = ServiceRegistry.builder();
    for (ServiceDefinition d : registry.services()) {
      b.add(ServerInterceptors.intercept(d, interceptors));
    }
    return b.build();
  }

  /** {@code ReflectionService.withReflection}, when sluice-rpc-services is on the class path. */
  private static ServiceRegistry withReflection(ServiceRegistry registry) {
    String name = "io.sluice.rpc.services.ReflectionService";
    if (!ClassUtils.isPresent(name, SluiceServerLifecycle.class.getClassLoader())) {
      throw new IllegalStateException(
          "sluice.server.reflection=true needs io.sluice:sluice-rpc-services on the class path");
    }
    try {
      Method m = ClassUtils.forName(name, SluiceServerLifecycle.class.getClassLoader())
          .getMethod("withReflection", ServiceRegistry.class);
      return (ServiceRegistry) m.invoke(null, registry);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot add the reflection service", e);
    }
  }

  @SuppressWarnings("unchecked")
  private static void publishPort(ConfigurableEnvironment env, int port) {
    PropertySource<?> source = env.getPropertySources().get("sluice.server.ports");
    if (source == null) {
      env.getPropertySources().addFirst(new MapPropertySource("sluice.server.ports", new java.util.HashMap<>()));
      source = env.getPropertySources().get("sluice.server.ports");
    }
    ((Map<String, Object>) source.getSource()).put(LOCAL_PORT_PROPERTY, port);
  }

  /** The grace of a stop: none for {@code server.shutdown=immediate}. */
  Duration grace() {
    String shutdown = environment.getProperty("server.shutdown", "graceful");
    if ("immediate".equalsIgnoreCase(shutdown.trim())) {
      return Duration.ZERO;
    }
    if (properties.getShutdownGrace() != null) {
      return properties.getShutdownGrace();
    }
    return environment.getProperty("spring.lifecycle.timeout-per-shutdown-phase", Duration.class, Duration.ofSeconds(30));
  }

  @Override
  public void stop(Runnable callback) {
    SluiceServerFactory.Handle h = handle;
    if (h == null || state != State.RUNNING) {
      callback.run();
      return;
    }
    state = State.STOPPING;
    Duration grace = grace();
    logger.info("Sluice server: stopping, calls in flight may finish within " + grace);
    h.stop(grace)
        .whenComplete(
            (v, e) -> {
              state = State.STOPPED;
              callback.run();
            });
  }

  @Override
  public void stop() {
    SluiceServerFactory.Handle h = handle;
    if (h == null || state != State.RUNNING) {
      return;
    }
    state = State.STOPPING;
    Duration grace = grace();
    try {
      h.stop(grace).get(grace.toMillis() + 10_000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      logger.warn("Sluice server: stop did not finish cleanly", e);
    } finally {
      state = State.STOPPED;
    }
  }

  /** Closes at once what a stop left (a context closed without its lifecycle stop). */
  @Override
  public void destroy() {
    SluiceServerFactory.Handle h = handle;
    if (h != null && state != State.STOPPED) {
      state = State.STOPPING;
      h.stop(Duration.ZERO).whenComplete((v, e) -> state = State.STOPPED);
    }
  }

  @Override
  public boolean isRunning() {
    return state == State.RUNNING;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }

  /** Where the server is in its life. */
  public State state() {
    return state;
  }

  /** Accepting new connections: bound, not stopping, listener open. */
  public boolean isAccepting() {
    SluiceServerFactory.Handle h = handle;
    return state == State.RUNNING && h != null && !h.onClose().isDone();
  }

  /** The address bound, or null before {@link #start()}. */
  public SocketAddress address() {
    SluiceServerFactory.Handle h = handle;
    return h == null ? null : h.address();
  }

  /** The port bound, or -1 (not started, or a unix socket). */
  public int port() {
    SocketAddress a = address();
    return a instanceof InetSocketAddress ? ((InetSocketAddress) a).getPort() : -1;
  }

  /** Live connections, or -1 when the transport does not count them (grpc). */
  public int connections() {
    SluiceServerFactory.Handle h = handle;
    return h == null ? 0 : h.connections();
  }

  /** The names of the services served (after {@link #start()}). */
  public List<String> services() {
    return services;
  }

  /** The wire, as sluice.server.transport names it. */
  public String wire() {
    return properties.getTransport().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
  }
}
